"""What a local name holds, where the code says so plainly: the receivers the scan follows.

`df = pd.DataFrame(...)`, `def load(df: pd.DataFrame)`, `engine: Engine = ...`, `with Session(engine) as
session`: the name holds an instance of the class called or written as its annotation, so `df.applymap(str)`
is `pandas.DataFrame.applymap` and an exact hit, not a possible one. A class the module derives from a product
class (`class User(BaseModel)`) stands for it: `User(...)`, `User.parse_obj(...)`, `self` in its methods, the
methods it overrides, the names its body (or a class nested in it, `class Config`) sets and the classes it
nests. A rebinding from a method of itself (`df = df.dropna()`, `query = query.filter(...)`) keeps the type:
fluent APIs return their own kind. A name every binding of which is a call of what one module imports
(`r = requests.get(url)`) is known to come from that module, though its type is not (`Receivers.origins`).
Every binding of the name in its scope must agree (the analysis is flow-insensitive, as Python's scopes are);
anything else (`df = load()`, a loop variable, a parameter without annotation) leaves the name unknown,
and the scan's receiver-name rules apply to it as before.

Beyond plain names (`assistant.upgrade.instances`): an attribute of `self` bound in the class's methods
(`self.engine = create_engine(url)`, then `self.engine.execute(q)` in any of them), typed the same way by every
binding of it in the class and the module's classes it derives from or that derive from it, `None` aside; a call's
result (`create_engine(url).execute(q)`, `session.query(User).join(…)`) where the product's annotations say what it
returns (`ApiDiff.returns`) or the module rebinds a name from that method (`q = q.filter(…)`: fluent); and
`super()` in a method of a class derived from a product class, which stands for that class (`super().__init__(…)`
is a call of its constructor). A name bound from such a call or attribute (`conn = self.engine.connect()`) is then
typed too.

Which callables are classes is read from the code's own naming (a `CamelCase` last part, PEP 8's) or from the
targets (the docs write members of it: `Engine.execute`); no product's names are listed here. What readers and
methods return (`pd.read_csv` gives a DataFrame) the code does not say: where the product is installed, its source
does (`assistant.upgrade.inferred`, asked through `Ask` for the names a target's member is used on); elsewhere such
names stay unknown.
Written by hand: `assistant.upgrade.names` gives scopes and qualified names, not types; jedi infers types only
where the product is installed, which a scan of code written for an older release cannot count on.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from assistant.upgrade.instances import SAME, Attributes, Held
from assistant.upgrade.names import Scopes, chain_base, dotted, part_name
from assistant.upgrade.project import NONE, ProjectClasses

_SAME = SAME  # a binding from a method of the name itself: it keeps whatever type the others give
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


class _Bindings:
    """Each plainly bound name's node, with what binds it: a call, an annotation, or a method of itself; the
    bases of each class the module defines, and the first parameter (`self`, `cls`) of each of its methods."""

    def __init__(self, tree: ast.Module) -> None:
        self.bound: dict[ast.Name, tuple[str, ast.expr]] = {}
        self.bases: dict[str, list[ast.expr]] = {}  # class name -> its bases, as written
        self.own: dict[ast.arg, str] = {}  # a method's first parameter -> its class's name
        self.methods: dict[ast.FunctionDef | ast.AsyncFunctionDef, str] = {}  # a method -> its class's name
        self.assigned: dict[ast.Name, str] = {}  # a name set at top level ("") or in a class body (its class)
        self.inner: dict[ast.ClassDef, str] = {}  # a class defined in a class's body -> that class's name
        self.supers: dict[ast.Call, str] = {}  # `super()` in a method, `super(Cls, self)` -> the class's name
        self.attributes = Attributes()  # `self.x = …`, `self.x`, `f(…).x`: for `assistant.upgrade.instances`
        stack: list[tuple[ast.AST, tuple[ast.AST, ...]]] = [(tree, ())]  # a node, the classes and functions it is in
        while stack:
            node, frames = stack.pop()
            body = frames[-1].name if frames and isinstance(frames[-1], ast.ClassDef) else None
            if isinstance(node, ast.Attribute):
                self.attributes.attribute(node)
            elif isinstance(node, ast.ClassDef):
                self.bases.setdefault(node.name, []).extend(node.bases)
                if body is not None:
                    self.inner[node] = body
                frames = (*frames, node)
            elif isinstance(node, _FUNCTIONS):
                self._function(node, frames)
                if body is not None:  # `self.table` is then the method (or property), not an instance's attribute
                    self.attributes.body.append((body, node.name, "", None))
                frames = (*frames, node)
            elif isinstance(node, ast.Assign):
                self._assign(node, frames)
                self.attributes.bind(node.targets, "value", node.value, body)
            elif isinstance(node, ast.AnnAssign):
                self.attributes.bind([node.target], "type", node.annotation, body)
                if isinstance(node.target, ast.Name):
                    self.bound[node.target] = ("type", node.annotation)
                    self._setting(node.target, frames)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super":
                self._super(node, frames)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    if isinstance(item.optional_vars, ast.Name):
                        self._value(item.optional_vars, item.context_expr)
                    elif item.optional_vars is not None:
                        self.attributes.bind([item.optional_vars], "value", item.context_expr, None)
            stack.extend((child, frames) for child in ast.iter_child_nodes(node))

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, frames: tuple[ast.AST, ...]) -> None:
        static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
        if frames and isinstance(owner := frames[-1], ast.ClassDef):
            self.methods[node] = owner.name
            params = [*node.args.posonlyargs, *node.args.args]
            if params and not static:
                self.own[params[0]] = owner.name

    def _super(self, node: ast.Call, frames: tuple[ast.AST, ...]) -> None:
        if node.args and isinstance(node.args[0], ast.Name):  # `super(Cls, self)`
            self.supers[node] = node.args[0].id
        elif not node.args and frames and isinstance(frames[-1], _FUNCTIONS):  # the class the method is defined in
            owner = next((f for f in reversed(frames) if isinstance(f, ast.ClassDef)), None)
            if owner is not None:
                self.supers[node] = owner.name

    def _assign(self, node: ast.Assign, frames: tuple[ast.AST, ...]) -> None:
        if len(node.targets) == 1 and isinstance(name := node.targets[0], ast.Name):
            self._value(name, node.value)
        for target in node.targets:
            if isinstance(target, ast.Name):
                self._setting(target, frames)

    def _setting(self, name: ast.Name, frames: tuple[ast.AST, ...]) -> None:
        """A name set at a module's top level, or in a class body (nested classes count as their outer one)."""
        if not frames:
            self.assigned[name] = ""
        elif all(isinstance(frame, ast.ClassDef) for frame in frames):
            self.assigned[name] = frames[0].name  # type: ignore[attr-defined]

    def _value(self, name: ast.Name, value: ast.expr) -> None:
        if not isinstance(value, ast.Call):
            return
        func = value.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == name.id:
            self.bound[name] = (_SAME, func)
        else:
            self.bound[name] = ("type", func)


@dataclass(frozen=True)
class Receivers:
    """What the scan knows of a module's names: the class each plainly typed reference holds (`df` ->
    `pandas.DataFrame`), and the product class each method overrides a member of (`def log_deletion` in a
    `ModelAdmin` subclass)."""

    types: dict[ast.expr, str]  # names, attributes of `self` and calls (`assistant.upgrade.instances`)
    methods: dict[ast.FunctionDef | ast.AsyncFunctionDef, str]
    # Names set at a module's top level (""), or in the body of a class derived from a product's (that class)
    settings: dict[ast.Name, str]
    # Names every binding of which is a call of what one module imports (`r = requests.get(url)`): that module's
    # top name. Their type is unknown, but a guess that they hold another library's object is not worth making.
    origins: dict[ast.Name, str] = field(default_factory=dict)
    # Every function defined in a class body, whatever the class derives from (`def __get_validators__(cls)`)
    in_class: frozenset[ast.AST] = frozenset()
    # Classes defined in the body of a class derived from a product's (`class Config` in a model): that class
    nested: dict[ast.ClassDef, str] = field(default_factory=dict)


def typed_names(
    tree: ast.Module,
    scopes: Scopes,
    is_class: Callable[[str], bool],
    project: ProjectClasses = NONE,
    ask: Ask | None = None,
) -> Receivers:
    """The module's typed references, the methods and settings of its classes derived from a product's; `project`
    holds the classes other modules of the scanned project derive from a product's. `ask` types the bindings from
    a call the code does not type (`old = pd.read_csv(p)`) of names it is given, where it can
    (`assistant.upgrade.inferred`)."""
    collector = _Bindings(tree)

    def imported(expr: ast.expr) -> str | None:
        """The product class a dotted name stands for: imported, or a class of this module derived from one."""
        parts = dotted(expr)
        if parts is None:
            return None
        base = parts[0]
        assert isinstance(base, ast.Name)
        found = scopes.imported(base)
        if len(found) != 1:
            return derived.get(base.id) if len(parts) == 1 else None
        full = ".".join([found[0], *map(part_name, parts[1:])])
        return project.get(full) or (full if is_class(full) else None)

    # `class User(BaseModel)` is a `pydantic.BaseModel` for the scan, and so is `class Admin(User)`.
    derived: dict[str, str] = {}
    for _ in range(3):  # a class derived from a class derived from one, and so on, a few levels down
        for name, bases in collector.bases.items():
            found = next((b for b in map(imported, bases) if b), None)
            if found and name not in derived:
                derived[name] = found

    def type_of(node: ast.AST) -> str | None:
        if isinstance(node, ast.alias):  # `from app.schemas import AppModel`: a class of the project's
            return project.get(scopes.imports.get(node, ""))
        if isinstance(node, ast.ClassDef):  # `User.parse_obj(…)`: a member of the class it derives from
            return derived.get(node.name)
        if isinstance(node, ast.arg):
            if node in collector.own:  # `self`, `cls`
                return derived.get(collector.own[node])
            return imported(node.annotation) if node.annotation else None
        how = collector.bound.get(node) if isinstance(node, ast.Name) else None
        if how is None:
            return None
        return _SAME if how[0] == _SAME else imported(how[1])

    def origin_of(node: ast.AST) -> str | None:
        how = collector.bound.get(node) if isinstance(node, ast.Name) else None
        if how is None or how[0] == _SAME:
            return None if how is None else _SAME
        return called_from(how[1], scopes)

    names, origins = _typed(scopes, type_of, origin_of)
    # `super()` in a method of a class derived from a product's: that class (the builtin `super`, not a rebinding)
    supers = {
        call: derived[owner]
        for call, owner in collector.supers.items()
        if owner in derived and not scopes.accesses.get(call.func)  # type: ignore[call-overload]
    }

    def expression(func: ast.expr, typed: Mapping[ast.expr, str]) -> str | None:
        return _expression(func, scopes, typed)

    held = Held(collector.attributes, scopes, collector.own, collector.bases, imported, _returned(ask), expression)
    out = held.types({**names, **supers}, _fluent(collector, names))
    if ask is not None:  # a second look, with what the product's source says the calls the code leaves return
        told = _told(scopes, collector, out, type_of, ask)
        if told:
            names, origins = _typed(scopes, lambda b: type_of(b) or told.get(b), origin_of)  # type: ignore[arg-type]
            out = held.types({**names, **supers}, _fluent(collector, names))
    methods = {node: derived[name] for node, name in collector.methods.items() if name in derived}
    settings = {
        node: derived.get(owner, "") for node, owner in collector.assigned.items() if not owner or owner in derived
    }
    nested = {node: derived[outer] for node, outer in collector.inner.items() if outer in derived}
    return Receivers(out, methods, settings, origins, frozenset(collector.methods), nested)


def _typed(
    scopes: Scopes, type_of: Callable[[ast.AST], str | None], origin_of: Callable[[ast.AST], str | None]
) -> tuple[dict[ast.Name, str], dict[ast.Name, str]]:
    """Each read name's class, where every binding of it gives the same, and the top module whose call every
    binding of it is."""
    out: dict[ast.Name, str] = {}
    origins: dict[ast.Name, str] = {}
    for name, bindings in scopes.accesses.items():
        if bindings:
            types = {type_of(b) for b in bindings} - {_SAME}
            if len(types) == 1 and None not in types:
                out[name] = next(iter(types))  # type: ignore[arg-type]
            tops = {origin_of(b) for b in bindings} - {_SAME}
            if len(tops) == 1 and None not in tops:
                origins[name] = next(iter(tops))  # type: ignore[arg-type]
    return out, origins


@dataclass(frozen=True)
class Ask:
    """Which names' bindings from calls the code does not type to ask about (those a target's member is used on),
    and who answers: a call's expression (`pandas.read_csv`, `pandas.DataFrame().groupby`) to the class whose
    instance it returns, or None (for another library's call, too: its top module is the expression's)."""

    names: frozenset[str]
    answer: Callable[[str], str | None]
    # What the releases' annotations alone say a call returns, any class of the product (`pandas.core.groupby.
    # DataFrameGroupBy`): a link of a chain (`df.groupby(k).sum()`) or an attribute's binding, asked of any call.
    through: Callable[[str], str | None] = lambda call: None


def _returned(ask: Ask | None) -> Callable[[str, str], str | None]:
    """What a call returns (its expression, and the name of the function or method called): by the annotations,
    then by `ask.answer` where the name is one `ask` is about."""

    def returned(call: str, name: str) -> str | None:
        if ask is None:
            return None
        return ask.through(call) or (ask.answer(call) if name in ask.names else None)

    return returned


def _fluent(collector: _Bindings, names: dict[ast.Name, str]) -> set[tuple[str, str]]:
    """The (class, method) pairs the module rebinds a typed name from (`query = query.filter(…)`): fluent methods."""
    found = set()
    for how, func in collector.bound.values():
        if how == _SAME and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            cls = names.get(func.value)
            if cls is not None:
                found.add((cls, func.attr))
    return found


def _told(
    scopes: Scopes,
    collector: _Bindings,
    typed: Mapping[ast.expr, str],
    type_of: Callable[[ast.AST], str | None],
    ask: Ask,
) -> dict[ast.Name, str]:
    """The classes `ask` answers for the bindings from calls the code does not type, of the names it asks about:
    calls of an imported name (`pd.read_csv(p)`) or of a typed instance's method (`df.groupby(k)`)."""
    told: dict[ast.Name, str] = {}
    for name, bindings in scopes.accesses.items():
        if name.id not in ask.names:
            continue
        for binding in bindings:
            how = collector.bound.get(binding) if isinstance(binding, ast.Name) else None
            if how is None or how[0] == _SAME or binding in told or type_of(binding) is not None:
                continue
            call = _expression(how[1], scopes, typed)
            if call is not None and (found := ask.answer(call)):
                told[binding] = found  # type: ignore[index]
    return told


def _expression(func: ast.expr, scopes: Scopes, typed: Mapping[ast.expr, str]) -> str | None:
    """A called name as an expression from its top module: `pandas.read_csv` for `pd.read_csv`, and
    `pandas.DataFrame().groupby` for `df.groupby` where `df` (or `self.df`, or `f(…)`) holds a `DataFrame`; None
    for anything else."""
    if isinstance(func, ast.Attribute) and func.value in typed:
        return f"{typed[func.value]}().{func.attr}"
    parts = dotted(func)
    if parts is None:
        return None
    base = parts[0]
    assert isinstance(base, ast.Name)
    rest = [part_name(part) for part in parts[1:]]
    if base in typed:
        return ".".join([f"{typed[base]}()", *rest]) if rest else None
    found = scopes.imported(base)
    if len(found) != 1 or found[0].startswith("."):
        return None
    return ".".join([found[0], *rest])


def called_from(func: ast.expr, scopes: Scopes) -> str | None:
    """The top module of what a called expression is imported from (`requests.get` -> "requests", also
    `requests.get(url).json` and `requests.Session().get`), when its base is an import; None otherwise."""
    node = chain_base(func)
    if not isinstance(node, ast.Name):
        return None
    found = scopes.imported(node)
    return found[0].split(".", 1)[0] if len(found) == 1 else None
