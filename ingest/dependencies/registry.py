"""A project as the package registry's JSON API says it: its releases, each release's source distribution and
wheels (URL, sha256, size) and its `project_urls`; and `download`, which gets one of those files through the
archive cache, checked against the sha256 the registry names.

Only the per-project document (`{base}/{name}/json`) is read: it lists every release's files, so one request
serves any version (the per-version document is not served everywhere). File URLs may be relative to it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urljoin

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from ingest.dependencies import store
from ingest.dependencies.limits import MAX_PROJECT_JSON_BYTES, ArchiveLimits
from ingest.dependencies.transport import FetchError, Http

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_SDIST = (".tar.gz", ".tgz", ".zip", ".tar.bz2", ".tar.xz")


@dataclass(frozen=True)
class Artifact:
    """A release's source distribution or one of its wheels."""

    url: str  # absolute
    filename: str
    sha256: str
    size: int

    @property
    def wheel(self) -> bool:
        return self.filename.lower().endswith(".whl")


@dataclass(frozen=True)
class Project:
    name: str  # canonical
    url: str  # the JSON document's
    latest: str  # what the registry calls the newest release ('' if none)
    releases: tuple[str, ...]  # final releases with a file that is not yanked, oldest first
    sdists: dict[str, Artifact] = field(default_factory=dict)  # by version, for releases that have one
    project_urls: dict[str, str] = field(default_factory=dict)
    wheels: dict[str, tuple[Artifact, ...]] = field(default_factory=dict)  # by version, those not yanked


def project(http: Http, name: str, *, base: str) -> Project:
    """The registry's record of `name`; `FetchError` when it has none or sends no JSON object."""
    canonical = canonicalize_name(name)
    url = f"{base}/{quote(canonical)}/json"
    response = http.get(url, limit=MAX_PROJECT_JSON_BYTES, headers={"Accept": "application/json"})
    try:
        data = json.loads(response.body)
    except ValueError:
        raise FetchError(f"the registry's answer for {canonical} is not JSON ({url})") from None
    if not isinstance(data, dict) or not isinstance(data.get("info"), dict):
        raise FetchError(f"the registry's answer for {canonical} has no project info ({url})")
    return _project(canonical, response.url, data)


def _project(name: str, url: str, data: dict) -> Project:
    releases: list[tuple[Version, str]] = []
    sdists: dict[str, Artifact] = {}
    wheels: dict[str, tuple[Artifact, ...]] = {}
    for version, files in (data.get("releases") or {}).items():
        try:
            parsed = Version(version)
        except InvalidVersion:
            continue  # a legacy version string cannot be placed in the span
        files = [f for f in files or [] if isinstance(f, dict) and not f.get("yanked")]
        if not files:
            continue
        if not parsed.is_prerelease and not parsed.is_devrelease:
            releases.append((parsed, version))
        sdist = next((a for f in files if (a := _artifact(f, url)) is not None), None)
        if sdist is not None:
            sdists[version] = sdist
        if found := tuple(a for f in files if (a := _artifact(f, url, kind="bdist_wheel")) is not None):
            wheels[version] = found
    info = data["info"]
    urls = info.get("project_urls") or {}
    links = {str(k): str(v) for k, v in urls.items() if isinstance(v, str)} if isinstance(urls, dict) else {}
    return Project(
        name=name,
        url=url,
        latest=str(info.get("version") or ""),
        releases=tuple(v for _, v in sorted(releases)),
        sdists=sdists,
        project_urls=links,
        wheels=wheels,
    )


def _artifact(entry: dict, url: str, *, kind: str = "sdist") -> Artifact | None:
    filename = str(entry.get("filename", ""))
    digest = str((entry.get("digests") or {}).get("sha256", "")).lower()
    suffixes = _SDIST if kind == "sdist" else (".whl",)
    if entry.get("packagetype") != kind or not filename.lower().endswith(suffixes) or not _SHA256.match(digest):
        return None  # no digest, nothing to verify the download against: not taken
    size = entry.get("size")
    return Artifact(urljoin(url, str(entry.get("url", ""))), filename, digest, size if isinstance(size, int) else 0)


def choose(project: Project, version: str | None) -> tuple[str, Artifact | None]:
    """The release to read (`version`, else the newest) and its source distribution (None when it has none).

    Without a version: the registry's newest release when it has a source distribution, else the newest final
    release that has one (a project that stopped uploading them still has docs in its last). `FetchError` when
    the named version is not a release of the project."""
    if version is not None:
        match = next((v for v in (*project.releases, *project.sdists) if _same(v, version)), None)
        if match is None:
            raise FetchError(f"{project.name} has no release {version}")
        return match, project.sdists.get(match)
    latest = project.latest or (project.releases[-1] if project.releases else "")
    if not latest:
        raise FetchError(f"{project.name} has no release with files")
    if latest in project.sdists:
        return latest, project.sdists[latest]
    older = [v for v in reversed(project.releases) if v in project.sdists]
    return (older[0], project.sdists[older[0]]) if older else (latest, None)


def _same(a: str, b: str) -> bool:
    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return a == b


def download(http: Http, artifact: Artifact, *, cache: Path, limits: ArchiveLimits) -> tuple[bytes, bool]:
    """The file's bytes, from the archive cache or downloaded (and cached), and whether it was downloaded;
    `FetchError` when it is larger than allowed or not the file the registry names (its sha256 differs)."""
    if artifact.size > limits.archive_bytes:
        raise FetchError(f"{artifact.filename} is {artifact.size} bytes, more than the {limits.archive_bytes} allowed")
    data = store.cached_archive(cache, artifact.sha256)
    if data is not None:
        return data, False
    data = http.get(artifact.url, limit=limits.archive_bytes).body
    if store.sha256(data) != artifact.sha256:
        raise FetchError(f"{artifact.filename}: its sha256 is not the one the registry names; not read")
    store.cache_archive(cache, artifact.sha256, data)
    return data, True
