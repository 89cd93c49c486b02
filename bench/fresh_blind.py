"""The fresh blind sets' table, the headline of docs/benchmarks.md: one row per set scored once, none left out.

A fresh blind set is written by someone who never saw the code or any other set, over release docs of a project
not used before (../shared/blind-sets.md), and scored once before anything is read of it. Its rows live in
`bench/fresh-blind.jsonl` (one JSON object a row: date, project, docs, questions, index, answer, source, refusal,
commit), the sets themselves in `bench/fresh/`. `python bench/fresh_blind.py` rewrites the section in
docs/benchmarks.md; `bench/report.py` renders it too, so a full benchmark run keeps it.

`python bench/fresh_blind.py --used` lists every project whose docs some set already holds (the shared corpora,
the fetched changelog and release-notes sets, the fresh sets, the scan sets): a new set's writer is told to avoid
them, since a project a set holds is no longer fresh.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
if str(BENCH_DIR.parent) not in sys.path:  # run as a script: `bench` is a package of the repository
    sys.path.insert(0, str(BENCH_DIR.parent))

from bench.common import put_section  # noqa: E402

ROWS = BENCH_DIR / "fresh-blind.jsonl"
PAGE = BENCH_DIR.parent / "docs" / "benchmarks.md"
HEADING = "## Fresh blind sets (the headline)"


def rows(path: Path = ROWS) -> list[dict[str, Any]]:
    """Every scored set, in the order scored."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def section(path: Path = ROWS) -> list[str]:
    """The section's Markdown lines, heading first."""
    lines = [
        HEADING,
        "",
        "Each row is a set of questions with its key written by someone who never saw reldocs' code or its other "
        "sets, over release docs of a project not used before, scored once with `bench/evaluate.py --questions "
        "SET --corpus DOCS` before any of it was read; its failures are not used to write rules. These are the "
        "figures that estimate how reldocs answers docs it was not tuned on; the own sets below were tuned on.",
        "",
        "| date | project | docs | questions | index | answer | source | refusal | commit |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows(path):
        lines.append(
            f"| {r['date']} | {r['project']} | {r['docs']} | {r['questions']} | {r['index']} | {r['answer']:.2f} "
            f"| {r['source']:.2f} | {r['refusal']:.2f} | `{r['commit']}` |"
        )
    return [*lines, ""]


def used(corpora: Sequence[Path] | None = None) -> list[str]:
    """Registry names (normalized, PEP 503) of the projects some evaluation or scan set already holds: the product
    folders of the shared corpora (`corpora`, else where `bench/evaluate.py` reads them), the fetched changelog and
    release-notes sets' pins or archives, and the fresh and scan sets' source distributions. NumPy, rich and click
    are held out (`../shared/heldout`, never read here)."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name, parse_sdist_filename

    from bench import evaluate, fetch_changelogs, fetch_release_notes

    def of_sdist(url: str) -> str:  # ".../scikit_learn-1.9.1.tar.gz#sha256=…" is scikit-learn
        return str(parse_sdist_filename(url.split("#", 1)[0].rsplit("/", 1)[-1])[0])

    names = {"torch", "numpy", "rich", "click"}  # the registry's name of PyTorch; the held-out products
    for corpus in corpora if corpora is not None else (evaluate.default_corpus_dir(), evaluate.default_more_dir()):
        names.update(p.name for p in corpus.glob("*") if p.is_dir())
    for sets in (fetch_changelogs.SETS, fetch_release_notes.SETS):
        for products in sets.values():
            for spec in products.values():  # "attrs==24.2.0", or an archive's URL ".../pywavelets-1.8.0.tar.gz"
                pin = str(spec[0])
                names.add(of_sdist(pin) if "://" in pin else Requirement(pin).name)
    for about in [*(BENCH_DIR / "fresh").glob("*/docs.json"), *(BENCH_DIR / "scan_sets").glob("*/set.json")]:
        spec = json.loads(about.read_text(encoding="utf-8"))  # a scan set over the shared docs names no archive
        names.add(of_sdist(str(spec["sdist"])) if "sdist" in spec else str(spec["product"]))
    return sorted({str(canonicalize_name(n)) for n in names})


def update(page: Path = PAGE, path: Path = ROWS) -> None:
    """Put the section in `page` after its first paragraph, replacing an earlier one."""
    put_section(page, HEADING, section(path), "\n## ")


def main(argv: list[str] | None = None) -> int:
    """Rewrite the table (into PAGE from ROWS, or the two paths given), or list the projects used (`--used`)."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--used", action="store_true", help="list the projects some set holds, and stop")
    parser.add_argument("page", nargs="?", type=Path, default=PAGE)
    parser.add_argument("rows", nargs="?", type=Path, default=ROWS)
    args = parser.parse_args(argv)
    if args.used:
        print(", ".join(used()))
    else:
        update(args.page, args.rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
