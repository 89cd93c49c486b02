"""Changelog files holding many releases: every release section is attributed to its own version."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.knowledge_base import KnowledgeBase
from assistant.runtime.settings import Settings
from ingest import sync
from ingest.changelog import heading_version, releases
from ingest.chunking import chunk_document
from ingest.loader import discover, load_document

VERSIONS = [f"1.{minor}.0" for minor in range(9, -1, -1)]  # newest first, as changelogs are written
CHANGES = (
    "frobnicate",
    "glorp",
    "wibble",
    "sprocket",
    "flange",
    "gizmo",
    "widget",
    "doohickey",
    "gadget",
    "thingamajig",
)


def keep_a_changelog() -> str:
    parts = ["# Changelog\n\nAll notable changes are documented here.\n\n## [Unreleased]\n\n- Work in progress.\n"]
    for i, version in enumerate(VERSIONS):
        parts.append(
            f"## [{version}] - 2024-{i + 1:02d}-01\n\n### Added\n\n- The `acme.{CHANGES[i]}()` function added in "
            f"{version}.\n\n### Fixed\n\n- Fixed a crash.\n"
        )
    parts.append("\n".join(f"[{v}]: https://github.com/acme/acme/compare/v{v}" for v in VERSIONS) + "\n")
    return "\n".join(parts)


def _write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _chunks(root: Path, rel: str) -> list:
    return chunk_document(load_document(root / rel, root))


def test_ten_release_changelog_attributes_each_section_to_its_version(tmp_path: Path) -> None:
    _write(tmp_path, "acme/CHANGELOG.md", keep_a_changelog())
    doc = load_document(tmp_path / "acme/CHANGELOG.md", tmp_path)
    assert (doc.meta["product"], doc.meta["version"], doc.meta["kind"]) == ("acme", "", "changelog")
    chunks = chunk_document(doc)
    assert {c.version for c in chunks} == {*VERSIONS, ""}
    for i, version in enumerate(VERSIONS):
        (added,) = [c for c in chunks if f"acme.{CHANGES[i]}()" in c.text]
        assert added.version == version and added.section == "Added"
        assert [c.section for c in chunks if c.version == version] == ["Added", "Fixed"]
    unversioned = [c.text for c in chunks if not c.version]
    assert any("Work in progress" in t for t in unversioned) and any("notable changes" in t for t in unversioned)
    ids = [c.id for c in chunks]
    assert len(set(ids)) == len(ids)  # "Fixed a crash." under ten releases: ten ids
    assert ids == [c.id for c in _chunks(tmp_path, "acme/CHANGELOG.md")]


def test_a_new_release_leaves_the_other_ids_alone(tmp_path: Path) -> None:
    _write(tmp_path, "acme/CHANGELOG.md", keep_a_changelog())
    before = {c.id for c in _chunks(tmp_path, "acme/CHANGELOG.md")}
    newer = keep_a_changelog().replace("## [1.9.0]", "## [2.0.0] - 2025-01-01\n\n- Big.\n\n## [1.9.0]")
    _write(tmp_path, "acme/CHANGELOG.md", newer)
    after = _chunks(tmp_path, "acme/CHANGELOG.md")
    assert before < {c.id for c in after} and {c.version for c in after if c.id not in before} == {"2.0.0"}


def test_rst_changes_file_and_plain_news_file(tmp_path: Path) -> None:
    rst = "Changes\n=======\n\n" + "".join(
        f"{v} (2024-0{i + 1}-01)\n------------------\n\nBug fixes\n~~~~~~~~~\n\n* Fixed :func:`acme.{CHANGES[i]}`.\n\n"
        for i, v in enumerate(VERSIONS[:3])
    )
    news = "Acme NEWS\n\n" + "".join(
        f"Version {v}\n  * Changed the {CHANGES[i]} default.\n  * Other thing.\n\n" for i, v in enumerate(VERSIONS[:3])
    )
    _write(tmp_path, "acme/CHANGES.rst", rst)
    _write(tmp_path, "acme/NEWS", news)
    assert [p.name for p in discover(tmp_path)] == ["CHANGES.rst", "NEWS"]
    for rel, section in (("acme/CHANGES.rst", "Bug fixes"), ("acme/NEWS", "")):
        chunks = _chunks(tmp_path, rel)
        for i, version in enumerate(VERSIONS[:3]):
            (chunk,) = [c for c in chunks if CHANGES[i] in c.text]
            assert (chunk.version, chunk.section, chunk.product) == (version, section, "acme"), rel
            assert "* " not in chunk.text and ":func:" not in chunk.text


def test_changes_in_and_whats_new_in_releases(tmp_path: Path) -> None:
    """PyMongo's "Changes in Version 4.8.0", psycopg's "What's new in psycopg 2.9.6" (its folder `psycopg2`)."""
    styles = {"acme/changelog.rst": "Changes in Version {v} ({d})", "acme2/NEWS.rst": "What's new in acme {v}"}
    for rel, style in styles.items():
        heading = [style.format(v=v, d=f"2024/0{i + 1}/01") for i, v in enumerate(VERSIONS[:3])]
        _write(
            tmp_path,
            rel,
            "".join(f"{h}\n{'-' * len(h)}\n\n- Changed ``{CHANGES[i]}``.\n\n" for i, h in enumerate(heading)),
        )
        chunks = _chunks(tmp_path, rel)
        for i, version in enumerate(VERSIONS[:3]):
            (chunk,) = [c for c in chunks if CHANGES[i] in c.text]
            assert chunk.version == version, rel


def test_markdown_changelog_with_underlined_releases_and_bold_labels(tmp_path: Path) -> None:
    # A HISTORY.md written as RST-looking Markdown: setext release headings, "**Deprecations**" over each list.
    text = "Release History\n===============\n\n" + "".join(
        f"{v} (2024-0{i + 1}-01)\n-------------------\n\n**Deprecations**\n- Deprecated `acme.{CHANGES[i]}`.\n\n"
        "```\nnot_a_heading\n---\n```\n\n- item\n---\n\n"
        for i, v in enumerate(VERSIONS[:3])
    )
    _write(tmp_path, "acme/HISTORY.md", text)
    chunks = _chunks(tmp_path, "acme/HISTORY.md")
    for i, version in enumerate(VERSIONS[:3]):
        (chunk,) = [c for c in chunks if CHANGES[i] in c.text]
        assert (chunk.version, chunk.section) == (version, "Deprecations")
        assert "**" not in chunk.text
    assert not any(c.text.strip() == "**Deprecations**" for c in chunks)  # the label is no chunk of its own
    assert sum("not_a_heading" in c.text for c in chunks) == 3  # code and a rule after a list stay as they are


def test_a_root_changelog_takes_its_product_from_front_matter(tmp_path: Path) -> None:
    _write(tmp_path, "HISTORY.md", "---\nproduct: Acme\n---\n# History\n\n## v1.1.0\n\n- b\n\n## v1.0.0\n\n- a\n")
    chunks = _chunks(tmp_path, "HISTORY.md")
    assert {(c.product, c.version, c.text) for c in chunks} == {("Acme", "1.1.0", "- b"), ("Acme", "1.0.0", "- a")}


def test_a_release_in_its_version_folder_keeps_todays_chunks(tmp_path: Path) -> None:
    text = "# Acme 2.0 release notes\n\n## 2.0.0 (2024-05-01)\n\n### Breaking\n\n- `x` removed.\n"
    _write(tmp_path, "acme/2.0.0/CHANGELOG.md", text)
    _write(tmp_path, "acme/2.0.0/notes.md", text)
    assert releases(text, own_version="2.0.0", named=True) is None
    (changelog,) = _chunks(tmp_path, "acme/2.0.0/CHANGELOG.md")
    (notes,) = _chunks(tmp_path, "acme/2.0.0/notes.md")
    assert changelog.section == notes.section == "2.0.0 (2024-05-01) › Breaking" and changelog.version == "2.0.0"
    assert changelog.id.split("-", 1)[1] == notes.id.split("-", 1)[1]  # the same digest as any document


def test_releases_nested_one_level_deeper_are_releases_too(tmp_path: Path) -> None:
    # An RST changelog whose older releases use another underline: docutils nests them under a newer one.
    text = "Changelog\n---------\n\n" + "".join(
        f"{v} (2024-0{i + 1}-01)\n{'*' if i < 2 else '+'}{'*' if i < 2 else '+'}"
        + ("*" if i < 2 else "+") * 16
        + f"\n\nFeatures:\n\n- Added ``acme.{CHANGES[i]}``.\n\n"
        for i, v in enumerate(VERSIONS[:4])
    )
    _write(tmp_path, "acme/CHANGELOG.rst", text)
    chunks = _chunks(tmp_path, "acme/CHANGELOG.rst")
    for i, version in enumerate(VERSIONS[:4]):
        (chunk,) = [c for c in chunks if CHANGES[i] in c.text]
        assert chunk.version == version


def test_topic_headings_with_numbers_are_not_releases(tmp_path: Path) -> None:
    text = "# Guide\n\n## 2.0 Migration - ORM Usage\n\n- a\n\n## Python 3.10 support\n\n- b\n\n## 1.x to 2.x\n\n- c\n"
    assert releases(text) is None
    _write(tmp_path, "acme/2.0.0/migration-guide.md", text)
    assert {c.version for c in _chunks(tmp_path, "acme/2.0.0/migration-guide.md")} == {"2.0.0"}


@pytest.mark.parametrize(
    ("heading", "version"),
    [
        ("[1.2.0] - 2024-05-01", "1.2.0"),
        ("v1.2.0", "1.2.0"),
        ("1.2.0 (2024-05-01)", "1.2.0"),
        ("Version 1.2.0", "1.2.0"),
        ("Release 2.0.0rc1 — January 21, 2026", "2.0.0rc1"),
        ("[1.2.0](https://github.com/a/b/compare/v1.1.0...v1.2.0) - 2024-05-01", "1.2.0"),
        ("acme 7.0.0 (2022-02-03)", "7.0.0"),
        ("[Unreleased]", ""),
        ("other 7.0.0", None),
        ("Version v2.12.0 introduces 7 breaking changes.", None),
        # A version then a date is a release, whatever the heading adds: codenames, notes, ordinal days.
        ("5.0.0 Penny - July 4, 2020", "5.0.0"),
        ("4.3.21 - June 25, 2019 - hot fix release", "4.3.21"),
        ("5.9.2 July 8th 2021", "5.9.2"),
        ("0.28.1 (6th December, 2024)", "0.28.1"),
        ("2.0 Migration - ORM Usage", None),
        ("other 7.0.0 - 2024-05-01", None),
        # A month and year alone, a pre-release spelled out, a stray dot after the version.
        ("Version 3.3.3 - September, 2026", "3.3.3"),
        ("Version 1.0 - October-November, 2003", "1.0"),
        ("1.0 beta 1", "1.0b1"),
        ("2.2.0. (2007-07-31)", "2.2.0"),
        ("4.0 Released 2020", None),
        # Wiki-style heading marks, a date without separators, a quoted release name.
        ("= 4.15.0 (20260607)", "4.15.0"),
        ('= 3.0.0 "Who would not give all else" (20060528) =', "3.0.0"),
        ("= 3.2.0 =", "3.2.0"),
        ("== Notes ==", None),
        ("4.1 notes 20261399", None),
        # "Upcoming" is an unreleased section only by itself, not as a topic.
        ("Upcoming release", ""),
        ("[Unreleased] - 2024-05-01", ""),
        ("Upcoming deprecation", None),
        # "Changes in" or "What's new in" before the version.
        ("Changes in Version 4.8.0 (2024/06/26)", "4.8.0"),
        ("What's new in 3.0.0 (January 21, 2026)", "3.0.0"),
        ("What’s new in acme 2.9.6", "2.9.6"),
        ("What's new in other 2.0", None),
        ("Noteworthy changes in release 1.2 (2020-01-01) [stable]", "1.2"),
        ("Changes in ORM usage", None),
    ],
)
def test_release_headings(heading: str, version: str | None) -> None:
    assert heading_version(heading, product="acme") == version


@pytest.mark.parametrize(
    ("heading", "product", "version"),
    [("Jinja 3.1.2", "jinja2", "3.1.2"), ("Jinja 3.1.2", "jinja", "3.1.2"), ("Jinja 3.1.2", "jinja2-extras", None)],
)
def test_a_release_heading_may_name_the_product_without_its_major_version(
    heading: str, product: str, version: str | None
) -> None:
    assert heading_version(heading, product=product) == version


def test_search_by_version_over_an_indexed_changelog(tmp_path: Path, embedder: object) -> None:
    corpus = tmp_path / "corpus"
    _write(corpus, "acme/CHANGELOG.md", keep_a_changelog())
    settings = Settings(corpus_dir=corpus, data_dir=tmp_path / "data")
    report = sync(settings, progress=False, embedder=embedder)
    assert report.errors == [] and report.chunks == 2 * len(VERSIONS) + 2
    kb = KnowledgeBase.open(settings, embedder=embedder)
    assert set(kb.versions()) >= set(VERSIONS) and len(kb.versions()) == len(VERSIONS)
    hits = kb.search("which function was added?", k=10, version="1.4.0")
    assert hits and {p.chunk.version for p in hits} == {"1.4.0"}
    assert any(f"acme.{CHANGES[VERSIONS.index('1.4.0')]}()" in p.chunk.text for p in hits)


def test_a_changelog_is_titled_by_no_release_and_indexed_with_its_release(tmp_path: Path) -> None:
    from assistant.index.lexical import index_text

    rst = "".join(
        f"Version {v}\n-------------\n\nReleased 2024-0{i + 1}-01\n\n-   Changed ``{CHANGES[i]}``.\n\n"
        for i, v in enumerate(VERSIONS[:2])
    )
    _write(tmp_path, "acme/CHANGES.rst", rst)
    chunks = _chunks(tmp_path, "acme/CHANGES.rst")
    assert {c.title for c in chunks} == {"acme CHANGES"}  # not "Version 1.9.0" for the 1.8.0 entries
    (older,) = [c for c in chunks if CHANGES[1] in c.text]
    assert index_text(older).startswith("acme CHANGES\nacme 1.8.0\n")
    # A title that does not name the product names it first; one that does stays.
    _write(tmp_path, "acme/HISTORY.md", "# History\n\n## 1.1.0\n\n- b\n\n## 1.0.0\n\n- a\n")
    _write(tmp_path, "acme/NEWS.md", "# Acme release history\n\n## 1.1.0\n\n- b\n\n## 1.0.0\n\n- a\n")
    assert {c.title for c in _chunks(tmp_path, "acme/HISTORY.md")} == {"acme History"}
    assert {c.title for c in _chunks(tmp_path, "acme/NEWS.md")} == {"Acme release history"}


def test_a_changelog_underlining_only_its_older_releases_and_an_rst_news_file(tmp_path: Path) -> None:
    # RST found by its underlines alone (no directive, no role): `NEWS` is docutils', literals and all. Newer
    # releases on bare lines ("1.9.0 (2024-02-01)"), older ones underlined, are all releases.
    news = "".join(
        f"Version {v} (2024-0{i + 1}-01)\n{'=' * 26}\n\nBugfixes\n--------\n\n- Fixed ``acme.{CHANGES[i]}``.\n\n"
        for i, v in enumerate(VERSIONS[:3])
    )
    mixed = "For the full list, see the commits.\n\n" + "".join(
        f"{v} (2024-0{i + 1}-01)\n" + ("-" * 18 + "\n" if i > 1 else "") + f"\n* Fixed acme.{CHANGES[i]}.\n\n"
        for i, v in enumerate(VERSIONS[:4])
    )
    _write(tmp_path, "acme/NEWS", news)
    _write(tmp_path, "acme/CHANGES", mixed)
    for rel, count, section in (("acme/NEWS", 3, "Bugfixes"), ("acme/CHANGES", 4, "")):
        chunks = _chunks(tmp_path, rel)
        for i, version in enumerate(VERSIONS[:count]):
            (chunk,) = [c for c in chunks if CHANGES[i] in c.text]
            assert (chunk.version, chunk.section) == (version, section), rel
            assert "``" not in chunk.text and "---" not in chunk.text and "* " not in chunk.text


def test_an_issue_number_or_a_list_opening_an_rst_entry_is_no_heading(tmp_path: Path) -> None:
    # towncrier's "* #3948: Removed …" and "* Updates" over an indented list (a definition list in the bullet).
    text = "v1.1.0\n======\n\n* #3948: Removed the frobnicate flag.\n\n* Updates\n    * The glorp is faster.\n"
    text += "\nv1.0.0\n======\n\n* First.\n"
    _write(tmp_path, "acme/NEWS.rst", text)
    chunks = _chunks(tmp_path, "acme/NEWS.rst")
    (chunk,) = [c for c in chunks if c.version == "1.1.0"]
    lines = [line for line in chunk.text.split("\n") if line.strip()]
    assert lines == ["- #3948: Removed the frobnicate flag.", "- Updates", "  - The glorp is faster."]


def test_a_sphinx_page_that_only_includes_the_changelog_says_so(tmp_path: Path) -> None:
    _write(tmp_path, "acme/changes.rst", "Changes\n=======\n\n.. include:: ../CHANGES.rst\n")
    (warning,) = load_document(tmp_path / "acme/changes.rst", tmp_path).warnings
    assert "../CHANGES.rst" in warning["problem"]


def test_wiki_marked_release_lines_keep_the_topic_headings_below_them(tmp_path: Path) -> None:
    # beautifulsoup4's CHANGELOG: `= 4.13.0 (20250202)` lines, a release with `# New features` inside, and older
    # releases after it. The topic heading is read one level below the releases, so it ends none of them.
    text = (
        "= 4.14.0 (20250927)\n\n* Added `new_tag()` on tags.\n\n"
        "= 4.13.0 (20250202)\n\n# New features\n\n* Added `ElementFilter`.\n\n# Bug fixes\n\n* Fixed a crash.\n\n"
        "= 4.12.3 (20240117) =\n\n* Fixed a regression.\n"
    )
    _write(tmp_path, "soup/CHANGELOG", text)
    chunks = chunk_document(load_document(tmp_path / "soup/CHANGELOG", tmp_path))
    by_text = {c.text.strip(): (c.version, c.section) for c in chunks}
    assert by_text["* Added `new_tag()` on tags."] == ("4.14.0", "")
    assert by_text["* Added `ElementFilter`."] == ("4.13.0", "New features")
    assert by_text["* Fixed a crash."] == ("4.13.0", "Bug fixes")
    assert by_text["* Fixed a regression."] == ("4.12.3", "")


def test_bold_release_lines_in_a_file_named_for_its_history(tmp_path: Path) -> None:
    # anyio's `docs/versionhistory.rst` and wheel's `news.rst`: `**4.6.2**` and `**0.44.0 (2024-08-04)**` lines are
    # the only release markers; a bold topic line is no release.
    lines = ("**1.9.0**", "**1.8.0 (2024-02-01)**", "**1.7.0**")
    text = "Version history\n===============\n\nSemantic versioning.\n\n" + "".join(
        f"{line}\n\n**Changes**\n\n- Fixed ``acme.{CHANGES[i]}``.\n\n" for i, line in enumerate(lines)
    )
    _write(tmp_path, "acme/versionhistory.rst", text)
    chunks = _chunks(tmp_path, "acme/versionhistory.rst")
    for i, version in enumerate(VERSIONS[:3]):
        (chunk,) = [c for c in chunks if CHANGES[i] in c.text]
        assert (chunk.product, chunk.version) == ("acme", version)


def test_sphinx_changelog_directives_are_releases_and_their_changes_entries(tmp_path: Path) -> None:
    # Alembic's and SQLAlchemy's changelogs: `.. changelog::` blocks with a `:version:` option, `.. change::`
    # entries with `:tags:` and `:tickets:`; no heading names a release.
    text = "==========\nChangelog\n==========\n\n" + "".join(
        f".. changelog::\n    :version: {v}\n    :released: March {i + 1}, 2024\n\n"
        f"    .. change::\n        :tags: bug, autogenerate\n        :tickets: {100 + i}\n\n"
        f"        Fixed :meth:`.Operations.{CHANGES[i]}` when\n        the table has a comment.\n\n"
        for i, v in enumerate(VERSIONS[:3])
    )
    _write(tmp_path, "acme/changelog.rst", text)
    chunks = _chunks(tmp_path, "acme/changelog.rst")
    for i, version in enumerate(VERSIONS[:3]):
        (chunk,) = [c for c in chunks if CHANGES[i] in c.text]
        assert (chunk.product, chunk.version) == ("acme", version)
        assert chunk.text == f"- Fixed `Operations.{CHANGES[i]}` when the table has a comment."


def test_release_list_items_start_their_releases(tmp_path: Path) -> None:
    # The Sphinx `releases` extension's changelogs (Fabric, Invoke, pytest-relaxed): one bullet list, newest first,
    # a `:release:` item over the items it released; a release line may list the fixes backported into it.
    items = "".join(
        f"- :release:`{v} <2024-03-{i + 1:02d}>`{' 12, 13' if i == 2 else ''}\n"
        f"- :bug:`{100 + i}` Fixed ``acme.{CHANGES[i]}`` when\n  the table has a comment.\n"
        for i, v in enumerate(VERSIONS[:3])
    )
    _write(
        tmp_path, "acme/changelog.rst", f"=========\nChangelog\n=========\n\n- :feature:`-` Unreleased work.\n{items}"
    )
    chunks = _chunks(tmp_path, "acme/changelog.rst")
    for i, version in enumerate(VERSIONS[:3]):
        (chunk,) = [c for c in chunks if CHANGES[i] in c.text]
        assert (chunk.product, chunk.version) == ("acme", version)
        assert "release" not in chunk.text and "2024-03" not in chunk.text
    (unreleased,) = [c for c in chunks if "Unreleased" in c.text]
    assert unreleased.version not in VERSIONS[:3]


@pytest.mark.parametrize(
    "text",
    [
        # inside another item: its heading would take over the outer list
        "- Older lines:\n\n  - :release:`1.1.0 <2024-01-02>`\n  - :bug:`1` Fixed frob.\n\n- :bug:`3` Fixed glorp.\n",
        # followed by more of its section: the last release would take that over
        "- :release:`1.1.0 <2024-01-02>`\n- :bug:`3` Fixed glorp.\n\nOlder history: see the 0.x notes.\n",
    ],
)
def test_release_items_stay_items_where_a_heading_would_take_over_what_follows(text: str) -> None:
    from ingest.rst import rst_to_markdown

    markdown = rst_to_markdown(f"Changelog\n=========\n\n{text}")
    assert "## " not in markdown and "1.1.0 (2024-01-02)" in markdown
