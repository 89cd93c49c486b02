"""Where one module hits scan targets: the LibCST visitor behind `assistant.upgrade.scan`, over the target lookup
of `assistant.upgrade.lookup`.

Names are resolved by LibCST's `QualifiedNameProvider` (`np.float_` -> `numpy.float_` after `import numpy as
np`), so a local or an attribute that merely shares a name never hits. Receivers the code types plainly are
followed (`assistant.upgrade.receivers`); what stays unknown, the type of `arr` in `arr.newbyteorder()`, makes
at most a possible hit, as `lookup.Member.worth` decides.
"""

# ruff: noqa: N802  (LibCST dispatches on method names spelled after node classes: visit_ImportFrom)
from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

import libcst as cst
from libcst.helpers import get_full_name_for_node_or_raise
from libcst.metadata import PositionProvider, QualifiedNameProvider, QualifiedNameSource, ScopeProvider

from assistant.upgrade.lookup import TargetIndex
from assistant.upgrade.receivers import dotted, typed_names
from assistant.upgrade.target import Target

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


@dataclass(frozen=True)
class Hit:
    """One place a module hits a target; `line` and `col` are 1-based."""

    line: int
    col: int
    symbol: str
    change: str
    exact: bool


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
        for name, owner in known.settings.items():  # `USE_L10N = True`; `orm_mode = True` in a model's Config
            for target in self.index.settings.get(name.value, ()):
                if not owner or owner.split(".")[0] == target.symbol.split(".")[0]:
                    self._hit(name, target.symbol, target)

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

        first = by_position[0].value if by_position else None

        def hit_by(target: Target) -> bool:
            if target.forms:
                shape = (
                    "list"
                    if isinstance(first, (cst.List, cst.ListComp))
                    else "tuple"
                    if isinstance(first, cst.Tuple)
                    else ""
                )
                return any(f == shape or (f.startswith("kw=") and f[3:] in keywords) for f in target.forms)
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
                for target in self.index.calls.get(symbol, ()) + self.index.in_forms(symbol):
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
    return target.parameter or ("*" if target.positional >= 0 else ", ".join(target.forms))
