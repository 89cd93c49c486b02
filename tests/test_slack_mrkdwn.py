"""The Slack renderer: mrkdwn conversion, source links, blocks within Slack's limits, feedback values."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from samples import MIGRATION

from assistant.model.records import Answer, Citation
from interfaces.slack.mrkdwn import (
    SECTION_LIMIT,
    VALUE_LIMIT,
    answer_blocks,
    answer_from_value,
    answer_text,
    escape,
    feedback_value,
    link,
    safe_text,
    source_line,
    split,
    to_mrkdwn,
)

CUDA = Answer(
    question="What is the minimum CUDA version to build PyTorch 2.12 from source?",
    text="Updated the minimum CUDA version required to build PyTorch from source to CUDA 12.6. [1]",
    found=True,
    citations=(MIGRATION,),
)
REFUSAL = Answer(question="How do I bake a cake?", text="The release docs don't cover this.", found=False)


def test_escapes_slack_control_characters() -> None:
    assert escape("a < b && c > d") == "a &lt; b &amp;&amp; c &gt; d"
    assert to_mrkdwn("<!channel> x<y") == "&lt;!channel&gt; x&lt;y"  # no mass pings from quoted text


@pytest.mark.parametrize(
    ("markdown", "mrkdwn"),
    [
        ("**Breaking:** C++20 is required", "*Breaking:* C++20 is required"),
        ("this is *important*", "this is _important_"),
        ("~~old~~ new", "~old~ new"),
        ("## Migration Steps", "*Migration Steps*"),
        ("- first [1]\n- second [2]", "• first [1]\n• second [2]"),
        ("see [the notes](https://x.org/a?b=1&c=2)", "see <https://x.org/a?b=1&amp;c=2|the notes>"),
        ("2 * 3 * 4", "2 * 3 * 4"),
        ("keep `**kwargs` and `a<b`", "keep `**kwargs` and `a&lt;b`"),
        ("```\nx = **y**\n```", "```\nx = **y**\n```"),
        ("CUDA 12.6 [1][2]", "CUDA 12.6 [1][2]"),
    ],
)
def test_markdown_becomes_mrkdwn(markdown: str, mrkdwn: str) -> None:
    assert to_mrkdwn(markdown) == mrkdwn


def test_links_cannot_be_broken_by_their_label_or_url() -> None:
    assert link("https://x.org/a?b=1&c=2", "A | B > C") == "<https://x.org/a?b=1&amp;c=2|A ¦ B &gt; C>"
    assert link("https://x.org/a", "two\nlines\x1b[31m") == "<https://x.org/a|two lines>"
    assert link("https://x.org/a b|c", "A | B") == "A ¦ B"  # a space or '|' makes it no URL: no link at all
    assert link("https://x.org/a", "") == "<https://x.org/a>"


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JavaScript:alert(document.cookie)",
        "data:text/html,<script>alert(1)</script>",
        "vbscript:msgbox",
        "file:///etc/passwd",
        "ftp://x.org/a",
        "//evil.example/a",
        "/relative/path",
        "https://docs.example@evil.example/",
        'https://example.com/a) <a href="https://evil.example/login">x</a> (',
        "",
    ],
)
def test_only_http_links_are_made(url: str) -> None:
    assert link(url, "the <notes>") == "the &lt;notes&gt;"


@pytest.mark.parametrize(
    "label",
    [
        "https://pytorch.org/docs",
        "http://pytorch.org",
        "pytorch.org/docs",
        "www.pytorch.org",
        "pytorch.org",
        "read https://pytorch.org/docs first",
        "(https://docs.pytorch.org/stable).",
        "https://evil.example.pytorch.org/",
        "javascript:alert(1)",
        "mailto:security@pytorch.org",
        'Notes <img src="http://127.0.0.1:9/b.png">',
        "mirror:https://pytorch.org",
    ],
)
def test_a_label_never_names_another_host_than_the_target(label: str) -> None:
    # The reader sees the URL the click opens, written out, instead of the label.
    assert link("https://evil.example/steal", label) == "<https://evil.example/steal>"


@pytest.mark.parametrize(
    ("label", "linked"),
    [
        ("https://pytorch.org/docs", "<https://pytorch.org/docs/stable|https://pytorch.org/docs>"),
        ("pytorch.org", "<https://pytorch.org/docs/stable|pytorch.org>"),
        ("torch.compile notes", "<https://pytorch.org/docs/stable|torch.compile notes>"),
        ("torch.nn docs", "<https://pytorch.org/docs/stable|torch.nn docs>"),
        ("Issue #2: CUDA 12.6", "<https://pytorch.org/docs/stable|Issue #2: CUDA 12.6>"),
    ],
)
def test_a_label_naming_the_target_host_or_no_host_keeps_its_link(label: str, linked: str) -> None:
    assert link("https://pytorch.org/docs/stable", label) == linked


@pytest.mark.parametrize(
    ("markdown", "mrkdwn"),
    [
        ("[click here](javascript:alert(1)) for help", "click here for help"),
        ("[a](javascript:alert((1))) b", "a b"),
        ("[https://pytorch.org/docs](https://evil.example/steal) x", "<https://evil.example/steal> x"),
        ("[docs](https://x.org/a_(b)) x", "<https://x.org/a_%28b%29|docs> x"),
        ('[docs](https://x.org/a "Title (1)") x', "<https://x.org/a|docs> x"),
        ("[docs](<https://x.org/a>) x", "<https://x.org/a|docs> x"),
        ("[docs](../notes.md) x", "docs x"),
        ("[x](javascript:alert(1) unclosed", "[x](javascript:alert(1) unclosed"),
        ("![diagram](http://127.0.0.1:9/b/x.png) x", "diagram x"),
        (
            "`[a](javascript:x)` and ```\n[b](https://x.org)\n```",
            "`[a](javascript:x)` and ```\n[b](https://x.org)\n```",
        ),
        ("**[bold link](https://x.org)**", "*<https://x.org/|bold link>*"),
        ("[1][2] and [1] (see)", "[1][2] and [1] (see)"),
    ],
)
def test_markdown_links_go_through_link(markdown: str, mrkdwn: str) -> None:
    assert to_mrkdwn(markdown) == mrkdwn


def test_many_unclosed_links_stay_fast() -> None:
    text = "[a](b(" * 5000
    assert to_mrkdwn(text) == text


def test_control_characters_and_escape_sequences_are_removed() -> None:
    ansi = "\x1b[2J\x1b[31mRED\x1b]0;title\x07\x1b]8;;https://evil.example/\x1b\\osc8\x1b]8;;\x1b\\\x07\x08\x9b31m"
    assert to_mrkdwn(f"30 s. {ansi} \u202eevil\u2066 x\r\x00y") == "30 s. REDosc831m evil xy"
    # The renderer's own placeholders cannot be forged from the text to duplicate or misplace a piece.
    assert to_mrkdwn("`a` \x000\x00 \x02b\x02") == "`a` 0 b"


def test_mass_mentions_cannot_notify() -> None:
    shout = "<!channel> <!here> <!everyone> <!subteam^S1> @channel @Here @everyone <@U024BE7LH> <#C024BE7LH>"
    out = to_mrkdwn(shout)
    assert "<" not in out and ">" not in out  # no control sequence of any kind
    assert "@channel" not in out and "@Here" not in out and "@everyone" not in out
    assert "@\u2060channel @\u2060Here @\u2060everyone" in out  # still reads as typed
    assert to_mrkdwn("mail ops@here.com, see `@here`") == "mail ops@here.com, see `@\u2060here`"
    assert safe_text("<!here> @here") == "&lt;!here&gt; @\u2060here"


def test_the_bot_never_asks_slack_to_parse_typed_names() -> None:
    # Typed "@here" notifies a bot message only with link_names (or parse=full); the renderer breaks it anyway.
    for path in (Path(__file__).parents[1] / "interfaces" / "slack").glob("*.py"):
        source = path.read_text(encoding="utf-8")
        assert not re.search(r"\blink_names\s*[=:]|[\"']link_names[\"']|\bparse\s*=", source), path


def test_source_line_links_title_and_section() -> None:
    assert source_line(MIGRATION) == (
        "[1] <https://github.com/pytorch/pytorch/releases/tag/v2.12.0|Migrating to PyTorch v2.12.0 › "
        "Breaking Changes › Issue #2>  _v2.12.0 · migration-guide_"
    )
    local = Citation(2, "Notes", "2.12.0", "release-notes", "", "pytorch/notes.md", "", "q")
    assert source_line(local) == "[2] *Notes* (pytorch/notes.md)  _v2.12.0 · release-notes_"
    long = Citation(3, "T", "2.12.0", "k", "S" * 400, "s", "https://x.org", "q")
    assert len(source_line(long)) < 250 and "…>" in source_line(long)


def test_source_line_cannot_disguise_or_inject() -> None:
    disguised = Citation(
        1, "https://pytorch.org/docs", "2.0", "release-notes", "", "h/2.md", "https://evil.example/s", "q"
    )
    assert source_line(disguised) == "[1] <https://evil.example/s>  _v2.0 · release-notes_"
    unsafe = Citation(2, "https://pytorch.org/docs", "2.0", "notes", "Quux", "h/2.md", "javascript:alert(1)", "q")
    assert source_line(unsafe) == "[2] *https://pytorch.org/docs › Quux* (h/2.md)  _v2.0 · notes_"
    hostile = Citation(
        3,
        "Hostile | `<img src=x>` <!channel>",
        '<img src="http://127.0.0.1:9/v.png">',
        "<b>k</b> @here",
        "Breaking\nfake line\x1b[31m",
        "h/1\u202e.md",
        'https://example.com/a) <a href="https://evil.example/login">x</a> (',
        "q",
    )
    assert source_line(hostile) == (
        "[3] *Hostile ¦ `&lt;img src=x&gt;` &lt;!channel&gt; › Breaking fake line* (h/1.md)"
        '  _v&lt;img src="http://127.0.0.1:9/v.png"&gt; · &lt;b&gt;k&lt;/b&gt; @\u2060here_'
    )


def test_notice_and_question_are_inert() -> None:
    answer = Answer("<!here> q\x1b[2J", "t", True, (MIGRATION,), notice="<!channel> \x1b]0;x\x07note")
    assert "_&lt;!channel&gt; note_" in answer_text(answer)
    blocks = answer_blocks(answer, show_question=True)
    assert blocks[0]["elements"][0]["text"] == "*Q:* &lt;!here&gt; q"
    assert {"type": "mrkdwn", "text": "_&lt;!channel&gt; note_"} in blocks[2]["elements"]


def test_answer_message_has_text_sources_and_buttons() -> None:
    text = answer_text(CUDA)
    assert text.startswith("Updated the minimum CUDA version") and "12.6" in text
    assert "*Sources*\n[1] <https://github.com/pytorch/pytorch/releases/tag/v2.12.0|" in text
    blocks = answer_blocks(CUDA)
    assert [b["type"] for b in blocks] == ["section", "section", "actions"]
    assert blocks[0]["text"] == {"type": "mrkdwn", "text": to_mrkdwn(CUDA.text)}
    assert [e["action_id"] for e in blocks[-1]["elements"]] == ["feedback_up", "feedback_down"]
    private = answer_blocks(CUDA, show_question=True, feedback=False)
    assert private[0]["elements"][0]["text"] == f"*Q:* {CUDA.question}" and private[-1]["type"] == "section"


def test_refusal_is_plain_and_cites_nothing() -> None:
    assert answer_text(REFUSAL) == "The release docs don't cover this."
    blocks = answer_blocks(REFUSAL)
    assert [b["type"] for b in blocks] == ["section", "actions"]  # a refusal can be voted on too
    notice = answer_blocks(Answer("q", "t", True, (MIGRATION,), notice="LLM unavailable; quoted instead."))
    assert {"type": "mrkdwn", "text": "_LLM unavailable; quoted instead._"} in notice[1]["elements"]


def test_long_answers_stay_within_block_limits() -> None:
    long = Answer("q", "\n".join(f"- entry {i} " + "x" * 200 + f" [{i % 5 + 1}]" for i in range(100)), True)
    blocks = answer_blocks(long)
    sections = [b["text"]["text"] for b in blocks if b["type"] == "section"]
    assert len(sections) > 1 and all(len(s) <= SECTION_LIMIT for s in sections)
    assert len(blocks) <= 50 and sections[-1].endswith("…")


def test_split_cuts_at_line_ends_and_hard_cuts_overlong_lines() -> None:
    assert split("aa\nbb\ncc", 5) == ["aa\nbb", "cc"]
    assert split("x" * 12, 5) == ["xxxxx", "xxxxx", "xx"]
    assert "".join(split("y" * 7000, SECTION_LIMIT)) == "y" * 7000


def test_feedback_value_round_trips() -> None:
    again = answer_from_value(feedback_value(CUDA))
    assert (again.question, again.text, again.found, again.mode) == (CUDA.question, CUDA.text, True, "extractive")
    assert again.citations == CUDA.citations


def test_feedback_value_fits_slack_limit_for_huge_answers() -> None:
    citations = tuple(
        Citation(n, "T" * 300, "2.12.0", "kind", "S" * 300, f"docs/{n}.md", f"https://x.org/{'p' * 250}", "Q" * 900)
        for n in range(1, 21)
    )
    huge = Answer('"' * 2000, "\\" * 12000, True, citations, mode="llm")
    value = feedback_value(huge)
    assert len(value) <= VALUE_LIMIT
    again = answer_from_value(value)
    assert again.found and again.mode == "llm" and again.question.startswith('"') and again.citations
    assert [c.n for c in again.citations] == list(range(1, len(again.citations) + 1))


def test_feedback_value_rejects_what_it_did_not_make() -> None:
    for junk in ("", "not json", json.dumps({"q": "x"}), json.dumps([1, 2])):
        with pytest.raises(ValueError):
            answer_from_value(junk)
