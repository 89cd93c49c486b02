"""Plans for every dependency a project bumps (`KnowledgeBase.plan_dependencies`): each `Bump` (a registry name,
from → to) planned from the indexed docs of the product it names, the code scanned once for all of them, and the
packages ordered worst first (the ones the code hits, then what breaks, then deprecations; then packages whose
docs say nothing about the span, those without docs, and the ones removed or added).

A registry name names the product whose name is the same project name (`Flask`, `flask`, the fetched docs'
`markupsafe` folder for `MarkupSafe`), else the product it is a module or alias of (`torch` for PyTorch's notes).
A package added has nothing to upgrade from and one removed nothing to upgrade to: both are listed, not planned.
With the releases' code of a bump (`code`, an `ApiDiff` by registry name), its plan carries what the code shows
as `KnowledgeBase.plan` does: linked to the docs' changes or apart, and from the code alone when no docs of it are
indexed; `notes` (by name) say why a diff is missing or partial.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from packaging.utils import canonicalize_name

from assistant.index.catalog import Catalog, IndexedFile, Product, release_key
from assistant.model.records import Chunk
from assistant.upgrade.arrange import BREAKS
from assistant.upgrade.plan import UpgradePlan, make_plan

if TYPE_CHECKING:
    from assistant.model.api import ApiDiff
    from assistant.upgrade.scan import Finding, ScanError, ScanReport
    from assistant.upgrade.target import Target

Status = Literal["planned", "silent", "no-docs", "downgraded", "removed", "added"]
_STATUS_ORDER: dict[str, int] = {"planned": 0, "silent": 1, "no-docs": 2, "downgraded": 3, "removed": 4, "added": 5}


@dataclass(frozen=True)
class Bump:
    """One dependency that moved: `from_version` None when it was added, `to_version` None when removed."""

    name: str  # as the registry spells it (canonical: "python-dateutil")
    from_version: str | None
    to_version: str | None

    @property
    def forward(self) -> bool:
        """An upgrade: from a release to a later one (not added, removed or gone back)."""
        a, b = self.from_version, self.to_version
        return a is not None and b is not None and release_key(a) < release_key(b)


@dataclass(frozen=True)
class PackagePlan:
    """One bump, planned or said why not; its findings are those of its plan's changes."""

    bump: Bump
    status: Status
    product: str = ""  # the indexed product's name ('' when none is indexed)
    plan: UpgradePlan | None = None
    findings: tuple[Finding, ...] = ()
    docs: tuple[IndexedFile, ...] = ()  # the product's indexed files
    note: str = ""  # why it is not planned, or what its docs cover, in one line

    @property
    def hits(self) -> int:
        return sum(f.exact for f in self.findings)

    @property
    def severity(self) -> tuple[int, int, int]:
        """Lower is worse: hit code first (more hits first), then possible hits, then breaking changes, then
        deprecations only; then the statuses in `_STATUS_ORDER`."""
        if self.status != "planned" or self.plan is None:
            return (5 + _STATUS_ORDER[self.status], 0, 0)
        kinds = {c.kind for c in self.plan.changes}
        rank = 0 if self.hits else 1 if self.findings else 2 if kinds & BREAKS else 3 if "deprecated" in kinds else 4
        return (rank, -self.hits, -len(self.findings))


@dataclass(frozen=True)
class DependencyPlan:
    packages: tuple[PackagePlan, ...]  # worst first
    errors: tuple[ScanError, ...] = ()  # files that could not be scanned
    files: int = 0  # files scanned


Scan = Callable[[list["Target"]], "ScanReport"]


def plan_dependencies(
    chunks: Sequence[Chunk],
    catalog: Catalog,
    bumps: Sequence[Bump],
    *,
    scan: Scan | None = None,
    no_docs: Mapping[str, str] | None = None,
    code: Mapping[str, ApiDiff] | None = None,
    notes: Mapping[str, Sequence[str]] | None = None,
) -> DependencyPlan:
    """Each bump planned (`plan_bump`, with its releases' code where `code` has it, and its `notes`); `scan`
    (given the targets of every plan at once) finds the code's hits, each a finding of the package whose change
    it hits. `no_docs` says, by name, why a package has no docs (a fetch's one line): its note when none are
    indexed."""
    code, notes = code or {}, notes or {}
    packages = [plan_bump(chunks, catalog, b, code.get(b.name), tuple(notes.get(b.name, ()))) for b in bumps]
    why = no_docs or {}
    packages = [_why_no_docs(p, why.get(p.bump.name)) for p in packages]
    from assistant.upgrade.targeting import targets  # the scan's modules only when there is code to scan

    wanted = [t for p in packages if p.plan is not None for t in targets(p.plan)]
    if scan is None or not wanted:
        return DependencyPlan(_worst_first(packages))
    report = scan(wanted)
    by_change: dict[str, list[Finding]] = defaultdict(list)
    for f in report.findings:
        by_change[f.change].append(f)
    packages = [
        replace(p, findings=tuple(f for c in p.plan.changes for f in by_change.get(c.id, ()))) if p.plan else p
        for p in packages
    ]
    return DependencyPlan(_worst_first(packages), report.errors, report.files)


def plan_bump(
    chunks: Sequence[Chunk], catalog: Catalog, bump: Bump, code: ApiDiff | None = None, notes: Sequence[str] = ()
) -> PackagePlan:
    """The plan of one bump from the docs of the product it names and, given `code`, from its releases' code (the
    plan's `notes` say why that is missing or partial); or a `PackagePlan` saying why there is none."""
    from assistant.upgrade.code_plan import code_plan, with_code
    from assistant.upgrade.plan import named_in_docs
    from assistant.upgrade.targeting import doc_targets

    a, b = bump.from_version, bump.to_version
    if b is None:
        return PackagePlan(bump, "removed", note="removed: nothing to upgrade to")
    if a is None:
        return PackagePlan(bump, "added", note="added: nothing to upgrade from")
    if release_key(a) >= release_key(b):
        return PackagePlan(bump, "downgraded", note=f"{a} → {b} goes back: not planned")
    product = product_for(catalog, bump.name)
    if product is None:
        alone = replace(code_plan(code, a, b), notes=tuple(notes)) if code is not None else None
        if alone is not None and alone.changes:  # what the code shows of the API its users reach
            return PackagePlan(bump, "planned", alone.product, alone, note=CODE_ALONE)
        return PackagePlan(bump, "no-docs", note="no release docs of it are indexed")
    plan = make_plan(chunks, catalog, a, b, product.name)
    if code is not None:
        plan = with_code(plan, code, doc_targets(plan), named_in_docs(chunks, catalog, product.name))
    plan = replace(plan, notes=(*plan.notes, *notes)) if notes else plan
    named = f"its docs name releases {product.versions[0]}–{product.versions[-1]}" if product.versions else ""
    if not plan.versions:
        note = f"its docs name no release after {a} up to {b}" + (f" ({named})" if named else "")
    else:
        note = f"its docs announce no change in {counted_releases(len(plan.versions))} after {a} up to {b}"
    if not plan.changes:
        return PackagePlan(bump, "silent", product.name, plan, docs=product.files, note=note)
    documented = any("docs" in c.evidence for c in plan.changes)  # else only the code shows what changed
    note = "" if documented else f"{note}; its releases' code shows what changed"
    return PackagePlan(bump, "planned", product.name, plan, docs=product.files, note=note)


CODE_ALONE = "from its releases' code: no release docs"


def _why_no_docs(p: PackagePlan, why: str | None) -> PackagePlan:
    """The package's note with why a fetch found no docs of it, where none are indexed."""
    if why and p.status == "no-docs":
        return replace(p, note=f"no release docs: {why}")
    if why and p.note == CODE_ALONE:
        return replace(p, note=f"{CODE_ALONE} ({why})")
    return p


def product_for(catalog: Catalog, name: str) -> Product | None:
    """The product a registry name names: the one of the same project name, else the one it is a module or alias
    of (`Catalog.product`)."""
    key = canonicalize_name(name)
    same = [p for p in catalog.products if canonicalize_name(p.name) == key]
    return same[0] if same else catalog.product(name)


def _worst_first(packages: Sequence[PackagePlan]) -> tuple[PackagePlan, ...]:
    return tuple(sorted(packages, key=lambda p: p.severity))  # stable: the input's order among equals


def counted_releases(n: int) -> str:
    return "1 release" if n == 1 else f"{n} releases"
