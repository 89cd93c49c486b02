"""The independent review's verdicts (`bench/undocumented/review.jsonl`) against the lists as they are now: per
product, how many reviewed "no" items are no longer listed as undocumented (dropped, or linked to a doc change),
by the criterion they failed, and how many "yes" items are still listed (each one lost is a regression).

The review's indexes point into the samples as they were when it was made (`--reviewed-at`, a commit): those are
read from git, the current lists from `bench/undocumented/<set>.jsonl`.

Usage:
    python bench/review_check.py [--reviewed-at 6912e53] [--json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
OUT = REPO_ROOT / "bench" / "undocumented"
REVIEWED_AT = "6912e53"  # the commit whose samples the review judged
SETS = ("pandas", "sqlalchemy", "pydantic", "django", "numpy")


def _rows(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _at(commit: str, path: str) -> str:
    return subprocess.run(
        ["git", "show", f"{commit}:{path}"], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    ).stdout


def check(name: str, reviewed_at: str) -> dict[str, Any]:
    """One product's row: list sizes then and now, "no" items no longer listed by criterion, "yes" items kept."""
    review = [r for r in _rows((OUT / "review.jsonl").read_text(encoding="utf-8")) if r["product"] == name]
    review = [r for r in review if r["sample"] == "undocumented"]
    sample = _rows(_at(reviewed_at, f"bench/undocumented/{name}-sample.jsonl"))
    before = len(_rows(_at(reviewed_at, f"bench/undocumented/{name}.jsonl"))) - 1  # less the header line
    now = _rows((OUT / f"{name}.jsonl").read_text(encoding="utf-8"))[1:]
    listed = {(path, r["kind"], r.get("parameter")) for r in now for path in r.get("paths") or [r["object"]]}
    removed: Counter[str] = Counter()
    kept, lost = 0, []
    for r in review:
        item = sample[r["index"]]
        there = (item["object"], item["kind"], item.get("parameter")) in listed
        if r["verdict"] == "yes":
            kept += there
            lost += [] if there else [f"{item['object']} {item['kind']} {item.get('parameter') or ''}".strip()]
        elif not there:
            removed[r["criterion"]] += 1
    yes = sum(r["verdict"] == "yes" for r in review)
    return {
        "set": name,
        "list_before": before,
        "list_now": len(now),
        "no_removed": dict(removed),
        "yes_kept": f"{kept}/{yes}",
        "yes_lost": lost,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reviewed-at", default=REVIEWED_AT, help="the commit whose samples the review judged")
    parser.add_argument("--json", action="store_true", help="one JSON object per set")
    args = parser.parse_args(argv)
    rows = [check(name, args.reviewed_at) for name in SETS]
    for row in rows:
        if args.json:
            print(json.dumps(row))
        else:
            removed = ", ".join(f"{k} {v}" for k, v in sorted(row["no_removed"].items())) or "none"
            print(
                f"{row['set']}: list {row['list_before']} -> {row['list_now']}; reviewed no-items no longer listed:"
                f" {removed}; yes kept {row['yes_kept']}" + (f" (lost: {row['yes_lost']})" if row["yes_lost"] else "")
            )
    if not args.json:
        print(f"total: {sum(r['list_before'] for r in rows)} -> {sum(r['list_now'] for r in rows)}")
    return 1 if any(r["yes_lost"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
