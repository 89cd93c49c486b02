"""The terminal renderer: readable answers and search results, with nothing from the docs a terminal acts on."""

from __future__ import annotations

import json
import unicodedata

import pytest
from samples import MIGRATION

from assistant.model.records import Answer, Chunk, Citation, Passage
from interfaces.terminal import answer_json, answer_text, passages_json, passages_text

ANSI = "\x1b[2J\x1b[31mRED\x1b]0;pwned-title\x07\x1b]8;;https://evil.example/\x1b\\osc8\x1b]8;;\x1b\\\x07\x08\x9b31m"
BIDI = "\u202eevil\u202c \u2066x\u2069 \u200f"

HOSTILE = Citation(
    2,
    f"Title {ANSI}\nfake row",
    f"2.0{ANSI}",
    f"notes{BIDI}",
    f"Section\r{ANSI}",
    f"h/2{BIDI}.md",
    "javascript:alert(document.cookie)",
    f"The timeout is 30 seconds. {ANSI} {BIDI}",
)


def assert_inert(text: str) -> None:
    """Nothing a terminal would act on: no escape, no C0/C1 control but newline and tab, no format character."""
    bad = [c for c in text if c not in "\n\t" and unicodedata.category(c) in ("Cc", "Cf")]
    assert not bad, [hex(ord(c)) for c in bad]


def test_answer_text_shows_answer_and_sources() -> None:
    answer = Answer("q", "CUDA 12.6 [1]", True, (MIGRATION,), notice="LLM unavailable; quoted instead.")
    assert answer_text(answer).splitlines() == [
        "CUDA 12.6 [1]",
        "(LLM unavailable; quoted instead.)",
        "",
        "Sources:",
        "  [1] Migrating to PyTorch v2.12.0 › Breaking Changes › Issue #2 (v2.12.0, migration-guide)",
        "      pytorch/2.12.0/migration-guide.txt  https://github.com/pytorch/pytorch/releases/tag/v2.12.0",
        "      “Updated the minimum CUDA version required to build PyTorch from source to CUDA 12.6.”",
    ]


def test_answer_text_drops_escape_sequences_and_controls() -> None:
    answer = Answer("q", f"The timeout is 30 seconds. {ANSI}\nSecond line\r{BIDI} [2]", True, (HOSTILE,), notice=ANSI)
    out = answer_text(answer)
    assert_inert(out)
    assert "Second line" in out.splitlines()[1]  # the answer's own lines stay
    assert "  [2] Title REDosc831m fake row › SectionREDosc831m (v2.0REDosc831m, notesevil x)" in out
    assert "      h/2evil x .md\n" in out  # a newline in a field cannot fake a row; the unsafe URL is not shown
    assert "javascript:" not in out


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://Docs.Example.com/a b", None),
        ("https://Docs.Example.com/a", "https://docs.example.com/a"),
        ("https://example.com/a) <a href='https://evil.example/login'>x</a> (", None),
        ("https://docs.example@evil.example/", None),
        ("file:///etc/passwd", None),
        ("https://x.org/\x1b]8;;https://evil.example/\x07", None),
    ],
)
def test_urls_are_shown_only_when_safe(url: str, shown: str | None) -> None:
    citation = Citation(1, "T", "1.0", "k", "S", "a.md", url, "q")
    source_row = answer_text(Answer("q", "t", True, (citation,))).splitlines()[4]
    assert source_row == "      a.md" + (f"  {shown}" if shown else "")


def test_empty_version_and_kind_leave_no_empty_brackets() -> None:
    citation = Citation(1, "T", "", "", "S", "a.md", "", "q")
    assert answer_text(Answer("q", "t", True, (citation,))).splitlines()[3] == "  [1] T › S"


def test_passages_text_drops_escape_sequences_and_controls() -> None:
    chunk = Chunk("id", f"Body {ANSI}\nmore {BIDI}", f"h/2{ANSI}.md", f"T{ANSI}", "p", f"2.0{BIDI}", "k", f"S\n{ANSI}")
    out = passages_text([Passage(chunk, 0.5, 0.25, None)])
    assert_inert(out)
    assert out.splitlines() == [
        " 1. score 0.5000 (cosine 0.250, bm25 -)  h/2REDosc831m.md [v2.0evil x]",
        "    S REDosc831m",
        "    Body REDosc831m more evil x",
    ]


def test_json_output_stays_valid_and_escapes_controls() -> None:
    answer = Answer("q", f"t {ANSI}", True, (HOSTILE,))
    line = answer_json(answer)
    assert "\n" not in line and "\x1b" not in line and "\x07" not in line  # json escapes C0 controls
    assert json.loads(line) == json.loads(json.dumps(answer.to_dict()))
    chunk = Chunk("id", f"Body {ANSI}", "a.md", "T", "p", "1.0", "k", "S")
    assert json.loads(passages_json([Passage(chunk, 0.5)]))[0]["text"] == f"Body {ANSI}"  # data kept, as data
