"""Release lines in a form the release grammar does not know are learned from the changelog itself: three lines
or more of one form, each naming a release, in order (`ingest.changelog.repeated_releases`). Each form is
written here for a neutral product; the forms are those of real changelogs on the package registry."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ingest.changelog import heading_version, repeated_releases
from ingest.chunking import chunk_document
from ingest.loader import load_document
from ingest.markup import markdown_text

VERSIONS = ["1.3.0", "1.2.1", "1.2.0", "1.1.0"]
NAMES = ["frobnicate", "glorp", "wibble", "sprocket"]


def _entry(i: int) -> str:
    return f"Removed `acme.{NAMES[i]}()`; use `acme.twiddle()` instead."


# (file name, the text of release i of VERSIONS): a line form each, as the file writes it
FORMS: list[tuple[str, Callable[[int, str], str]]] = [
    ("CHANGES", lambda i, v: f"[{v}, 2024-0{4 - i}-01]:\n- {_entry(i)}\n"),  # bracketed version and date, a colon
    ("CHANGELOG.rst", lambda i, v: f"{v}:\n\n * {_entry(i)}\n"),  # the version and a colon, RST
    ("changelog.txt", lambda i, v: f"Version 2024.{4 - i}.{i}:\n\n    {_entry(i)}\n"),  # indented entries
    ("CHANGELOG.md", lambda i, v: f"## {v} - {4 - i}/1/24\n\n- {_entry(i)}\n"),  # a date as M/D/YY
    ("CHANGES.md", lambda i, v: f"CHANGES {v}     01/0{4 - i}2024\n---------------------------\n    * {_entry(i)}\n"),
    ("HISTORY", lambda i, v: f"Revision {v}, released 01-0{4 - i}-2024\n\n- {_entry(i)}\n"),
    ("CHANGES.txt", lambda i, v: f"--{v}--\nReleased {'MJFJ'[i]}ay 1, 2024\n\n* {_entry(i)}\n"),
]


def _versions(name: str) -> list[str]:
    return [f"2024.{4 - i}.{i}" for i in range(4)] if name == "changelog.txt" else VERSIONS


@pytest.mark.parametrize(("name", "form"), FORMS, ids=[name for name, _ in FORMS])
def test_a_changelogs_own_release_lines_give_each_entry_its_release(
    tmp_path: Path, name: str, form: Callable[[int, str], str]
) -> None:
    versions = _versions(name)
    path = tmp_path / "acme" / name
    path.parent.mkdir()
    path.write_text("Changelog for acme\n\n" + "\n".join(form(i, v) for i, v in enumerate(versions)))
    assert all(heading_version(form(i, v).split("\n")[0]) is None for i, v in enumerate(versions))  # unknown forms
    chunks = chunk_document(load_document(path, tmp_path))
    for i, version in enumerate(versions):
        (chunk,) = [c for c in chunks if f"acme.{NAMES[i]}()" in c.text]
        assert chunk.version == version, (name, chunk.text)


def _learn(*texts: str) -> dict[int, str]:
    """What `repeated_releases` learns of `texts` as lines of a file, each over an entry of its own: {position in
    `texts`: version}."""
    lines = [line for text in texts for line in (text, "- an entry")]
    return {i // 2: v for i, v in repeated_releases([(2 * k, text) for k, text in enumerate(texts)], lines).items()}


def test_what_is_not_learned() -> None:
    # in order, three releases: learned
    assert _learn("1.3.0:", "1.2.0:", "1.1.0:") == {0: "1.3.0", 1: "1.2.0", 2: "1.1.0"}
    # a month's name is part of a date, whichever month it is
    assert _learn("1.3.0 of March 3:", "1.2.0 of Feb 3:", "1.1.0 of January 9:") == {
        0: "1.3.0",
        1: "1.2.0",
        2: "1.1.0",
    }
    # two lines of a form are no pattern
    assert _learn("1.3.0:", "1.2.0:") == {}
    # versions in no order: topics, not releases
    assert _learn("Python 3.9 support", "Python 3.12 support", "Python 3.10 support") == {}
    # one version three times is no sequence
    assert _learn("Requires numpy 1.22:", "Requires numpy 1.22:", "Requires numpy 1.22:") == {}
    # a line naming two versions is a span, whose release is not the first it names
    assert _learn("From 1.3 to 1.4:", "From 1.2 to 1.3:", "From 1.1 to 1.2:") == {}
    # a sentence that begins with a version is no release line
    assert _learn(*(f"{v} is the release where every frobnicate call was removed" for v in VERSIONS)) == {}
    # more than two words before the version
    assert _learn(*(f"The big new acme {v}:" for v in VERSIONS)) == {}
    # a version named again and again is no order, however the few others run
    assert _learn("1.0:", "1.0:", "1.0:", "1.0:", "2.0:", "1.5:", "3.0:") == {}
    # a pre-release after a hyphen stays; a date after the version is no second version
    assert _learn("v2.0.0-beta.1:", "v1.9.0-beta.1:", "v1.8.0-beta.1:") == {
        0: "2.0.0-beta.1",
        1: "1.9.0-beta.1",
        2: "1.8.0-beta.1",
    }
    assert set(_learn("1.3.0 - 01.04.2024", "1.2.0 - 01.03.2024", "1.1.0 - 01.02.2024")) == {0, 1, 2}
    assert set(_learn("1.3.0 - 2024.04.01", "1.2.0 - 2024.03.01", "1.1.0 - 2024.02.01")) == {0, 1, 2}


def test_topics_in_the_same_shape_stay_in_their_release_and_an_older_form_is_learned_too() -> None:
    """The form that starts first, and forms wholly outside the stretches it covers (a file's older releases
    written another way): lines of another form that fall among its releases are topics inside them, however many;
    lines with nothing between them are a list."""
    topics = _learn("4.4.2:", "Python 3.13 support", "4.4.1:", "Python 3.12 support", "4.4.0:", "Python 3.11 support")
    assert topics == {0: "4.4.2", 2: "4.4.1", 4: "4.4.0"}
    more = _learn(
        "4.4.2:",
        "4.4.1:",
        "Python 3.13 support",
        "Python 3.12 support",
        "4.4.0:",
        *(f"Python 3.{n} support" for n in (11, 10, 9)),
    )
    assert more == {0: "4.4.2", 1: "4.4.1", 4: "4.4.0"}
    lines = [
        "4.4.2:",
        "- a",
        "4.4.1:",
        "- b",
        "4.4.0:",
        "- c",
        "Tested with:",
        "SQLAlchemy 2.0.30",
        "",
        "SQLAlchemy 1.4.52",
        "",
        "SQLAlchemy 1.3.24",
    ]
    candidates = [(i, line) for i, line in enumerate(lines) if line and not line.startswith("-")]
    assert repeated_releases(candidates, lines) == {0: "4.4.2", 2: "4.4.1", 4: "4.4.0"}
    dated = _learn(
        "--1.3.0--", "Released 2024.04.01", "--1.2.0--", "Released 2024.03.01", "--1.1.0--", "Released 2024.02.01"
    )
    assert dated == {0: "1.3.0", 2: "1.2.0", 4: "1.1.0"}
    eras = _learn(
        "Revision 0.6.5, released 26-10-2026",
        "Revision 0.6.4, released 08-07-2026",
        "Revision 0.6.3, released 16-03-2026",
        "Revision 0.4.8",
        "Revision 0.4.7",
        "Revision 0.4.6",
    )
    assert eras == {0: "0.6.5", 1: "0.6.4", 2: "0.6.3", 3: "0.4.8", 4: "0.4.7", 5: "0.4.6"}


def _versions_of(tmp_path: Path, name: str, text: str) -> list[tuple[str, str]]:
    path = tmp_path / "acme" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return [(c.version, c.text) for c in chunk_document(load_document(path, tmp_path))]


def test_a_changelog_the_grammar_reads_is_left_as_it_was(tmp_path: Path) -> None:
    """Nothing is learned where the grammar reads a release, or where the file has a version of its own: topic
    headings and pins in order stay text of their release."""
    one = "## 1.0.0 (2024-01-01)\n\nFirst release.\n\n" + "".join(
        f"### Python 3.{n}\n\n- Wheels for cp3{n}.\n\n" for n in (12, 11, 10)
    )
    assert {v for v, _ in _versions_of(tmp_path, "CHANGELOG.md", one)} == {"1.0.0"}
    for over in ("\n\n", "\n"):  # the release line alone, or over its list (no release heading then)
        pins = f"Version 2.0.0{over}- Removed frobnicate.\n\nTested with:\n\n" + "".join(
            f"SQLAlchemy {v}\n\n" for v in ("2.0.30", "1.4.52", "1.3.24")
        )
        chunks = _versions_of(tmp_path, "CHANGES.md", pins)
        assert {v for v, _ in chunks} == ({"2.0.0"} if over == "\n\n" else {""}), repr(over)
        assert "SQLAlchemy 1.3.24" in "".join(text for _, text in chunks)
    own = "---\nversion: 2.0.0\n---\n" + "".join(f"## Django {v}\n\n{_entry(i)}\n\n" for i, v in enumerate(VERSIONS))
    assert {v for v, _ in _versions_of(tmp_path, "HISTORY.md", own)} == {"2.0.0"}


def test_an_angle_bracket_that_opens_no_tag_keeps_the_text_up_to_a_later_greater_than() -> None:
    """`<Name` over a line break and an autolink is no raw HTML (CommonMark), so it is text; the HTML parser would
    have read a tag from it (`indent=4` an attribute) to the next `>`, many entries later, and dropped them all."""
    text = (
        "- fixed (reported on <Stackoverflow\n  <https://stackoverflow.com/a/1>`__)\n"
        "- the frobnicate entry, with indent=4 now\n\n[1.2.0]:\n- works on 2.7 > sys.maxint now\n"
    )
    out = markdown_text(text)
    assert "the frobnicate entry" in out and "[1.2.0]:" in out and "2.7 > sys.maxint" in out
    assert markdown_text("a <b>bold</b> word and List<T>") == "a bold word and List<T>"
    # a known element's tag, malformed or not, is still the HTML parser's: a script's content goes
    assert markdown_text("<script/src=x>alert(1)</script> after") == "after"
    assert markdown_text('<a href="http://a.org"title="t">link</a>') == "[link](http://a.org/)"
    # a destination in angle brackets is still the link checks': definitions go, as they went
    assert markdown_text("[id]: <javascript:alert(1) x>\n\n[a][id]").strip() == "[a][id]"
    assert markdown_text("[id]: <docs/a b.md>") == ""


def test_a_form_is_learned_only_in_a_changelog(tmp_path: Path) -> None:
    """A guide's "Django 5.1" headings over a Django plugin's notes are another product's releases: only a file
    that is a changelog by name or kind has its own forms learned."""
    body = "# Support\n\n" + "\n".join(f"## Django {v}:\n\n{_entry(i)}\n" for i, v in enumerate(VERSIONS))
    for name, learned in (("guide.md", False), ("HISTORY.md", True)):
        path = tmp_path / "acme" / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(body)
        versions = [c.version for c in chunk_document(load_document(path, tmp_path)) if "acme." in c.text]
        assert versions == (VERSIONS if learned else [""] * 4), name


def test_an_unreleased_section_and_one_form_at_two_levels_still_learn(tmp_path: Path) -> None:
    """ "Unreleased" is no release the grammar reads; a form at two heading levels (older releases nested) is one
    form."""
    text = "## Unreleased\n\n- wip\n\n" + "".join(
        f"## {v} - {4 - i}/1/24\n\n- {_entry(i)}\n\n" for i, v in enumerate(VERSIONS)
    )
    versions = [v for v, chunk in _versions_of(tmp_path, "CHANGELOG.md", text) if "acme." in chunk]
    assert versions == VERSIONS
    nested = "".join(f"## {v}:\n\n- {_entry(i)}\n\n" for i, v in enumerate(VERSIONS[:2])) + "## Older\n\n"
    nested += "".join(f"### {v}:\n\n- {_entry(i + 2)}\n\n" for i, v in enumerate(VERSIONS[2:]))
    versions = [v for v, chunk in _versions_of(tmp_path, "HISTORY.md", nested) if "acme." in chunk]
    assert versions == VERSIONS


@pytest.mark.parametrize("opening", ["Wow<!", "why x<?y", "ratio 1</2 of runs", "close with </ and", "see <br/"])
def test_an_unclosed_tag_start_keeps_the_text_up_to_a_later_greater_than(opening: str) -> None:
    """`<!`, `<?`, `</` and a known element's name with no `>` on their line are text too."""
    assert markdown_text(f"{opening}\nthe frobnicate entry.\nlater a > b").endswith(
        "the frobnicate entry.\nlater a > b"
    )


def test_a_line_of_many_angle_brackets_costs_linear_time() -> None:
    """Each `<` looks back over blanks only, and ahead once per stretch: 20,000 of them on one line in well under
    a second (quadratic, this took 10 s)."""
    import time

    for line in ("<x,> " * 20_000, "](<a b " * 8_000, "<br/" * 30_000):
        start = time.perf_counter()
        markdown_text(line)
        assert time.perf_counter() - start < 2.0, line[:12]
