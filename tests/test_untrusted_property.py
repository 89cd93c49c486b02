"""Property test: whatever text and metadata a release-notes file holds, ingest plus each renderer emit only
what the renderer itself means to (checked with a real HTML parser for the web, by pattern for Slack and the
terminal). Needs no model: documents go through the loader and the chunker, answers are built from chunks.
"""

from __future__ import annotations

import re
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.model.records import Answer, Chunk, Citation, Passage
from assistant.text.untrusted import safe_url, safe_version
from assistant.text.words import strip_markup
from ingest.chunking import chunk_document
from ingest.loader import DocumentError, load_document
from interfaces import terminal
from interfaces.slack import mrkdwn
from interfaces.web_render import answer_message

SNIPPETS = [
    "<script>alert(1)</script>",
    '<img src="http://127.0.0.1:9/b.png" onerror="alert(1)">',
    '<a href="javascript:alert(1)" style="position:fixed">x</a>',
    '<a href="https://evil.example/">https://pytorch.org/docs</a>',
    "[https://pytorch.org/docs](https://evil.example/steal)",
    "[click](javascript:alert(document.cookie))",
    "![i](http://127.0.0.1:9/i.png)",
    "\\`<img src=x>\\`",
    "``<b>x</b>``",
    "`code <i>`",
    "&lt;tensor&gt; &amp;lt; &#x3C;svg&#x3E;",
    "<style>body{background:red}</style>",
    "<iframe src=//evil.example></iframe>",
    "<!channel> <!here> <@U123> @everyone",
    "\x1b[2J\x1b]8;;https://evil.example\x07x\x1b]8;;\x07 \x9b31m \u202e",
    "$$x^2$$",
    "<https://evil.example> <javascript:alert(1)>",
    "\n```html\n<script>x</script>\n```\n",
    "\n- item <b>one</b>\n- item two\n",
    "\n## Heading <img src=x>\n",
    "<details open><summary>s</summary>d</details>",
]
piece = st.one_of(st.sampled_from(SNIPPETS), st.text(alphabet=st.characters(codec="utf-8"), max_size=40))
text = st.lists(piece, min_size=1, max_size=8).map(" ".join)
field = st.one_of(text, st.sampled_from(SNIPPETS), st.just("2.12.0"), st.just("https://example.org/a(b)"))
FIELDS = ("title", "url", "version", "kind", "product", "language", "section")
meta = st.dictionaries(st.sampled_from(FIELDS), field, max_size=len(FIELDS))

# What the web renderer itself emits (markdown-it for the answer's own Markdown, web_render for the rest).
WEB_TAGS = {
    "div",
    "p",
    "span",
    "strong",
    "em",
    "code",
    "pre",
    "ul",
    "ol",
    "li",
    "blockquote",
    "details",
    "summary",
    "sub",
    "a",
    "br",
    "hr",
    *(f"h{i}" for i in range(1, 7)),
}
WEB_ATTRS = {"class", "id", "href", "target", "rel", "start"}
WEB_CLASSES = re.compile(r"reldocs-[a-z-]+|language-.*")
SLACK_LINK = re.compile(r"<([^<>|]*)(?:\|[^<>]*)?>")
CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


class TagCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.comments: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    handle_startendtag = handle_starttag

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)


def check_web(html: str) -> None:
    parser = TagCollector()
    parser.feed(html)
    parser.close()
    for tag, attrs in parser.tags:
        assert tag in WEB_TAGS, (tag, html)
        for name, value in attrs:
            assert name in WEB_ATTRS, (tag, name, html)
            if name == "href":
                assert value and (value.startswith("#reldocs-") or safe_url(value) == value), value
            if name == "class":
                assert value and WEB_CLASSES.fullmatch(value), value
    assert all(c.startswith("reldocs-copy:") for c in parser.comments)  # only the copy payload


def check_slack(message: str) -> None:
    for target in SLACK_LINK.findall(message):
        assert safe_url(target) == target, (target, message)  # no <!channel>, <@U…> or non-http(s) link
    assert not CONTROLS.search(message)


def check_terminal(output: str) -> None:
    assert not CONTROLS.search(output), repr(output)


def ingested(body: str, front: dict[str, str]) -> list[Chunk]:
    """The chunks one file becomes, through the real loader and chunker (front matter as YAML)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        path = root / "acme" / "1.0" / "release-notes.md"
        path.parent.mkdir(parents=True)
        head = f"---\n{yaml.safe_dump(front, allow_unicode=True)}---\n" if front else ""
        path.write_text(head + body, encoding="utf-8", errors="surrogatepass")
        try:
            return chunk_document(load_document(path, root))
        except (DocumentError, UnicodeEncodeError):
            return []  # named and skipped by sync; nothing to render


def answers_from(chunks: list[Chunk], question: str) -> list[Answer]:
    out = []
    for c in chunks[:3]:
        cite = Citation(1, c.title, c.version, c.kind, c.section, c.source, c.url, strip_markup(c.text))
        out.append(Answer(question, f"{strip_markup(c.text)} [1]", True, (cite,), notice=c.title or None))
    return out


@pytest.mark.slow  # 150 whole documents ingested and rendered: over a second, in CI's slow tier
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=text, front=meta, question=text)
def test_ingested_documents_render_only_what_the_renderers_emit(body: str, front: dict[str, str], question: str):
    chunks = ingested(body, front)
    for answer in answers_from(chunks, question):
        check_web(answer_message(answer, 2))
        check_slack(mrkdwn.answer_text(answer))
        for block in mrkdwn.answer_blocks(answer, show_question=True):
            if block["type"] in ("section", "context"):
                parts = [block["text"]] if "text" in block else block["elements"]
                for part in parts:
                    check_slack(part["text"])
        check_terminal(terminal.answer_text(answer))
    passages = [Passage(c, 1.0) for c in chunks[:3]]
    check_terminal(terminal.passages_text(passages))
    for c in chunks:
        assert not c.url or safe_url(c.url) == c.url  # only checked links are stored
        assert not c.version or safe_version(c.version) == c.version
        assert not CONTROLS.search(c.title + c.kind + c.section + c.product) and "\n" not in c.title + c.section


@pytest.mark.slow  # 300 answers through every renderer: over a second, in CI's slow tier
@settings(max_examples=300, deadline=None)
@given(answer_text=text, title=field, url=field, section=field, quote=text, notice=st.none() | text)
def test_renderers_hold_on_raw_hostile_strings(answer_text, title, url, section, quote, notice):
    """Whatever reaches them, even what ingest would have cleaned, the renderers stay safe on their own."""
    cite = Citation(1, title, title, title, section, section, url, quote)
    for found in (True, False):
        answer = Answer(answer_text, answer_text, found, (cite,) if found else (), notice=notice)
        check_web(answer_message(answer, 1))
        check_slack(mrkdwn.answer_text(answer))
        check_terminal(terminal.answer_text(answer))
