"""Change entries: what one entry of the release docs says changed, as data the upgrade plan and the code scan
read (ingest extracts them, `ingest.changes`; the store keeps them with their chunk, as one JSON field).

A change carries only what its entry says; the product, release and citation are its chunk's, and the
symbols are qualified through the product's import aliases when the plan is made (`assistant.upgrade.plan`), so an
alias learned later needs no re-ingest.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from typing import Literal

logger = logging.getLogger(__name__)

ChangeKind = Literal["breaking", "removed", "deprecated", "behaviour", "new"]
CHANGE_KINDS: tuple[ChangeKind, ...] = ("breaking", "removed", "deprecated", "behaviour", "new")


@dataclass(frozen=True)
class Change:
    """One change an entry announces."""

    kind: ChangeKind
    summary: str  # the entry's first sentence, as the docs word it (readable text, code in backticks)
    symbols: tuple[str, ...] = ()  # code names it is about, as the docs spell them (`np.float_`, `DataFrame.append`)
    replacement: str = ""  # what to use instead, when the entry says (`numpy.float64`)
    parameter: str = ""  # the one parameter of `symbols[0]` it is about (`trust_repo` of `torch.hub.load`)
    default_changed: bool = False  # with `parameter`: its default changed, so calls that omit it are hit
    entry: int = 0  # which entry of the chunk announces it (its position in `Chunk.entries`)
    # A call form: how many arguments may still be passed by position (`concat(objs, axis)` hits "non-keyword
    # arguments except `objs`": 1); -1 when the change is not about passing by position.
    positional: int = -1
    # Call forms its code examples mark as old ("select:list", "insert:kw=values"): `ingest.call_forms`.
    forms: tuple[str, ...] = ()
    fix: str = ""  # what to do, where the docs say it apart from a replacement ("Update the compiler and …")
    # Each symbol's role kind where the docs write it with one ("func", "meth", "attr", "class", ...; "" for none):
    # whether `pivot` is a module's function and `ndarray.newbyteorder` a class's method, which code spans lose.
    kinds: tuple[str, ...] = ()


def dumps(changes: tuple[Change, ...]) -> str:
    """Changes as compact JSON for one metadata field."""
    rows = [
        [
            c.kind,
            c.summary,
            list(c.symbols),
            c.replacement,
            c.parameter,
            int(c.default_changed),
            c.entry,
            c.positional,
            list(c.forms),
            c.fix,
            list(c.kinds),
        ]
        for c in changes
    ]
    return json.dumps(rows, ensure_ascii=False, separators=(",", ":")) if rows else ""


def loads(data: str) -> tuple[Change, ...]:
    """What `dumps` wrote; () for a missing or unreadable field (the chunk then announces no change)."""
    if not data:
        return ()
    try:
        return tuple(_change(*row) for row in json.loads(data))
    except (ValueError, TypeError) as e:
        logger.warning("ignoring unreadable change entries: %s", e)
        return ()


def _change(
    kind: str,
    summary: str,
    symbols: list[str],
    replacement: str,
    parameter: str,
    default: int,
    entry: int,
    positional: int = -1,
    forms: list[str] | None = None,
    fix: str = "",
    kinds: list[str] | None = None,
) -> Change:
    if kind not in CHANGE_KINDS:
        raise ValueError(f"unknown change kind {kind!r}")
    return Change(
        kind,  # type: ignore[arg-type]
        str(summary),
        tuple(map(str, symbols)),
        str(replacement),
        str(parameter),
        bool(default),
        int(entry),
        int(positional),
        tuple(map(str, forms or ())),
        str(fix),
        tuple(map(str, kinds or ())),
    )


_LEADING_VERB = re.compile(
    r"^\W*(?:removed|deprecated|enforced|disallow\w*|changed|renamed|moved|dropped|added|stopped|updated|made|"
    r"removes?|deprecates?|renames?|drops?)\b",  # changelogs' imperative: "Remove deprecated `x` method"
    re.IGNORECASE,
)
_VERB = re.compile(
    r"\b(?:is|are|was|were|now|no longer|has|have|had|will|can|could|should|must|may|"
    r"(?<!\bthe )(?<!\ba )(?<!\ban )(?:removed|deprecated)|renamed|"  # not "The deprecated `x()` has been removed"
    r"moved|changed|raises?|returns?|accepts?)\b",
    re.IGNORECASE,
)


def subject_part(summary: str) -> str:
    """The part of a summary naming what changed: before its verb, or all of it when it opens with the verb."""
    verb = None if _LEADING_VERB.match(summary) else _VERB.search(summary)
    return summary[: verb.start()] if verb else summary
