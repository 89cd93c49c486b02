"""What a project's dependency upgrade needs before it is planned, in one call: `prepare_upgrade(settings, old,
new)` reads the two revisions of its dependency files, says which packages moved (without `new`: each pinned
package to its newest release), fetches the release docs missing (none `offline`), and returns the moves to plan,
the input's problems, a line for each package that cannot be planned or has no docs, why a fetch found none, and
where each fetched file was read. Any interface (the CLI, a web form, an MCP tool) calls this, then the sync, then
`KnowledgeBase.plan_dependencies`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ingest.dependencies import store
from ingest.dependencies.fetch import FetchedPackage, FetchReport, Wanted, fetch_docs
from ingest.dependencies.files import read_pins
from ingest.dependencies.moves import Move, at_least, docs_in_place, moves
from ingest.dependencies.pins import Pins, Problem, dependencies

if TYPE_CHECKING:
    from assistant.runtime.settings import Settings


@dataclass(frozen=True)
class UpgradeInputs:
    """What `prepare_upgrade` found: `moves` to plan (from → to; added and removed packages too)."""

    moves: tuple[Move, ...]
    problems: tuple[Problem, ...] = ()  # lines of the dependency files that could not be read
    missing: tuple[str, ...] = ()  # a line per package not planned, or whose docs are not fetched (offline)
    no_docs: Mapping[str, str] = field(default_factory=dict)  # why a fetch found no docs, by package
    urls: Mapping[str, str] = field(default_factory=dict)  # "<product>/<file>" -> where it was read
    fetched: FetchReport | None = None  # None when nothing was fetched


def prepare_upgrade(
    settings: Settings,
    old: Path,
    new: Path | None = None,
    *,
    offline: bool = False,
    on_package: Callable[[FetchedPackage], None] | None = None,
) -> UpgradeInputs:
    """The moves between the pins of `old` and `new` (or, without `new`, from each exact or lower-bound pin of
    `old` to the package's newest release), their missing docs fetched first unless `offline` (`on_package` told
    of each package fetched). `PinsError` when a file cannot be read at all."""
    before = read_pins(old)
    after = read_pins(new) if new is not None else None
    problems = (*before.problems, *(after.problems if after else ()))
    moved, missing, no_docs, report = _moves(settings, before, after, offline=offline, on_package=on_package)
    urls = doc_urls(settings.fetched_path, (m.name for m in moved))
    return UpgradeInputs(tuple(moved), problems, tuple(missing), no_docs, urls, report)


def _moves(
    settings: Settings,
    old: Pins,
    new: Pins | None,
    *,
    offline: bool,
    on_package: Callable[[FetchedPackage], None] | None,
) -> tuple[list[Move], list[str], dict[str, str], FetchReport | None]:
    folder = settings.fetched_path
    if new is not None:
        moved = moves(old.pins, new.pins)
        # Only a real upgrade whose docs are not in place already is fetched: the release moved to or a later one
        wanted = [
            Wanted(m.name, m.after, m.before)
            for m in moved
            if m.before
            and m.after
            and not at_least(m.before, m.after)
            and not at_least(docs_in_place(folder, m.name), m.after)
        ]
    else:
        pinned = [p for p in dependencies(old.pins) if p.version]
        moved = [Move(p.name, p.version, docs_in_place(folder, p.name)) for p in pinned]
        wanted = [Wanted(p.name, None, p.version) for p in pinned]
    no_docs: dict[str, str] = {}
    report = None
    if wanted and not offline:
        report = fetch_docs(wanted, settings=settings, on_package=on_package)
        no_docs = {p.product: p.problem for p in report.packages if not p.files}
        if new is None:  # to the newest: the release the registry named, whose docs were fetched
            latest = {p.product: p.version for p in report.packages if p.version}
            moved = [Move(m.name, m.before, latest.get(m.name) or m.after) for m in moved]
    missing = []
    if new is None:  # a package whose newest release is unknown cannot be planned
        why = "none fetched (--offline)" if offline else "the registry named none"
        missing += [f"{m.name}: its newest release is unknown, {why}: not planned" for m in moved if m.after is None]
        moved = [m for m in moved if m.after is not None and not at_least(m.before, m.after)]
    elif offline:
        missing += [f"{w.name}: no fetched docs (--offline)" for w in wanted if not docs_in_place(folder, w.name)]
    return moved, missing, no_docs, report


def doc_urls(fetched: Path, products: Iterable[str]) -> dict[str, str]:
    """Where each fetched file of `products` was read (`<product>/<file>` -> the archive's URL, or the link's),
    from their provenance records; a product without one (not fetched) has none."""
    out: dict[str, str] = {}
    for product in dict.fromkeys(products):
        try:
            record = store.read_provenance(fetched, product)
        except ValueError:  # no canonical project name: never fetched under it
            continue
        for f in (record or {}).get("files", []):
            read_from = f.get("path", "") if record.get("source") != "sdist" else record.get("archive_url") or ""
            out[f"{product}/{f.get('file', '')}"] = str(read_from)
    return out
