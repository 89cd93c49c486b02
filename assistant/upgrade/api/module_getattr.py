"""What a module-level `__getattr__` (PEP 562) may give, read from its source: the names it returns under a test
of the name asked, or None when it may give any.

It gives only known names when every `return` in it is under an `if` whose test is `name == "x"`, `name in X` (a
literal display of strings, or a module-level name bound once to one that nothing changes, aliases or rebinds:
`if name in submodules:`), or an `and`/`or` of those; or returns `globals()[…]`, which gives only what the module
defines. Anything else is open: another test (`hasattr`, `startswith`, `not in`), the name asked rebound before
the test, a nested function, a `match`, a `__getattr__` bound otherwise than by one `def` at the top level, or one
in a stub. A class standing for the function (Matplotlib's `_api.caching_module_getattr`) gives its members.
"""

from __future__ import annotations

import ast
from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import griffe

# A list the module changes after it is written may give more names than it shows.
_MUTATORS = frozenset({"append", "extend", "update", "add", "insert", "setdefault", "__setitem__", "__iadd__"})


def getattr_gives(
    module: griffe.Module, tree: ast.Module, top: list[ast.stmt], bound: set[str], *, stub: bool
) -> set[str] | None:
    """The names the module's `__getattr__` may give (none without one), or None when it may give any. `top`: the
    module's top-level statements; `bound`: every name they bind."""
    member = module.members.get("__getattr__")
    if member is not None and member.is_class:  # a class standing for the function: its members are what it gives
        return set(member.members)
    defined = [n for n in top if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == "__getattr__"]
    if member is None and not defined and "__getattr__" not in bound:
        return set()
    if (member is not None and member.is_alias) or stub or len(defined) != 1 or not defined[0].args.args:
        return None  # imported, bound by an unpacking, defined twice, or a stub's `…`: may give anything
    function = defined[0]
    asked = function.args.args[0].arg
    if any(isinstance(n, ast.Name) and n.id == asked and not isinstance(n.ctx, ast.Load) for n in ast.walk(function)):
        return None  # the name asked is rebound before it is tested
    given: set[str] = set()
    if not _returns_only_tested(function.body, asked, _fixed_displays(tree), given, tested=False):
        return None
    return given


def is_string(v: ast.expr | None) -> bool:
    """A string literal."""
    return isinstance(v, ast.Constant) and isinstance(v.value, str)


def is_strings(v: ast.expr | None) -> bool:
    """A list, tuple or set display of string literals."""
    return isinstance(v, ast.List | ast.Tuple | ast.Set) and all(is_string(e) for e in v.elts)


def _fixed_displays(tree: ast.Module) -> dict[str, set[str]]:
    """The module's top-level names bound once to a display of strings (a list, tuple, set, or a dict's keys),
    bound nowhere else in the module, never changed in place and never taken under another name: what each holds."""
    found: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name, value = node.targets[0].id, node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            name, value = node.target.id, node.value
        else:
            continue
        if is_strings(value):
            found[name] = {e.value for e in value.elts}  # type: ignore[union-attr]
        elif isinstance(value, ast.Dict) and all(is_string(k) for k in value.keys):
            found[name] = {k.value for k in value.keys}  # type: ignore[union-attr]
    if not found:
        return {}
    bindings: Counter[str] = Counter()
    touched: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            bindings[n.id] += 1
        elif isinstance(n, ast.alias):
            bindings[n.asname or n.name.partition(".")[0]] += 1
        elif isinstance(n, ast.MatchAs | ast.MatchStar) and n.name:
            bindings[n.name] += 1
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name):
            if n.func.attr in _MUTATORS:
                touched.add(n.func.value.id)
        elif isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and not isinstance(n.ctx, ast.Load):
            touched.add(n.value.id)
        elif isinstance(n, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.NamedExpr) and isinstance(
            n.value, ast.Name
        ):
            touched.add(n.value.id)  # `T = S`: S may change as T
    return {k: v for k, v in found.items() if bindings[k] == 1 and k not in touched}


def _asks(test: ast.expr, asked: str, displays: dict[str, set[str]]) -> set[str] | None:
    """The names a test lets through when it is `asked == "x"`, `asked in X` (a fixed display, or a literal one),
    or an `or`/`and` of those; None for any other test."""
    if isinstance(test, ast.BoolOp):
        parts = [_asks(v, asked, displays) for v in test.values]
        sets = [p for p in parts if p is not None]
        if len(sets) != len(parts):
            return None
        return set().union(*sets) if isinstance(test.op, ast.Or) else set.intersection(*sets)
    if not (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.left, ast.Name)
        and test.left.id == asked
    ):
        return None
    op, right = test.ops[0], test.comparators[0]
    if isinstance(op, ast.Eq) and is_string(right):
        return {right.value}  # type: ignore[attr-defined]
    if isinstance(op, ast.In):
        if is_strings(right):
            return {e.value for e in right.elts}  # type: ignore[attr-defined]
        if isinstance(right, ast.Name) and right.id in displays:
            return displays[right.id]
    return None


def _own_read(value: ast.expr | None) -> bool:
    """`globals()[…]` read: what the module defines, nothing more."""
    return (
        isinstance(value, ast.Subscript)
        and isinstance(value.value, ast.Call)
        and isinstance(value.value.func, ast.Name)
        and value.value.func.id == "globals"
        and not value.value.args
    )


def _returns_only_tested(
    body: list[ast.stmt], asked: str, displays: dict[str, set[str]], given: set[str], *, tested: bool
) -> bool:
    """Whether every `return` in `body` is under an `if` that lets only known names through (adding them to
    `given`), or gives `globals()[…]`."""
    for statement in body:
        if isinstance(statement, ast.Return):
            if not (tested or _own_read(statement.value)):
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
        elif isinstance(statement, ast.Try | ast.TryStar):
            blocks = [statement.body, statement.orelse, statement.finalbody, *(h.body for h in statement.handlers)]
            if not all(_returns_only_tested(b, asked, displays, given, tested=tested) for b in blocks):
                return False
        elif isinstance(statement, ast.With | ast.AsyncWith | ast.For | ast.AsyncFor | ast.While):
            blocks = [statement.body, getattr(statement, "orelse", [])]
            if not all(_returns_only_tested(b, asked, displays, given, tested=tested) for b in blocks):
                return False
        elif isinstance(statement, ast.Match | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            return False  # not followed: may give anything
    return True
