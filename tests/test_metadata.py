"""Metadata validation at ingest: bad fields are cleaned or dropped with a warning, never the document."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.loader import load_document, read_metadata, split_front_matter
from tests import hostile_corpus

BEACON = "http://127.0.0.1:9/b"


def _meta(front: dict[str, str], source: str = "acme/3.1/release-notes.md", body: str = "# Heading\n\nText.\n"):
    return read_metadata(source, body, front)


def _problems(warnings: list[dict[str, str]]) -> dict[str, str]:
    assert all(set(w) == {"file", "field", "problem"} and "\n" not in w["problem"] for w in warnings)
    return {w["field"]: w["problem"] for w in warnings}


def test_hostile_front_matter_is_cleaned_field_by_field() -> None:
    text = hostile_corpus.documents(BEACON)["hostile/1.0/release-notes.md"]
    front, body = split_front_matter(text)
    meta, warnings = read_metadata("hostile/1.0/release-notes.md", body, front)
    problems = _problems(warnings)
    assert meta["url"] == "" and "dropped" in problems["url"] and "angle brackets" in problems["url"]
    assert meta["kind"] == "release-notes" and "HTML tags removed" in problems["kind"]  # from the file name
    assert meta["version"] == "1.0" and "not a version" in problems["version"]  # from the folder
    assert meta["title"] == "Hostile 1.0 \\`\\` notes" and "HTML tags removed" in problems["title"]
    assert all(w["file"] == "hostile/1.0/release-notes.md" for w in warnings)
    assert not any(BEACON in v or "<" in v for v in meta.values())


def test_a_javascript_url_is_dropped_with_a_warning() -> None:
    meta, warnings = _meta({"url": "javascript:alert(document.cookie)"})
    assert meta["url"] == "" and _problems(warnings) == {"url": "a javascript: link, not http(s); dropped"}


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("data:text/html,<b>x</b>", "data:"),
        ("//evil.example/x", "absolute"),
        ("https://docs.example@evil.example/", "user@host"),
        ("https://example.com/a b", "spaces"),
    ],
)
def test_urls_that_are_no_http_links_are_dropped(url: str, why: str) -> None:
    meta, warnings = _meta({"url": url})
    assert meta["url"] == "" and why in _problems(warnings)["url"]


def test_a_good_url_is_re_serialised_without_a_warning() -> None:
    meta, warnings = _meta({"url": "HTTPS://Docs.Example.com/a(1)?q=x"})
    assert meta["url"] == "https://docs.example.com/a%281%29?q=x" and warnings == []


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("2.0.0rc1", "2.0.0rc1"),
        ("1!2.0.post1", "1!2.0.post1"),
        ("1.0+local.7", "1.0+local.7"),
        ("1.2.3-alpha.1+build.5", "1.2.3-alpha.1+build.5"),
        ("v3.1", "3.1"),
    ],
)
def test_pep440_and_semver_versions_pass(version: str, expected: str) -> None:
    meta, warnings = _meta({"version": version})
    assert meta["version"] == expected and warnings == []


@pytest.mark.parametrize("version", ['<img src="http://x/v.png">', "latest", "1.0 beta", "2.0; DROP"])
def test_a_bad_version_falls_back_to_the_folder(version: str) -> None:
    meta, warnings = _meta({"version": version})
    assert meta["version"] == "3.1" and "not a version" in _problems(warnings)["version"]
    meta, warnings = _meta({"version": version}, source="notes.md")
    assert meta["version"] == "" and _problems(warnings)["version"].endswith("dropped")


def test_a_folder_that_is_no_version_leaves_the_version_empty() -> None:
    meta, warnings = _meta({}, source="acme/latest/notes.md")
    assert meta["version"] == "" and "folder name" in _problems(warnings)["version"]


def test_text_fields_lose_tags_and_controls_and_are_capped() -> None:
    front = {"title": "Acme\x1b[31m 3.1 &amp; more", "product": "<b>Acme</b>", "kind": "x" * 100}
    meta, warnings = _meta(front)
    assert meta["title"] == "Acme 3.1 & more" and meta["product"] == "Acme" and len(meta["kind"]) <= 40
    problems = _problems(warnings)
    assert problems["title"] == "control characters removed" and problems["product"] == "HTML tags removed"
    assert problems["kind"] == "cut to 40 characters"


def test_plain_text_values_pass_without_warnings() -> None:
    meta, warnings = _meta({"title": "Acme 3.1 & friends", "kind": "migration-guide", "product": "Acme"})
    assert warnings == [] and meta["title"] == "Acme 3.1 & friends"


def test_a_title_left_empty_falls_back_to_the_first_heading_then_the_file_name() -> None:
    meta, warnings = _meta({"title": "<img src=x>"}, body="# The <b>real</b> heading\n\nText.\n")
    assert meta["title"] == "The real heading" and "nothing left" in _problems(warnings)["title"]
    meta, _ = _meta({"title": "<img src=x>"}, body="<img src=y>\n")
    assert meta["title"] == "release-notes.md"


@pytest.mark.parametrize(
    ("given", "expected", "warned"),
    [
        ("fr", "fr", False),
        ("pt-BR", "pt-BR", False),
        ("FR", "fr", False),
        ("en<script>", "en", True),
        ("english", "en", True),
    ],
)
def test_language_must_be_a_language_tag(given: str, expected: str, warned: bool) -> None:
    meta, warnings = _meta({"language": given})
    assert meta["language"] == expected and bool(warnings) == warned


def test_a_rejected_document_is_still_loaded(tmp_path: Path) -> None:
    path = tmp_path / "p/2.0/notes.md"
    path.parent.mkdir(parents=True)
    path.write_text("---\nurl: javascript:alert(1)\nversion: <b>x</b>\n---\n# Notes\n\n- Entry.\n")
    doc = load_document(path, tmp_path)
    assert doc.meta["url"] == "" and doc.meta["version"] == "2.0" and "Entry." in doc.text
    assert {w["field"] for w in doc.warnings} == {"url", "version"}
