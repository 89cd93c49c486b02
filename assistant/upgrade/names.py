"""What each name a module reads stands for, by Python's own scoping rules: the scope analysis behind the scan.

For every name a module reads (an `ast.Name` in a load context), `Scopes` gives the bindings it may refer to:
the imports, assignments, parameters, functions and classes that bind it in the scope Python resolves it in
(its own scope, then the enclosing functions with class bodies skipped, then the module; `global` and `nonlocal`
declarations send a binding where they say), and the qualified names of those that are imports: `numpy` for
`np` after `import numpy as np`, `.models.User` for a relative import. A name bound nowhere is a builtin when
Python has one by that name. Like the language's own compile-time rules, the analysis is flow-insensitive: every
binding of the name in that scope counts, wherever it stands. `dotted` reads a pure dotted chain
(`torch.ao.quantization`) part by part.

Written by hand over `ast`: LibCST's scope and qualified-name providers did this job at a cost the scan's budget
cannot carry (17 s for the 62 files, 33,000 lines, of the real-code sets, against 0.35 s for CPython to parse
them, build their `symtable` and walk their trees); `symtable` resolves names the same way but cannot be tied
back to the tree's nodes. The walk is iterative: CPython builds trees deeper than Python's recursion limit.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field

BUILTINS = frozenset(dir(builtins))
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


@dataclass(eq=False)
class _Scope:
    kind: str  # "module", "class", "function" (a lambda too) or "comprehension"
    parent: _Scope | None
    bindings: dict[str, list[ast.AST]] = field(default_factory=dict)
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Scopes:
    """A module's reads and what each may refer to."""

    accesses: dict[ast.Name, tuple[ast.AST, ...]]  # each read name -> its bindings (none: builtin or unbound)
    imports: dict[ast.alias, str]  # each import's alias -> the qualified name it binds

    @classmethod
    def of(cls, tree: ast.Module) -> Scopes:
        """The module's scope analysis."""
        return _Walk(tree).result()

    def imported(self, name: ast.Name) -> list[str]:
        """The qualified names the imports binding a read name give it (several when bound more ways)."""
        return sorted({self.imports[b] for b in self.accesses.get(name, ()) if isinstance(b, ast.alias)})

    def known(self, name: ast.Name) -> bool:
        """Whether a read name is imported or a builtin: a receiver whose type is no class a target names."""
        bindings = self.accesses.get(name)
        if bindings is None:
            return False
        return any(isinstance(b, ast.alias) for b in bindings) or (not bindings and name.id in BUILTINS)


def dotted(node: ast.expr) -> list[ast.Name | ast.Attribute] | None:
    """The parts of a pure dotted chain (`torch.ao.quantization`), base name first, then each attribute that
    adds a part; None for anything else."""
    parts: list[ast.Name | ast.Attribute] = []
    while isinstance(node, ast.Attribute):
        parts.append(node)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node)
    parts.reverse()
    return parts


def chain_base(node: ast.expr) -> ast.expr:
    """What an expression's chain of calls, subscripts and attributes starts from (`df` in `df["a"].x().y`)."""
    while isinstance(node, (ast.Subscript, ast.Call, ast.Attribute)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def part_name(part: ast.Name | ast.Attribute) -> str:
    """A dotted chain part's own name: the base's, or the attribute's."""
    return part.id if isinstance(part, ast.Name) else part.attr


def dotted_name(node: ast.expr) -> str:
    """A pure dotted chain as one name (`torch.ao.quantization`); '' for anything else."""
    parts = dotted(node)
    return ".".join(map(part_name, parts)) if parts else ""


class _Walk:
    """One pass over the tree that records scopes, bindings and reads, then resolves each read."""

    def __init__(self, tree: ast.Module) -> None:
        self.module = _Scope("module", None)
        self.reads: list[tuple[ast.Name, _Scope]] = []
        self.binds: list[tuple[_Scope, str, ast.AST]] = []  # placed after the walk: `global` may come later
        self.imports: dict[ast.alias, str] = {}
        stack: list[tuple[ast.AST, _Scope]] = [(tree, self.module)]
        while stack:
            node, scope = stack.pop()
            stack.extend(self._visit(node, scope))

    def _visit(self, node: ast.AST, scope: _Scope) -> list[tuple[ast.AST, _Scope]]:
        """Record what `node` binds or reads; the children to walk next, each with its scope."""
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                self.reads.append((node, scope))
            else:
                self.binds.append((scope, node.id, node))
            return []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return self._function(node, scope)
        if isinstance(node, ast.ClassDef):
            self.binds.append((scope, node.name, node))
            inner = _Scope("class", scope)
            outer = [*node.bases, *(k.value for k in node.keywords), *node.decorator_list]
            return [(n, scope) for n in outer] + [(n, inner) for n in node.body]
        if isinstance(node, _COMPREHENSIONS):
            inner = _Scope("comprehension", scope)
            first, *rest = node.generators
            out: list[tuple[ast.AST, _Scope]] = [(first.iter, scope), (first.target, inner)]
            out += [(n, inner) for n in first.ifs]
            for gen in rest:
                out += [(gen.target, inner), (gen.iter, inner), *((n, inner) for n in gen.ifs)]
            parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            return out + [(n, inner) for n in parts]
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            self._import(node, scope)
            return []
        if isinstance(node, ast.Global):
            scope.globals.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            scope.nonlocals.update(node.names)
        elif isinstance(node, ast.NamedExpr):
            outer = scope
            while outer.kind == "comprehension" and outer.parent is not None:  # `:=` binds outside it
                outer = outer.parent
            return [(node.target, outer), (node.value, scope)]
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            self.binds.append((scope, node.name, node))
        elif isinstance(node, ast.MatchMapping) and node.rest:
            self.binds.append((scope, node.rest, node))
        return [(child, scope) for child in ast.iter_child_nodes(node)]

    def _function(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, scope: _Scope
    ) -> list[tuple[ast.AST, _Scope]]:
        args = node.args
        params = [*args.posonlyargs, *args.args, *([args.vararg] if args.vararg else [])]
        params += [*args.kwonlyargs, *([args.kwarg] if args.kwarg else [])]
        # Defaults, annotations and decorators are evaluated where the function is defined.
        outer: list[ast.AST] = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
        inner = _Scope("function", scope)
        for param in params:
            self.binds.append((inner, param.arg, param))
        if isinstance(node, ast.Lambda):
            return [(n, scope) for n in outer] + [(node.body, inner)]
        self.binds.append((scope, node.name, node))
        outer += [p.annotation for p in params if p.annotation is not None]
        outer += [*node.decorator_list, *([node.returns] if node.returns else [])]
        return [(n, scope) for n in outer] + [(n, inner) for n in node.body]

    def _import(self, node: ast.Import | ast.ImportFrom, scope: _Scope) -> None:
        for alias in node.names:
            if alias.name == "*":
                continue  # binds nothing that can be named here
            if isinstance(node, ast.Import):
                bound = alias.asname or alias.name.split(".", 1)[0]  # `import a.b.c` binds `a`
                self.imports[alias] = alias.name if alias.asname else bound
            else:
                bound = alias.asname or alias.name
                prefix = "." * node.level + (node.module or "")
                self.imports[alias] = f"{prefix}.{alias.name}" if node.module else f"{prefix}{alias.name}"
            self.binds.append((scope, bound, alias))

    def result(self) -> Scopes:
        for scope, name, node in self.binds:
            _where(scope, name, self.module).bindings.setdefault(name, []).append(node)
        accesses = {}
        for name, scope in self.reads:
            found = _lookup(scope, name.id, self.module)
            accesses[name] = tuple(found.bindings[name.id]) if found is not None else ()
        return Scopes(accesses, self.imports)


def _where(scope: _Scope, name: str, module: _Scope) -> _Scope:
    """The scope a binding of `name` in `scope` lands in: the module for a `global`, the enclosing function
    for a `nonlocal`."""
    if name in scope.globals:
        return module
    if name in scope.nonlocals:
        outer = scope.parent
        while outer is not None and outer.kind == "class":
            outer = outer.parent
        return outer or module
    return scope


def _lookup(scope: _Scope, name: str, module: _Scope) -> _Scope | None:
    """The scope a read of `name` in `scope` resolves in: its own, then enclosing ones but for class bodies."""
    if name in scope.globals:
        return module if name in module.bindings else None
    current: _Scope | None = scope
    while current is not None:
        if (current is scope or current.kind != "class") and name in current.bindings:
            return current
        current = current.parent
    return None
