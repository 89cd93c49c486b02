"""Extraction of document bodies: HTML turned into text by a parser, links checked, code left alone."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from assistant.text.words import strip_markup
from ingest.markup import DROP, ELEMENTS, html_to_markdown, markdown_text
from tests import hostile_corpus

BEACON = "http://127.0.0.1:9/b"


class _Tags(HTMLParser):
    """Every start tag a browser would see in a piece of text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    handle_startendtag = handle_starttag


def _tags_outside_code(text: str) -> list[str]:
    text = re.sub(r"^```.*?^```", "", text, flags=re.DOTALL | re.MULTILINE)
    text = re.sub(r"(?<![`\\])(`+)(?!`).+?(?<!`)\1(?!`)", "", text, flags=re.DOTALL)
    text = re.sub(r"<https?://[^\s<>]*>", "", text)  # autolinks: Markdown's, and checked
    parser = _Tags()
    parser.feed(text)
    return parser.tags


def test_code_spans_and_fences_are_kept_byte_for_byte() -> None:
    fence = "```html\n<script>keep()</script>\n&amp; &lt;b&gt;\n[x](javascript:y)\n```"
    spans = "`<b>x</b>` and ``a ` <img src=x> b`` and `&lt;tensor&gt;`"
    out = markdown_text(f"{fence}\n\n{spans} <b>bold</b>\n")
    assert out.startswith(fence + "\n\n" + spans + " bold")


def test_a_backslash_escaped_backtick_opens_no_code_span() -> None:
    out = markdown_text('Title \\`<img src="http://x/t.png">\\` notes and \\`<script>bad()</script>\\`')
    assert "<img" not in out and "bad()" not in out and "Title" in out and "notes" in out


def test_a_code_span_does_not_reach_into_the_next_list_entry() -> None:
    out = markdown_text("- first `half\n- <img src=x> second` entry\n")
    assert "<img" not in out and "second` entry" in out


def test_a_tag_that_starts_first_wins_over_a_backtick_in_its_attribute() -> None:
    assert markdown_text('<a href="`x">text</a> then `code`') == "text then `code`"


@pytest.mark.parametrize("tag", sorted(DROP))
def test_script_like_elements_lose_their_content(tag: str) -> None:
    out = markdown_text(f"before <{tag} class=x>SECRET <b>inner</b></{tag}> after")
    assert "SECRET" not in out and "inner" not in out
    assert out.split() == ["before", "after"]


def test_other_elements_keep_their_text_and_lose_their_attributes() -> None:
    out = markdown_text('<span style="position:fixed">over</span> <b>bold</b> <my-card onclick="x()">card</my-card>')
    assert out == "over bold card"


def test_tag_like_words_that_are_no_elements_stay_literal() -> None:
    text = "Use List<T> or Vector<int>; pass a <tensor> and close with </T>."
    assert not {"t", "int", "tensor"} & ELEMENTS
    assert markdown_text(text) == text
    assert "<tensor>" in strip_markup(markdown_text(text))  # and stay visible in chunk text


def test_an_element_that_is_never_closed_does_not_swallow_the_rest() -> None:
    assert "still here" in markdown_text("Returns Array<object> still here\n\nand here")


def test_tags_named_in_a_changelogs_prose_do_not_swallow_the_rest() -> None:
    # Real changelog lines: tags named as words, examples shown, an `<a>` closed only pages later.
    text = (
        "* The behavior now differs for tags like <script>, <style>, and <template>.\n\n"
        '* Fixed a crash on markup like\n  <a href="url1" href="url2"> [bug=1878209]\n\n'
        "CDATA is kept only within tags like <svg> and <math>:\n\n <svg><![CDATA[foo]]></svg> => <p>foo</p>\n\n"
        '= 4.6.3 (20180812)\n\n* Exactly the same as 4.6.2.\n\nSee <a href="https://example.org/">the docs</a>.'
    )
    out = markdown_text(text)
    assert "\n\n= 4.6.3 (20180812)\n\n* Exactly the same as 4.6.2." in out  # lines and paragraphs intact
    assert "[bug=1878209]" in out and "[the docs](https://example.org/)" in out


def test_a_script_block_runs_to_its_end_tag_across_blank_lines() -> None:
    # CommonMark's HTML block for `<script>` and `<style>` ends at the end tag, not at a blank line.
    out = markdown_text("<script>\nalert(1)\n\nmore(2)\n</script>\nafter")
    assert "alert" not in out and "more" not in out and out.strip() == "after"


def test_comments_and_declarations_are_dropped() -> None:
    assert markdown_text("a <!-- hidden --> b <!channel> c <?php x ?> d").split() == ["a", "b", "c", "d"]


def test_entities_are_decoded_exactly_once_outside_code() -> None:
    out = markdown_text("pass a &lt;tensor&gt; list; &amp;lt; stays; `&lt;code&gt;`; AT&T")
    assert out == "pass a <tensor> list; &lt; stays; `&lt;code&gt;`; AT&T"


def test_html_links_keep_only_http_targets() -> None:
    text = '<a href="https://docs.example.com/x" style="position:fixed">Docs</a> <a href="javascript:alert(2)">Bad</a>'
    assert markdown_text(text) == "[Docs](https://docs.example.com/x) Bad"


def test_images_become_their_alt_text_or_nothing() -> None:
    out = markdown_text(
        f'<img src="{BEACON}/a.png" alt="A diagram"> x <img src="{BEACON}/b.png"> ![md alt]({BEACON}/c)'
    )
    assert out == "A diagram x  md alt"


def test_list_items_and_table_rows_become_entries() -> None:
    html = "<ul>\n  <li>\n    one\n  </li>\n  <li>two<ul><li>nested</li></ul></li>\n</ul>\n"
    assert markdown_text(html) == "- one\n- two\n  - nested\n"
    table = "<table>\n  <tr>\n   <td><strong>Beta</strong>\n   </td>\n   <td>Adds <code>fused=True</code></td>\n"
    table += "  </tr>\n  <tr><td>\n</td><td>Only</td></tr>\n  <tr><td> </td></tr>\n</table>\n\nNext paragraph\n"
    assert markdown_text(table) == "- Beta | Adds `fused=True`\n- Only\n\nNext paragraph\n"


def test_line_breaks_and_paragraph_tags_become_line_breaks() -> None:
    assert markdown_text("one<br>two<p>three</p><div>four</div>five") == "one\ntwo\nthree\nfour\nfive"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[click here](javascript:alert(1)) for help", "click here for help"),
        ("[x](javascript:alert((1))) y", "x y"),
        ("[x](data:text/html,<b>hi</b>) y", "x y"),
        ("[x](VBScript:msgbox(1)) y", "x y"),
        ("[rel](../other.md) and [top](#top)", "rel and top"),
        ("[wiki](https://en.wikipedia.org/wiki/A_(b))", "[wiki](https://en.wikipedia.org/wiki/A_%28b%29)"),
        ('[t](https://a.example/p "title")', "[t](https://a.example/p)"),
        ("[![badge](http://ci.example/b.svg)](https://ci.example/)", "[badge](https://ci.example/)"),
        ("[](https://invisible.example/)", ""),
        ("<https://pytorch.org/docs> and <javascript:alert(1)>", "<https://pytorch.org/docs> and "),
        ("[ref]: javascript:alert(1)\n[ok]: https://ok.example/\n", "\n[ok]: https://ok.example/\n"),
    ],
)
def test_markdown_links_keep_only_http_targets(text: str, expected: str) -> None:
    assert markdown_text(text) == expected


def test_table_of_contents_entries_are_dropped() -> None:
    assert markdown_text("- [Highlights](#highlights)\n- [Other](#other)\n\n# Highlights\n") == "\n# Highlights\n"


def test_control_characters_are_removed() -> None:
    assert markdown_text("timeout \x1b[31m30\x1b[0m seconds\x07") == "timeout 30 seconds"


def test_hostile_bodies_keep_their_text_and_no_element() -> None:
    for rel, text in hostile_corpus.documents(BEACON).items():
        out = markdown_text(text.split("---\n", 2)[2])
        assert set(_tags_outside_code(out)) <= {"tensor"}, rel  # the one word in angle brackets
        assert "PWNED" not in out and "background" not in out and "javascript" not in out
        assert "](" not in out or all(t.startswith("https://") for t in re.findall(r"\]\(([^)]*)\)", out))
    first = markdown_text(hostile_corpus.documents(BEACON)["hostile/1.0/release-notes.md"].split("---\n", 2)[2])
    assert "pass a <tensor> list" in first and "frobnicate_widgets details" in first


def test_html_pages_are_parsed_once() -> None:
    page = (
        "<html><head><title>Page</title><style>b{}</style></head><body><h1>T</h1><nav>menu</nav>"
        "<p>a &amp;lt; b <a href='javascript:x'>bad</a> <a href='https://ok.example/p(1)'>ok</a></p>"
        "<iframe src=x>frame</iframe><object>obj</object><p>&#91;x&#93;(javascript:alert(1))</p>"
        "<pre>code\n  &lt;x&gt;</pre><table><tr><td>a</td><td>b</td></tr></table></body></html>"
    )
    out = html_to_markdown(page)
    assert out == "# T\n\na &lt; b bad [ok](https://ok.example/p%281%29)\n\nx\n\n```\ncode\n  <x>\n```\n\n- a | b\n"


def test_strip_markup_consumes_balanced_parentheses_and_keeps_words_in_angle_brackets() -> None:
    assert strip_markup("[click](javascript:alert(1)) for help with <tensor>") == "click for help with <tensor>"


def test_pipe_tables_become_entries_with_their_headers() -> None:
    text = markdown_text(
        "| Pydantic V1 | Pydantic V2 |\n| --- | :---: |\n| `dict()` | `model_dump()` |\n| `json()` | |\n"
    )
    assert text.splitlines() == ["- Pydantic V1: `dict()` — Pydantic V2: `model_dump()`", "- Pydantic V1: `json()`"]


def test_mkdocs_admonitions_and_tabs_are_labels() -> None:
    text = markdown_text('!!! warning "Careful"\n    body\n\n=== "`pydantic<3`"\n\n    ```py\n    x | y\n    ```\n')
    assert text.startswith("Careful:\n    body") and "`pydantic<3`:" in text and "!!!" not in text and "===" not in text
    assert "x | y" in text  # code is set aside: no table made of it


def test_a_bracket_in_a_code_span_opens_no_link() -> None:
    # CommonMark: code spans bind tighter than links. gunicorn's "`*`, `?` or `[`" lost its "[" to a "link" that
    # ran to the next "](url)".
    from ingest.markdown_links import check_links

    text = "entries containing `*`, `?` or `[`\n  are patterns ([#3650](https://github.com/a/b/pull/3650))."
    assert check_links(text) == text
    assert check_links("See [the `a]b` docs](https://example.com/x).") == "See [the `a]b` docs](https://example.com/x)."


def test_a_bracket_in_a_code_span_starts_no_link_in_quoted_text() -> None:
    from assistant.text.words import strip_markup

    said = "containing `*`, `?` or `[` are patterns ([#3650](https://github.com/a/b/pull/3650))."
    assert strip_markup(said) == "containing `*`, `?` or `[` are patterns (#3650)."
    assert strip_markup("[`code`](https://e.com) and [text](https://x.y/(a))") == "`code` and text"
