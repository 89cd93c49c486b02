"""A plan arranged for a person to act on, the order every format shows (text, Markdown, JSON, SARIF, the web
page, Slack): the changes that hit the user's code first, each with its lines, most severe first; then what
breaks (removed, breaking, changed behaviour and defaults), by release; then deprecations; new features only
when asked for. A change the code hits only possibly (through a receiver of unknown type) comes after the exact
ones, apart. A change only the releases' code shows, which the code does not hit, is listed only when asked for
(`include_code`): a diff of two releases' public API has hundreds of them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from assistant.upgrade.plan import KIND_ORDER, PlannedChange, UpgradePlan

if TYPE_CHECKING:  # a plan without code needs none of the scan's modules
    from assistant.upgrade.scan import Finding

SectionKind = Literal["hits", "possible", "breaks", "deprecations", "new"]
BREAKS = frozenset({"removed", "breaking", "behaviour"})


@dataclass(frozen=True)
class Entry:
    """One change, with the places the code hits it (exact ones first, by file and line)."""

    change: PlannedChange
    findings: tuple[Finding, ...] = ()


@dataclass(frozen=True)
class Section:
    kind: SectionKind
    entries: tuple[Entry, ...]


def arrange(
    plan: UpgradePlan, findings: Sequence[Finding] = (), *, include_new: bool = False, include_code: bool = False
) -> tuple[Section, ...]:
    """The plan's changes in the order a person acts on them; sections without entries are left out. Within a
    section, what the docs and the code both show comes first, then the docs alone, then the code alone."""
    by_change: dict[str, list[Finding]] = defaultdict(list)
    for f in sorted(findings, key=lambda f: (not f.exact, f.file, f.cell or 0, f.line, f.col)):
        by_change[f.change].append(f)
    release = {v: i for i, v in enumerate(plan.versions)}

    def severity(c: PlannedChange) -> tuple[int, int, int]:
        return KIND_ORDER[c.kind], _EVIDENCE[c.evidence], release.get(c.version, 0)

    def by_evidence(changes: list[PlannedChange]) -> list[PlannedChange]:
        return sorted(changes, key=lambda c: _EVIDENCE[c.evidence])  # stable: by release within each

    hit = [c for c in plan.changes if any(f.exact for f in by_change.get(c.id, ()))]
    possible = [c for c in plan.changes if c.id in by_change and c not in hit]
    rest = [c for c in plan.changes if c.id not in by_change and (include_code or "docs" in c.evidence)]
    sections: list[tuple[SectionKind, list[PlannedChange]]] = [
        ("hits", sorted(hit, key=severity)),
        ("possible", sorted(possible, key=severity)),
        ("breaks", by_evidence([c for c in rest if c.kind in BREAKS])),
        ("deprecations", by_evidence([c for c in rest if c.kind == "deprecated"])),
        ("new", [c for c in rest if c.kind == "new"] if include_new else []),
    ]
    return tuple(
        Section(kind, tuple(Entry(c, tuple(by_change.get(c.id, ()))) for c in changes))
        for kind, changes in sections
        if changes
    )


_EVIDENCE: dict[tuple[str, ...], int] = {("docs", "code"): 0, ("docs",): 1, ("code",): 2, (): 3}


def evidence_counts(plan: UpgradePlan) -> dict[str, int]:
    """How many of the plan's changes the docs alone, the code alone, and both show (new features left out)."""
    counts = {"docs": 0, "code": 0, "both": 0}
    for c in plan.changes:
        if c.kind != "new" and c.evidence:
            counts["both" if len(c.evidence) == 2 else c.evidence[0]] += 1
    return counts


def unlisted_code(plan: UpgradePlan, findings: Sequence[Finding] = ()) -> int:
    """The changes only the code shows that `arrange` leaves out without `include_code`: none of them hit."""
    hit = {f.change for f in findings}
    return sum(c.evidence == ("code",) and c.id not in hit for c in plan.changes)
