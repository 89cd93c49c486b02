"""The hostile corpus through the Slack and terminal renderers: no disguised link, no mass mention, no escape.

Checked on answers from a real knowledge base over `hostile_corpus` (whatever ingest lets through), and on
hand-made answers carrying the corpus's raw strings, so the renderers hold on their own.
"""

from __future__ import annotations

import html
import json
import re
import unicodedata
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import hostile_corpus
import pytest
import yaml

from assistant.embed.embedder import Embedder
from assistant.knowledge_base import KnowledgeBase
from assistant.model.records import Answer, Chunk, Citation, Passage
from assistant.runtime.settings import Settings
from assistant.text.untrusted import looks_like_url, safe_url
from ingest import sync
from interfaces import terminal
from interfaces.slack import mrkdwn

BEACON = "http://127.0.0.1:9/b"
EXPECTED_SOURCE = {  # the document each question is about
    "What changed in frobnicate_widgets?": "hostile/1.0/release-notes.md",
    "What replaces the quux_scheduler option?": "hostile/2.0/release-notes.md",
    "What is the new quux_scheduler timeout?": "hostile/2.0/release-notes.md",
    "What does the zorblax_mode flag default to now?": "hostile/3.0/release-notes.md",
}
_SLACK_SEQUENCE = re.compile(r"<([^<>]*)>")
_TYPED_MASS_MENTION = re.compile(r"(?<![\w@/.:-])@(?:channel|here|everyone)\b", re.IGNORECASE)
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def assert_no_controls(text: str) -> None:
    """No escape sequence, no C0/C1 control but newline and tab, no bidi override."""
    assert "\x1b" not in text
    controls = [hex(ord(c)) for c in text if c not in "\n\t" and unicodedata.category(c) == "Cc"]
    assert not controls, controls
    assert not _BIDI & set(text), [hex(ord(c)) for c in _BIDI & set(text)]


def assert_safe_mrkdwn(text: str) -> None:
    """Every `<…>` Slack would act on is an http(s) link whose label names no other host; no mention at all."""
    assert_no_controls(text)
    for m in _SLACK_SEQUENCE.finditer(text):
        target, _, label = m[1].partition("|")
        assert not target.startswith(("!", "@", "#")), m[0]  # <!channel>, <!here>, <@U…>, <#C…>, <!subteam^…>
        url = html.unescape(target)
        assert urlsplit(url).scheme in ("http", "https") and safe_url(url) == url, m[0]
        host = urlsplit(url).hostname
        label = html.unescape(label)
        named = {h.lower() for h in re.findall(r"https?://([^/\s:?#|]+)", label, re.IGNORECASE)}
        if looks_like_url(label) and "://" not in label:  # a bare "pytorch.org/docs"
            named.add(re.split(r"[/:]", label.strip().lower(), maxsplit=1)[0])
        assert named <= {host}, m[0]
    assert not _TYPED_MASS_MENTION.search(text), text


def block_texts(blocks: list[dict[str, Any]]) -> Iterator[str]:
    for block in blocks:
        if block.get("text", {}).get("type") == "mrkdwn":
            yield block["text"]["text"]
        yield from (e["text"] for e in block.get("elements", ()) if e.get("type") == "mrkdwn")


def assert_renders_safely(answer: Answer) -> None:
    """The answer through every Slack and terminal text renderer, and the JSON one."""
    assert_safe_mrkdwn(mrkdwn.answer_text(answer))
    for show_question in (False, True):
        texts = list(block_texts(mrkdwn.answer_blocks(answer, show_question=show_question)))
        assert texts
        for text in texts:
            assert_safe_mrkdwn(text)
    shown = terminal.answer_text(answer)
    assert_no_controls(shown)
    assert all(c.url not in shown for c in answer.citations if c.url and safe_url(c.url) is None)
    assert json.loads(terminal.answer_json(answer))["answer"] == answer.text  # still valid JSON, data intact


@pytest.fixture(scope="module")
def hostile_kb(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder, index_fields) -> KnowledgeBase:
    root = tmp_path_factory.mktemp("hostile")
    hostile_corpus.write(root / "corpus", BEACON)
    settings = Settings(corpus_dir=root / "corpus", data_dir=root / "data", **index_fields("hostile-renderers"))
    sync(settings, progress=False, embedder=embedder)
    return KnowledgeBase.open(settings, embedder=embedder)


@pytest.mark.parametrize("question", hostile_corpus.QUESTIONS)
def test_answers_from_the_hostile_corpus_render_safely(hostile_kb: KnowledgeBase, question: str) -> None:
    answer = hostile_kb.ask(question)
    assert answer.found and answer.citations, answer
    assert answer.citations[0].source == EXPECTED_SOURCE[question]  # the hostile document is the one quoted
    assert_renders_safely(answer)
    passages = hostile_kb.search(question, k=5)
    assert any(p.chunk.source == EXPECTED_SOURCE[question] for p in passages)
    assert_no_controls(terminal.passages_text(passages))
    json.loads(terminal.passages_json(passages))


def raw_documents() -> list[tuple[str, dict[str, str], str]]:
    """(path, front matter as strings, body) of each hostile document, as ingest would read it validating nothing."""
    out = []
    for path, text in hostile_corpus.documents(BEACON).items():
        _, front, body = text.split("---\n", 2)
        out.append((path, {k: str(v) for k, v in yaml.safe_load(front).items()}, body))
    return out


def raw_answer(path: str, front: dict[str, str], body: str) -> Answer:
    section = next(line.lstrip("# ") for line in body.splitlines() if line.startswith("## ") or line.startswith("# "))
    citation = Citation(
        1, front["title"], front.get("version", ""), front.get("kind", ""), section, path, front["url"], body
    )
    notice = f"{hostile_corpus.SHOUT} {hostile_corpus.ANSI}"
    return Answer(f"{hostile_corpus.SHOUT} {body[:200]}", f"{body} [1]", True, (citation,), notice=notice)


@pytest.mark.parametrize(("path", "front", "body"), raw_documents(), ids=lambda v: v if isinstance(v, str) else "")
def test_raw_hostile_strings_render_safely(path: str, front: dict[str, str], body: str) -> None:
    answer = raw_answer(path, front, body)
    assert_renders_safely(answer)
    chunk = Chunk("id", body, path, front["title"], "hostile", front.get("version", ""), front.get("kind", ""), body)
    assert_no_controls(terminal.passages_text([Passage(chunk, 0.5, 0.4, 1.0)]))


def test_the_disguised_and_script_links_of_the_corpus_come_out_plain() -> None:
    [(path, front, body)] = [d for d in raw_documents() if d[0].startswith("hostile/2.0/")]
    text = mrkdwn.answer_text(raw_answer(path, front, body))
    assert "<https://evil.example/steal>" in text  # the target written out, not behind "https://pytorch.org/docs"
    assert "or click here for quux_scheduler help." in text  # the javascript: link is only its text
    assert "[1] *https://pytorch.org/docs › Quux scheduler changes* (hostile/2.0/release-notes.md)" in text
    assert "javascript:" not in text.replace('&lt;a href="javascript:alert(2)"&gt;', "")  # only escaped HTML
    shown = terminal.answer_text(raw_answer(path, front, body))
    assert "RED" in shown and "osc8" in shown and "javascript:alert(document.cookie)" not in shown
