"""A project as the package registry's JSON API says it: its releases, each release's source distribution (URL,
sha256, size) and its `project_urls`.

Only the per-project document (`{base}/{name}/json`) is read: it lists every release's files, so one request
serves any version (the per-version document is not served everywhere). File URLs may be relative to it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from urllib.parse import quote, urljoin

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from ingest.dependencies.limits import MAX_PROJECT_JSON_BYTES
from ingest.dependencies.transport import FetchError, Http

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_SDIST = (".tar.gz", ".tgz", ".zip", ".tar.bz2", ".tar.xz")


@dataclass(frozen=True)
class Artifact:
    """A release's source distribution."""

    url: str  # absolute
    filename: str
    sha256: str
    size: int


@dataclass(frozen=True)
class Project:
    name: str  # canonical
    url: str  # the JSON document's
    latest: str  # what the registry calls the newest release ('' if none)
    releases: tuple[str, ...]  # final releases with a file that is not yanked, oldest first
    sdists: dict[str, Artifact] = field(default_factory=dict)  # by version, for releases that have one
    project_urls: dict[str, str] = field(default_factory=dict)


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
    )


def _artifact(entry: dict, url: str) -> Artifact | None:
    filename = str(entry.get("filename", ""))
    digest = str((entry.get("digests") or {}).get("sha256", "")).lower()
    if entry.get("packagetype") != "sdist" or not filename.lower().endswith(_SDIST) or not _SHA256.match(digest):
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
