"""Where a module says a hit is not one: code guarded against the old or the new release, and lines the user
silenced.

A use inside `try: … except ImportError:` (or `ModuleNotFoundError`) has its fallback beside it, and a use under
an `if` that compares a version (`if pd.__version__ >= "2"`, `if TORCH_VERSION < (2, 1)`, `Version(x) < …`) runs
only on the releases it was written for: both are reported as guarded, not as hits. A check of Python's own
version (`sys.version_info`) guards nothing of a product's. `# reldocs: ignore` on a line silences every finding
on it, `# reldocs: ignore[ID, …]` those of the changes named.

Written here, as no linter's suppression syntax or guard detection is reusable as a library for another tool's
findings.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass

IMPORT_FALLBACK = "import fallback"
VERSION_CHECK = "version check"
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})
_IGNORE = re.compile(r"#\s*reldocs:\s*ignore(?:\[([^\]\n]{0,500})\]|(?![\w-]))", re.IGNORECASE)
# A name that holds a version: `version`, `__version__`, `TORCH_VERSION`, `pd_version`, `Version(…)`; not
# `conversion_rate` or `versions`.
_VERSION_NAME = re.compile(r"(?:^|_)version$", re.IGNORECASE)
_PYTHON_VERSION = frozenset({"version_info", "hexversion", "python_version"})


@dataclass(frozen=True)
class Guards:
    """A module's guarded lines and silenced lines."""

    guarded: dict[int, str]  # line -> why it is guarded
    ignored: dict[int, frozenset[str] | None]  # line -> the change ids silenced there; None: every one

    def why(self, line: int) -> str:
        """Why `line` is guarded ("import fallback", "version check"), or ""."""
        return self.guarded.get(line, "")

    def silenced(self, line: int, change: str) -> bool:
        """Whether the user silenced `change` on `line`."""
        if line not in self.ignored:
            return False
        ids = self.ignored[line]
        return ids is None or change in ids


def guards(tree: ast.Module, source: str) -> Guards:
    """The guards and silencing comments of one module."""
    guarded: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(_catches_import(h) for h in node.handlers):
            _mark(guarded, node.body, IMPORT_FALLBACK)
            for handler in node.handlers:  # the fallback itself: the old spelling, for the releases that lack the new
                if _catches_import(handler):
                    _mark(guarded, handler.body, IMPORT_FALLBACK)
        elif isinstance(node, ast.If) and _compares_version(node.test):
            _mark(guarded, [*node.body, *node.orelse], VERSION_CHECK)
    return Guards(guarded, _ignored(source))


def _mark(guarded: dict[int, str], body: list[ast.stmt], why: str) -> None:
    for statement in body:
        for line in range(statement.lineno, (statement.end_lineno or statement.lineno) + 1):
            guarded.setdefault(line, why)  # the innermost guard is walked later: the outer one's reason stays


def _catches_import(handler: ast.ExceptHandler) -> bool:
    caught = handler.type
    names = caught.elts if isinstance(caught, ast.Tuple) else [caught] if caught is not None else []
    return any(_last_name(n) in _IMPORT_ERRORS for n in names)


def _last_name(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def _compares_version(test: ast.expr) -> bool:
    """A comparison one side of which names a version (a name or attribute with "version" in it, or a call of
    one: `Version(torch.__version__)`), other than Python's own."""
    for node in ast.walk(test):
        if isinstance(node, ast.Compare) and any(_names_version(side) for side in (node.left, *node.comparators)):
            return True
    return False


def _names_version(node: ast.expr) -> bool:
    for inner in ast.walk(node):
        name = _last_name(inner) if isinstance(inner, ast.Name | ast.Attribute) else ""
        if _VERSION_NAME.search(name.strip("_")) and name not in _PYTHON_VERSION:
            return True
    return False


def _ignored(source: str) -> dict[int, frozenset[str] | None]:
    out: dict[int, frozenset[str] | None] = {}
    if "reldocs" not in source:
        return out
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT and (m := _IGNORE.search(token.string)):
                ids = frozenset(i.strip() for i in m.group(1).split(",") if i.strip()) if m.group(1) else None
                out[token.start[0]] = ids
    except (tokenize.TokenError, SyntaxError):
        pass  # a module that parsed but does not tokenize to the end: the comments read so far stand
    return out
