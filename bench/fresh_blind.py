"""The fresh blind sets' table, the headline of docs/benchmarks.md: one row per set scored once, none left out.

A fresh blind set is written by someone who never saw the code or any other set, over release docs of a project
not used before (../shared/blind-sets.md), and scored once before anything is read of it. Its rows live in
`bench/fresh-blind.jsonl` (one JSON object a row: date, project, docs, questions, index, answer, source, refusal,
commit), the sets themselves in `bench/fresh/`. `python bench/fresh_blind.py` rewrites the section in
docs/benchmarks.md; `bench/report.py` renders it too, so a full benchmark run keeps it.
"""

from __future__ import annotations

import json
import sys
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


def update(page: Path = PAGE, path: Path = ROWS) -> None:
    """Put the section in `page` after its first paragraph, replacing an earlier one."""
    put_section(page, HEADING, section(path), "\n## ")


if __name__ == "__main__":
    update(*(Path(a) for a in sys.argv[1:3]))
