"""Fetch the real-code scan sets' files: third-party code is never committed, only where it comes from.

Each set is `bench/scan_sets/<product>/`: `manifest.jsonl` (one line per file: the saved name, its repository,
path and commit, its sha256, size and license), `labels.jsonl` (every use of an API the docs change, labelled by
hand before any scan ran) and `LABELS.md` (how). This script puts each file under `data/scan-sets/<product>/`
(git-ignored), from the code host at its commit, or copied from a folder that already holds it (`--from`),
and checks every file's sha256 against the manifest: a file that does not match is not written.

Usage:
    python bench/fetch_scan_sets.py [--set pandas] [--from DIR] [--out data/scan-sets]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import urllib.request
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
SETS_DIR = BENCH_DIR / "scan_sets"
DEFAULT_OUT = BENCH_DIR.parent / "data" / "scan-sets"
RAW = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"
MAX_BYTES = 2_000_000


def sets() -> list[str]:
    """The sets that have a manifest, by name."""
    return sorted(p.parent.name for p in SETS_DIR.glob("*/manifest.jsonl"))


def manifest(name: str) -> list[dict[str, object]]:
    path = SETS_DIR / name / "manifest.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _safe_name(name: str) -> str:
    """A saved name is one plain file name: a manifest is data, never a path to write through."""
    if not name or name != Path(name).name or name.startswith("."):
        raise ValueError(f"not a plain file name: {name!r}")
    return name


def fetch(name: str, out: Path, local: Path | None = None) -> tuple[int, list[str]]:
    """The set's files under `out/<name>/`: how many are in place, and one line per file that is not."""
    folder = out / name
    folder.mkdir(parents=True, exist_ok=True)
    placed, problems = 0, []
    for row in manifest(name):
        saved = _safe_name(str(row["file"]))
        dest = folder / saved
        want = str(row["sha256"])
        if dest.exists() and hashlib.sha256(dest.read_bytes()).hexdigest() == want:
            placed += 1
            continue
        data = None
        if local is not None and (local / saved).is_file():
            data = (local / saved).read_bytes()
        else:
            url = RAW.format(repo=row["repo"], commit=row["commit"], path=row["path"])
            try:
                with urllib.request.urlopen(url, timeout=30) as response:  # a fixed https host, a manifest's path
                    data = response.read(MAX_BYTES + 1)
            except OSError as e:
                problems.append(f"{name}/{saved}: cannot fetch {url}: {e}")
                continue
        if data is None or len(data) > MAX_BYTES or hashlib.sha256(data).hexdigest() != want:
            problems.append(f"{name}/{saved}: not the file the manifest names (sha256 differs); not written")
            continue
        dest.write_bytes(data)
        placed += 1
    return placed, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", dest="only", choices=sets(), help="one set (default: all)")
    parser.add_argument("--from", dest="local", type=Path, help="a folder of <set>/<file> already fetched")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    failed = False
    for name in [args.only] if args.only else sets():
        local = args.local / name if args.local else None
        if local is not None and (local / "files").is_dir():
            local = local / "files"
        placed, problems = fetch(name, args.out, local)
        for line in problems:
            print(line, file=sys.stderr)
        print(f"{name}: {placed}/{len(manifest(name))} files in {args.out / name}", file=sys.stderr)
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
