"""An upgrade's span: the releases a question goes from and to ("from 1.7 to 2.x", "2.10 → 2.12"), and the
indexed releases between them."""

from __future__ import annotations

import re
from collections.abc import Sequence

from assistant.index.catalog import release_key

# "from 1.7 to 2.x", "de 2.5 à 2.6", "2.10 → 2.12": the release a user upgrades from, and the one they went to.
_V = r"v?(\d{1,3}(?:\.\d{1,3}){1,2}|\d{1,3}\.x)"
_UPGRADE = re.compile(
    rf"\b(?:from|de|depuis)\s+(?:[A-Za-z][\w.+-]*\s+)?{_V}\s+(?:to|->|→|à|a|vers|en)\s+(?:[A-Za-z][\w.+-]*\s+)?{_V}(?!\w)"
    rf"|{_V}\s*(?:->|→|=>)\s*{_V}",
    re.IGNORECASE,
)
_PAST = 10**6  # "2.x" and "2.5" reach past every 2.* and 2.5.* release


def upgrade_versions(question: str) -> tuple[str, str] | None:
    """The (from, to) versions of an upgrade question ("from 2.10 to 2.12", "2.10 → 2.12"), else None."""
    m = _UPGRADE.search(question)
    if not m:
        return None
    start, end = (g for g in m.groups() if g)
    return start, end


def releases_between(start: str, end: str, versions: Sequence[str]) -> list[str]:
    """The releases an upgrade from `start` to `end` goes through: after every `start` release, up to and with
    every `end` one ("from 1.7 to 2.x": 2.0.0 … 2.9.0, not 1.7.1)."""

    def bound(version: str) -> tuple[int, ...]:
        parts = version.lower().removeprefix("v").split(".")
        numbers = [int(p) for p in parts if p.isdigit()]
        return (*numbers, *[_PAST] * (4 - len(numbers)))

    low, high = bound(start), bound(end)
    return [v for v in versions if low < release_key(v) <= high]
