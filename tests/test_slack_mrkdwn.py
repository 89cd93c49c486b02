"""The Slack renderer: mrkdwn conversion, source links, blocks within Slack's limits, feedback values."""

from __future__ import annotations

import json

import pytest

from assistant.models import Answer, Citation
from interfaces.slack.mrkdwn import (
    SECTION_LIMIT,
    VALUE_LIMIT,
    answer_blocks,
    answer_from_value,
    answer_text,
    escape,
    feedback_value,
    link,
    source_line,
    split,
    to_mrkdwn,
)

MIGRATION = Citation(
    1,
    "Migrating to PyTorch v2.12.0",
    "2.12.0",
    "migration-guide",
    "Breaking Changes › Issue #2",
    "pytorch/2.12.0/migration-guide.txt",
    "https://github.com/pytorch/pytorch/releases/tag/v2.12.0",
    "Updated the minimum CUDA version required to build PyTorch from source to CUDA 12.6.",
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
    assert link("https://x.org/a b|c", "A | B > C") == "<https://x.org/a%20b%7Cc|A ¦ B &gt; C>"


def test_source_line_links_title_and_section() -> None:
    assert source_line(MIGRATION) == (
        "[1] <https://github.com/pytorch/pytorch/releases/tag/v2.12.0|Migrating to PyTorch v2.12.0 › "
        "Breaking Changes › Issue #2>  _v2.12.0 · migration-guide_"
    )
    local = Citation(2, "Notes", "2.12.0", "release-notes", "", "pytorch/notes.md", "", "q")
    assert source_line(local) == "[2] *Notes* (pytorch/notes.md)  _v2.12.0 · release-notes_"
    long = Citation(3, "T", "2.12.0", "k", "S" * 400, "s", "https://x.org", "q")
    assert len(source_line(long)) < 250 and "…>" in source_line(long)


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
