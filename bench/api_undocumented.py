"""What the releases' code changes and their release docs do not state, per product, and the samples a reviewer
checks: the undocumented changes, and the scan's exact findings that only the code shows.

For each span (a scan set's `set.json`: pandas 1.5 → 3.0, SQLAlchemy 1.4 → 2.0, Pydantic 1.10 → 2.0, Django
4.2 → 5.2 by default), the plan is made as `upgrade --product P --from A --to B` makes it, with the releases'
code (`bench/scan_quality.py --code` does the same): every change whose evidence is the code alone is written to
`bench/undocumented/<set>.jsonl`, after a first line naming the releases, their archives and the doc set checked
against (each file with its sha256). Then, with a fixed seed, 20 of them go to `<set>-sample.jsonl`, and 20 of the
scan's code-only exact findings on the set's real files to `<set>-findings-sample.jsonl`, for someone who did not
write the code to judge: is it a real public change the docs do not state; is the line a real use of a changed
public API.

Usage:
    python bench/api_undocumented.py [--set pandas ...] [--shared ../shared] [--files data/scan-sets]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from assistant.index.catalog import Catalog  # noqa: E402
from assistant.upgrade.api import ANALYSER_VERSION  # noqa: E402
from assistant.upgrade.plan import make_plan, named_in_docs  # noqa: E402
from assistant.upgrade.scan import scan  # noqa: E402
from assistant.upgrade.targeting import targets  # noqa: E402
from bench.fetch_scan_sets import DEFAULT_OUT, SETS_DIR, docs_folder  # noqa: E402
from bench.scan_quality import DEFAULT_SHARED, _chunks, _with_code  # noqa: E402

OUT = REPO_ROOT / "bench" / "undocumented"
SETS = ("pandas", "sqlalchemy", "pydantic", "django", "numpy")
SEED = 44
SAMPLE = 20


def undocumented(name: str, shared: Path, files: Path) -> dict[str, Any]:
    """One set's list and samples, written; a summary row."""
    spec = json.loads((SETS_DIR / name / "set.json").read_text(encoding="utf-8"))
    docs = docs_folder(name, shared)
    paths = sorted(p for p in docs.rglob("*") if p.is_file())
    chunks = [c for path in paths for c in _chunks(path, docs.parent)]
    catalog = Catalog.learn(chunks)
    plan = make_plan(chunks, catalog, spec["from"], spec["to"], spec["product"])
    plan, info = _with_code(plan, spec, named_in_docs(chunks, catalog, plan.product))
    if "code" in info:
        return {"set": name, "skipped": info["code"]}
    alone = [c for c in plan.changes if c.evidence == ("code",)]
    head = {
        "product": plan.product,
        "from": spec["from"],
        "to": spec["to"],
        "releases": list(plan.code_releases),
        "archives": dict(plan.code_archives),
        "analyser": ANALYSER_VERSION,
        "docs": [
            {"file": p.relative_to(docs.parent).as_posix(), "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
            for p in paths
        ],
    }
    rows = [_row(c.code[0], c.summary, c.fix) for c in alone]
    OUT.mkdir(parents=True, exist_ok=True)
    _write(OUT / f"{name}.jsonl", [head, *rows])
    _write(OUT / f"{name}-sample.jsonl", random.Random(SEED).sample(rows, min(SAMPLE, len(rows))))
    report = scan([files / name], targets(plan), parallel=True, returns=dict(plan.code_returns))
    by_id = {c.id: c for c in plan.changes}
    found = [
        {
            "file": Path(f.file).name,
            "line": f.line,
            "code": f.code,
            "symbol": f.symbol,
            **_row(by_id[f.change].code[0], by_id[f.change].summary, by_id[f.change].fix),
        }
        for f in report.findings
        if f.exact and by_id[f.change].evidence == ("code",)
    ]
    sample = random.Random(SEED).sample(found, min(SAMPLE, len(found)))
    _write(OUT / f"{name}-findings-sample.jsonl", sample)
    return {"set": name, "undocumented": len(rows), "code_only_findings": len(found), "releases": head["releases"]}


def _row(code: Any, summary: str, fix: str) -> dict[str, Any]:
    return {
        "object": code.object,
        "kind": code.kind,
        "parameter": code.parameter,
        "release": code.release,
        "source_a": code.source_a,
        "source_b": code.source_b,
        "summary": summary,
        "fix": fix,
        "paths": list(code.paths),
    }


def _write(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--set", dest="only", action="append", help="a scan set (repeatable); default: " + ", ".join(SETS)
    )
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help="the folder holding corpus-more/")
    parser.add_argument("--files", type=Path, default=DEFAULT_OUT, help="where fetch_scan_sets.py put the files")
    args = parser.parse_args(argv)
    for name in args.only or SETS:
        print(json.dumps(undocumented(name, args.shared, args.files), ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
