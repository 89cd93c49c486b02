"""How parameters moved or left between two signatures of one function, beyond what griffe tells: a move that
only an earlier parameter's leaving caused, and a catch-all (`*args`, `**kwargs`) traded for the named parameters
it took, or named ones for a catch-all that still reads them.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import griffe

    from assistant.upgrade.api.load import LoadedRelease


def left_before(old: griffe.Function, new: griffe.Function, name: str | None) -> tuple[str, ...]:
    """The parameters before `name` that left the positional order (removed, or keyword-only now), when they
    alone moved it: among the positional parameters both signatures keep, it is where it was. Empty when one was
    inserted before it or the order changed, which shifts what positional callers pass."""
    positional = {"positional_only", "positional_or_keyword"}
    pos_a = [p.name for p in old.parameters if p.kind.name in positional]
    pos_b = [p.name for p in new.parameters if p.kind.name in positional]
    if name not in pos_a or name not in pos_b:
        return ()
    kept = [n for n in pos_a if n in pos_b]
    if kept.index(name) != pos_b.index(name) or kept[: kept.index(name)] != pos_b[: pos_b.index(name)]:
        return ()
    return tuple(n for n in pos_a[: pos_a.index(name)] if n not in pos_b)


def shimmed(old: griffe.Function, new: griffe.Function, literals: frozenset[str]) -> set[str]:
    """The parameters (each as its kind and its name) whose removal is a catch-all traded for named ones, or
    named ones for a catch-all: `**kwargs` gone where keywords were added, `*args` gone where positional ones
    were added (the same calls still work: `endswith(other, **kw)` -> `endswith(other, escape=None,
    autoescape=False)`), and a named parameter gone where a `**kwargs` was added and the new function's module
    still reads that name as a string (`kwargs.pop("all")`): a shim that still accepts it by keyword."""
    before = {p.name for p in old.parameters}
    added = {p.kind.name for p in new.parameters if p.name not in before}
    had_var_kw = any(p.kind.name == "var_keyword" for p in old.parameters)
    shimmed: set[str] = set()
    if added & {"positional_or_keyword", "keyword_only"}:
        shimmed |= {"var_keyword", *(p.name for p in old.parameters if p.kind.name == "var_keyword")}
    if added & {"positional_only", "positional_or_keyword"}:
        shimmed |= {"var_positional", *(p.name for p in old.parameters if p.kind.name == "var_positional")}
    if "var_keyword" in added and not had_var_kw:
        gone = [p for p in old.parameters if p.name not in {q.name for q in new.parameters}]
        shimmed |= {p.name for p in gone if p.name in literals}
        shimmed |= {"positional_or_keyword", "keyword_only"} if shimmed else set()
    return shimmed


def literals(b: LoadedRelease, path: Path | None) -> frozenset[str]:
    """The identifier-like string constants of a module file of `b` (read once per file)."""
    cache: dict[Path | None, frozenset[str]] = b.facts.setdefault("literals", {})
    if path not in cache:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8")) if path is not None else None
        except (OSError, SyntaxError, ValueError):
            tree = None
        cache[path] = frozenset(
            n.value
            for n in (ast.walk(tree) if tree is not None else ())
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.isidentifier()
        )
    return cache[path]
