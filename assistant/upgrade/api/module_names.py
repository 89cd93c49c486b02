"""Which names one module of a release can have, where static analysis can tell all of them (else None): what
it binds at its top level, what it star-imports from modules of the release whose names are known, what its
`__getattr__` gives (`assistant.upgrade.api.module_getattr`); None wherever the module may get names at run time.

Each module is parsed once, into a few facts; its names come from them. They are open (None) when:
- its source writes its names: `globals()`, `vars()` or `locals()` used otherwise than read as `globals()[…]`,
  `f_globals`, `sys.modules` or any `….modules[…]` (`sys` under another name), `__import__`, `exec`, `setattr`
  on what a call or subscript gives, `declare_namespace`, `extend_path`, `__path__`, a lazy loader, a `global`
  statement;
- another module of the release sets an attribute on it (`import pkg as _self; _self.x = 1`, `pkg.sub.x = 1`,
  `setattr(pkg, …)`, through `__dict__`);
- it star-imports a module outside the release or one whose names are open;
- it is a namespace package, a stub (`.pyi`) with no `.py` beside it, or its `__getattr__` may give any name.
A star import of a module whose `__all__` is computed gives every name that module has.

griffe loads what a module defines but says nothing of what it may define besides, and it drops some bindings
(names unpacked from a tuple, a walrus, a `match` capture): that judgement, and the bindings, are read here from
the source, by hand, for that reason.
"""

from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from assistant.upgrade.api.load import is_package
from assistant.upgrade.api.module_getattr import getattr_gives, is_string, is_strings

if TYPE_CHECKING:
    import griffe

# What writes or may write a module's names at run time, as text; `globals`, `vars` and `locals` are judged on the
# parsed module instead (read back as `globals()[…]` is fine). Each alternative is a plain word or two: linear.
_DYNAMIC = re.compile(
    r"\bsys\.modules\b|\.modules[ \t]*+\[|\bmodules[ \t]*+\[|\b__import__\b|\bexec[ \t]*+\(|\bdeclare_namespace\b"
    r"|\bextend_path\b|\b__path__\b|\bf_globals\b|\blazy_loader\b|\blazy\.attach\b"
)
_NAMESPACE_READERS = ("globals", "vars", "locals")
MAX_STAR_DEPTH = 8  # star imports of star imports followed this deep; deeper is taken as open
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True)
class _Facts:
    """What one parse of a module says about its names."""

    open: bool  # it may get names at run time
    bound: frozenset[str]  # what its top level binds, and what its `__getattr__` gives
    stars: tuple[str, ...]  # the modules it star-imports, absolute
    literal_all: bool  # its `__all__` is lists of strings only (or absent)
    writes: frozenset[str]  # modules of the release it sets attributes on


_OPEN = _Facts(True, frozenset(), (), False, frozenset())


class ModuleNames:
    """Each module's names, worked out once from its facts (star imports lead to other modules)."""

    def __init__(self, modules: dict[str, griffe.Module], packages: frozenset[str]) -> None:
        self.modules = modules
        self.facts = {path: _facts_of(module, packages) for path, module in modules.items()}
        self.written = frozenset(w for f in self.facts.values() for w in f.writes)
        self.done: dict[str, set[str] | None] = {}

    def names(self, path: str, depth: int = 0) -> set[str] | None:
        """The names of the module at `path`, or None when they are open."""
        if path in self.done:
            return self.done[path]
        self.done[path] = None  # a cycle of star imports is open
        found = self._read(path, depth) if depth <= MAX_STAR_DEPTH else None
        self.done[path] = found
        return found

    def _read(self, path: str, depth: int) -> set[str] | None:
        facts, module = self.facts.get(path), self.modules.get(path)
        if facts is None or module is None or facts.open or path in self.written:
            return None
        names = set(facts.bound) | {n for n in module.members if "*" not in n and "/" not in n} | _exported(module)
        for star in facts.stars:
            inner = self.names(star, depth + 1)
            target, its = self.modules.get(star), self.facts.get(star)
            if inner is None or target is None or its is None:
                return None
            if not its.literal_all:  # what its `__all__` holds, the module has: at most all of its names
                names |= inner
            else:
                names |= _exported(target) or {n for n in inner if not n.startswith("_")}
        return names


def _exported(module: griffe.Module) -> set[str]:
    return {e if isinstance(e, str) else str(getattr(e, "name", e)) for e in module.exports or ()}


def _facts_of(module: griffe.Module, packages: frozenset[str]) -> _Facts:
    path = module.filepath
    if not isinstance(path, Path):
        return _OPEN  # a namespace package: its folders may be anywhere on the path
    stub = path.suffix == ".pyi"
    if stub and not path.with_suffix(".py").exists():
        return _OPEN  # the stub of a compiled module: what it leaves out may be there all the same
    try:
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
        return _OPEN
    if _DYNAMIC.search(text) or _writes_namespace(tree, text):
        return _OPEN
    top = _top(tree.body)
    bound = _bound(top)
    given = getattr_gives(module, tree, top, bound, stub=stub)
    if given is None:
        return _OPEN
    return _Facts(
        False,
        frozenset(bound | given),
        tuple(_stars(module, top)),
        "__all__" not in text or _literal_all(top, text),
        frozenset(_writes(module, tree, packages)),
    )


def _writes_namespace(tree: ast.Module, text: str) -> bool:
    """Whether the module may write its own names: a `global` statement; `setattr`/`delattr` on what a call or a
    subscript gives (`import_module(…)`, `modules[__name__]`); `globals`, `vars` or `locals` used otherwise than
    read as `globals()[…]`. The words are looked for first: most modules have none."""
    if "global" in text and any(isinstance(n, ast.Global) for n in ast.walk(tree)):
        return True
    if "setattr" in text and any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id in ("setattr", "delattr")
        and n.args
        and isinstance(n.args[0], ast.Call | ast.Subscript)
        for n in ast.walk(tree)
    ):
        return True
    if not any(w in text for w in _NAMESPACE_READERS):
        return False
    read: set[int] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Load)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and not node.value.args
        ):
            read.add(id(node.value.func))
    return any(
        isinstance(node, ast.Name) and node.id in _NAMESPACE_READERS and id(node) not in read for node in ast.walk(tree)
    )


def _top(body: list[ast.stmt]) -> list[ast.stmt]:
    """A module's top-level statements, those in its `if`, `try`, `with`, loop and `match` blocks included (not in
    a function's or a class's body)."""
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


def _bound(top: list[ast.stmt]) -> set[str]:
    """Every name the top-level statements bind: assigned (unpacked too), a loop's or a `with`'s target, a walrus,
    a `match` capture, an exception's name, a function, a class, an import."""
    names: set[str] = set()
    for node in top:
        if isinstance(node, _SCOPES):
            names.add(node.name)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            names |= {a.asname or a.name.partition(".")[0] for a in node.names if a.name != "*"}
            continue
        for inner in _own_nodes(node):
            if isinstance(inner, ast.Name) and not isinstance(inner.ctx, ast.Load):
                names.add(inner.id)
            elif isinstance(inner, ast.NamedExpr) and isinstance(inner.target, ast.Name):
                names.add(inner.target.id)
            elif isinstance(inner, ast.MatchAs | ast.MatchStar) and inner.name:
                names.add(inner.name)
            elif isinstance(inner, ast.MatchMapping) and inner.rest:
                names.add(inner.rest)
            elif isinstance(inner, ast.ExceptHandler) and inner.name:
                names.add(inner.name)
    return names


def _own_nodes(node: ast.AST) -> list[ast.AST]:
    """`node` and what is under it, not inside a function or class it holds (their names are not the module's)."""
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        out.append(current)
        stack += [c for c in ast.iter_child_nodes(current) if not isinstance(c, (*_SCOPES, ast.Lambda))]
    return out


def _stars(module: griffe.Module, top: list[ast.stmt]) -> list[str]:
    """The modules `module` star-imports, as absolute paths."""
    parts = module.path.split(".") if is_package(module) else module.path.split(".")[:-1]
    out = []
    for node in top:
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            out.append(_absolute(parts, node))
    return out


def _absolute(package: list[str], node: ast.ImportFrom) -> str:
    """The module an import names, absolute (`from ..x import y` in `a.b.c`'s package `a.b` is `a.x`)."""
    if not node.level:
        return node.module or ""
    base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
    return ".".join([*base, *([node.module] if node.module else [])])


def _writes(module: griffe.Module, tree: ast.Module, packages: frozenset[str]) -> set[str]:
    """The modules of the release this one sets or deletes attributes on, through a name an import binds to one
    (`import pkg as _self; _self.x = 1`, `from . import sub; sub.x = 1`, `setattr(pkg, …)`, `pkg.__dict__`)."""
    parts = module.path.split(".") if is_package(module) else module.path.split(".")[:-1]
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.partition(".")[0] in packages:
                    bound[a.asname or a.name.partition(".")[0]] = a.name if a.asname else a.name.partition(".")[0]
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(parts, node)
            if source.partition(".")[0] in packages:
                bound |= {a.asname or a.name: f"{source}.{a.name}" for a in node.names if a.name != "*"}
    if not bound:
        return set()
    written: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            chain, base = [], node.value
            while isinstance(base, ast.Attribute):
                chain.append(base.attr)
                base = base.value
            if not (isinstance(base, ast.Name) and base.id in bound):
                continue
            owner = ".".join([bound[base.id], *reversed(chain)])
            if not isinstance(node.ctx, ast.Load) or node.attr == "__dict__":
                written.add(owner)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr"):
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Name) and first.id in bound:
                written.add(bound[first.id])
    return written


def _literal_all(top: list[ast.stmt], text: str) -> bool:
    """Whether `__all__` is only ever lists of strings (assigned, added, appended at the top level): then griffe's
    reading of it is whole. A star import of a module whose `__all__` is computed (`[s for s in dir() …]`), or
    that a function or class touches, gives at most every name the module has."""
    bodies = sorted((n.lineno, n.end_lineno or n.lineno) for n in top if isinstance(n, _SCOPES))
    starts = [start for start, _ in bodies]
    for i, line in enumerate(text.splitlines(), start=1):
        if "__all__" in line and (k := bisect.bisect_right(starts, i) - 1) >= 0 and i <= bodies[k][1]:
            return False  # in a function's or a class's body
    for node in top:
        sets = isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign) and _sets_all(node)
        if sets and node.value is not None and not is_strings(node.value):  # type: ignore[union-attr]
            return False
        call = node.value if isinstance(node, ast.Expr) else None
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id == "__all__"
            and not all(is_strings(a) or is_string(a) for a in call.args)
        ):
            return False
    return True


def _sets_all(n: ast.Assign | ast.AugAssign | ast.AnnAssign) -> bool:
    """Whether a statement binds `__all__`, alone or among others (`__all__, x = …`)."""
    targets = n.targets if isinstance(n, ast.Assign) else [n.target]
    return any(isinstance(t, ast.Name) and t.id == "__all__" for target in targets for t in ast.walk(target))
