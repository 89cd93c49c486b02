"""A few fetches from the real package registry (PyPI), of small, long-lived packages: the registry's JSON and
archives as they are today. Skipped, with the reason, where the registry cannot be reached."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from assistant.runtime.settings import Settings
from ingest.dependencies import Wanted, fetch_docs

pytestmark = pytest.mark.network


@pytest.fixture(scope="module")
def registry() -> str:
    url = Settings().registry_url
    try:
        httpx.get(f"{url}/six/json", timeout=5).raise_for_status()
    except httpx.HTTPError as e:
        pytest.skip(f"the package registry {url} cannot be reached: {type(e).__name__}: {e}")
    return url


def test_real_sdists_give_their_changelogs_and_the_span(registry: str, tmp_path: Path) -> None:
    settings = Settings(corpus_dir=tmp_path / "corpus", data_dir=tmp_path / "data", registry_url=registry)
    six, idna = fetch_docs([Wanted("six", since="1.15.0"), Wanted("idna", since="3.0")], settings=settings).packages
    assert six.source == "sdist" and "CHANGES" in six.files[0].file, six.problem
    assert "1.16.0" in six.releases and six.covers_span
    assert idna.source == "sdist" and idna.covers_span and "3.1" in idna.releases, idna.problem


def test_a_named_release_and_the_second_fetch_downloads_nothing(registry: str, tmp_path: Path) -> None:
    settings = Settings(corpus_dir=tmp_path / "corpus", data_dir=tmp_path / "data", registry_url=registry)
    (first,) = fetch_docs([Wanted("six", version="1.16.0")], settings=settings).packages
    (again,) = fetch_docs([Wanted("six", version="1.16.0")], settings=settings).packages
    assert first.version == again.version == "1.16.0" and first.downloaded and not again.downloaded and again.cached
    assert "1.17.0" not in first.releases and "1.16.0" in first.releases
