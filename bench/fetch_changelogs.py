"""Real multi-release changelogs for the changelog evaluation sets (bench/questions-changelogs.jsonl,
bench/questions-changelogs-more.jsonl, bench/questions-changelogs-blind.jsonl and
bench/questions-changelogs-blind2.jsonl and bench/questions-changelogs-blind3.jsonl).

Usage:
    python bench/fetch_changelogs.py [--set NAME --out DIR]   # every set, each into its default DIR
    python bench/evaluate.py --set changelogs --show-failures      # over the default DIR
    python bench/evaluate.py --set changelogs-more --show-failures
    python bench/evaluate.py --set changelogs-blind --show-failures
    python bench/evaluate.py --set changelogs-blind2 --show-failures
    python bench/evaluate.py --set changelogs-blind3 --show-failures
    python bench/evaluate.py --corpus DIR --questions bench/questions-changelogs.jsonl --show-failures

Each file is taken from its project's source distribution on PyPI (pinned below, fetched with `pip download`),
so the set measures reldocs on changelogs as projects publish them: Keep a Changelog Markdown, GitHub-release
`## 24.10.0` sections, Markdown with underlined release lines, Sphinx/towncrier reStructuredText. The files are
not kept in the repository (their licenses are their projects'); `DIR/<product>/<file>` is the corpus, one
changelog per product and no version folders, as a user would index them.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from bench.evaluate import CHANGELOG_SETS, changelogs_dir  # noqa: E402

# product: (requirement, the changelog's path inside the sdist, below its top folder)
CHANGELOGS = {
    "attrs": ("attrs==24.2.0", "CHANGELOG.md"),
    "black": ("black==24.10.0", "CHANGES.md"),
    "coverage": ("coverage==7.6.4", "CHANGES.rst"),
    "flask": ("flask==3.1.0", "CHANGES.rst"),
    "httpx": ("httpx==0.28.1", "CHANGELOG.md"),
    "isort": ("isort==5.13.2", "CHANGELOG.md"),
    "marshmallow": ("marshmallow==3.23.1", "CHANGELOG.rst"),
    "packaging": ("packaging==24.2", "CHANGELOG.rst"),
    "pluggy": ("pluggy==1.5.0", "CHANGELOG.rst"),
    "requests": ("requests==2.32.3", "HISTORY.md"),
    "structlog": ("structlog==24.4.0", "CHANGELOG.md"),
    "urllib3": ("urllib3==2.2.3", "CHANGES.rst"),
    "werkzeug": ("werkzeug==3.1.3", "CHANGES.rst"),
}
# A second set, its questions written by someone who had not run reldocs on these files: more changelog dialects,
# towncrier NEWS.rst, plain-text CHANGES, RST without directives, MyST roles in Markdown.
MORE_CHANGELOGS = {
    "babel": ("babel==2.19.0", "CHANGES.rst"),
    "click": ("click==8.5.1", "CHANGES.md"),
    "dateutil": ("python-dateutil==4.0.0", "NEWS"),
    "idna": ("idna==3.20", "HISTORY.md"),
    "more-itertools": ("more-itertools==11.2.1", "docs/versions.rst"),
    "pip": ("pip==26.3", "NEWS.rst"),
    "psutil": ("psutil==7.2.2", "HISTORY.rst"),
    "pyparsing": ("pyparsing==3.3.3", "CHANGES"),
    "setuptools": ("setuptools==84.2.1", "NEWS.rst"),
    "simplejson": ("simplejson==4.3.0", "CHANGES.txt"),
    "six": ("six==1.17.0", "CHANGES"),
    "zipp": ("zipp==4.1.2", "NEWS.rst"),
}
# A third, also written blind, and scored once before anything was changed for it: the measurement of reldocs on
# changelogs it was never tuned on (plain text with `= 4.13.0 =` headings, RST in CHANGES/.txt, Keep a Changelog).
BLIND_CHANGELOGS = {
    "arrow": ("arrow==1.4.0", "CHANGELOG.rst"),
    "beautifulsoup4": ("beautifulsoup4==4.15.0", "CHANGELOG"),
    "bleach": ("bleach==6.4.0", "CHANGES"),
    "cachetools": ("cachetools==8.0.2", "CHANGELOG.rst"),
    "itsdangerous": ("itsdangerous==2.2.0", "CHANGES.rst"),
    "jsonschema": ("jsonschema==4.26.0", "CHANGELOG.rst"),
    "lxml": ("lxml==6.1.3", "CHANGES.txt"),
    "pymysql": ("pymysql==1.2.4", "CHANGELOG.md"),
    "tomlkit": ("tomlkit==0.15.2", "CHANGELOG.md"),
    "markdown": ("markdown==3.11.3", "docs/changelog.md"),
}
# A fourth set, written the same way after the third had become a development set: Pallets and towncrier RST,
# Keep a Changelog in RST and Markdown, bold release lines, plain-text "Release 0.5.1" and "6.0 (date)" lines.
BLIND2_CHANGELOGS = {
    "anyio": ("anyio==4.6.2.post1", "docs/versionhistory.rst"),
    "charset-normalizer": ("charset-normalizer==3.4.0", "CHANGELOG.md"),
    "decorator": ("decorator==5.1.1", "CHANGES.md"),
    "jinja2": ("jinja2==3.1.2", "CHANGES.rst"),
    "markdown-it-py": ("markdown-it-py==3.0.0", "CHANGELOG.md"),
    "pyjwt": ("pyjwt==2.9.0", "CHANGELOG.rst"),
    "pytest": ("pytest==8.3.4", "doc/en/changelog.rst"),
    "pyyaml": ("pyyaml==6.0.2", "CHANGES"),
    "sqlparse": ("sqlparse==0.5.1", "CHANGELOG"),
    "wheel": ("wheel==0.44.0", "docs/news.rst"),
}
# A fifth, written the same way after the fourth had become a development set: towncrier and Sphinx changelog
# directives (`.. changelog:: :version:`), `Release 0.22 (date)`, `# Release 4.16.0rc1 (Month D, YYYY)`, MkDocs
# admonitions, MyST roles.
BLIND3_CHANGELOGS = {
    "pygments": ("pygments==2.21.0", "CHANGES"),
    "alembic": ("alembic==1.20.1", "docs/build/changelog.rst"),
    "trio": ("trio==0.35.0", "docs/source/history.rst"),
    "cattrs": ("cattrs==26.2.1", "HISTORY.md"),
    "greenlet": ("greenlet==3.5.6", "CHANGES.rst"),
    "docutils": ("docutils==0.23", "HISTORY.rst"),
    "h11": ("h11==0.16.0", "docs/source/changes.rst"),
    "gunicorn": ("gunicorn==27.0.1", "docs/content/news.md"),
    "typing-extensions": ("typing-extensions==4.16.0", "CHANGELOG.md"),
    "pyopenssl": ("pyopenssl==26.4.0", "CHANGELOG.rst"),
}
SETS = dict(
    zip(
        CHANGELOG_SETS,
        (CHANGELOGS, MORE_CHANGELOGS, BLIND_CHANGELOGS, BLIND2_CHANGELOGS, BLIND3_CHANGELOGS),
        strict=True,
    )
)


def fetch(out: Path, changelogs: dict[str, tuple[str, str]] = CHANGELOGS) -> list[Path]:
    """Download each pinned sdist (no dependencies, nothing built) and copy its changelog into `out`."""
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        for product, (requirement, inner) in changelogs.items():
            target = out / product / Path(inner).name
            if not target.is_file():
                # One folder each: the sdist's name is normalised ("python_dateutil-4.0.0").
                copy_from_sdist(requirement, {inner: target}, Path(tmp) / product)
            written.append(target)
    return written


def download_verified(url: str, digest: str, limit: int | None = None) -> bytes:
    """The file at `url`, when its sha256 is `digest` and it is no larger than `limit`; ValueError otherwise."""
    with urllib.request.urlopen(url, timeout=120) as response:  # a registry's file host
        data = response.read() if limit is None else response.read(limit + 1)
    if limit is not None and len(data) > limit:
        raise ValueError(f"{url}: larger than {limit} bytes")
    if hashlib.sha256(data).hexdigest() != digest:
        raise ValueError(f"{url}: sha256 differs from {digest}")
    return data


def regular_files(archive: tarfile.TarFile, names: Iterable[str], limit: int | None = None) -> dict[str, bytes]:
    """The contents of those of `names` (paths inside the archive) that are regular files of it, no larger than
    `limit`: a link, a folder or a missing name is left out, and nothing is extracted to disk."""
    wanted = set(names)
    out: dict[str, bytes] = {}
    for member in archive.getmembers():
        if member.name in wanted and member.isfile() and (limit is None or member.size <= limit):
            extracted = archive.extractfile(member)
            out[member.name] = extracted.read() if extracted else b""
    return out


def copy_from_sdist(requirement: str, files: Mapping[str, Path], folder: Path, no_binary: str = ":all:") -> None:
    """Download `requirement`'s source distribution into `folder` (no dependencies; `no_binary` as pip's option)
    and copy each of `files` (a path below the sdist's top folder) to its target.

    A requirement may be the sdist's PyPI file URL with its `#sha256=` digest: pip prepares an sdist's metadata
    before downloading it, and some (meson-python builds) cannot be prepared here."""
    if requirement.startswith("https://"):
        url, _, digest = requirement.partition("#sha256=")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / url.rsplit("/", 1)[-1]).write_bytes(download_verified(url, digest))
    else:
        cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", no_binary, "-d", folder]
        subprocess.run([*cmd, requirement], check=True, stdout=subprocess.DEVNULL)
    (sdist,) = folder.glob("*.tar.gz")
    inside = {f"{sdist.name.removesuffix('.tar.gz')}/{inner}": target for inner, target in files.items()}
    with tarfile.open(sdist) as archive:
        found = regular_files(archive, inside)
    for inner, target in inside.items():
        if inner not in found:
            raise FileNotFoundError(f"{inner} not a file of {sdist.name}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(found[inner])


def fetch_sets(
    argv: list[str] | None, description: str, sets: Mapping[str, Any], fetch: Callable[..., list[Path]], layout: str
) -> int:
    """The fetchers' command line: every set of `sets` (or `--set NAME`) fetched into its default folder (or
    `--out DIR`), each written file printed; `layout` says what `--out` receives."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--set", choices=list(sets), help="one set only (default: every set)")
    parser.add_argument("--out", type=Path, help=f"with --set: folder to write {layout} into")
    args = parser.parse_args(argv)
    if args.out and not args.set:
        parser.error("--out needs --set")
    for name in [args.set] if args.set else list(sets):
        for path in fetch(args.out or changelogs_dir(name), sets[name]):
            print(path)
    return 0


def main(argv: list[str] | None = None) -> int:
    return fetch_sets(argv, __doc__.split("\n\n")[0], SETS, fetch, "<product>/<file>")


if __name__ == "__main__":
    sys.exit(main())
