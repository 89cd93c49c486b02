"""reStructuredText and Sphinx markup read by docutils and written as the Markdown the chunker reads."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from docutils.parsers.rst import directives, roles
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.text.untrusted import safe_url
from assistant.text.words import strip_markup
from ingest.chunking import chunk_document, markdown_blocks
from ingest.loader import discover, load_document
from ingest.rst import looks_like_rst, rst_to_markdown

MORE = Path(__file__).resolve().parents[2] / "shared" / "corpus-more"
FENCE = re.compile(r"^\s*(`{3,}|~{3,}).*?^\s*\1\s*$", re.MULTILINE | re.DOTALL)  # as the answerer skips code
MARKUP = {
    "double backticks": re.compile(r"``"),
    "a `* ` bullet": re.compile(r"^\s*\* ", re.MULTILINE),
    "a trailing `::`": re.compile(r"::[ \t]*$", re.MULTILINE),
    "a :role:": re.compile(r":[A-Za-z][\w+.:-]*:`"),
    "a `.. ` directive": re.compile(r"^\s*\.\. ", re.MULTILINE),
}


def md(rst: str) -> str:
    return rst_to_markdown(textwrap.dedent(rst))


def markup_in(text: str) -> list[str]:
    prose = FENCE.sub("", strip_markup(text))
    return [
        f"{name}: {m.string[max(0, m.start() - 40) : m.end() + 20]!r}"
        for name, r in MARKUP.items()
        for m in r.finditer(prose)
    ]


@pytest.mark.parametrize(
    ("rst", "expected"),
    [
        # section titles: over/underlined or underlined, any adornment, by nesting depth
        ("=====\nTitle\n=====\n\nPart\n====\n\nSub\n~~~\n\nText.\n", "# Title\n\n## Part\n\n### Sub\n\nText."),
        ("Notes\n*****\n\nA\n+++\n\nB\n+++\n", "# Notes\n\n## A\n\n## B"),
        # lists of any marker become `- ` entries; nested ones indented two spaces
        ("* one\n* two\n\n  + nested\n", "- one\n- two\n  - nested"),
        ("#. first\n#. second\n", "- first\n- second"),
        ("1) a\n2) b\n", "- a\n- b"),
        ("term\n   Its definition.\n", "- term: Its definition."),
        # ... a term ending in a dash runs on into its definition; a plain-text ". " glyph before it goes
        (". `old` synonym for `new` -\n    convert to it\n", "- `old` synonym for `new` - convert to it"),
        ("Text.\n\n:Version: 2.0\n:Author: me\n", "- Version: 2.0\n- Author: me"),
        # inline markup
        ("Use ``np.round`` and *not* **this** or `default`.", "Use `np.round` and not this or `default`."),
        ("Call :func:`np.x`, :meth:`a.B.c`, :class:`~numpy.ndarray`.", "Call `np.x`, `a.B.c`, `numpy.ndarray`."),
        (":meth:`to JSON <DataFrame.to_json>` and :py:class:`x.Y`", "`to JSON` and `x.Y`"),
        (":attr:`.Foo.bar`, :class:`!Spam`, :class:`_orm.Session`", "`Foo.bar`, `Spam`, `orm.Session`"),
        (":ref:`the guide <upgrade-guide>` and :doc:`/howto/upgrade-version`", "the guide and howto upgrade version"),
        ("(:issue:`12345`, :ticket:`678`, :gh:`9`)", "(GH 12345, ticket 678, GH 9)"),
        (":pep:`8` and :rfc:`2616`", "PEP 8"),
        (":term:`1.x style` and :setting:`DEBUG` and :someunknownrole:`thing`", "1.x style and `DEBUG` and thing"),
        ("(:issue:`1`,:issue:`2`)", "(GH 1,GH 2)"),  # no space: docutils leaves the second role as text
        ("Set ``x=`big```.", "Set `x='big'`."),
        # links: safe targets kept, others become their text
        ("See `the docs <https://docs.example.com/a>`_ (`gh-25721 <https://github.com/o/r/pull/1>`__).",
         "See [the docs](https://docs.example.com/a) ([gh-25721](https://github.com/o/r/pull/1))."),
        ("`bad <javascript:alert(1)>`_ and `named`_\n\n.. _named: https://example.com/n\n", "bad and [named](https://example.com/n)"),
        ("Unknown `target`_ here.", "Unknown target here."),
        # comments, targets, substitution definitions, templating
        (".. _label:\n\n.. a comment\n\n{{ header }}\n\n.. |x| replace:: text\n\nBody |x|.\n", "Body text."),
    ],
)  # fmt: skip
def test_constructs_render_as_markdown_without_rst_markup(rst: str, expected: str) -> None:
    out = md(rst)
    assert expected in out, out
    assert not markup_in(out)


def test_code_blocks_and_literals_are_fences_kept_whole() -> None:
    out = md(
        """
        Example::

            x = 1

            # not a heading
            y = 2

        .. code-block:: python
           :emphasize-lines: 2

           import numpy as np

        .. ipython:: python
           :okwarning:

           ser = pd.Series([1])

        .. sourcecode:: console

           $ pip install x
        """
    )
    assert "Example:\n\n```\nx = 1\n\n# not a heading\ny = 2\n```" in out
    assert "```python\nimport numpy as np\n```" in out and "```python\nser = pd.Series([1])\n```" in out
    assert "```console\n$ pip install x\n```" in out
    blocks = list(markdown_blocks(out))
    assert [b.kind for b in blocks].count("code") == 4 and all(b.section == () for b in blocks)


@pytest.mark.parametrize(
    ("rst", "expected"),
    [
        (".. note::\n\n   Upgrade first.\n", "Note: Upgrade first."),
        (".. warning:: Data loss.\n", "Warning: Data loss."),
        (".. deprecated:: 2.0\n   Use ``b`` instead.\n", "Deprecated since 2.0: Use `b` instead."),
        (".. versionchanged:: 1.5\n\n   Now returns a list.\n", "Changed in version 1.5: Now returns a list."),
        (".. versionadded:: 1.1\n", "New in version 1.1."),
        (".. seealso:: :func:`other`\n", "See also: `other`"),
        (".. admonition:: About this document\n\n   It covers 2.0.\n", "About this document: It covers 2.0."),
        (".. tip::\n\n   * a\n   * b\n", "Tip:\n\n- a\n- b"),
        (".. container:: box\n\n   Kept body.\n", "Kept body."),
        (".. rubric:: Footnotes\n", "Footnotes"),
        (".. someextension:: arg\n   :opt: 1\n\n   Body of an unknown directive.\n", "Body of an unknown directive."),
        (".. function:: run(x)\n\n   Runs.\n", "`run(x)`\n\nRuns."),
    ],
)
def test_directives_become_labelled_or_plain_text(rst: str, expected: str) -> None:
    out = md(rst)
    assert expected in out, out
    assert not markup_in(out) and "arg" not in out and "opt" not in out


def test_generated_and_inserted_content_is_dropped() -> None:
    rst = (
        "Text.\n\n.. toctree::\n   :maxdepth: 2\n\n   other\n\n.. contents:: On this page\n\n.. autosummary::\n\n"
        "   np.thing\n\n.. currentmodule:: pandas\n\n.. contributors:: v1.0..v2.0\n\n.. include:: /etc/passwd\n\n"
        ".. raw:: html\n\n   <script>x()</script>\n\n.. image:: pic.png\n"
    )
    assert md(rst).strip() == "Text."


def test_tables_give_one_entry_per_row_with_the_header_meaning() -> None:
    list_table = """
        .. list-table:: Removed members
           :header-rows: 1

           * - Removed member
             - Migration guideline
           * - ``np.round_``
             - Use ``np.round`` instead.
           * - ``np.product``
             - ::

                 np.prod(x)
        """
    rule = "+------+-------+\n"
    grid = f"{rule}| Name | Value |\n+======+=======+\n| a    | 1     |\n{rule}| b    | 2     |\n{rule}"
    simple = "====  =====\nA     B\n====  =====\nx     y\nz\n====  =====\n"
    assert "Removed members\n\n- Removed member: `np.round_` — Migration guideline: Use `np.round` instead.\n" in md(
        list_table
    )
    assert "- Removed member: `np.product` — Migration guideline: `np.prod(x)`" in md(list_table)
    assert "- Name: a — Value: 1\n- Name: b — Value: 2" in md(grid)
    assert "- A: x — B: y\n- A: z" in md(simple)
    assert "- x — y" in md("====  =====\nx     y\n====  =====\n")  # no header row: the cells alone


def test_refs_to_a_label_in_the_same_document_read_as_its_section_title() -> None:
    out = md(".. _moved:\n\nget() moved to Session\n======================\n\nSee :ref:`moved` and :ref:`elsewhere`.\n")
    assert "See get() moved to Session and elsewhere." in out


def test_docutils_tables_are_restored_after_a_parse() -> None:
    before_roles, before_directives = dict(roles._roles), dict(directives._directives)
    md(":func:`x` and :custom:`y`\n\n.. note:: n\n\n.. mystery:: m\n")
    assert dict(roles._roles) == before_roles and dict(directives._directives) == before_directives


def test_nothing_is_printed_or_raised_for_broken_markup(capsys: pytest.CaptureFixture[str]) -> None:
    out = md(
        "Title\n===\n\nBad ``literal and *emphasis and `ref`_ and |sub|\n\n.. unknown::\n\nx\n-\n\nT\n====\n\n- a\n b\n"
    )
    assert "Title" in out and capsys.readouterr() == ("", "")


def test_rst_detection() -> None:
    assert looks_like_rst("Notes\n\n.. note::\n\n   x\n") and looks_like_rst("Use :func:`x` now.")
    assert looks_like_rst("=====\nTitle\n=====\n\nText\n") and looks_like_rst("A\n===\n\nx\n\nB\n---\n\ny\n")
    assert not looks_like_rst("Title\n=====\n\nOnly one underlined title, then text... with dots.\n")
    # Titles of any length, each underline at least as long as its title.
    assert looks_like_rst("Version 4.0.0\n=============\n\nx\n\nBugfixes\n--------\n\ny\n")
    assert not looks_like_rst("Version 4.0.0\n===\n\nx\n\nBugfixes\n---\n\ny\n")
    assert not looks_like_rst("Migrating\nVersion v2.12.0 introduces changes.\n●Issue #1\n✓Solution\n")


# -- the real release docs in ../shared/corpus-more ------------------------------------------------------------
@pytest.fixture(scope="module")
def more_chunks() -> dict[str, list]:
    if not MORE.is_dir():
        pytest.skip("../shared/corpus-more is not present")
    paths = [p for p in discover(MORE) if p.suffix in (".rst", ".txt")]
    return {p.relative_to(MORE).as_posix(): chunk_document(load_document(p, MORE)) for p in paths}


@pytest.mark.slow  # chunks every RST file of ../shared/corpus-more: too long for the fast tier
def test_no_chunk_of_the_shared_rst_docs_holds_rst_markup(more_chunks: dict[str, list]) -> None:
    assert len(more_chunks) >= 8
    found = [
        f"{c.source} › {c.section}: {problem}"
        for cs in more_chunks.values()
        for c in cs
        for problem in markup_in(c.text)
    ]
    assert not found, "\n".join(found[:20])


@pytest.mark.slow  # the same chunks of ../shared/corpus-more
def test_shared_docs_sections_come_from_their_titles(more_chunks: dict[str, list]) -> None:
    def tops(source: str) -> set[str]:
        return {c.section.split(" › ")[0] for c in more_chunks[source]}

    pandas = tops("pandas/3.0.0/release-notes.rst")
    assert {"Enhancements", "Deprecations", "Removal of prior version deprecations/changes", "Bug fixes"} <= pandas
    django = tops("django/5.0.0/release-notes.txt")
    assert {"Backwards incompatible changes in 5.0", "Features deprecated in 5.0", "Features removed in 5.0"} <= django
    assert all(
        c.title == "Django 5.0 release notes" and c.version == "5.0.0"
        for c in more_chunks["django/5.0.0/release-notes.txt"]
    )


@pytest.mark.slow  # the same chunks of ../shared/corpus-more
def test_shared_docs_tables_give_entries_with_header_meaning(more_chunks: dict[str, list]) -> None:
    text = "\n".join(c.text for c in more_chunks["pandas/2.0.0/release-notes.rst"])
    assert "- Package: pytest (dev) — Minimum Version: 7.0.0 — Changed: X" in text
    orm = "\n".join(c.text for c in more_chunks["sqlalchemy/2.0.0/migration-guide.rst"])
    row = "- 1.x style form: `session.query(User).get(42)` — 2.0 style form: `session.get(User, 42)` — See Also: "
    assert row in orm


_RST_PIECES = st.sampled_from(
    [
        "Title\n=====\n", "\n\n", "* ", "- ", "#. ", "   ", "``", "`", "*", "**", "_", "__", "|", ":func:", ":ref:",
        ":issue:", ":unknown:", "<", ">", "&lt;", "<script>", "javascript:x", "https://a.example/p", ".. ", "::",
        ".. note::", ".. code-block:: python", ".. list-table::", ".. raw:: html", ".. include:: /etc/x", ".. _t:",
        "+--+\n| a|\n+--+\n", "===  ===\n", "{{ x }}\n", "\x1b[31m", "\u202e", "text ", "np.x", "\n",
    ]
)  # fmt: skip


@pytest.mark.slow  # 200 documents through docutils: about a second, in CI's slow tier
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=st.lists(_RST_PIECES | st.text(max_size=5), max_size=40))
def test_any_rst_yields_text_with_only_safe_links_and_no_controls(pieces: list[str]) -> None:
    source = "".join(pieces)
    try:
        out = rst_to_markdown(source)
    except Exception:  # the loader indexes such a file as plain text, with a warning
        return
    assert not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", out)
    prose = re.sub(r"`[^`\n]*`", "", FENCE.sub("", out))  # code is kept verbatim, and never a link
    for target in re.findall(r"\]\(([^)\s]*)\)", prose):
        assert safe_url(target) == target, target


def test_a_bold_paragraph_alone_labels_what_follows(tmp_path: Path) -> None:
    # "**Synopsis**" / "**Migration to 2.0**" head their part of a section (SQLAlchemy's guide has 60): they are
    # the label of the entries after them, not sentences an answer would quote.
    rst = textwrap.dedent(
        """\
        Joins use attributes
        ====================

        **Synopsis**

        The string forms will all be removed in 2.0.

        **Migration to 2.0**

        Modern versions support the recommended technique, which is to use mapped attributes::

            q = session.query(User).join(User.addresses)

        A sentence with **some bold** words stays a sentence.
        """
    )
    path = tmp_path / "lib" / "2.0" / "guide.rst"
    path.parent.mkdir(parents=True)
    path.write_text(rst, encoding="utf-8")
    entries = [e for c in chunk_document(load_document(path, tmp_path)) for e in c.entries]
    assert [(e.kind, e.label, e.text[:20]) for e in entries] == [
        ("paragraph", "Synopsis", "The string forms wil"),
        ("paragraph", "Migration to 2.0", "Modern versions supp"),
        ("code", "", "q = session.query(Us"),  # a block of its own: the label heads the block after it
        ("paragraph", "", "A sentence with some"),
    ]


def test_a_literal_inside_bold_is_code_not_double_backticks() -> None:
    # RST nests no inline markup; Sphinx would show the backticks, the reader means code.
    out = rst_to_markdown("* Deprecated TLSv1.\n  **Starting in v2.0: a ``DeprecationWarning`` will fail**\n")
    assert "``" not in out and "`DeprecationWarning`" in out
