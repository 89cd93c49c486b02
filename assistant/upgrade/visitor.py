"""Where one module hits scan targets: the `ast` walk behind `assistant.upgrade.scan`, over the target lookup
of `assistant.upgrade.lookup`.

Names are resolved by Python's scoping rules (`assistant.upgrade.names`: `np.float_` -> `numpy.float_` after
`import numpy as np`), so a local or an attribute that merely shares a name never hits. Receivers the code
types plainly are followed (`assistant.upgrade.receivers`); what stays unknown, the type of `arr` in
`arr.newbyteorder()`, makes at most a possible hit, as `lookup.Member.worth` decides, unless the call passes a
keyword the docs name for that member (`x.fillna(method=…)`, `tbl.select(whereclause=…)`) in a module that imports
the product: that keyword is evidence of the class the bare name is not (`TargetIndex.by_keyword`). So is a gone
member's name that no everyday object has (`x.iteritems()`, `m.from_orm(o)`: `Member.telling`) where the project
names its class: over the five labelled sets' repositories, 49 new exact lines, 47 of them true on reading (the other
two `Categorical.to_list` on an `Index`); where no file named the class, 10 of 10 such lines were false. No guess is
made in a module that does not import the product (on the five labelled sets no guess was lost so, and 71 of 72 guesses
at `BaseModel.json` on two repositories' `response.json()` went), nor on what another library's call returned (`r`
after `r = requests.get(url)`). Hits are placed as the editor shows them: lines, and 1-based columns counted in
characters (`ast` counts UTF-8 bytes).
"""

from __future__ import annotations

import ast
import re
from itertools import pairwise

from assistant.upgrade.asking import ask_for
from assistant.upgrade.instances import held_chain
from assistant.upgrade.lookup import Member, TargetIndex, class_of, telling_name, valued_hits
from assistant.upgrade.names import Scopes, dotted, part_name
from assistant.upgrade.places import CLASS, DEF, FROM, Hit, Places
from assistant.upgrade.project import NONE, ProjectClasses
from assistant.upgrade.qualifiers import meets
from assistant.upgrade.receivers import called_from, typed_names
from assistant.upgrade.target import Target

# Receivers whose type is plain from the code: a literal is a builtin, never the class a target names.
_LITERALS = (
    ast.Constant,
    ast.JoinedStr,
    ast.List,
    ast.Tuple,
    ast.Dict,
    ast.Set,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*+")


class HitVisitor:
    """Collects the hits of one module's tree: `HitVisitor(index).hits(tree, source)`."""

    def __init__(self, index: TargetIndex, project: ProjectClasses = NONE) -> None:
        self.index = index
        self.project = project
        self.found: list[tuple[tuple[int, int], str, str, bool]] = []  # place, symbol, change, exact
        self.types: dict[ast.expr, str] = {}  # names, `self.x` and calls holding an instance of a known class
        self.methods: dict[ast.FunctionDef | ast.AsyncFunctionDef, str] = {}  # methods of classes derived
        self.origins: dict[ast.Name, str] = {}  # names holding what a call of one imported module returned
        self.scopes = Scopes({}, {})
        self.products: frozenset[str] = frozenset()  # the top modules the module imports
        self.places = Places("")
        self.source = ""
        self.words: frozenset[str] | None = None  # the module's words, once a guess asks (`_names`)
        self.in_class: frozenset[ast.AST] = frozenset()  # functions defined in a class body: where hooks are
        self.nested: dict[ast.ClassDef, str] = {}  # classes defined in a derived class's body: that class

    def hits(self, tree: ast.Module, source: str) -> list[Hit]:
        """The module's hits."""
        self.places = Places(source)
        self.source, self.words = source, None
        self.scopes = Scopes.of(tree)
        self.products = frozenset(name.split(".", 1)[0] for name in self.scopes.imports.values())
        self._module(tree)
        stack: list[ast.AST] = [tree]
        while stack:  # iterative: CPython builds trees deeper than Python's recursion limit
            stack.extend(self._visit(stack.pop()))
        return [Hit(line, col, symbol, change, exact) for (line, col), symbol, change, exact in self.found]

    def _hit(self, place: tuple[int, int], symbol: str, target: Target, *, exact: bool = True) -> None:
        self.found.append((place, symbol, target.change, exact))

    def _resolve(self, base: ast.expr) -> tuple[list[str], bool]:
        """The imported names a base name stands for, and whether it is known at all (imported or builtin):
        a known receiver that is not the class a target names makes no possible hit. A name, `self.x` or call
        holding an instance of a known class stands for that class (`assistant.upgrade.receivers`)."""
        if base in self.types:
            return [self.types[base]], True
        if not isinstance(base, ast.Name):
            return [], False
        return self.scopes.imported(base), self.scopes.known(base)

    def _module(self, tree: ast.Module) -> None:
        known = typed_names(
            tree, self.scopes, self.index.is_class, self.project, ask_for(tree, self.index, self.products)
        )
        self.types, self.methods, self.origins = known.types, known.methods, known.origins
        self.in_class, self.nested = known.in_class, known.nested
        for name, owner in known.settings.items():  # `USE_L10N = True`; `orm_mode = True` in a model's Config
            for target in self.index.settings.get(name.id, ()):
                if not owner or owner.split(".")[0] in target.modules:
                    self._hit(self.places.start(name), target.symbol, target)
                elif target.gone and telling_name(name.id) and self.products.intersection(target.modules):
                    # a class on bases not in view (`AppModel`, from a module of the project the scan was not
                    # given): a gone setting whose name tells it, in a module importing the product
                    self._hit(self.places.start(name), target.symbol, target)

    def _visit(self, node: ast.AST) -> list[ast.AST]:
        """Hit what `node` itself uses; the children to walk next."""
        if isinstance(node, ast.Name):
            if node in self.scopes.accesses:  # a read: not a definition, nor an assignment's target
                self._chain(node, [node])
            return []
        if isinstance(node, ast.Attribute):
            parts = dotted(node)
            if parts is not None:  # the whole chain is handled here, from its outermost attribute
                self._chain(node, parts)
                return []
            held = held_chain(node, self.types)  # `create_engine(url).execute`: a member of a known call's result
            if held is not None:
                self._chain(node, held)  # type: ignore[arg-type]
                return [held[0]]
            if not isinstance(node.value, _LITERALS):
                self._possible(node, None)
            return [node.value]
        if isinstance(node, ast.Import):
            self._import(node)
            return []
        if isinstance(node, ast.ImportFrom):
            self._import_from(node)
            return []
        if isinstance(node, ast.Call):
            self._call(node)
        elif isinstance(node, _FUNCTIONS):
            self._override(node)
            if self.index.hooks:
                self._hook(node)
        elif isinstance(node, ast.ClassDef) and node in self.nested:
            self._nested(node, self.nested[node])
        elif isinstance(node, ast.Subscript) and self.index.settings:
            self._setting_key(node)
        return list(ast.iter_child_nodes(node))

    def _setting_key(self, node: ast.Subscript) -> None:
        """A setting the docs name, read or set by its name as a key (`app.config["JSON_AS_ASCII"] = False`), in a
        module importing its product."""
        key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            for target in self.index.settings.get(key.value, ()):
                if self.products.intersection(target.modules):
                    self._hit(self.places.start(node), target.symbol, target)

    def _nested(self, node: ast.ClassDef, outer: str) -> None:
        """A class the docs name defined in the body of a class derived from the product's (`class Config` in a
        model), or from a class of the project whose bases are not in view, in a module importing the product."""
        for target in self.index.nested.get(node.name, ()):
            ours = outer.split(".")[0] in target.modules
            if ours or self.products.intersection(target.modules):
                self._hit(self.places.after(node, CLASS), target.symbol, target)

    def _values(self, node: ast.Call, callees: list[str], known: bool) -> None:
        """Hits of string values a change does away with (`freq="M"`, `to_timedelta(x, unit="T")`), in a module that
        imports the product, in a call of the product or of an unknown receiver's method (not `np.datetime64(x, "M")`,
        another library's)."""
        tops = {c.split(".", 1)[0] for c in callees}
        found: dict[tuple[str, str], Target] = {}
        for callee in callees or [None]:
            for target, given in valued_hits(self.index, node, callee):
                theirs = known and not tops.intersection(target.modules)
                if self.products.intersection(target.modules) and not theirs:
                    found.setdefault((target.change, given), target)
        for (_, given), target in found.items():
            self._hit(self.places.start(node), f"{target.symbol}({given})", target)

    def _hook(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """A hook the docs name defined in a class (`def __get_validators__(cls)`), the product imported."""
        for target in self.index.hooks.get(node.name, ()):
            if node in self.in_class and self.products.intersection(target.modules):
                self._hit(self.places.after(node, DEF), target.symbol, target)

    def _override(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        # `def log_deletion(self, …)` in a `ModelAdmin` subclass overrides what the docs say changed: a use.
        base = self.methods.get(node)
        if base is not None:
            self._loose(node.name, self.places.after(node, DEF))
            symbol = self.index.canonical(f"{base}.{node.name}")
            for target in self.index.names.get(symbol, ()):
                self._hit(self.places.after(node, DEF), symbol, target)
            self._unseen(base, node.name, self.places.after(node, DEF))

    def _import(self, node: ast.Import) -> None:
        for alias in node.names:
            for target in self.index.named_by(alias.name):
                if target.at_import:
                    self._hit(self.places.start(alias), alias.name, target)

    def _import_from(self, node: ast.ImportFrom) -> None:
        # A relative import names the project's own code; a star import names nothing that can be placed.
        if node.level or node.module is None or any(alias.name == "*" for alias in node.names):
            return
        module = node.module
        named = set()
        for target in self.index.named_by(module):  # `from torch.ao.quantization import x`: the module is hit once
            if target.at_import:
                self._hit(self.places.after(node, FROM), module, target)
            named.add(target)
        for alias in node.names:
            name = f"{module}.{alias.name}"
            for target in self.index.named_by(name):
                if target not in named and target.at_import:
                    self._hit(self.places.start(alias), name, target)

    def _call(self, node: ast.Call) -> None:
        # `self.engine.execute(…)`, `create_engine(url).execute(…)`: from what holds a known class, if anything does
        parts: list[ast.expr] | None = held_chain(node.func, self.types) or dotted(node.func)  # type: ignore[assignment]
        known = False
        callees: list[str] = []
        if parts is not None:
            imported, known = self._resolve(parts[0])
            rest = [part_name(part) for part in parts[1:]]  # type: ignore[arg-type]
            # a call's result is placed at its member: the call may span lines
            place = self.places.attr(node.func) if isinstance(parts[0], ast.Call) else self.places.start(node)  # type: ignore[arg-type]
            for base in imported:
                symbol = self.index.canonical(".".join([base, *rest]))
                callees.append(symbol)
                self._called(symbol, node, place)
                if rest[-1:] == ["__init__"]:  # `super().__init__(…)`, `Base.__init__(self, …)`: the constructor
                    bound = isinstance(parts[0], ast.Call)  # `super()`; through the class, the instance comes first
                    given = node if bound else ast.Call(node.func, node.args[1:], node.keywords)
                    self._called(self.index.canonical(".".join([base, *rest[:-1]])), given, place)
        if self.index.valued:
            self._values(node, callees, known)
        func = node.func
        if not isinstance(func, ast.Attribute) or isinstance(func.value, _LITERALS):
            return
        # `df["a"].fillna(...)`, `df.col.fillna(...)`: a receiver got from a known instance (not the instance
        # itself, resolved above) is of the instance's product.
        derived = None if isinstance(func.value, ast.Name) or func.value in self.types else self._derived(func.value)
        if not known or derived:
            before = parts[-2] if parts is not None else None
            receiver = part_name(before) if isinstance(before, (ast.Name, ast.Attribute)) else None
            keyed = set()
            # `conn = sqlite3.connect(p)`: another library's object, whatever its name says
            named = receiver if self._origin(func.value) is None else None
            for target in self.index.by_keyword(func.attr, node, named):
                if derived and derived.split(".")[0] in target.modules and class_of(target.symbol, target.member_of):
                    # got from an instance of the product: the classes a member's change is about decide, below; a
                    # form of no class (`df["a"].fillna(0, inplace=True)` under "Chained assignment") holds still
                    continue
                if target not in keyed and self.products.intersection(target.modules):
                    keyed.add(target)
                    self._hit(self.places.attr(func), f"{target.symbol}({_qualifier(target)})", target)
            for member in self.index.member_calls.get(func.attr, ()):
                if member.target in keyed:
                    continue
                # got from a `DataFrame`: the change must be about a member of that class (and maybe others')
                exact = derived in self.index.change_classes.get(member.target.change, ())
                guess = member.worth(func.attr, receiver) and self._guessed(member.target, func.value)
                if (exact or guess) and meets(member.target, node):
                    symbol = f"{member.target.symbol}({_qualifier(member.target)})"
                    self._hit(self.places.attr(func), symbol, member.target, exact=exact)

    def _called(self, symbol: str, node: ast.Call, place: tuple[int, int]) -> None:
        """Hits of the targets a call of `symbol` meets: its parameters, its call forms."""
        for target in self.index.calls.get(symbol, ()) + self.index.in_forms(symbol):
            if meets(target, node):
                self._hit(place, f"{symbol}({_qualifier(target)})", target)

    def _chain(self, top: ast.expr, parts: list[ast.expr]) -> None:
        """Hits of one dotted name: exact through what its base resolves to (a name, or a `self.x` or call holding a
        known class), possible on each attribute of an unknown base (`self.df.append`: both `df` on `self` and
        `append` on `self.df`)."""
        at = next((i for i in range(len(parts) - 2, 0, -1) if parts[i] in self.types), 0)
        if at:  # `self.engine.execute`: `self.engine` as a chain of its own, then a member of what it holds
            self._chain(parts[at], parts[: at + 1])
            parts = parts[at:]
        base_node = parts[0]
        imported, known = self._resolve(base_node)
        rest = [part_name(part) for part in parts[1:]]  # type: ignore[arg-type]
        typed = base_node in self.types
        # a call's result is placed at its member: the call may span lines
        place = self.places.attr(parts[1]) if isinstance(base_node, ast.Call) else self.places.start(top)  # type: ignore[arg-type]
        for base in imported if rest or not typed else ():  # an instance is no use of its class
            symbol = self.index.canonical(".".join([base, *rest]))
            for target in self.index.named_by(symbol):
                # A name imported from under a module the change is about (`from torch.ao.quantization.x import f`)
                # was hit at its import: its uses are that one use of the module, not each a finding.
                if target.at_import and not typed and base.startswith(f"{target.symbol}."):
                    continue
                # its members, not the class (or module) its constructor hit; a class the docs write bare is hit
                # under any module (`field: ModelField`, from `pydantic.fields`, for `pydantic.ModelField`)
                of_class = self.index.same_class(base, target) or base.startswith(f"{target.symbol}.")
                if not typed or not of_class:
                    self._hit(place, symbol, target)
        if self.index.loose:
            for attr in parts[1:]:
                self._loose(attr.attr, self.places.attr(attr))  # type: ignore[attr-defined]
        if not known:
            for receiver, attr in pairwise(parts):
                self._possible(attr, part_name(receiver))  # type: ignore[arg-type]
        elif typed:  # `df.col.append`: what an instance's attribute holds is of a type unknown
            if rest:
                self._unseen(self.types[base_node], rest[0], self.places.attr(parts[1]))  # type: ignore[arg-type]
            for receiver, attr in pairwise(parts[1:]):
                self._possible(attr, part_name(receiver))  # type: ignore[arg-type]

    def _loose(self, name: str, place: tuple[int, int]) -> None:
        """Hits of a gone name the docs write bare (`TargetIndex.loose`), in a module that imports its product: as
        any attribute (`torch._dynamo.config.inline_inbuilt_nn_modules`, `prof.export_memory_timeline(…)`) or a
        method a class derived from the product's defines."""
        for target in self.index.loose.get(name, ()):
            if self.products.intersection(target.modules):
                self._hit(place, target.symbol, target)

    def _unseen(self, cls: str, name: str, place: tuple[int, int]) -> None:
        """Exact hits of a gone member whose name tells its class (`Member.telling`) used on, or defined in, a class
        of the project whose bases are not in view (`self.log_deletion(…)` or `def log_deletion` in `class
        FolderAdmin(AppModelAdmin)`, the base from a module the scan was not given): it may derive from any of the
        product's classes."""
        # A product's own class: its members resolve by name, and one that does not may be inherited from another
        # of its classes (`self.assertQuerysetEqual(…)` in a `TestCase` subclass), which the docs do not list.
        if self.index.knows(self.index.canonical(f"{cls}.{name}")):
            return
        for member in self.index.members.get(name, ()):
            if self._told(member, name, derived=True):
                self._hit(place, member.target.symbol, member.target)

    def _told(self, member: Member, name: str, *, derived: bool = False) -> bool:
        """Whether a member's name alone tells its class here: a gone compound name (`Member.telling`), in a module
        importing its product, of a project that names its class; or, on a class of the project's own that derives
        from some other class (`derived`: `self.log_deletion(…)` in `class FolderAdmin(AppAdmin)`), whatever the
        project names."""
        target = member.target
        if not (member.telling(name) and self.products.intersection(target.modules)):
            return False
        return derived or self._names(class_of(target.symbol, target.member_of))

    def _possible(self, attr: ast.Attribute, receiver: str | None) -> None:
        """Possible hits of a class's member on a receiver of unknown type. Which of the product's classes a
        receiver got from an instance is (`df["a"]`) is unknown too: a member without the qualifier that made its
        call exact (`_call`) stays a guess there."""
        # Placed at the member's name: the receiver may be a long expression, even spanning lines.
        for member in self.index.members.get(attr.attr, ()):
            if member.worth(attr.attr, receiver) and self._guessed(member.target, attr.value):
                exact = self._told(member, attr.attr)
                self._hit(self.places.attr(attr), member.target.symbol, member.target, exact=exact)

    def _names(self, cls: str | None) -> bool:
        """Whether the project (any file of the scan) or this module names a class, as a word."""
        if cls is None:
            return False
        if cls in self.project.named:
            return True
        if self.words is None:  # read once a module, and only where a guess asks
            self.words = frozenset(_WORD.findall(self.source))
        return cls in self.words

    def _origin(self, receiver: ast.expr) -> str | None:
        """The top module whose call returned the receiver (`sqlite3` for `conn` after `conn = sqlite3.connect(p)`)."""
        if isinstance(receiver, ast.Name):
            return self.origins.get(receiver)
        return called_from(receiver, self.scopes) if isinstance(receiver, (ast.Call, ast.Subscript)) else None

    def _guessed(self, target: Target, receiver: ast.expr) -> bool:
        """Whether a guess at a target on a receiver of unknown type is worth making: not in a module that does not
        import its product, nor on what another library's call returned (`requests.get(url).json()`, or `r`
        after `r = requests.get(url)`)."""
        if not self.products.intersection(target.modules):
            return False
        origin = self._origin(receiver)
        return origin is None or origin in target.modules

    def _derived(self, node: ast.expr) -> str | None:
        """The class of the known instance an expression is got from (`df["a"]`, `df.x().y`, `self.df["a"]`), if
        any: the nearest down its chain."""
        while node not in self.types and isinstance(node, (ast.Subscript, ast.Call, ast.Attribute)):
            node = node.func if isinstance(node, ast.Call) else node.value
        return self.types.get(node)


def _qualifier(target: Target) -> str:
    """What a call met: the parameter, or its arguments by position ("torch.hub.load(trust_repo)", "concat(*)")."""
    return target.parameter or ("*" if target.positional >= 0 else ", ".join(target.forms))
