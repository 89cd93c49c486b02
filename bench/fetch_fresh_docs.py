"""Fetch the fresh blind sets' docs, so that every set scored once can be scored again, alone or pooled.

Each set in `bench/fresh/<set>/` names its documents in `docs.json`: the product's folder name, the source
distribution's registry URL with its `#sha256=`, and per file its path inside the archive, the name it was saved
under and its sha256 (as the set's writer saved it; `SOURCES.md` says how they were chosen). This script puts
them under `data/fresh-docs/<set>/<product>/<name>` (git-ignored): the archive is read in memory, only the named
regular files are taken, and a file is written only when the archive and the file are the ones named.

Usage:
    python bench/fetch_fresh_docs.py [--set 2026-12-06-sunpy] [--docs data/fresh-docs]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
if str(BENCH_DIR.parent) not in sys.path:
    sys.path.insert(0, str(BENCH_DIR.parent))

from bench.fetch_scan_sets import _safe_name, sdist_files  # noqa: E402

FRESH_DIR = BENCH_DIR / "fresh"
DEFAULT_DOCS = BENCH_DIR.parent / "data" / "fresh-docs"


def sets() -> list[str]:
    """The fresh sets that name their docs, by folder name."""
    return sorted(p.parent.name for p in FRESH_DIR.glob("*/docs.json"))


def spec(name: str) -> dict[str, Any]:
    """The set's `docs.json`."""
    return json.loads((FRESH_DIR / name / "docs.json").read_text(encoding="utf-8"))


def docs_folder(name: str, docs: Path = DEFAULT_DOCS) -> Path:
    """The folder to index for the set: its product's folder is inside it."""
    return docs / _safe_name(name)


def fetch_docs(name: str, docs: Path = DEFAULT_DOCS) -> tuple[int, list[str]]:
    """The set's docs in `docs_folder(name)`: how many are in place, and one line per problem."""
    about = spec(name)
    folder = docs_folder(name, docs) / _safe_name(str(about["product"]))
    files = {inner: (folder / _safe_name(str(f["name"])), str(f["sha256"])) for inner, f in about["files"].items()}

    def right(path: Path, digest: str) -> bool:
        return path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == digest

    if all(right(path, digest) for path, digest in files.values()):
        return len(files), []
    found, problems = sdist_files(name, str(about["sdist"]), files)
    if problems:
        return 0, problems
    placed = 0
    for inner, (path, want) in files.items():
        content = found.get(inner)
        if content is None:
            problems.append(f"{name}: {inner} is not a regular file of the archive")
        elif hashlib.sha256(content).hexdigest() != want:
            problems.append(f"{name}: {inner} is not the file docs.json names (sha256 differs); not written")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
            placed += 1
    return placed, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", dest="only", choices=sets(), help="one set (default: all)")
    parser.add_argument("--docs", type=Path, default=DEFAULT_DOCS, help="where the sets' docs go")
    args = parser.parse_args(argv)
    failed = False
    for name in [args.only] if args.only else sets():
        placed, problems = fetch_docs(name, args.docs)
        for line in problems:
            print(line, file=sys.stderr)
        print(f"{name}: {placed}/{len(spec(name)['files'])} docs in {docs_folder(name, args.docs)}", file=sys.stderr)
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
