"""One spelling for a default or an annotation, so two releases that write the same value or type differently are
not read as a change: `Optional[X]` and `X | None`, `Type[Set[T]]` and `type[set[T]]` (PEP 585/604), the same
call reached through another module alias (`_sql.null()` and `sql.null()`), a type alias and what it stands for
(`NDArray[Any]` for `ndarray[Any, dtype[Any]]`).
"""

from __future__ import annotations

import contextlib
import re

# typing's aliases of builtin and collections generics (PEP 585): the same type under another name
_TYPING_ALIASES = {
    "List": "list",
    "Dict": "dict",
    "Set": "set",
    "FrozenSet": "frozenset",
    "Tuple": "tuple",
    "Type": "type",
    "DefaultDict": "defaultdict",
    "Deque": "deque",
    "Text": "str",
}
# a string literal (left as it is) or a dotted name (only its last part kept: the module it is reached through
# says nothing about the value). An unclosed literal runs to the end of the text, in one match: ending it only at
# a quote made each of a run of quotes scan the rest of the text again (quadratic time).
_TOKEN = re.compile(
    r"""('(?:[^'\\]|\\.)*+\\?(?:'|\Z)|"(?:[^"\\]|\\.)*+\\?(?:"|\Z))|([A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*)"""
)


def spelled(value: object) -> str:
    """`value` (a griffe expression or its text) in one spelling: typing generics modernised, `Optional[X]` as
    `X | None`, each dotted name cut to its last part, string quotes and spaces made uniform."""
    modernize = getattr(value, "modernize", None)
    if callable(modernize):
        # griffe resolves names while modernising; an unresolvable one leaves the text as it is
        with contextlib.suppress(Exception):
            value = modernize()
    text = str(value)

    def one(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            return "'" + m.group(1)[1:].removesuffix(m.group(1)[0]) + "'"
        last = m.group(2).rsplit(".", 1)[-1].strip()
        return _TYPING_ALIASES.get(last, last)

    text = _TOKEN.sub(one, text)
    text = _optional(text)
    return re.sub(r"\s+", "", text)


def _optional(text: str) -> str:
    """`Optional[X]` as `X | None` (griffe modernises it only when it can resolve `Optional`)."""
    at = 0
    while (start := text.find("Optional[", at)) >= 0:
        if start and (text[start - 1].isalnum() or text[start - 1] == "_"):  # `MyOptional[`: another name
            at = start + 1
            continue
        depth, i = 0, start + len("Optional")
        for i in range(start + len("Optional"), len(text)):
            depth += {"[": 1, "]": -1}.get(text[i], 0)
            if depth == 0:
                break
        else:
            return text
        text = f"{text[:start]}{text[start + len('Optional[') : i]} | None{text[i + 1 :]}"
    return text


def alias_names(annotation: object) -> set[str]:
    """The last parts of the names that the type aliases in `annotation` stand for: a name resolving to a
    module-level assignment of a type expression (`NDArray = ndarray[Any, dtype[T]]`) adds the names in it."""
    import griffe

    if not isinstance(annotation, griffe.Expr):
        return set()
    names: set[str] = set()
    for part in annotation.iterate(flat=True):
        if not isinstance(part, griffe.ExprName) or isinstance(part.parent, str | griffe.ExprName | None):
            continue
        try:
            target = part.resolved
            value = target.value if target is not None and target.is_attribute else None  # type: ignore[union-attr]
        except Exception:  # griffe raises several kinds on a name (or an alias) it cannot follow
            continue
        if isinstance(value, griffe.Expr):
            names |= {p.name for p in value.iterate(flat=True) if isinstance(p, griffe.ExprName)}
    return names
