"""Where one module hits scan targets: the target lookup, a quick `ast` pre-pass and the LibCST visitor behind
`assistant.upgrade.scan`.

Names are resolved by LibCST's `QualifiedNameProvider` (`np.float_` -> `numpy.float_` after `import numpy as
np`), so a local or an attribute that merely shares a name never hits. What resolution cannot know, the type of
a receiver (`arr` in `arr.newbyteorder()`), is guessed by a few hand-written rules, kept here with their reasons:
no library states which names of a class's methods are worth a "possible" hit on an object of unknown type.
"""

# ruff: noqa: N802  (LibCST dispatches on method names spelled after node classes: visit_ImportFrom)
from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise

import libcst as cst
from libcst.helpers import get_full_name_for_node_or_raise
from libcst.metadata import PositionProvider, QualifiedNameProvider, QualifiedNameSource, ScopeProvider

from assistant.upgrade.receivers import dotted, typed_names
from assistant.upgrade.target import Target

# Method names of the builtin containers and strings. A receiver of unknown type is most often one of those
# (`items.append(1)`), so these names make a possible hit only on a receiver whose name suggests the class.
BUILTIN_METHODS = frozenset(
    name
    for kind in (str, bytes, bytearray, list, tuple, dict, set, frozenset)
    for name in dir(kind)
    if not name.startswith("_")
)
MIN_MEMBER = 4  # shorter member names (`.T`, `.abs`, `.all`) are too common to flag on an unknown receiver
# Receivers whose type is plain from the code: a literal is a builtin, never the class a target names.
_LITERALS = (
    cst.SimpleString,
    cst.ConcatenatedString,
    cst.FormattedString,
    cst.Integer,
    cst.Float,
    cst.Imaginary,
    cst.List,
    cst.Tuple,
    cst.Dict,
    cst.Set,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
)
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z0-9]+|[A-Z]+")


@dataclass(frozen=True)
class Hit:
    """One place a module hits a target; `line` and `col` are 1-based."""

    line: int
    col: int
    symbol: str
    change: str
    exact: bool


@dataclass(frozen=True)
class Member:
    """A target that is a member of a class, as matched on a receiver of unknown type."""

    target: Target
    receivers: frozenset[str]  # receiver names that suggest the class: "dataframe", "df" for DataFrame

    def suggested_by(self, receiver: str | None) -> bool:
        """Whether a receiver named so (`df`, `train_df`, `self.df`) is likely an instance of the class."""
        if receiver is None:
            return False
        name = receiver.lower()
        return name in self.receivers or name.rsplit("_", 1)[-1] in self.receivers

    def worth(self, member: str, receiver: str | None) -> bool:
        """Whether `<receiver>.<member>` on an unknown receiver is reported as a possible hit."""
        if not self.target.guess:
            return False
        if self.suggested_by(receiver):
            return True
        # `__init__`, `copy`: names every class has say nothing of the receiver's
        return len(member) >= MIN_MEMBER and member not in BUILTIN_METHODS and not member.startswith("__")


def class_of(symbol: str, member_of: str = "") -> str | None:
    """The class a symbol is a member of: the one the target names (`member_of`: the docs wrote the symbol
    as `ndarray.newbyteorder`, a type's member), or its last-but-one part when that looks like a class
    ("DataFrame" in "pandas.DataFrame.append"); a two-part symbol is a module's member."""
    parts = symbol.split(".")
    if member_of:
        return member_of
    if len(parts) >= 3 and parts[-2][:1].isupper():
        return parts[-2]
    return None


def receiver_names(cls: str) -> frozenset[str]:
    """Names a variable holding an instance of `cls` conventionally has: the class lowercased, and the
    initials of its CamelCase parts when there are two or more ("df" for DataFrame)."""
    initials = "".join(part[0] for part in _CAMEL.findall(cls)).lower()
    return frozenset({cls.lower(), initials} if len(initials) >= 2 else {cls.lower()})


@dataclass(frozen=True)
class TargetIndex:
    """Targets looked up by what code names, so that a scan costs one look-up per dotted prefix of a name."""

    names: dict[str, tuple[Target, ...]]  # plain targets by symbol: hit by the symbol and what starts with it
    calls: dict[str, tuple[Target, ...]]  # parameter targets by symbol: hit by calls only
    members: dict[str, tuple[Member, ...]]  # plain class-member targets by member name, for unknown receivers
    member_calls: dict[str, tuple[Member, ...]]  # parameter class-member targets by member name
    classes: frozenset[str]  # the classes targets are members of (`pandas.DataFrame` of `….DataFrame.append`)
    change_classes: dict[str, frozenset[str]]  # per change, the classes its targets are members of
    # "django.ModelAdmin.log_deletion" by its top module, class and member: the docs shorten the class's path
    # (`ModelAdmin.log_deletion`), the code imports it from where it lives (`django.contrib.admin.ModelAdmin`).
    short: dict[str, str]

    @classmethod
    def of(cls, targets: Sequence[Target]) -> TargetIndex:
        names: dict[str, list[Target]] = defaultdict(list)
        calls: dict[str, list[Target]] = defaultdict(list)
        members: dict[str, list[Member]] = defaultdict(list)
        member_calls: dict[str, list[Member]] = defaultdict(list)
        for target in dict.fromkeys(targets):  # the same target twice would only repeat its hits
            (calls if target.qualified else names)[target.symbol].append(target)
            owner = class_of(target.symbol, target.member_of)
            if owner:
                member = Member(target, receiver_names(owner))
                (member_calls if target.qualified else members)[target.symbol.rsplit(".", 1)[1]].append(member)
        owners: dict[str, set[str]] = defaultdict(set)
        for t in targets:
            if class_of(t.symbol, t.member_of):
                owners[t.change].add(t.symbol.rsplit(".", 1)[0])
        classes = frozenset(c for found in owners.values() for c in found)
        change_classes = {change: frozenset(found) for change, found in owners.items()}
        short = {_short(t.symbol): t.symbol for t in targets if class_of(t.symbol, t.member_of) and _short(t.symbol)}
        return cls(
            _frozen(names), _frozen(calls), _frozen(members), _frozen(member_calls), classes, change_classes, short
        )

    def canonical(self, symbol: str) -> str:
        """`symbol` as the targets spell it: a class's member by its top module, class and name."""
        return (
            self.short.get(_short(symbol), symbol) if symbol not in self.names and symbol not in self.calls else symbol
        )

    def is_class(self, name: str) -> bool:
        """Whether a qualified name is a class: targets are members of it, or it is named as one (PEP 8)."""
        return name in self.classes or name.rsplit(".", 1)[-1][:1].isupper()

    def named_by(self, qualified: str) -> Iterator[Target]:
        """Plain targets that a name hits: its symbol equals the name or is a dotted prefix of it."""
        prefix = ""
        for part in qualified.split("."):
            prefix = f"{prefix}.{part}" if prefix else part
            yield from self.names.get(prefix, ())

    def possible(self, member: str, receiver: str | None) -> bool:
        """Whether `<receiver>.<member>` makes a possible hit for some target, were the receiver unknown."""
        found = self.members.get(member, ()) + self.member_calls.get(member, ())
        return any(m.worth(member, receiver) for m in found)


def might_hit(tree: ast.Module, index: TargetIndex) -> bool:
    """Whether a module, as Python's `ast` parses it, may hit any target: a quick over-approximation of
    `HitVisitor` that ignores scopes (a name any import binds counts everywhere) and calls' arguments.

    LibCST's scope analysis is some ten times slower than `ast` parsing and walking: in a project that imports
    a library in every file, few files use what its changes name, and only those need it."""
    bound: dict[str, set[str]] = defaultdict(set)  # name -> qualified names an import binds it to
    chains: list[list[str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if any(index.named_by(alias.name)):
                    return True
                if alias.asname:
                    bound[alias.asname].add(alias.name)
                else:  # `import a.b.c` binds `a`
                    bound[alias.name.split(".", 1)[0]].add(alias.name.split(".", 1)[0])
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                if alias.name != "*" and any(index.named_by(name)):  # also when the module is what is named
                    return True
                bound[alias.asname or alias.name].add(name)
        elif isinstance(node, ast.Attribute):
            value = node.value
            receiver = (
                value.id if isinstance(value, ast.Name) else value.attr if isinstance(value, ast.Attribute) else None
            )
            if index.possible(node.attr, receiver):
                return True
            parts = [node.attr]
            while isinstance(value, ast.Attribute):
                parts.append(value.attr)
                value = value.value
            if isinstance(value, ast.Name):
                chains.append([value.id, *reversed(parts)])
        elif isinstance(node, ast.Name):
            chains.append([node.id])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in index.members:
            return True  # may override a member a change names, in a class derived from the product's
    for base, *rest in chains:
        for qualified in bound.get(base, ()):
            name = ".".join([qualified, *rest])
            if name in index.calls or any(index.named_by(name)):
                return True
    return False


def _short(symbol: str) -> str:
    """ "django.ModelAdmin.log_deletion" for "django.contrib.admin.ModelAdmin.log_deletion"; '' for a name that
    is no class's member (its last-but-one part is no `CamelCase` class)."""
    parts = symbol.split(".")
    return f"{parts[0]}.{parts[-2]}.{parts[-1]}" if len(parts) >= 3 and parts[-2][:1].isupper() else ""


def _frozen(lists: dict[str, list]) -> dict[str, tuple]:
    return {key: tuple(values) for key, values in lists.items()}


class HitVisitor(cst.CSTVisitor):
    """Collects the hits of one module; run it through a `MetadataWrapper`, then read `hits(wrapper)`."""

    METADATA_DEPENDENCIES = (QualifiedNameProvider, ScopeProvider)

    def __init__(self, index: TargetIndex) -> None:
        super().__init__()
        self.index = index
        self.found: list[tuple[cst.CSTNode, str, str, bool]] = []  # node, symbol, change, exact
        self.references: set[cst.CSTNode] = set()
        self.types: dict[cst.Name, str] = {}  # local names holding an instance of a known class
        self.methods: dict[cst.FunctionDef, str] = {}  # methods of classes derived from a product's

    def hits(self, wrapper: cst.MetadataWrapper) -> list[Hit]:
        """The hits found, placed: positions are computed only for a module that has any."""
        if not self.found:
            return []
        positions = wrapper.resolve(PositionProvider)
        out = []
        for node, symbol, change, exact in self.found:
            start = positions[node].start
            out.append(Hit(start.line, start.column + 1, symbol, change, exact))
        return out

    def _hit(self, node: cst.CSTNode, symbol: str, target: Target, *, exact: bool = True) -> None:
        self.found.append((node, symbol, target.change, exact))

    def _resolve(self, base: cst.Name) -> tuple[list[str], bool]:
        """The imported names a base name stands for, and whether it is known at all (imported or builtin):
        a known receiver that is not the class a target names makes no possible hit. A local name holding an
        instance of a known class stands for that class (`assistant.upgrade.receivers`)."""
        if base in self.types:
            return [self.types[base]], True
        names = self.get_metadata(QualifiedNameProvider, base, set())
        imported = sorted(q.name for q in names if q.source is QualifiedNameSource.IMPORT)
        return imported, bool(imported) or any(q.source is QualifiedNameSource.BUILTIN for q in names)

    def visit_Module(self, node: cst.Module) -> None:
        # Only names the scope analysis records as accesses are references: not keywords (`f(float_=1)`),
        # definitions (`def float_`) or `global` statements.
        scopes = {scope for scope in self.metadata[ScopeProvider].values() if scope is not None}
        self.references = {access.node for scope in scopes for access in scope.accesses}
        known = typed_names(
            node,
            self.metadata[ScopeProvider],
            lambda name: self.get_metadata(QualifiedNameProvider, name, set()),
            self.index.is_class,
        )
        self.types, self.methods = known.types, known.methods

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        # `def log_deletion(self, …)` in a `ModelAdmin` subclass overrides what the docs say changed: a use.
        base = self.methods.get(node)
        if base is not None:
            symbol = self.index.canonical(f"{base}.{node.name.value}")
            for target in self.index.names.get(symbol, ()):
                self._hit(node.name, symbol, target)

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            name = get_full_name_for_node_or_raise(alias.name)
            for target in self.index.named_by(name):
                if target.at_import:
                    self._hit(alias.name, name, target)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        # A relative import names the project's own code; a star import names nothing that can be placed.
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return False
        module = get_full_name_for_node_or_raise(node.module)
        named = set()
        for target in self.index.named_by(module):  # `from torch.ao.quantization import x`: the module is hit once
            if target.at_import:
                self._hit(node.module, module, target)
            named.add(target)
        for alias in node.names:
            name = f"{module}.{get_full_name_for_node_or_raise(alias.name)}"
            for target in self.index.named_by(name):
                if target not in named and target.at_import:
                    self._hit(alias.name, name, target)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if node in self.references:
            self._chain(node, [node])

    # A match pattern's names bind (`case [*rest]`, `case {"k": v}`) or name a keyword (`case Point(x=0)`):
    # only its values (`case np.float_:`) are uses.
    def visit_MatchAs(self, node: cst.MatchAs) -> bool:
        if node.pattern is not None:
            node.pattern.visit(self)
        return False

    def visit_MatchStar(self, node: cst.MatchStar) -> bool:
        return False

    def visit_MatchKeywordElement(self, node: cst.MatchKeywordElement) -> bool:
        node.pattern.visit(self)
        return False

    def visit_MatchMapping(self, node: cst.MatchMapping) -> bool:
        for element in node.elements:
            element.visit(self)
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        names = dotted(node)
        if names is not None:  # the whole chain is handled here, from its outermost attribute
            self._chain(node, names)
            return False
        if not isinstance(node.value, _LITERALS):
            self._possible(node.attr, None)
        node.value.visit(self)  # the attribute's own name is no reference: it is not visited
        return False

    def visit_Call(self, node: cst.Call) -> None:
        keywords = {arg.keyword.value for arg in node.args if arg.keyword is not None}
        splat = any(arg.star == "**" for arg in node.args)  # `**kwargs` may pass any parameter

        by_position = [arg for arg in node.args if arg.keyword is None and arg.star == ""]
        spread = any(arg.star == "*" for arg in node.args)  # `*args`: how many is unknown

        def hit_by(target: Target) -> bool:
            if target.positional >= 0:
                return not spread and len(by_position) > target.positional
            passed = target.parameter in keywords
            return not passed and not splat if target.omitted else passed

        names = dotted(node.func)
        known = False
        if names is not None:
            imported, known = self._resolve(names[0])
            rest = [name.value for name in names[1:]]
            for base in imported:
                symbol = self.index.canonical(".".join([base, *rest]))
                for target in self.index.calls.get(symbol, ()):
                    if hit_by(target):
                        self._hit(node, f"{symbol}({_qualifier(target)})", target)
        func = node.func
        if not isinstance(func, cst.Attribute) or isinstance(func.value, _LITERALS):
            return
        # `df["a"].fillna(...)`, `df.col.fillna(...)`: a receiver got from a known instance (not the instance
        # itself, resolved above) is of the instance's product.
        derived = None if isinstance(func.value, cst.Name) else self._derived(func.value)
        if not known or derived:
            receiver = names[-2].value if names is not None else None
            for member in self.index.member_calls.get(func.attr.value, ()):
                # got from a `DataFrame`: the change must be about a member of that class (and maybe others')
                exact = derived in self.index.change_classes.get(member.target.change, ())
                if (exact or member.worth(func.attr.value, receiver)) and hit_by(member.target):
                    symbol = f"{member.target.symbol}({_qualifier(member.target)})"
                    self._hit(func.attr, symbol, member.target, exact=exact)

    def _chain(self, top: cst.BaseExpression, names: list[cst.Name]) -> None:
        """Hits of one dotted name: exact through what its base resolves to, possible on each attribute of
        an unknown base (`self.df.append`: both `df` on `self` and `append` on `self.df`)."""
        imported, known = self._resolve(names[0])
        rest = [name.value for name in names[1:]]
        typed = names[0] in self.types
        for base in imported if rest or not typed else ():  # an instance is no use of its class
            symbol = self.index.canonical(".".join([base, *rest]))
            for target in self.index.named_by(symbol):
                # its members, not the class (or module) its constructor hit
                if not typed or not (base == target.symbol or base.startswith(f"{target.symbol}.")):
                    self._hit(top, symbol, target)
        if not known:
            for receiver, attr in pairwise(names):
                self._possible(attr, receiver.value)
        elif typed:  # `df.col.append`: what an instance's attribute holds is of a type unknown
            for receiver, attr in pairwise(names[1:]):
                self._possible(attr, receiver.value)

    def _possible(self, attr: cst.Name, receiver: str | None) -> None:
        """Possible hits of a class's member on a receiver of unknown type. Which of the product's classes a
        receiver got from an instance is (`df["a"]`) is unknown too: a member without the qualifier that made its
        call exact (`visit_Call`) stays a guess there."""
        # Placed at the member's name: the receiver may be a long expression, even spanning lines.
        for member in self.index.members.get(attr.value, ()):
            if member.worth(attr.value, receiver):
                self._hit(attr, member.target.symbol, member.target, exact=False)

    def _derived(self, node: cst.BaseExpression) -> str | None:
        """The class of the known instance an expression is got from (`df["a"]`, `df.x().y`), if any."""
        while isinstance(node, (cst.Subscript, cst.Call, cst.Attribute)):
            node = node.func if isinstance(node, cst.Call) else node.value
        return self.types[node] if isinstance(node, cst.Name) and node in self.types else None


def _qualifier(target: Target) -> str:
    """What a call met: the parameter, or its arguments by position ("torch.hub.load(trust_repo)", "concat(*)")."""
    return target.parameter or "*"
