"""Real release docs for the blind evaluation sets of per-release notes (bench/questions-release-notes-blind.jsonl,
bench/questions-release-notes-blind2.jsonl) and of changelogs mixed with migration guides
(bench/questions-mixed-blind.jsonl).

Usage:
    python bench/fetch_release_notes.py [--set NAME --out DIR]   # every set, each into $TMPDIR/reldocs-NAME
    python bench/evaluate.py --set release-notes-blind --show-failures    # over them
    python bench/evaluate.py --set release-notes-blind2 --show-failures
    python bench/evaluate.py --set mixed-blind --show-failures

Each project publishes one "what's new" page per release (Sphinx RST, or MyST Markdown for anndata): they are
taken from its source distribution on PyPI (pinned below, fetched with `pip download`, or by its PyPI file URL
where pip cannot prepare it) into `DIR/<product>/<version>/<file>`, the folder layout a user indexes release notes
in. The files are not kept in the repository (their licenses are their projects': Pillow MIT-CMU; networkx,
seaborn, h5py, anndata, httpcore and starlette BSD-3-Clause; tornado, falcon and pymongo Apache-2.0; PyWavelets and
APScheduler MIT).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from bench.evaluate import RELEASE_NOTES_SETS  # noqa: E402
from bench.fetch_changelogs import copy_from_sdist, fetch_sets  # noqa: E402

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
# Chosen and asked about by a helper who never ran reldocs (its first run: answer .640, source .800, refusal .571).
BLIND2_RELEASE_NOTES = {
    "tornado": ("tornado==6.5.2", "docs/releases", {f"v{v}.rst": v for v in ("6.4.0", "6.4.1", "6.4.2", "6.5.0")}),
    "falcon": ("falcon==4.0.2", "docs/changes", {f"{v}.rst": v for v in ("3.1.3", "4.0.0", "4.0.1", "4.0.2")}),
    "anndata": (
        "anndata==0.11.4",
        "docs/release-notes",
        {f"{v}.md": v for v in ("0.11.0", "0.11.1", "0.11.2", "0.11.3", "0.11.4")},
    ),
    "pywavelets": (
        "https://files.pythonhosted.org/packages/48/45/bfaaab38545a33a9f06c61211fc3bea2e23e8a8e00fedeb8e57feda722ff/"
        "pywavelets-1.8.0.tar.gz#sha256=f3800245754840adc143cbc29534a1b8fc4b8cff6e9d403326bd52b7bb5c35aa",
        "doc/release",
        {f"{v}-notes.rst": v for v in ("1.5.0", "1.6.0", "1.7.0", "1.8.0")},
    ),
}
# Two multi-release changelogs (no version folder: the file holds every release) and two migration guides, in
# the folder of the release they migrate to; chosen and asked about blind (first run: .640 / .680 / .857).
MIXED_BLIND = {
    "httpcore": ("httpcore==1.0.7", "", {"CHANGELOG.md": ""}),
    "starlette": ("starlette==0.41.3", "docs", {"release-notes.md": ""}),
    "pymongo": ("pymongo==4.10.1", "doc", {"migrate-to-pymongo4.rst": "4.0.0"}),
    "apscheduler": ("apscheduler==4.0.0a6", "docs", {"migration.rst": "4.0.0"}),
}
SETS = dict(zip(RELEASE_NOTES_SETS, (RELEASE_NOTES, BLIND2_RELEASE_NOTES, MIXED_BLIND), strict=True))


def target(out: Path, product: str, version: str, name: str) -> Path:
    """Where a file goes: in its release's folder, or beside the product's others when it holds every release."""
    return out / product / version / name if version else out / product / name


def fetch(out: Path, notes: dict[str, tuple[str, str, dict[str, str]]] = RELEASE_NOTES) -> list[Path]:
    """Download each pinned sdist (no dependencies; only the project itself as source: h5py's build
    dependencies do not build here) and copy its notes."""
    written: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp:
        for product, (requirement, folder, files) in notes.items():
            targets = {
                "/".join(filter(None, (folder, name))): target(out, product, version, name)
                for name, version in files.items()
            }
            if not all(t.is_file() for t in targets.values()):
                name = requirement.split("==")[0]
                copy_from_sdist(requirement, targets, Path(tmp) / product, no_binary=name)
            written += targets.values()
    return written


def main(argv: list[str] | None = None) -> int:
    return fetch_sets(argv, __doc__.split("\n\n")[0], SETS, fetch, "<product>/<version>/<file>")


if __name__ == "__main__":
    sys.exit(main())
