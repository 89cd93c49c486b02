"""Which dependencies moved between two revisions of a project's pins (`moves(old, new)`), and what the fetched-docs
folder already holds of each (`docs_in_place`), so an upgrade fetches only what is missing.

A package is compared by its canonical name, at its exact pin or its lower bound (`Pin.version`): one in both
revisions at different versions moved; one only in the new revision was added, one only in the old removed; one
at the same version (or pinned to none in either) did not move and is left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

from ingest.dependencies import store
from ingest.dependencies.pins import Pin, dependencies


@dataclass(frozen=True)
class Move:
    """One dependency between two revisions: `before` None when it was added, `after` None when removed."""

    name: str  # canonical
    before: str | None
    after: str | None


def moves(old: Iterable[Pin], new: Iterable[Pin]) -> list[Move]:
    """The dependencies that moved, were added or were removed, in the order the new revision (then the old one)
    names them."""
    before = {p.name: p.version for p in dependencies(old)}
    after = {p.name: p.version for p in dependencies(new)}
    out = []
    for name in [*after, *(n for n in before if n not in after)]:
        a, b = before.get(name), after.get(name)
        if name in before and name in after and (a is None or b is None or _same(a, b)):
            continue  # the same release, or a revision that pins none: nothing to compare
        out.append(Move(name, a if name in before else None, b if name in after else None))
    return out


def docs_in_place(fetched: Path, name: str) -> str | None:
    """The release whose docs the fetched-docs folder holds for `name` (whole, as its provenance lists them), or
    None."""
    try:
        record = store.read_provenance(fetched, name)
    except ValueError:  # not a canonical name: never fetched under it
        return None
    version = record.get("version") if record else None
    return version if isinstance(version, str) and version else None


def at_least(version: str | None, wanted: str) -> bool:
    """Whether `version` is `wanted` or a later release (False when either is no version)."""
    try:
        return version is not None and Version(version) >= Version(wanted)
    except InvalidVersion:
        return False


def _same(a: str, b: str) -> bool:
    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return a == b
