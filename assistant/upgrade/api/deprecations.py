"""Deprecation in code: what one release's function or class says is deprecated, read from its source, never run.

A function (or a class, through its decorators and constructor) is deprecated when
- a decorator resolves to `deprecated` (`typing_extensions.deprecated`, `warnings.deprecated`) or to a
  `*deprecat*` helper of the product's own (`deprecate_kwarg`): a string argument naming one of its parameters
  makes it that parameter's deprecation; a helper naming no parameter and giving no sentence says nothing of the
  object (`deprecate_nonkeyword_arguments(…, name="groupby")` deprecates a call form);
- its body calls a `*deprecat*` helper: passing exactly one of its parameters makes it that parameter's;
- its body calls `warnings.warn(message, Category)` where `Category` resolves, through the release's API model,
  to a subclass of `DeprecationWarning`, `PendingDeprecationWarning` or `FutureWarning`.
A call under an `if` whose test names exactly one of the parameters (`if method is not None:`) deprecates that
parameter; under an `if` that names none, or several, it deprecates some kind of input, which a call does not
show: no deprecation is read from it. A body that only hands over to `super().same_name(...)` also says what the
base's method says. The message (a string literal, an f-string's text, a name assigned one earlier in the body)
is the fix text.
"""

from __future__ import annotations

import ast
import builtins
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

    import griffe

    from assistant.upgrade.api.load import LoadedRelease

DEPRECATION_WARNINGS = frozenset({"DeprecationWarning", "PendingDeprecationWarning", "FutureWarning"})
MAX_DEPTH = 4  # base classes and `super()` hand-overs followed this deep
MAX_MESSAGE = 300  # characters of a message kept as the fix text


@dataclass(frozen=True)
class _Found:
    parameter: str | None
    message: str
    line: int


@dataclass(frozen=True)
class Deprecation:
    """One deprecation a release's code states: of the object (`parameter` None) or of one parameter."""

    parameter: str | None
    message: str
    where: str | None  # "pkg/mod.py:LINE" of the decorator or the call


def deprecations(release: LoadedRelease, obj: griffe.Object, depth: int = 0) -> tuple[Deprecation, ...]:
    """What `obj` (a function, or a class: its decorators and constructor) says is deprecated, once per release."""
    cache: dict[str, tuple[Deprecation, ...]] = release.facts.setdefault("deprecations", {})
    if obj.path not in cache:
        cache[obj.path] = ()  # a recursion through `super()` back to here ends with nothing
        cache[obj.path] = tuple(
            d
            if isinstance(d, Deprecation)
            else Deprecation(d.parameter, d.message, release.relative(_path(obj), d.line))
            for d in _find(release, obj, depth)
        )
    return cache[obj.path]


def _find(release: LoadedRelease, obj: griffe.Object, depth: int) -> Iterator[_Found | Deprecation]:
    params = {p.name for p in getattr(obj, "parameters", ())} - {"self", "cls"}
    yield from _decorated(obj, params)
    if obj.is_class:
        ctor = obj.members.get("__init__")
        if ctor is not None and not ctor.is_alias and ctor.is_function:
            yield from deprecations(release, ctor, depth + 1)  # type: ignore[arg-type]
        return
    if not obj.is_function or not _may_deprecate(obj):
        return  # most functions say nothing about deprecation: skip parsing them
    node, offset = _node(release, obj)
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return
    yield from _in_body(release, obj, node, params, offset)
    if depth < MAX_DEPTH and obj.parent is not None and obj.parent.is_class and _hands_over(node):
        base = _next_definition(obj.parent, obj.name)  # type: ignore[arg-type]
        if base is not None:
            yield from deprecations(release, base, depth + 1)


def _may_deprecate(obj: griffe.Object) -> bool:
    """Whether the code after the docstring mentions deprecation, a warning or a hand-over to `super()`."""
    lines = obj.lines
    doc = obj.docstring
    skip = doc.endlineno - (obj.lineno or 0) + 1 if doc is not None and doc.endlineno and obj.lineno else 0
    code = "\n".join(lines[max(skip, 0) :])
    return "deprecat" in code.lower() or "warn(" in code or "super()." in code


def _node(release: LoadedRelease, obj: griffe.Object) -> tuple[ast.AST | None, int]:
    """The `def` node of `obj` and what to add to its line numbers: its own source parsed alone, or its whole
    file when that fails."""
    try:
        tree = ast.parse(textwrap.dedent(obj.source))
        if tree.body and isinstance(tree.body[0], ast.FunctionDef | ast.AsyncFunctionDef):
            return tree.body[0], (obj.lineno or 1) - 1
    except (SyntaxError, ValueError):
        pass  # a docstring less indented than its code: parse the file instead
    files: dict[str, dict[int, ast.AST]] = release.facts.setdefault("ast_by_line", {})
    key = str(obj.filepath)
    if key not in files:
        files[key] = {}
        try:
            whole = ast.parse(obj.filepath.read_text(encoding="utf-8-sig"))  # type: ignore[union-attr]
        except (OSError, SyntaxError, ValueError, AttributeError):
            whole = ast.Module(body=[], type_ignores=[])
        for node in ast.walk(whole):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for line in (node.lineno, *(d.lineno for d in node.decorator_list)):
                    files[key].setdefault(line, node)
    return files[key].get(obj.lineno or 0), 0


def _decorated(obj: griffe.Object, params: set[str]) -> Iterator[_Found]:
    for decorator in getattr(obj, "decorators", ()):
        last = decorator.callable_path.rsplit(".", 1)[-1].lower()
        if last != "deprecated" and "deprecat" not in last:
            continue
        try:
            deco: ast.expr | None = ast.parse(str(decorator.value), mode="eval").body
        except SyntaxError:
            deco = None
        args = [*deco.args, *(k.value for k in deco.keywords)] if isinstance(deco, ast.Call) else []
        named = [a.value for a in args if isinstance(a, ast.Constant) and a.value in params]
        message = next((_text(a, None) for a in args if isinstance(a, ast.Constant | ast.JoinedStr)), "")
        if not named and last != "deprecated" and " " not in message.strip():
            # `@deprecate_nonkeyword_arguments(…, name="groupby")`: a helper whose arguments say neither a parameter
            # nor, in a sentence, what goes; what it deprecates (a call form, a value) is not the object
            continue
        if not message or message in params:
            message = f"@{decorator.value}"
        yield _Found(named[0] if named else None, _clip(message), decorator.lineno or obj.lineno or 0)


def _in_body(
    release: LoadedRelease, obj: griffe.Object, node: ast.AST, params: set[str], offset: int
) -> Iterator[_Found]:
    for call, tests in _calls(node.body, ()):  # type: ignore[attr-defined]
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if "deprecat" in name.lower():
            passed = {a.id for a in (*call.args, *(k.value for k in call.keywords)) if isinstance(a, ast.Name)}
            mine = passed & params
            parameter = next(iter(mine)) if len(mine) == 1 else _condition(tests, params)
            if parameter is None and tests:
                continue  # under a condition on no one parameter: some input's handling, not the object, goes
            # a helper's string arguments are often names ("fillna"), not a message: keep only a sentence
            texts = [t for t in (_text(a, node, obj) for a in call.args) if " " in t.strip()]
            if parameter is None and not texts:
                continue  # neither a parameter nor a sentence: what the helper deprecates is not said
            message = texts[0] if texts else ast.unparse(call)
            yield _Found(parameter, _clip(message), call.lineno + offset)
        elif name == "warn":
            category = (
                call.args[1]
                if len(call.args) > 1
                else next((k.value for k in call.keywords if k.arg == "category"), None)
            )
            if category is None or not _is_deprecation(release, obj, category):
                continue
            message = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "message"), None)
            text = _text(message, node, obj) if message is not None else ""
            parameter = _condition(tests, params)
            if parameter is None and tests:
                continue  # `if isinstance(data, BlockManager): warn(…)` deprecates a kind of input, not the class
            yield _Found(parameter, _clip(text or ast.unparse(call)), call.lineno + offset)


def _calls(body: list[ast.stmt], tests: tuple[ast.expr, ...]) -> Iterator[tuple[ast.Call, tuple[ast.expr, ...]]]:
    """Each call in `body` with the `if` tests it runs under, innermost last; nested defs and classes skipped."""
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if isinstance(stmt, ast.If):
            yield from _calls_in(stmt.test, tests)
            yield from _calls(stmt.body, (*tests, stmt.test))
            yield from _calls(stmt.orelse, (*tests, stmt.test))
            continue
        children = [c for c in ast.iter_child_nodes(stmt) if isinstance(c, ast.stmt)]
        for child in ast.iter_child_nodes(stmt):
            if isinstance(child, ast.expr):
                yield from _calls_in(child, tests)
            elif isinstance(child, ast.excepthandler | ast.match_case):
                yield from _calls(child.body, tests)
        yield from _calls(children, tests)


def _calls_in(expr: ast.expr, tests: tuple[ast.expr, ...]) -> Iterator[tuple[ast.Call, tuple[ast.expr, ...]]]:
    for sub in ast.walk(expr):
        if isinstance(sub, ast.Call):
            yield sub, tests


def _condition(tests: tuple[ast.expr, ...], params: set[str]) -> str | None:
    """The parameter the innermost test naming any parameter names, if it names exactly one and asks only whether
    it was passed (`if method is not None:`, `if axis is not lib.no_default:`, `if inplace:`): a test of its value
    (`isinstance(data, BlockManager)`, `unit in ("T", "S")`) deprecates a kind of input a call does not show."""
    for test in reversed(tests):
        named = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)} & params
        if named:
            return next(iter(named)) if len(named) == 1 and _passed(test, next(iter(named))) else None
    return None


def _passed(test: ast.expr, name: str) -> bool:
    """Whether `test` asks if `name` was passed: the name itself, or that it is not None or a sentinel name;
    within `and`/`or`, where one such part names it. (`is None`, `is lib.no_default`, `not x`: the warning is for
    leaving it out, a default that will change, which no call passing it shows.)"""
    if isinstance(test, ast.BoolOp):
        return any(_passed(part, name) for part in test.values)
    if isinstance(test, ast.Name):
        return test.id == name
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot | ast.NotEq):
        sides = (test.left, test.comparators[0])
        mine = [s for s in sides if isinstance(s, ast.Name) and s.id == name]
        other = [s for s in sides if s not in mine]
        sentinel = other and (
            (isinstance(other[0], ast.Constant) and other[0].value is None)
            or isinstance(other[0], ast.Name | ast.Attribute)
        )
        return bool(mine) and bool(sentinel)
    return False


def _text(expr: ast.expr | None, scope: ast.AST | None, obj: griffe.Object | None = None, depth: int = 0) -> str:
    """A message's text: literals as they are, f-string fields as `{source}`, a name through the value a local
    assignment or the module gives it."""
    if isinstance(expr, ast.Constant):
        return expr.value if isinstance(expr.value, str) else ""
    if isinstance(expr, ast.JoinedStr):
        return "".join(
            v.value if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}"  # type: ignore[attr-defined]
            for v in expr.values
        )
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        return _text(expr.left, scope, obj, depth) + _text(expr.right, scope, obj, depth)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "format":
        return _text(expr.func.value, scope, obj, depth)
    if isinstance(expr, ast.Name) and scope is not None and depth < MAX_DEPTH:
        for node in ast.walk(scope):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == expr.id for t in node.targets):
                return _text(node.value, scope, obj, depth + 1)
        member = obj.module.members.get(expr.id) if obj is not None else None
        target = _resolve(member) if member is not None else None
        value = getattr(target, "value", None) if target is not None and target.is_attribute else None
        if value is not None:
            try:
                return _text(ast.parse(str(value), mode="eval").body, None, None, depth + 1)
            except SyntaxError:
                return ""
    return ""


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


def _is_deprecation(release: LoadedRelease, obj: griffe.Object, expr: ast.expr) -> bool:
    """Whether a warning category resolves to a subclass of a deprecation warning (builtins by name)."""
    parts = ast.unparse(expr).split(".")
    scope: griffe.Object | None = obj.module
    for part in parts:
        member = scope.members.get(part) if scope is not None else None
        if member is None:
            return len(parts) == 1 and parts[0] in DEPRECATION_WARNINGS and hasattr(builtins, parts[0])
        scope = _resolve(member)
        if scope is None:  # an import from outside the package: trust the name
            return parts[-1] in DEPRECATION_WARNINGS
    return scope is not None and scope.is_class and _subclasses_deprecation(scope, 0)


def _subclasses_deprecation(cls: griffe.Object, depth: int) -> bool:
    if depth > MAX_DEPTH:
        return False
    for base in cls.bases:  # type: ignore[attr-defined]
        if str(base).rsplit(".", 1)[-1] in DEPRECATION_WARNINGS:
            return True
    try:
        bases = cls.resolved_bases  # type: ignore[attr-defined]
    except ValueError:
        return False
    return any(b.is_class and _subclasses_deprecation(b, depth + 1) for b in bases)


def _path(obj: griffe.Object) -> Path | None:
    path = obj.filepath
    return path[0] if isinstance(path, list) else path


def _resolve(member: griffe.Object | griffe.Alias) -> griffe.Object | None:
    import griffe

    try:
        return member.final_target if member.is_alias else member  # type: ignore[union-attr,return-value]
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None


def _hands_over(node: ast.AST) -> bool:
    name = node.name  # type: ignore[attr-defined]
    for sub in ast.walk(node):
        if (
            isinstance(sub, ast.Call)
            and isinstance(sub.func, ast.Attribute)
            and sub.func.attr == name
            and isinstance(sub.func.value, ast.Call)
            and isinstance(sub.func.value.func, ast.Name)
            and sub.func.value.func.id == "super"
        ):
            return True
    return False


def _next_definition(cls: griffe.Class, name: str) -> griffe.Object | None:
    """The definition of `name` that `super()` reaches from `cls`: the next class in its MRO defining it."""
    try:
        mro = cls.mro()
    except ValueError:
        return None
    for base in mro:
        member = base.members.get(name)
        if member is not None:
            target = _resolve(member)
            return target if target is not None and target.is_function else None
    return None
