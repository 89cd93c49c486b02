"""The releases' own Python source for the API diff: `fetch_sources(product, since, to, settings=...)`.

The releases are chosen among the registry's final, non-yanked releases with `packaging.Version`: `X.Y` is the
newest X.Y.* patch, an exact `X.Y.Z` that release, and between the two the newest patch of each minor release in
the span (pandas 1.5 → 3.0: 1.5.3, 2.0.3, 2.1.4, 2.2.3, 2.3.x, 3.0.y), so each change can be placed in the
release where it first appears. Each release's sdist (with none, its smallest wheel, a pure one preferred) comes
through the archive cache, checked against the registry's sha256 (`registry.download`), and its `.py`/`.pyi`
files are unpacked, never run, into `<data_dir>/api-sources/<sha256>/` (`unpack`); a complete folder is reused,
so a second call downloads and unpacks nothing. Its import names and the folder they sit in are resolved from
the tree (`import_names`). `index.json` there records which release each folder holds, so that `offline=True`
(no registry, the caches only) can still tell which release `X.Y` means.

Every release or product that could not be had is one line of the report's `problems`; a host that cannot be
reached ends the product's fetching (one line), and what was had is returned.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from assistant.model.api import COMPILED_LIST, ReleaseTree
from ingest.dependencies import import_names, registry, store
from ingest.dependencies.archive import ArchiveRefused
from ingest.dependencies.limits import ArchiveLimits
from ingest.dependencies.transport import FetchError, Http, Unreachable, addresses_of, make_client
from ingest.dependencies.unpack import compiled_list, unpack_sources

if TYPE_CHECKING:
    from assistant.runtime.settings import Settings

logger = logging.getLogger(__name__)
INDEX = "index.json"


@dataclass(frozen=True)
class SourcesReport:
    product: str
    trees: tuple[ReleaseTree, ...]  # oldest first, one per release chosen and had
    problems: tuple[str, ...]  # one line each: why a release or the product could not be had


@dataclass(frozen=True)
class _Release:
    version: str
    sha256: str
    archive: Literal["sdist", "wheel"]
    filename: str
    artifact: registry.Artifact | None = None  # None offline: only the caches are read


def fetch_sources(
    product: str,
    since: str,
    to: str,
    *,
    settings: Settings,
    http: Http | None = None,
    offline: bool = False,
    progress: Callable[[str], None] | None = None,
    limits: ArchiveLimits | None = None,
) -> SourcesReport:
    """The unpacked source of `product`'s releases from `since` to `to` (see the module's docstring)."""
    name = canonicalize_name(product)
    say = progress or (lambda line: None)
    limits = limits or ArchiveLimits()
    base = settings.api_sources_path
    if not store.is_product(name):  # the name becomes a folder's and a URL's: `../x` is no project
        return SourcesReport(name, (), (f"{product!r} is not a package name",))
    store.remove_leftovers(base)
    problems: list[str] = []
    if offline:
        index = _read_index(base).get(name, {})
        versions = tuple(sorted(index, key=_key))
        chosen = choose(versions, since, to, name, problems, where="the unpacked sources (fetch them online first)")
        wanted = [_Release(v, **index[v]) for v in chosen]
        return _collect(name, wanted, None, settings, limits, say, problems)
    own = http is None
    if http is None:
        http = Http(
            make_client(settings),
            retries=settings.fetch_retries,
            addresses=addresses_of(settings),
            deadline_s=settings.fetch_deadline_s,
        )
    try:
        try:
            project = registry.project(http, name, base=settings.registry_url)
        except FetchError as e:
            return SourcesReport(name, (), (f"{name}: {_line(e)}",))
        chosen = choose(project.releases, since, to, name, problems, where="the registry's final releases")
        wanted = []
        for version in chosen:
            artifact, why = _artifact_of(project, version, limits)
            if artifact is None:
                problems.append(f"{name} {version}: {why}")
                continue
            kind: Literal["sdist", "wheel"] = "wheel" if artifact.wheel else "sdist"
            wanted.append(_Release(version, artifact.sha256, kind, artifact.filename, artifact))
        return _collect(name, wanted, http, settings, limits, say, problems)
    finally:
        if own:
            http.client.close()


def choose(
    releases: tuple[str, ...], since: str, to: str, product: str, problems: list[str], *, where: str
) -> list[str]:
    """The releases to load, oldest first: `since`'s, the newest patch of each minor release after it up to `to`,
    and `to`'s; a line in `problems` for an end that names no release of `releases` (sorted oldest first)."""
    ends = []
    for spec in (since, to):
        found = pick(releases, spec)
        if found is None:
            problems.append(f"{product} {spec}: no such release among {where}")
        ends.append(found)
    low, high = ends
    if low is None or high is None:
        return [v for v in (low, high) if v is not None]
    if Version(low) > Version(high):
        problems.append(f"{product}: {since} ({low}) is newer than {to} ({high})")
        return []
    newest: dict[tuple[int, ...], str] = {}
    for v in releases:
        if Version(low) < Version(v) <= Version(high):
            newest[_padded(v)[:2]] = v  # oldest first: the last of each minor release is its newest patch
    return [low, *sorted(newest.values(), key=Version)]


def pick(releases: Iterable[str], spec: str) -> str | None:
    """The release `spec` names: with fewer than three numbers (`2.1`), the newest of that series; else that
    very release."""
    try:
        wanted = Version(spec)
    except InvalidVersion:
        return None
    prefix = len(wanted.release) < 3 and wanted.pre is None and wanted.post is None and wanted.dev is None
    best: str | None = None
    for v in releases:
        try:
            version = Version(v)
        except InvalidVersion:
            continue
        if prefix:
            matches = version.epoch == wanted.epoch and _padded(v)[: len(wanted.release)] == wanted.release
        else:
            matches = version == wanted
        if matches and (best is None or version > Version(best)):
            best = v
    return best


def _padded(version: str) -> tuple[int, ...]:
    release = Version(version).release
    return release + (0,) * (3 - len(release))


def _key(version: str) -> Version:
    try:
        return Version(version)
    except InvalidVersion:
        return Version("0")


def _artifact_of(
    project: registry.Project, version: str, limits: ArchiveLimits
) -> tuple[registry.Artifact | None, str]:
    """The release's sdist, else its smallest wheel (a pure-Python one first), or None and why."""
    sdist = project.sdists.get(version)
    if sdist is not None:
        return sdist, ""
    wheels = project.wheels.get(version, ())
    if not wheels:
        return None, "neither a source distribution nor a wheel with a sha256"
    fits = [w for w in wheels if w.size <= limits.archive_bytes] or list(wheels)  # over the cap: said below
    pure = [w for w in fits if w.filename.lower().endswith("-none-any.whl")]
    wheel = min(pure or fits, key=lambda w: (w.size, w.filename))
    if wheel.size > limits.archive_bytes:
        size, cap = f"{wheel.size / 1e6:.0f} MB", f"{limits.archive_bytes / 1e6:.0f} MB"
        return (
            None,
            f"no source distribution; its smallest wheel {wheel.filename} is {size}, over the {cap} read: skipped",
        )
    return wheel, ""


def _collect(
    name: str,
    wanted: list[_Release],
    http: Http | None,
    settings: Settings,
    limits: ArchiveLimits,
    say: Callable[[str], None],
    problems: list[str],
) -> SourcesReport:
    """Each release unpacked (or found unpacked) and its import names resolved."""
    base = settings.api_sources_path
    record = store.read_provenance(settings.fetched_path, name) or {}
    known = record.get("packages")
    known = tuple(str(p) for p in known) if isinstance(known, list) else ()
    trees: list[ReleaseTree] = []
    for release in wanted:
        label = f"{name} {release.version}"
        folder = base / release.sha256
        try:
            if folder.is_dir() and not (folder / COMPILED_LIST).exists():
                _stale(folder, release, settings, limits)
            if folder.is_dir():
                say(f"{label}: already unpacked ({release.archive} {release.filename})")
            else:
                data, how = _archive(release, http, settings, limits)
                if data is None:
                    problems.append(f"{label}: {how}")
                    continue
                unpacked = unpack_sources(data, folder, wheel=release.archive == "wheel", limits=limits)
                say(f"{label}: {release.archive} {how}, unpacked {unpacked.files:,} files")
                for note in unpacked.notes:
                    logger.info("%s: %s", label, note)
        except Unreachable as e:
            problems.append(f"{name}: {_line(e)}; {release.version} and the releases after it not fetched")
            break
        except ArchiveRefused as e:
            problems.append(f"{label}: archive {release.filename} refused: {_line(e)}")
            continue
        except (FetchError, OSError) as e:
            problems.append(f"{label}: {_line(e)}")
            continue
        with contextlib.suppress(OSError):  # the index only helps offline runs; the folder is what counts
            _remember(base, name, release)
        resolved = import_names.resolve(folder, name, known=known, wheel=release.archive == "wheel")
        if resolved is None:
            problems.append(f"{label}: no importable package found in {release.filename}")
            continue
        root, packages = resolved
        trees.append(ReleaseTree(name, release.version, release.sha256, root, packages, release.archive))
    return SourcesReport(name, tuple(trees), tuple(problems))


def _stale(folder: Path, release: _Release, settings: Settings, limits: ArchiveLimits) -> None:
    """List the compiled modules of a release unpacked before that list was kept, from its archive when the cache
    has it (its member names only: the source files stay as they are); else the folder stays without it, and no
    package of it has its names closed."""
    try:
        data, _ = _archive(release, None, settings, limits)
        if data is not None:
            compiled_list(data, folder, wheel=release.archive == "wheel", limits=limits)
    except (ArchiveRefused, FetchError, OSError, ValueError) as e:  # the list only narrows what may be shown gone
        logger.info("%s: compiled modules not listed: %s", folder.name, _line(e))


def _archive(
    release: _Release, http: Http | None, settings: Settings, limits: ArchiveLimits
) -> tuple[bytes | None, str]:
    """The archive's bytes and how they were had ("cached", "downloaded 12.3 MB"), or None and what is missing."""
    if release.artifact is None or http is None:  # offline: the archive cache or nothing
        data = store.cached_archive(settings.fetch_cache_path, release.sha256)
        if data is None:
            return None, f"{release.filename} is neither unpacked nor in the archive cache (offline)"
        return data, "cached"
    data, downloaded = registry.download(http, release.artifact, cache=settings.fetch_cache_path, limits=limits)
    return data, f"downloaded {_size(len(data))}" if downloaded else "cached"


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n / 1e3:.0f} KB"


def _valid(version: str) -> bool:
    """A version `packaging` reads (a damaged or hand-edited index may hold anything)."""
    try:
        Version(version)
    except InvalidVersion:
        return False
    return True


def _read_index(base: Path) -> dict[str, dict[str, dict[str, str]]]:
    """`index.json`: product -> version -> {sha256, archive, filename}; entries not of that shape are dropped."""
    try:
        data = json.loads((base / INDEX).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    out: dict[str, dict[str, dict[str, str]]] = {}
    for product, versions in data.items() if isinstance(data, dict) else ():
        for version, entry in versions.items() if isinstance(versions, dict) else ():
            if (
                _valid(version)
                and isinstance(entry, dict)
                and store.is_sha256(entry.get("sha256"))
                and entry.get("archive") in ("sdist", "wheel")
                and isinstance(entry.get("filename"), str)
            ):
                fields = {k: entry[k] for k in ("sha256", "archive", "filename")}
                out.setdefault(str(product), {})[str(version)] = fields
    return out


def _remember(base: Path, product: str, release: _Release) -> None:
    """Record the release's folder in `index.json` (written whole to a temporary file, then renamed), under an
    exclusive `flock` on `.index.lock`: two fetches at once (a CI job and a developer's run) each read the other's
    entries before writing, instead of the later one dropping the earlier one's."""
    import fcntl

    entry = {"sha256": release.sha256, "archive": release.archive, "filename": release.filename}
    base.mkdir(parents=True, exist_ok=True)
    with open(base / ".index.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or when the process dies
        index = _read_index(base)
        if index.get(product, {}).get(release.version) == entry:
            return
        index.setdefault(product, {})[release.version] = entry
        _write_index(base, index)


def _write_index(base: Path, index: dict[str, dict[str, dict[str, str]]]) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".index-", dir=base)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(index, out, indent=1, sort_keys=True)
        os.replace(tmp, base / INDEX)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _line(error: Exception) -> str:
    return " ".join(str(error).split()) or type(error).__name__
