"""Fetching dependencies' release docs against a local registry and GitHub: every branch, no network, no waits."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant.runtime.settings import Settings
from ingest.dependencies import Wanted, fetch_docs
from ingest.dependencies.archive import is_release_doc
from ingest.dependencies.releases import named_releases
from ingest.dependencies.store import StoredFile, file_names, write_product
from tests.fetch_server import FakeHosts, Reply, project_json, serve, tar_gz, zip_of

CHANGES = b"# Changelog\n\n## 2.0 (2026-01-02)\n\n- Removed `acme.old()`.\n\n## 1.1\n\n- Fixed.\n\n## 1.0\n\n- First.\n"


@pytest.fixture
def hosts() -> Iterator[FakeHosts]:
    yield from serve()


@pytest.fixture
def slept() -> list[float]:
    return []


def settings_for(hosts: FakeHosts, tmp_path: Path, **extra: object) -> Settings:
    return Settings(
        corpus_dir=tmp_path / "corpus",
        data_dir=tmp_path / "data",
        registry_url=f"{hosts.url}/pypi",
        github_api_url=f"{hosts.url}/gh-api",
        github_raw_url=f"{hosts.url}/gh-raw",
        **{"fetch_retries": 2, **extra},  # type: ignore[arg-type]
    )


def publish(hosts: FakeHosts, name: str, archive: bytes | None, *, versions=("1.0", "1.1"), **kw: object) -> None:
    """`name` on the registry with `versions` and 2.0, whose sdist is `archive`, its URL relative to the JSON."""
    archives: dict = {v: None for v in versions}
    if archive is not None:
        suffix = "zip" if archive[:2] == b"PK" else "tar.gz"
        archives["2.0"] = (f"../../files/{name}-2.0.{suffix}", archive)
        hosts.route(f"/files/{name}-2.0.{suffix}", archive)
    else:
        archives["2.0"] = None
    hosts.route(f"/pypi/{name.lower()}/json", project_json(name, archives, **kw))  # type: ignore[arg-type]


def fetch(settings: Settings, *wanted: Wanted, slept: list[float] | None = None):
    sleep = slept.append if slept is not None else _no_sleep
    return fetch_docs(list(wanted), settings=settings, sleep=sleep).packages


def _no_sleep(seconds: float) -> None:
    raise AssertionError(f"slept {seconds}s: nothing here should be retried")


def test_sdist_changelog_is_stored_with_provenance_and_span(hosts: FakeHosts, tmp_path: Path) -> None:
    sdist = tar_gz(
        {
            "CHANGES.md": CHANGES,
            "docs/whatsnew/2.0.rst": b"What's new in Acme 2.0\n======================\n\nThings.\n",
            "docs/conf.py": b"project = 'acme'\n",
            "setup.py": b"raise SystemExit('never run')\n",
            "src/acme/__init__.py": b"",
        }
    )
    publish(hosts, "Acme", sdist)
    settings = settings_for(hosts, tmp_path)
    (package,) = fetch(settings, Wanted("acme", since="1.0"))
    assert package.problem == "" and package.source == "sdist" and package.version == "2.0"
    assert [f.file for f in package.files] == ["CHANGES.md", "2.0.rst"]
    assert package.files[0].releases == ("1.0", "1.1", "2.0") and package.files[1].releases == ("2.0",)
    assert package.span == ("1.1", "2.0") and package.missing == () and package.covers_span and package.downloaded
    folder = settings.fetched_path / "acme"
    assert sorted(p.name for p in folder.iterdir()) == ["2.0.rst", "CHANGES.md", "provenance.json"]
    assert (folder / "CHANGES.md").read_bytes() == CHANGES
    record = json.loads((folder / "provenance.json").read_text())
    assert record["project"] == "acme" and record["version"] == "2.0" and record["source"] == "sdist"
    assert record["archive_url"] == f"{hosts.url}/files/Acme-2.0.tar.gz"  # the relative URL, joined to the JSON's
    assert {f["path"] for f in record["files"]} == {"CHANGES.md", "docs/whatsnew/2.0.rst"}
    assert record["fetched"][:2] == "20" and len(record["archive_sha256"]) == 64


def test_second_fetch_downloads_no_archive(hosts: FakeHosts, tmp_path: Path) -> None:
    publish(hosts, "acme", tar_gz({"CHANGES.md": CHANGES}))
    settings = settings_for(hosts, tmp_path)
    first = fetch(settings, Wanted("acme"))[0]
    again = fetch(settings, Wanted("acme"))[0]
    assert first.downloaded and not again.downloaded and again.cached and again.files == first.files
    assert hosts.asked("/files/acme-2.0.tar.gz") == 1 and hosts.asked("/pypi/acme/json") == 2
    # The fetched folder gone, the archive comes from the cache under data_dir, checked by its sha256.
    for path in sorted((settings.fetched_path / "acme").iterdir()):
        path.unlink()
    third = fetch(settings, Wanted("acme"))[0]
    assert not third.downloaded and not third.cached and [f.file for f in third.files] == ["CHANGES.md"]
    assert hosts.asked("/files/acme-2.0.tar.gz") == 1


def test_zip_sdist_and_a_named_version(hosts: FakeHosts, tmp_path: Path) -> None:
    publish(hosts, "acme", zip_of({"acme-2.0/HISTORY.rst": b"History\n=======\n\n2.0\n---\n\nNew.\n\n1.0\n---\n"}))
    (package,) = fetch(settings_for(hosts, tmp_path), Wanted("acme", version="2.0"))
    assert [f.file for f in package.files] == ["HISTORY.rst"] and package.files[0].releases == ("1.0", "2.0")
    (missing,) = fetch(settings_for(hosts, tmp_path), Wanted("acme", version="9.9"))
    assert missing.problem == "acme has no release 9.9" and missing.files == ()


def test_a_wrong_sha256_is_not_read(hosts: FakeHosts, tmp_path: Path) -> None:
    publish(hosts, "acme", tar_gz({"CHANGES.md": CHANGES}), digest="ab" * 32)
    settings = settings_for(hosts, tmp_path)
    (package,) = fetch(settings, Wanted("acme"))
    assert "sha256 is not the one the registry names" in package.problem and package.files == ()
    assert not settings.fetched_path.exists() and not settings.fetch_cache_path.exists()


def test_429_then_200_waits_what_retry_after_asks(hosts: FakeHosts, tmp_path: Path, slept: list[float]) -> None:
    publish(hosts, "acme", tar_gz({"CHANGES.md": CHANGES}))
    ok = hosts.routes["/pypi/acme/json"][0]
    hosts.route("/pypi/acme/json", Reply(b"slow down", 429, {"Retry-After": "7"}), ok)
    (package,) = fetch(settings_for(hosts, tmp_path), Wanted("acme"), slept=slept)
    assert package.problem == "" and slept == [7.0] and hosts.asked("/pypi/acme/json") == 2


def test_5xx_is_retried_with_backoff_then_reported(hosts: FakeHosts, tmp_path: Path, slept: list[float]) -> None:
    hosts.route("/pypi/acme/json", Reply(b"down", 503))
    publish(hosts, "other", tar_gz({"NEWS": b"Version 2.0\n\n* new\n\nVersion 1.0\n\n* first\n"}))
    acme, other = fetch(settings_for(hosts, tmp_path), Wanted("acme"), Wanted("other"), slept=slept)
    assert acme.problem.startswith("HTTP 503 after 3 tries") and slept == [0.5, 1.0]
    assert other.problem == "" and other.files[0].releases == ("1.0", "2.0")  # one failure stops no other


def test_a_timeout_is_retried_then_reported(hosts: FakeHosts, tmp_path: Path, slept: list[float]) -> None:
    hosts.route("/pypi/acme/json", Reply(b"{}", delay_s=0.6))
    settings = settings_for(hosts, tmp_path, fetch_timeout_s=0.15, fetch_retries=1)
    (package,) = fetch(settings, Wanted("acme"), slept=slept)
    assert package.problem.startswith("timed out after 2 tries") and slept == [0.5]


def test_unknown_project_is_one_line(hosts: FakeHosts, tmp_path: Path) -> None:
    (package,) = fetch(settings_for(hosts, tmp_path), Wanted("nope"))
    assert package.problem == f"HTTP 404 from {hosts.url}/pypi/nope/json" and package.files == ()


def test_github_releases_pages_become_one_changelog(hosts: FakeHosts, tmp_path: Path) -> None:
    publish(
        hosts,
        "acme",
        tar_gz({"README.md": b"# Acme\n"}),
        project_urls={"Release Notes": "https://github.com/o/r/releases"},
    )
    page2 = f"{hosts.url}/gh-api/repos/o/r/releases?per_page=100&page=2"
    first = [
        {
            "tag_name": "v2.0",
            "published_at": "2026-01-02T00:00:00Z",
            "body": "## What's Changed\n\n- `acme.old()` removed",
        },
        {"tag_name": "v1.9", "draft": True, "body": "unpublished"},
    ]
    hosts.route(
        "/gh-api/repos/o/r/releases?per_page=100",
        Reply(json.dumps(first).encode(), headers={"Link": f'<{page2}>; rel="next"'}),
    )
    hosts.route("/gh-api/repos/o/r/releases?per_page=100&page=2", [{"tag_name": "acme-1.1", "body": "# Fixes\n- one"}])
    (package,) = fetch(settings_for(hosts, tmp_path), Wanted("acme", since="1.0"))
    assert package.source == f"{hosts.url}/gh-api/repos/o/r/releases?per_page=100"
    (only,) = package.files
    assert only.file == "releases.md" and only.releases == ("1.1", "2.0") and package.covers_span
    text = (settings_for(hosts, tmp_path).fetched_path / "acme" / "releases.md").read_text()
    assert "## v2.0 (2026-01-02)\n\n#### What's Changed" in text and "## 1.1\n\n### Fixes" in text
    assert "unpublished" not in text


def test_github_file_link_is_read_raw_through_a_redirect(hosts: FakeHosts, tmp_path: Path) -> None:
    link = {"Changelog": "https://github.com/o/r/blob/main/CHANGES.md#top"}
    publish(hosts, "acme", None, project_urls=link)
    hosts.route("/gh-raw/o/r/main/CHANGES.md", Reply(b"", 301, {"Location": "/gh-raw/o/r/main/docs/CHANGES.md"}))
    hosts.route("/gh-raw/o/r/main/docs/CHANGES.md", CHANGES)
    (package,) = fetch(settings_for(hosts, tmp_path), Wanted("acme"))
    assert package.source == f"{hosts.url}/gh-raw/o/r/main/docs/CHANGES.md" and package.files[0].file == "CHANGES.md"
    assert package.files[0].releases == ("1.0", "1.1", "2.0")


def test_html_changelog_page_is_text_without_scripts(hosts: FakeHosts, tmp_path: Path) -> None:
    publish(hosts, "acme", tar_gz({"README.md": b"# Acme\n"}), project_urls={"change log": f"{hosts.url}/notes"})
    page = b"<html><script>alert('x')</script><h1>Changes</h1><h2>2.0</h2><p>Removed <code>old</code>.</p>"
    hosts.route("/notes", Reply(page + b"<h2>1.0</h2><p>First</p>", headers={"Content-Type": "text/html"}))
    settings = settings_for(hosts, tmp_path, fetch_private_hosts=True)  # the link's host is this local one
    (package,) = fetch(settings, Wanted("acme"))
    text = (settings.fetched_path / "acme" / "changelog.md").read_text()
    assert package.files[0].releases == ("1.0", "2.0") and "alert" not in text and "## 2.0" in text


def test_nothing_found_says_why(hosts: FakeHosts, tmp_path: Path) -> None:
    publish(hosts, "acme", tar_gz({"README.md": b"# Acme\n", "docs/changes.rst": b".. include:: ../CHANGES.rst\n"}))
    (package,) = fetch(settings_for(hosts, tmp_path), Wanted("acme"))
    assert package.problem == "acme-2.0.tar.gz holds no release docs; no changelog link in project_urls"
    assert package.notes == ("docs/changes.rst: only includes another file; skipped",)


def test_release_doc_names_and_places() -> None:
    docs = [
        "CHANGES.rst",
        "NEWS",
        "HISTORY.md",
        "docs/changelog.md",
        "docs/releases/4.2.1.txt",
        "UPGRADING.md",
        "doc/en/whatsnew/v2.0.rst",
        "docs/build/changelog/changelog_14.rst",
        "RELEASE_NOTES.txt",
        "docs/migration.rst",
    ]
    others = [
        "setup.py",
        "README.md",
        "LICENSE",
        "src/acme/changes.py",
        "tests/CHANGES.md",
        "docs/releases/index.rst",
        "changelog.d/123.bugfix.md",
        "docs/changelog/unreleased_14/6135.rst",
        "docs/topics/migrations.txt",
        "docs/whatsnew/2.0.html",
        "NEWS.d/1.feature.rst",
    ]
    assert [d for d in docs if not is_release_doc(d)] == [] and [o for o in others if is_release_doc(o)] == []


def test_releases_are_read_from_headings_of_every_form() -> None:
    rst = b"Changes\n=======\n\nVersion 2.0\n-----------\n\n- New.\n\nVersion 1.0\n-----------\n"
    directive = b"1.4 Changelog\n=============\n\n.. changelog::\n    :version: 1.4.1\n    :released: May 1, 2021\n"
    news = b"Acme NEWS\n\nVersion 3.0\n  * gone\nVersion 2.9\n  * here\n"
    one = b"=========================\nAcme 4.2.1 release notes\n=========================\n\nFixes.\n"
    assert named_releases(rst, "CHANGES.rst", "acme") == ("1.0", "2.0")
    assert named_releases(directive + directive.replace(b"1.4.1", b"1.4.0"), "changelog_14.rst", "acme") == (
        "1.4.0",
        "1.4.1",
    )
    assert named_releases(news, "NEWS", "acme") == ("2.9", "3.0")
    assert named_releases(one, "4.2.1.txt", "acme") == ("4.2.1",)
    assert named_releases(b"# Usage\n\nPython 3.10 support.\n", "usage.md", "acme") == ()


def test_colliding_names_are_told_apart_by_their_path() -> None:
    names = file_names(["docs/releases/2.0.rst", "docs/whatsnew/2.0.rst", "CHANGES.md", "docs/CHANGES.md"])
    assert names == {
        "CHANGES.md": "CHANGES.md",
        "docs/CHANGES.md": "docs-CHANGES.md",
        "docs/releases/2.0.rst": "2.0.rst",
        "docs/whatsnew/2.0.rst": "whatsnew-2.0.rst",
    }


def test_a_failed_write_leaves_the_previous_docs_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fetched = tmp_path / "fetched"
    old = [StoredFile("CHANGES.md", "CHANGES.md", "x", b"old")]
    write_product(fetched, "acme", old, {"version": "1.0"})
    calls = []

    def failing(self: Path, data: bytes) -> int:
        calls.append(self.name)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return len(data)

    monkeypatch.setattr(Path, "write_bytes", failing)
    new = [StoredFile("CHANGES.md", "CHANGES.md", "y", b"new"), StoredFile("NEWS", "NEWS", "z", b"news")]
    with pytest.raises(OSError, match="No space"):
        write_product(fetched, "acme", new, {"version": "2.0"})
    monkeypatch.undo()
    assert sorted(p.name for p in fetched.iterdir()) == ["acme"]  # no staging folder left behind
    assert (fetched / "acme" / "CHANGES.md").read_bytes() == b"old"
    assert json.loads((fetched / "acme" / "provenance.json").read_text())["version"] == "1.0"


def run_app(args: list[str], hosts: FakeHosts, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    import app

    monkeypatch.setenv("RELDOCS_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("RELDOCS_CORPUS_DIR", str(tmp_path / "corpus"))
    monkeypatch.setenv("RELDOCS_REGISTRY_URL", f"{hosts.url}/pypi")
    monkeypatch.setenv("RELDOCS_FETCH_RETRIES", "0")
    return app.main(args)


def test_cli_fetch_requirements_json_and_exit_status(
    hosts: FakeHosts, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    publish(hosts, "acme", tar_gz({"CHANGES.md": CHANGES}))
    publish(hosts, "bare", tar_gz({"README.md": b"# Bare\n"}))
    reqs = tmp_path / "requirements.txt"
    reqs.write_text("acme==1.0\n")
    assert run_app(["fetch", "--requirements", str(reqs)], hosts, tmp_path, monkeypatch) == 0
    out = capsys.readouterr()
    assert (
        out.err
        == "acme 2.0: CHANGES.md from the source distribution; releases 1.0–2.0 (3); covers 1.0 → 2.0 (2 releases)\n"
    )
    assert out.out.startswith("1 of 1 packages have release docs in ")

    reqs.write_text("acme==1.0\nbare\n!!\n")
    assert run_app(["fetch", "-r", str(reqs), "--json"], hosts, tmp_path, monkeypatch) == 2  # a bad line
    out = capsys.readouterr()
    report = json.loads(out.out)
    acme, bare = report["packages"]
    assert set(acme) >= {"product", "version", "source", "files", "problem"} and acme["source"] == "sdist"
    assert acme["files"] == [
        {
            "file": "CHANGES.md",
            "path": "CHANGES.md",
            "sha256": acme["files"][0]["sha256"],
            "releases": ["1.0", "1.1", "2.0"],
        }
    ]
    assert bare["problem"] == "bare-2.0.tar.gz holds no release docs; no changelog link in project_urls"
    assert [(e["file"], e["line"]) for e in report["errors"]] == [(str(reqs), 3)]
    assert out.err.splitlines()[0].startswith(f"error: {reqs}:3: not a requirement")
    assert "(in place already)" in out.err and "bare 2.0: no release docs: bare-2.0.tar.gz" in out.err

    assert run_app(["fetch", "bare"], hosts, tmp_path, monkeypatch) == 1  # a package without docs
    assert run_app(["fetch", "-r", str(tmp_path / "missing.txt")], hosts, tmp_path, monkeypatch) == 2
    assert run_app(["fetch"], hosts, tmp_path, monkeypatch) == 2
    err = capsys.readouterr().err
    assert f"error: {tmp_path / 'missing.txt'}: no such file" in err and "Traceback" not in err
