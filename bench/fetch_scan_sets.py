"""Fetch the real-code scan sets' files: third-party code is never committed, only where it comes from.

Each set is `bench/scan_sets/<product>/`: `manifest.jsonl` (one line per file: the saved name, its repository,
path and commit, its sha256, size and license), `labels.jsonl` (every use of an API the docs change, labelled by
hand before any scan ran) and `LABELS.md` (how). This script puts each file under `data/scan-sets/<product>/`
(git-ignored), from the code host at its commit, or copied from a folder that already holds it (`--from`),
and checks every file's sha256 against the manifest: a file that does not match is not written.

A set whose docs are not in ../shared names them in its `set.json` ("sdist": the source distribution's registry
URL with its `#sha256=`, "folder" inside it, "files": {file: release}); they go to
`data/scan-docs/<product>/<release>/<file>` (`--docs`; a changelog of every release, release "", to
`data/scan-docs/<product>/<file>`), read from the archive in memory, nothing extracted or run.

Usage:
    python bench/fetch_scan_sets.py [--set pandas] [--from DIR] [--out data/scan-sets] [--docs data/scan-docs]
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
import tarfile
import urllib.request
from collections.abc import Iterable
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
if str(BENCH_DIR.parent) not in sys.path:
    sys.path.insert(0, str(BENCH_DIR.parent))

from bench.fetch_changelogs import download_verified, regular_files  # noqa: E402

SETS_DIR = BENCH_DIR / "scan_sets"
DEFAULT_OUT = BENCH_DIR.parent / "data" / "scan-sets"
DEFAULT_DOCS = BENCH_DIR.parent / "data" / "scan-docs"
MAX_ARCHIVE = 100_000_000  # a source distribution larger than this is not read (nilearn 0.14.1's is 57 MB)
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


def _safe_path(path: str) -> str:
    """A file's path under the archive's folder, each part one plain name ("release/2.0.0-notes.rst")."""
    for part in path.split("/"):
        _safe_name(part)
    return path


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


def spec(name: str) -> dict[str, Any]:
    """The set's `set.json`."""
    return json.loads((SETS_DIR / name / "set.json").read_text(encoding="utf-8"))


def docs_folder(name: str, shared: Path, docs: Path = DEFAULT_DOCS) -> Path:
    """Where the set's docs are: under `docs` for a set that fetches them, else in ../shared."""
    about = spec(name)
    return docs / _safe_name(str(about["product"])) if "sdist" in about else shared / str(about["docs"])


def sdist_files(label: str, sdist: str, inside: Iterable[str]) -> tuple[dict[str, bytes], list[str]]:
    """The regular files `inside` (paths in the archive) of the source distribution `sdist` names (its registry URL
    with `#sha256=`), read in memory; or none, and why (`label` names whose it is)."""
    url, _, digest = sdist.partition("#sha256=")
    if not url.startswith("https://"):
        return {}, [f"{label}: the sdist is no https URL: {url!r}"]
    try:
        data = download_verified(url, digest, MAX_ARCHIVE)
    except OSError as e:
        return {}, [f"{label}: cannot fetch {url}: {e}"]
    except ValueError:
        return {}, [f"{label}: {url} is not the archive named (size or sha256 differs); nothing written"]
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        return regular_files(archive, inside, MAX_BYTES), []


def fetch_docs(name: str, docs: Path = DEFAULT_DOCS) -> tuple[int, list[str]]:
    """The set's docs from the source distribution its `set.json` names, each file in its release's folder: how
    many are in place, and one line per problem. The archive is read in memory; only the named regular files are
    taken, and only when the archive's sha256 is the one named."""
    about = spec(name)
    if "sdist" not in about:
        return 0, []
    # a changelog of every release has no release of its own (""): it goes beside the product's other files
    files = {_safe_path(f): _safe_name(v) if v else "" for f, v in dict(about["files"]).items()}
    folder = docs / _safe_name(str(about["product"]))
    targets = {f: folder / v / f.rsplit("/", 1)[-1] for f, v in files.items()}  # saved by its own name
    if all(t.is_file() for t in targets.values()):
        return len(targets), []
    top = str(about["sdist"]).partition("#sha256=")[0].rsplit("/", 1)[-1].removesuffix(".tar.gz")
    # each file's path inside the archive ("" for its top folder)
    inside = {"/".join(filter(None, (top, str(about.get("folder", "")), f))): f for f in targets}
    found, problems = sdist_files(name, str(about["sdist"]), inside)
    if problems:
        return 0, problems
    placed = 0
    for inner, file in inside.items():
        if inner not in found:
            problems.append(f"{name}: {file} is not a regular file of {about.get('folder') or '/'} in {top}")
            continue
        targets[file].parent.mkdir(parents=True, exist_ok=True)
        targets[file].write_bytes(found[inner])
        placed += 1
    return placed, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", dest="only", choices=sets(), help="one set (default: all)")
    parser.add_argument("--from", dest="local", type=Path, help="a folder of <set>/<file> already fetched")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--docs", type=Path, default=DEFAULT_DOCS, help="where a set's fetched docs go")
    args = parser.parse_args(argv)
    failed = False
    for name in [args.only] if args.only else sets():
        local = args.local / name if args.local else None
        if local is not None and (local / "files").is_dir():
            local = local / "files"
        placed, problems = fetch(name, args.out, local)
        docs, unread = fetch_docs(name, args.docs)
        for line in [*problems, *unread]:
            print(line, file=sys.stderr)
        print(f"{name}: {placed}/{len(manifest(name))} files in {args.out / name}", file=sys.stderr)
        if docs:
            print(f"{name}: {docs} docs in {args.docs / spec(name)['product']}", file=sys.stderr)
        failed = failed or bool(problems) or bool(unread)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
