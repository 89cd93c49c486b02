"""Real per-release notes for the blind release-notes evaluation set (bench/questions-release-notes-blind.jsonl).

Usage:
    python bench/fetch_release_notes.py [--out DIR]                      # into $TMPDIR/reldocs-release-notes-blind
    python bench/evaluate.py --set release-notes-blind --show-failures   # over them

Each project publishes one "what's new" page per release (Sphinx RST): they are taken from its source
distribution on PyPI (pinned below, fetched with `pip download`) into `DIR/<product>/<version>/<file>`, the
folder layout a user indexes release notes in. The files are not kept in the repository (their licenses are
their projects': Pillow MIT-CMU; networkx, seaborn and h5py BSD-3-Clause).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from bench.evaluate import RELEASE_NOTES_SET, changelogs_dir  # noqa: E402
from bench.fetch_changelogs import copy_from_sdist  # noqa: E402

# product: (requirement, the notes' folder inside the sdist below its top folder, {file: release})
RELEASE_NOTES = {
    "pillow": (
        "pillow==13.0.0",
        "docs/releasenotes",
        {f"{v}.rst": v for v in ("12.0.0", "12.1.0", "12.2.0", "12.3.0", "13.0.0")},
    ),
    "networkx": ("networkx==3.6.1", "doc/release", {f"release_{v}.rst": v for v in ("3.4", "3.5", "3.6")}),
    "seaborn": ("seaborn==0.13.2", "doc/whatsnew", {f"v{v}.rst": v for v in ("0.12.0", "0.12.2", "0.13.0", "0.13.1")}),
    "h5py": ("h5py==3.16.0", "docs/whatsnew", {f"3.{m}.rst": f"3.{m}.0" for m in (13, 14, 15, 16)}),
}


def fetch(out: Path) -> list[Path]:
    """Download each pinned sdist (no dependencies; only the project itself as source: h5py's build
    dependencies do not build here) and copy its notes."""
    written: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp:
        for product, (requirement, folder, files) in RELEASE_NOTES.items():
            targets = {f"{folder}/{name}": out / product / version / name for name, version in files.items()}
            if not all(t.is_file() for t in targets.values()):
                name = requirement.split("==")[0]
                copy_from_sdist(requirement, targets, Path(tmp) / product, no_binary=name)
            written += targets.values()
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="folder to write <product>/<version>/<file> into")
    args = parser.parse_args(argv)
    for path in fetch(args.out or changelogs_dir(RELEASE_NOTES_SET)):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
