"""Which names one module of a release can have, where static analysis can tell all of them (else None): what
it binds at its top level, what it star-imports from modules of the release whose names are known, what its
`__getattr__` gives under a test of the name asked; None wherever the module may make names at run time.

A module's names are open (None) when: its source writes `globals()`, `vars()` or `locals()` (read back as
`globals()[name]` only is fine), touches `sys.modules` or imports itself (`import_module(__name__)`), `exec`s,
calls `declare_namespace`, names `__path__`, or loads lazily (`lazy_loader`); a function declares a module
global; it star-imports a module outside the release or one whose names are open; it is a namespace package or
a stub (`.pyi`) with a `__getattr__`; or its `__getattr__` returns under any test but `name == "x"` or `name in
X`, `X` a module-level display of strings that nothing changes later (`if name in submodules:`), or under none
(`return globals()[name]` aside). A class standing for the function (Matplotlib's `_api.caching_module_getattr`)
gives its members. A star import of a module whose `__all__` is computed gives every name that module has.

griffe loads what a module defines but says nothing of what it may define besides, and it drops some bindings
(names unpacked from a tuple, a walrus): that judgement, and the bindings, are read here from the source, by hand,
for that reason.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import TYPE_CHECKING

from assistant.upgrade.api.load import is_package

if TYPE_CHECKING:
    import griffe

# What writes or may write a module's names at run time. `globals()[name]` read back at the end of a line (in a
# `__getattr__`) gives only what the module defines, so that one form is not.
_DYNAMIC = re.compile(
    r"\b(?:globals|vars|locals)\s*+\((?!\)\[[ \t]*+\w++[ \t]*+\][ \t]*+$)"  # written, not read back whole
    r"|=[ \t]*+(?:globals|vars|locals)[ \t]*+$"  # kept to be called later
    r"|\bsys\.modules\b|\bimport_module\([ \t]*+__name__|\bexec\("
    r"|\bdeclare_namespace\b|\bextend_path\(|\b__path__\b|\blazy(?:_loader|\.attach)\b"
    r"|^[ \t]++global[ \t]",  # a function binding a module name
    re.MULTILINE,
)
_DYNAMIC_WORDS = (
    "globals",
    "vars",
    "locals",
    "sys.modules",
    "import_module",
    "exec(",
    "declare_namespace",
    "extend_path",
    "__path__",
    "lazy",
    "global ",
)
MAX_STAR_DEPTH = 8  # star imports of star imports followed this deep; deeper is taken as open
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# A list the module changes after it is written may give more names than it shows.
_MUTATORS = frozenset({"append", "extend", "update", "add", "insert", "setdefault", "__setitem__"})


class ModuleNames:
    """Each module's names, worked out once (star imports lead to other modules)."""

    def __init__(self, modules: dict[str, griffe.Module]) -> None:
        self.modules = modules
        self.done: dict[str, set[str] | None] = {}
        self.all_unread: set[str] = set()  # modules whose `__all__` is more than lists of strings

    def names(self, path: str, depth: int = 0) -> set[str] | None:
        """The names of the module at `path`, or None when they are open."""
        if path in self.done:
            return self.done[path]
        self.done[path] = None  # a cycle of star imports is open
        module = self.modules.get(path)
        found = self._read(module, depth) if module is not None and depth <= MAX_STAR_DEPTH else None
        self.done[path] = found
        return found

    def _read(self, module: griffe.Module, depth: int) -> set[str] | None:
        path = module.filepath
        if not isinstance(path, Path):
            return None  # a namespace package: its folders may be anywhere on the path
        try:
            text = path.read_text(encoding="utf-8")
            tree = ast.parse(text)
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        if _dynamic(text):
            return None
        if "__all__" in text and not _literal_all(tree, text):
            self.all_unread.add(module.path)
        served = _getattr_gives(module, tree, stub=path.suffix == ".pyi")
        if served is None:
            return None
        names = served | _bound(tree) | {n for n in module.members if "*" not in n and "/" not in n}
        names |= _exported(module)
        for star in _stars(module, tree):
            inner = self.names(star, depth + 1)
            target = self.modules.get(star)
            if inner is None or target is None:
                return None
            if star in self.all_unread:  # what its `__all__` holds, the module has: at most all of its names
                names |= inner
            else:
                names |= _exported(target) or {n for n in inner if not n.startswith("_")}
        return names


def _exported(module: griffe.Module) -> set[str]:
    return {e if isinstance(e, str) else str(getattr(e, "name", e)) for e in module.exports or ()}


def _top(body: list[ast.stmt]) -> list[ast.stmt]:
    """A module's top-level statements, those in its `if`, `try`, `with` and loop blocks included (not in a
    function's or a class's body)."""
    out: list[ast.stmt] = []
    for node in body:
        out.append(node)
        if isinstance(node, ast.If | ast.For | ast.AsyncFor | ast.While | ast.With | ast.AsyncWith):
            out += _top(node.body) + _top(getattr(node, "orelse", []))
        elif isinstance(node, ast.Try | ast.TryStar):
            out += _top(node.body) + _top(node.orelse) + _top(node.finalbody)
            for handler in node.handlers:
                out += _top(handler.body)
        elif isinstance(node, ast.Match):
            for case in node.cases:
                out += _top(case.body)
    return out


def _bound(tree: ast.Module) -> set[str]:
    """Every name the module's top level binds: assigned (unpacked too), a loop's or a `with`'s target, a walrus
    outside a function, a function, a class, an import."""
    names: set[str] = set()
    for node in _top(tree.body):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            names |= {a.asname or a.name.partition(".")[0] for a in node.names if a.name != "*"}
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store):
                names.add(inner.id)
            elif isinstance(inner, ast.NamedExpr) and isinstance(inner.target, ast.Name):
                names.add(inner.target.id)
    return names


def _dynamic(text: str) -> bool:
    """Whether a module's source may make its names at run time (`_DYNAMIC`), a function's `global x` included;
    the words looked for first, as most modules have none of them and the pattern costs more than the look."""
    return any(word in text for word in _DYNAMIC_WORDS) and _DYNAMIC.search(text) is not None


def _stars(module: griffe.Module, tree: ast.Module) -> list[str]:
    """The modules `module` star-imports, as absolute paths."""
    parts = module.path.split(".") if is_package(module) else module.path.split(".")[:-1]
    out = []
    for node in _top(tree.body):
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            if node.level:
                base = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
                out.append(".".join([*base, *([node.module] if node.module else [])]))
            else:
                out.append(node.module or "")
    return out


def _string(v: ast.expr) -> bool:
    return isinstance(v, ast.Constant) and isinstance(v.value, str)


def _strings(v: ast.expr) -> bool:
    return isinstance(v, ast.List | ast.Tuple | ast.Set) and all(_string(e) for e in v.elts)


def _literal_all(tree: ast.Module, text: str) -> bool:
    """Whether `__all__` is only ever lists of strings (assigned, added, appended at the top level), or is not
    there: then griffe's reading of it is whole. A star import of a module whose `__all__` is computed (`[s for s
    in dir() …]`), or that a function or class touches, gives at most every name the module has."""
    top = _top(tree.body)
    bodies = [(n.lineno, n.end_lineno or n.lineno) for n in top if isinstance(n, _SCOPES)]
    lines = [i for i, line in enumerate(text.splitlines(), start=1) if "__all__" in line]
    if any(start <= i <= end for i in lines for start, end in bodies):
        return False
    for node in top:
        if isinstance(node, ast.Assign | ast.AugAssign) and _sets_all(node) and not _strings(node.value):
            return False
        call = node.value if isinstance(node, ast.Expr) else None
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id == "__all__"
            and not all(_strings(a) or _string(a) for a in call.args)
        ):
            return False
    return True


def _sets_all(n: ast.Assign | ast.AugAssign) -> bool:
    targets = n.targets if isinstance(n, ast.Assign) else [n.target]
    return any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)


def _getattr_gives(module: griffe.Module, tree: ast.Module, *, stub: bool) -> set[str] | None:
    """The names a module-level `__getattr__` may give (none without one), or None when it may give any."""
    member = module.members.get("__getattr__")
    if member is None:
        return set()
    if member.is_alias:
        return None
    if member.is_class:  # a class standing for the function: its members are what it gives
        return set(member.members)
    defined = [n for n in _top(tree.body) if isinstance(n, ast.FunctionDef) and n.name == "__getattr__"]
    if stub or len(defined) != 1 or not defined[0].args.args:
        return None  # a stub's `def __getattr__(name) -> Any: ...` may give anything; so may two definitions
    function = defined[0]
    displays = _fixed_displays(tree)
    given: set[str] = set()
    if not _returns_only_tested(function.body, function.args.args[0].arg, displays, given, tested=False):
        return None
    return given


def _fixed_displays(tree: ast.Module) -> dict[str, set[str]]:
    """The module's top-level names bound once to a display of strings (a list, tuple, set, or a dict's keys)
    that nothing changes later: the names each holds."""
    found: dict[str, set[str]] = {}
    bound: dict[str, int] = {}
    for node in _top(tree.body):
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        for target in targets:
            if isinstance(target, ast.Name):
                bound[target.id] = bound.get(target.id, 0) + 1
                value = node.value  # type: ignore[union-attr]
                if value is not None and _strings(value):
                    found[target.id] = {e.value for e in value.elts}  # type: ignore[attr-defined]
                elif isinstance(value, ast.Dict) and all(k is not None and _string(k) for k in value.keys):
                    found[target.id] = {k.value for k in value.keys}  # type: ignore[union-attr]
    changed = {
        n.func.value.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr in _MUTATORS
        and isinstance(n.func.value, ast.Name)
    }
    changed |= {
        t.value.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign | ast.AugAssign | ast.Delete)
        for t in (n.targets if isinstance(n, ast.Assign | ast.Delete) else [n.target])
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)
    }
    changed |= {n.target.id for n in ast.walk(tree) if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)}
    return {k: v for k, v in found.items() if bound.get(k) == 1 and k not in changed}


def _asks(test: ast.expr, asked: str, displays: dict[str, set[str]]) -> set[str] | None:
    """The names a test lets through when it is `asked == "x"`, `asked in X` (a fixed display, or a literal one),
    or an `or`/`and` of those; None for any other test."""
    if isinstance(test, ast.BoolOp):
        parts = [_asks(v, asked, displays) for v in test.values]
        if any(p is None for p in parts):
            return None
        sets = [p for p in parts if p is not None]
        return set().union(*sets) if isinstance(test.op, ast.Or) else set.intersection(*sets)
    if not (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.left, ast.Name)
        and test.left.id == asked
    ):
        return None
    op, right = test.ops[0], test.comparators[0]
    if isinstance(op, ast.Eq) and _string(right):
        return {right.value}  # type: ignore[attr-defined]
    if isinstance(op, ast.In):
        if _strings(right):
            return {e.value for e in right.elts}  # type: ignore[attr-defined]
        if isinstance(right, ast.Name) and right.id in displays:
            return displays[right.id]
    return None


def _returns_only_tested(
    body: list[ast.stmt], asked: str, displays: dict[str, set[str]], given: set[str], *, tested: bool
) -> bool:
    """Whether every `return` in `body` is under an `if` that lets only known names through (adding them to
    `given`), or gives `globals()[name]`."""
    for statement in body:
        if isinstance(statement, ast.Return):
            value = statement.value
            own = (
                isinstance(value, ast.Subscript)
                and isinstance(value.value, ast.Call)
                and isinstance(value.value.func, ast.Name)
                and value.value.func.id == "globals"
            )
            if not (tested or own):
                return False
        elif isinstance(statement, ast.If):
            allowed = _asks(statement.test, asked, displays)
            if allowed is not None:
                given |= allowed
            inner = tested or allowed is not None
            if not _returns_only_tested(statement.body, asked, displays, given, tested=inner):
                return False
            if not _returns_only_tested(statement.orelse, asked, displays, given, tested=tested):
                return False
        elif isinstance(statement, ast.Try):
            blocks = [statement.body, statement.orelse, statement.finalbody, *(h.body for h in statement.handlers)]
            if not all(_returns_only_tested(b, asked, displays, given, tested=tested) for b in blocks):
                return False
        elif isinstance(statement, ast.With | ast.For | ast.While):
            if not _returns_only_tested(statement.body, asked, displays, given, tested=tested):
                return False
        elif isinstance(statement, ast.Match | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            return False  # not followed: may give anything
    return True
