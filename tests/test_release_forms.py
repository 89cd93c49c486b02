"""Every document knows its release, wherever the docs write it (`ingest/release.py`): each form through the real
ingest, over a small corpus of neutral products (acme, widget, tool) written here, on the fake embedder."""

from __future__ import annotations

import json

import fake_embedder as fake
import pytest

from assistant.knowledge_base import KnowledgeBase
from assistant.runtime.settings import Settings
from ingest import sync
from ingest.release import release_of
from ingest.sync import SyncReport
from interfaces.mcp_server import versions_result
from interfaces.terminal import products_json, products_text

BODY = "\n\nRemoved\n-------\n\nThe ``frobnicate`` option was removed; use ``twiddle`` instead.\n"

# file (under the corpus), its text, the release its entries get, where it is read from (folder and front matter:
# as before, by `ingest.loader` and `ingest.metadata`)
FORMS = [
    ("acme/2.3.rst", "Notes\n=====" + BODY, "2.3", "file name"),
    ("acme/2.4.0.txt", "Notes\n=====" + BODY, "2.4.0", "file name"),
    ("widget/v2.3.md", "# Notes\n\n## Removed\n\nThe `frobnicate` option was removed.\n", "2.3", "file name"),
    (
        "widget/release-2.4.0.md",
        "# Notes\n\n## Removed\n\nThe `frobnicate` option was removed.\n",
        "2.4.0",
        "file name",
    ),
    ("tool/tool2.3.md", "# Notes\n\n## Removed\n\nThe `frobnicate` option was removed.\n", "2.3", "file name"),
    ("tool/Tool 2.4.md", "# Notes\n\n## Removed\n\nThe `frobnicate` option was removed.\n", "2.4", "file name"),
    ("tool/tool-2.5.md", "# Notes\n\n## Removed\n\nThe `frobnicate` option was removed.\n", "2.5", "file name"),
    ("tool/2.6.0-notes.rst", "Notes\n=====" + BODY, "2.6.0", "file name"),
    ("acme/whatsnew.rst", "What's New In Acme 2.5\n======================" + BODY, "2.5", "heading"),
    (
        "widget/notes.md",
        "# Widget 5.2 Release Notes\n\n## Removed\n\nThe `frobnicate` option was removed.\n",
        "5.2",
        "heading",
    ),
    (
        "widget/migrating.md",
        "# Migrating from v7 to v8\n\n## Removed\n\nThe `frobnicate` option was removed.\n",
        "8",
        "heading",
    ),
    (
        "widget/v7.md",  # the file names the release it leaves; the heading says where to
        "---\ntitle: Updating from v7\n---\n# Upgrading from v7\n\n## Removed\n\nThe `knob` option was removed.\n",
        "8",
        "title",
    ),
    (
        "runner/upgrading.md",
        "---\ntitle: From v29 to v30\n---\n# Upgrade\n\nThe `frobnicate` option was removed.\n",
        "30",
        "title",
    ),
    (
        "widget/migrate-to-9.0.0.md",
        "---\ntitle: Migrate to v9.x\n---\n\n## Removed\n\nThe `frobnicate` option was removed.\n",
        "9.0.0",
        "file name",
    ),
    (
        "widget/series.md",
        "---\ntitle: Migrate to v10.x\n---\n\n## Removed\n\nThe `frobnicate` option was removed.\n",
        "10",
        "title",
    ),
    (
        "tool/upgrade.md",
        "---\ntitle: Upgrading to Tool 3.0\n---\n# Upgrade\n\nThe `frobnicate` option was removed.\n",
        "3.0",
        "title",
    ),
    ("acme/3.0.0/guide.md", "# Guide\n\nThe `frobnicate` option was removed.\n", "3.0.0", "folder"),
    (
        "widget/other.md",
        "---\nversion: 6.1\n---\n# Notes\n\nThe `frobnicate` option was removed.\n",
        "6.1",
        "front matter",
    ),
]
# One file holding many releases: each entry gets the release of its own heading, in each form headings take.
CHANGELOG = (
    "kit/CHANGES.md",
    "# Changelog\n\n## Version 1.5.3\n\n- The `knob` option was removed.\n\n"
    "## [1.5.2] - 2024-01-01\n\n- The `dial` option was renamed to `wheel`.\n\n"
    "## v1.5.1 (2023-12-01)\n\n- The `lever` option is deprecated.\n\n"
    "## 1.5.0\n\n- The `switch` option was added.\n",
)
CHANGELOG_RELEASES = {"knob": "1.5.3", "dial": "1.5.2", "lever": "1.5.1", "switch": "1.5.0"}
# A file naming no release beside files that do: indexed without one, and named in the report.
UNNAMED = ("tool/roadmap.md", "# Roadmap\n\nThe `frobnicate` option may come back.\n")
# ... but a file naming none alone in its folder is no oversight: no warning.
ALONE = ("gadget/notes.md", "# Notes\n\nThe `frobnicate` option may come back.\n")


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory, index_fields) -> tuple[KnowledgeBase, SyncReport]:  # type: ignore[no-untyped-def]
    corpus = tmp_path_factory.mktemp("forms")
    for source, text in [*(f[:2] for f in FORMS), CHANGELOG, UNNAMED, ALONE]:
        path = corpus / source
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    data = tmp_path_factory.mktemp("forms-data")
    settings = fake.settings_for(Settings(corpus_dir=corpus, data_dir=data, **index_fields("forms")))  # type: ignore[arg-type]
    report = sync(settings, progress=False)
    assert not report.errors, report.errors
    assert [(w["file"], w["field"]) for w in report.warnings] == [(UNNAMED[0], "version")]
    assert "other files of tool/ have one" in report.warnings[0]["problem"]
    return KnowledgeBase.open(settings), report


@pytest.fixture(scope="module")
def indexed(synced: tuple[KnowledgeBase, SyncReport]) -> KnowledgeBase:
    return synced[0]


@pytest.mark.parametrize(("source", "text", "release", "where"), FORMS, ids=[f[0] for f in FORMS])
def test_each_form_gives_every_entry_its_release(
    indexed: KnowledgeBase, source: str, text: str, release: str, where: str
) -> None:
    chunks = [c for c in indexed.retriever.chunks if c.source == source]
    assert chunks, source
    assert {c.version for c in chunks} == {release}
    assert {c.product for c in chunks} == {source.split("/")[0]}
    assert {c.release_from for c in chunks} == {where}
    if where in ("file name", "title", "heading"):  # the folder and front matter are read as before
        name, product = source.split("/")[-1], source.split("/")[0]
        front_title = text.split("title: ", 1)[1].split("\n", 1)[0] if "title: " in text else ""
        heading = text.split("\n", 1)[0].lstrip("# ") if not text.startswith("---") else ""
        assert release_of(name, product, (front_title, heading)) == (release, where)


def test_the_products_know_their_releases(indexed: KnowledgeBase) -> None:
    listed = indexed.products()
    assert set(listed["acme"]) >= {"2.3", "2.4.0", "2.5", "3.0.0"}
    assert set(listed["widget"]) >= {"2.3", "2.4.0", "5.2", "8", "6.1"}
    assert set(listed["tool"]) >= {"2.3", "2.4", "2.5", "2.6.0", "3.0"}


def test_a_plan_covers_releases_named_by_file(indexed: KnowledgeBase) -> None:
    plan = indexed.plan("2.3", "2.5", product="tool")
    assert list(plan.versions) == ["2.4", "2.5"]


@pytest.mark.parametrize(
    ("name", "titles", "expected"),
    [
        ("2024.1.md", ("", "Acme 2.3 Release Notes"), ("2.3", "heading")),  # a year-like name yields to a heading
        ("2024.1.md", ("", "Notes"), ("2024.1", "file name")),  # ... and is taken when nothing else names one
        ("acme-2.3.md", ("", "Acme 2.4 Release Notes"), ("2.3", "file name")),  # the file name is tried first
        ("vendor-2.3.md", ("", "Vendoring"), ("", "")),  # another word's number is no release of acme
        ("support-3.8.md", ("", "Python 3.8 support"), ("", "")),
    ],
)
def test_which_source_wins(name: str, titles: tuple[str, str], expected: tuple[str, str]) -> None:
    assert release_of(name, "acme", titles) == expected


def test_a_changelog_gives_each_entry_its_own_headings_release(indexed: KnowledgeBase) -> None:
    chunks = [c for c in indexed.retriever.chunks if c.source == CHANGELOG[0]]
    for option, release in CHANGELOG_RELEASES.items():
        (chunk,) = [c for c in chunks if f"`{option}`" in c.text]
        assert (chunk.product, chunk.version, chunk.release_from) == ("kit", release, "headings"), option


def test_the_ingest_report_says_what_each_file_was_indexed_as(synced: tuple[KnowledgeBase, SyncReport]) -> None:
    documents = {d["file"]: d for d in synced[1].to_dict()["documents"]}  # type: ignore[union-attr]
    for source, _, release, where in FORMS:
        assert documents[source] == {
            "file": source,
            "product": source.split("/")[0],
            "releases": [release],
            "release_from": where,
        }
    assert documents[CHANGELOG[0]]["releases"] == ["1.5.0", "1.5.1", "1.5.2", "1.5.3"]
    assert documents[CHANGELOG[0]]["release_from"] == "headings"
    # A product's folder names it even where its docs carry no release: it is listed, with none.
    assert documents[ALONE[0]] == {"file": ALONE[0], "product": "gadget", "releases": [], "release_from": ""}
    assert documents[UNNAMED[0]]["product"] == "tool" and documents[UNNAMED[0]]["releases"] == []


def test_products_lists_each_products_releases_and_files(indexed: KnowledgeBase) -> None:
    files, releases = indexed.files(), indexed.products()
    listed = json.loads(products_json(files, releases))["products"]
    gadget = next(p for p in listed if p["name"] == "gadget")
    assert gadget == {
        "name": "gadget",
        "releases": [],
        "files": [{"file": ALONE[0], "releases": [], "release_from": ""}],
    }
    text = products_text(files, releases)
    assert "gadget: no release numbers in its docs; 1 file" in text
    assert any(line.split() == ["acme/2.3.rst", "2.3", "(file", "name)"] for line in text.splitlines())
    # The MCP server's listing holds the same files.
    result = versions_result(indexed, "widget")
    assert [f["file"] for f in result.structuredContent["files"]["widget"]] == [  # type: ignore[index]
        f.source for f in files["widget"]
    ]
    assert "gadget" in indexed.products() and indexed.has_product("gadget")


def test_a_product_without_releases_is_answered_for_a_version_saying_so(indexed: KnowledgeBase) -> None:
    answer = indexed.ask("In gadget 3.2, may the frobnicate option come back?")
    assert answer.found, answer.text
    assert {c.source for c in answer.citations} == {ALONE[0]}
    assert "carry no release numbers" in (answer.notice or "") and "3.2" in (answer.notice or "")


def test_a_release_no_product_holds_is_refused_naming_the_products_releases(indexed: KnowledgeBase) -> None:
    answer = indexed.ask("Was the frobnicate option removed in acme 9.9?")
    assert not answer.found
    assert "acme versions 2.3–3.0.0" in answer.text, answer.text


def test_a_release_of_several_products_says_which_it_quotes(indexed: KnowledgeBase) -> None:
    answer = indexed.ask("Was the frobnicate option removed in 2.3?")
    assert answer.found, answer.text
    notice = answer.notice or ""
    assert "2.3 is a release of more than one product (acme, tool, widget)" in notice, notice
    assert notice.endswith(
        f"this answer quotes {', '.join(sorted({c.product for c in answer.citations if c.version == '2.3'}))}."
    )
