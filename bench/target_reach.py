"""How far the scan's targets reach over release docs nobody here labelled: per product, the plan's entries from
its first release to its last that say code was removed or deprecated and name it, and how many of them the scan
looks for (`assistant.upgrade.targeting`). An entry with no target is either one no code can show ("Support for
Python 3.8 was dropped") or wording the targeting does not read yet; `--show N` lists N of them to read.

It measures reach, not correctness: a target is right only when its entry says the name itself goes, which is
read by hand from the `--targets` listing. Use it over documents the targeting was not written from (the fresh
blind sets' docs, fetched as each set's SOURCES.md says), before and after a change to the targeting.

Usage:
    python bench/target_reach.py DOCS [DOCS …] [--show 20] [--targets]

Each DOCS is a folder of `<product>/<file>` release docs, as `--corpus` takes them.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from assistant.index.catalog import Catalog, sort_versions  # noqa: E402
from assistant.upgrade.plan import UpgradePlan, make_plan  # noqa: E402
from assistant.upgrade.target import Target  # noqa: E402
from assistant.upgrade.targeting import targets  # noqa: E402
from ingest.chunking import chunk_document  # noqa: E402
from ingest.loader import DocumentError, load_document  # noqa: E402


def product_plan(folder: Path) -> UpgradePlan | None:
    """The plan over one product's folder from its first release to its last; None with fewer than two."""
    chunks = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        try:
            chunks += chunk_document(load_document(path, folder.parent))
        except (DocumentError, UnicodeDecodeError, ValueError) as exc:
            print(f"  skipped {path.name}: {exc}", file=sys.stderr)
    versions = sort_versions({c.version for c in chunks if c.version})
    if len(versions) < 2:
        return None
    return make_plan(chunks, Catalog.learn(chunks), versions[0], versions[-1], chunks[0].product)


def reach(plan: UpgradePlan, found: list[Target]) -> tuple[list[str], list[str]]:
    """The summaries of the plan's removals and deprecations that name code, with a target among `found` and
    without one."""
    aimed = {t.change for t in found}
    named = [c for c in plan.changes if c.kind in ("removed", "deprecated") and c.symbols]
    hit = [c.summary for c in named if c.id in aimed]
    missed = [c.summary for c in named if c.id not in aimed]
    return hit, missed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("docs", nargs="+", type=Path, help="folders of <product>/<file> release docs")
    parser.add_argument("--show", type=int, default=0, help="list this many entries without a target, at random")
    parser.add_argument("--targets", action="store_true", help="list every target with its entry")
    args = parser.parse_args(argv)
    print("| product | releases | removals and deprecations naming code | with a target | targets |")
    print("|---|---|---|---|---|")
    for root in args.docs:
        for folder in sorted(p for p in root.iterdir() if p.is_dir()):
            plan = product_plan(folder)
            if plan is None:
                print(f"| {folder.name} | fewer than two releases | | | |")
                continue
            found = targets(plan)
            hit, missed = reach(plan, found)
            total = len(hit) + len(missed)
            share = f"{len(hit)} ({len(hit) / total:.2f})" if total else "0"
            print(f"| {folder.name} | {plan.from_version} → {plan.to_version} | {total} | {share} | {len(found)} |")
            for summary in random.Random(0).sample(missed, min(args.show, len(missed))):
                print(f"    no target: {summary[:160]}")
            if args.targets:
                summaries = {c.id: c.summary for c in plan.changes}
                for t in found:
                    print(f"    {t.symbol} {t.parameter} {t.forms}: {summaries.get(t.change, '')[:120]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
