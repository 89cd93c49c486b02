"""What a local name holds, where the code says so plainly: the receivers the scan follows.

`df = pd.DataFrame(...)`, `def load(df: pd.DataFrame)`, `engine: Engine = ...`, `with Session(engine) as
session`: the name holds an instance of the class called or written as its annotation, so `df.applymap(str)`
is `pandas.DataFrame.applymap` and an exact hit, not a possible one. A class the module derives from a product
class (`class User(BaseModel)`) stands for it: `User(...)`, `User.parse_obj(...)`, `self` in its methods, the
methods it overrides and the names its body (or a class nested in it, `class Config`) sets. A rebinding from a
method of itself (`df = df.dropna()`, `query = query.filter(...)`) keeps the type: fluent APIs return their own
kind. Every binding of the name in its scope must agree (the analysis is flow-insensitive, as LibCST's scopes
are); anything else (`df = load()`, a loop variable, a parameter without annotation) leaves the name unknown,
and the scan's receiver-name rules apply to it as before.

Which callables are classes is read from the code's own naming (a `CamelCase` last part, PEP 8's) or from the
targets (the docs write members of it: `Engine.execute`); no product's names are listed here. Readers' return
types (`pd.read_csv` gives a DataFrame) are not known without the product installed: such names stay unknown.
Written by hand: LibCST gives scopes and qualified names, not types; jedi infers types only where the product
is installed, which a scan of code written for an older release cannot count on.
"""

# ruff: noqa: N802  (LibCST dispatches on method names spelled after node classes: visit_Assign)
from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import Assignment, QualifiedName, QualifiedNameSource
from libcst.metadata.scope_provider import Scope

_SAME = "="  # a binding from a method of the name itself: it keeps whatever type the others give


def dotted(node: cst.BaseExpression) -> list[cst.Name] | None:
    """The names of a pure dotted chain (`torch.ao.quantization`), base first; None for anything else."""
    names: list[cst.Name] = []
    while isinstance(node, cst.Attribute):
        names.append(node.attr)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    names.append(node)
    names.reverse()
    return names


class _Bindings(cst.CSTVisitor):
    """Each plainly bound name's node, with what binds it: a call, an annotation, or a method of itself; the
    bases of each class the module defines, and the first parameter (`self`, `cls`) of each of its methods."""

    def __init__(self) -> None:
        super().__init__()
        self.bound: dict[cst.Name, tuple[str, cst.BaseExpression]] = {}
        self.bases: dict[str, list[cst.BaseExpression]] = {}  # class name -> its bases, as written
        self.own: dict[cst.Param, str] = {}  # a method's first parameter -> its class's name
        self.methods: dict[cst.FunctionDef, str] = {}  # a method -> its class's name
        self.assigned: dict[cst.Name, str] = {}  # a name set at top level ("") or in a class body (its class)
        self._stack: list[cst.ClassDef | cst.FunctionDef] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.bases.setdefault(node.name.value, []).extend(arg.value for arg in node.bases if arg.keyword is None)
        self._stack.append(node)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._stack.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        static = any(isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in node.decorators)
        if self._stack and isinstance(owner := self._stack[-1], cst.ClassDef):
            self.methods[node] = owner.name.value
            if node.params.params and not static:
                self.own[node.params.params[0]] = owner.name.value
        self._stack.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._stack.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and isinstance(name := node.targets[0].target, cst.Name):
            self._value(name, node.value)
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self._setting(target.target)

    def _setting(self, name: cst.Name) -> None:
        """A name set at a module's top level, or in a class body (nested classes count as their outer one)."""
        if not self._stack:
            self.assigned[name] = ""
        elif all(isinstance(frame, cst.ClassDef) for frame in self._stack):
            self.assigned[name] = self._stack[0].name.value  # type: ignore[union-attr]

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Name):
            self.bound[node.target] = ("type", node.annotation.annotation)
            self._setting(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None and isinstance(name := node.asname.name, cst.Name):
            self._value(name, node.item)

    def _value(self, name: cst.Name, value: cst.BaseExpression) -> None:
        if not isinstance(value, cst.Call):
            return
        func = value.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == name.value:
            self.bound[name] = (_SAME, func)
        else:
            self.bound[name] = ("type", func)


@dataclass(frozen=True)
class Receivers:
    """What the scan knows of a module's names: the class each plainly typed reference holds (`df` ->
    `pandas.DataFrame`), and the product class each method overrides a member of (`def log_deletion` in a
    `ModelAdmin` subclass)."""

    types: dict[cst.Name, str]
    methods: dict[cst.FunctionDef, str]
    # Names set at a module's top level (""), or in the body of a class derived from a product's (that class)
    settings: dict[cst.Name, str]


def typed_names(
    module: cst.Module,
    scopes: Mapping[cst.CSTNode, Scope | None],
    qualified: Callable[[cst.CSTNode], Collection[QualifiedName]],
    is_class: Callable[[str], bool],
) -> Receivers:
    """The module's typed references, the methods and settings of its classes derived from a product's."""
    collector = _Bindings()
    module.visit(collector)

    def imported(expr: cst.BaseExpression) -> str | None:
        """The product class a dotted name stands for: imported, or a class of this module derived from one."""
        names = dotted(expr)
        if names is None:
            return None
        found = [q.name for q in qualified(names[0]) if q.source is QualifiedNameSource.IMPORT]
        if len(found) != 1:
            return derived.get(names[0].value) if len(names) == 1 else None
        full = ".".join([found[0], *(n.value for n in names[1:])])
        return full if is_class(full) else None

    # `class User(BaseModel)` is a `pydantic.BaseModel` for the scan, and so is `class Admin(User)`.
    derived: dict[str, str] = {}
    for _ in range(3):  # a class derived from a class derived from one, and so on, a few levels down
        for name, bases in collector.bases.items():
            found = next((b for b in map(imported, bases) if b), None)
            if found and name not in derived:
                derived[name] = found

    def type_of(binding: object) -> str | None:
        if not isinstance(binding, Assignment):
            return None
        node = binding.node
        if isinstance(node, cst.ClassDef):  # `User.parse_obj(…)`: a member of the class it derives from
            return derived.get(node.name.value)
        if isinstance(node, cst.Param):
            if node in collector.own:  # `self`, `cls`
                return derived.get(collector.own[node])
            return imported(node.annotation.annotation) if node.annotation else None
        how = collector.bound.get(node) if isinstance(node, cst.Name) else None
        if how is None:
            return None
        return _SAME if how[0] == _SAME else imported(how[1])

    out: dict[cst.Name, str] = {}
    for scope in {s for s in scopes.values() if s is not None}:
        for access in scope.accesses:
            if not isinstance(access.node, cst.Name) or not access.referents:
                continue
            types = {type_of(b) for b in access.referents} - {_SAME}
            if len(types) == 1 and None not in types:
                out[access.node] = next(iter(types))  # type: ignore[arg-type]
    methods = {node: derived[name] for node, name in collector.methods.items() if name in derived}
    settings = {
        node: derived.get(owner, "") for node, owner in collector.assigned.items() if not owner or owner in derived
    }
    return Receivers(out, methods, settings)
