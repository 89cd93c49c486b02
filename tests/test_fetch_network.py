"""A few fetches from the real package registry (PyPI), of small, long-lived packages with changelogs in their
source distributions. The assertions hold whatever their newest release is: release docs are found, the archive
read is the one whose sha256 the registry names, the files are stored as their provenance says, and a second
fetch downloads nothing. Skipped, with the reason, where the registry cannot be reached."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import httpx
import pytest

from assistant.runtime.settings import Settings
from ingest.dependencies import Wanted, fetch_docs
from tests.conftest import REAL_REGISTRY

pytestmark = pytest.mark.network
PACKAGES = {"six": "1.15.0", "idna": "3.0"}  # each with a release long before its newest, the span's start


@pytest.fixture(scope="module")
def registry() -> dict[str, dict]:
    """The registry's JSON of each package, read here without reldocs, to check the fetch against."""
    url = REAL_REGISTRY
    try:
        return {name: httpx.get(f"{url}/{name}/json", timeout=10).raise_for_status().json() for name in PACKAGES}
    except (httpx.HTTPError, ValueError) as e:
        pytest.skip(f"the package registry {url} cannot be reached: {type(e).__name__}: {e}")


def _settings(tmp_path: Path) -> Settings:
    return Settings(corpus_dir=tmp_path / "corpus", data_dir=tmp_path / "data", registry_url=REAL_REGISTRY)


def test_the_newest_release_s_docs_are_the_registry_s_archive(registry: dict[str, dict], tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    wanted = [Wanted(name, since=since) for name, since in PACKAGES.items()]
    for package in fetch_docs(wanted, settings=settings).packages:
        project = registry[package.product]
        assert package.problem == "" and package.files and package.source == "sdist", package.problem
        latest = project["info"]["version"]
        has_sdist = any(f["packagetype"] == "sdist" for f in project["releases"].get(latest, []))
        assert package.version == latest or not has_sdist  # else the newest release that has one
        assert package.span and package.span[-1] == package.version and PACKAGES[package.product] not in package.span
        assert any(f.releases for f in package.files)  # some file's headings name releases
        (sdist,) = [f for f in project["releases"][package.version] if f["packagetype"] == "sdist"]
        folder = settings.fetched_path / package.product
        record = json.loads((folder / "provenance.json").read_text(encoding="utf-8"))
        assert record["archive_sha256"] == sdist["digests"]["sha256"] and record["version"] == package.version
        for f in record["files"]:
            assert hashlib.sha256((folder / f["file"]).read_bytes()).hexdigest() == f["sha256"]
        assert {f["file"] for f in record["files"]} == {f.file for f in package.files}


def test_a_second_fetch_downloads_nothing(registry: dict[str, dict], tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    (first,) = fetch_docs([Wanted("six")], settings=settings).packages
    (again,) = fetch_docs([Wanted("six")], settings=settings).packages
    assert first.problem == "" and first.downloaded, first.problem
    assert again.cached and not again.downloaded and again.files == first.files and again.version == first.version
