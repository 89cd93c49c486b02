"""Slack rendering of answers: mrkdwn text, Block Kit blocks, and the feedback buttons' compact value.

Pure functions of an `Answer`; nothing here talks to Slack.
"""

from __future__ import annotations

import json
import re
from typing import Any

from assistant.models import Answer, Citation

SECTION_LIMIT = 3000  # Slack's cap on a section block's text
VALUE_LIMIT = 2000  # Slack's cap on a button's value
MAX_ANSWER_CHARS = 12000  # longer answers are cut; a thread message should stay readable
LABEL_CHARS = 150
FEEDBACK_ACTIONS = {"feedback_up": "up", "feedback_down": "down"}

_CODE = re.compile(r"```.*?```|`[^`\n]+`", re.DOTALL)
_LINK = re.compile(r"\[([^\]\n]+)\]\((https?://[^)\s]+)\)")
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__")
_ITALIC = re.compile(r"(?<![*\w])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![*\w])")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_BULLET = re.compile(r"^([ \t]*)[-*+][ \t]+", re.MULTILINE)
_VALUE_SIZES = ((1000, 400, 150, 160), (400, 200, 80, 0), (150, 100, 40, 0))  # answer, question, label, quote
_BOLD_MARK = "\x02"  # stands for a bold '*' while single-star italics are converted


def escape(text: str) -> str:
    """Escape the three characters Slack treats as control sequences."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def link(url: str, label: str) -> str:
    """`<url|label>`; the label may not contain '|', the URL may not contain '|', '>' or spaces."""
    safe_url = escape(url.replace("|", "%7C").replace(" ", "%20"))
    return f"<{safe_url}|{escape(label.replace('|', '¦'))}>"


def to_mrkdwn(markdown: str) -> str:
    """Markdown, as an answer may contain it, to Slack mrkdwn; code spans and blocks are only escaped."""
    codes: list[str] = []

    def keep(m: re.Match[str]) -> str:
        codes.append(escape(m.group()))
        return f"\x00{len(codes) - 1}\x00"

    text = escape(_CODE.sub(keep, markdown))
    text = _LINK.sub(lambda m: f"<{m.group(2).replace('|', '%7C')}|{m.group(1).replace('|', '¦')}>", text)
    text = _HEADING.sub(lambda m: f"{_BOLD_MARK}{m.group(1)}{_BOLD_MARK}", text)
    text = _BULLET.sub(lambda m: f"{m.group(1)}• ", text)
    text = _BOLD.sub(lambda m: f"{_BOLD_MARK}{m.group(1) or m.group(2)}{_BOLD_MARK}", text)
    text = _ITALIC.sub(r"_\1_", text)
    text = _STRIKE.sub(r"~\1~", text)
    text = text.replace(_BOLD_MARK, "*")
    return re.sub(r"\x00(\d+)\x00", lambda m: codes[int(m.group(1))], text)


def clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, ending in '…' when cut."""
    if len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + "…" if limit > 0 else ""


def source_line(c: Citation) -> str:
    """`[n] <url|Title › Section> v2.12.0 · kind`, or the file path when the source has no URL."""
    label = clip(" › ".join(p for p in (c.title, c.section) if p) or c.source, LABEL_CHARS)
    where = link(c.url, label) if c.url else f"*{escape(label)}* ({escape(c.source)})"
    meta = " · ".join(p for p in (f"v{c.version}" if c.version else "", c.kind) if p)
    return f"[{c.n}] {where}" + (f"  _{escape(meta)}_" if meta else "")


def sources_text(answer: Answer) -> str:
    return "*Sources*\n" + "\n".join(source_line(c) for c in answer.citations) if answer.citations else ""


def answer_text(answer: Answer) -> str:
    """The whole answer as one mrkdwn message: the fallback text of the blocks, and what notifications show."""
    parts = [to_mrkdwn(clip(answer.text, MAX_ANSWER_CHARS))]
    if answer.notice:
        parts.append(f"_{escape(answer.notice)}_")
    if answer.citations:
        parts.append(sources_text(answer))
    return "\n\n".join(parts)


def answer_blocks(answer: Answer, *, feedback: bool = True, show_question: bool = False) -> list[dict[str, Any]]:
    """Block Kit for an answer: the question (for private replies, which do not echo it), text, sources, 👍/👎."""
    blocks: list[dict[str, Any]] = []
    if show_question:
        blocks.append(_context(f"*Q:* {escape(clip(answer.question, 500))}"))
    blocks += [_section(part) for part in split(to_mrkdwn(clip(answer.text, MAX_ANSWER_CHARS)), SECTION_LIMIT)]
    if answer.notice:
        blocks.append(_context(f"_{escape(clip(answer.notice, 1000))}_"))
    if answer.citations:
        blocks += [_section(part) for part in split(sources_text(answer), SECTION_LIMIT)]
    if feedback:
        value = feedback_value(answer)
        blocks.append(
            {
                "type": "actions",
                "block_id": "feedback",
                "elements": [
                    _button("👍 Helpful", "feedback_up", value),
                    _button("👎 Not helpful", "feedback_down", value),
                ],
            }
        )
    return blocks


def split(text: str, limit: int) -> list[str]:
    """Pieces of at most `limit` characters, cut at line ends where possible."""
    pieces: list[str] = []
    current = ""
    for line in text.split("\n"):
        while len(line) > limit:  # one overlong line: cut it hard
            if current:
                pieces.append(current)
                current = ""
            pieces.append(line[:limit])
            line = line[limit:]
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) > limit:
            pieces.append(current)
            candidate = line
        current = candidate
    if current:
        pieces.append(current)
    return pieces


def feedback_value(answer: Answer, limit: int = VALUE_LIMIT) -> str:
    """The answer packed into a button value (JSON, at most `limit` characters), for `answer_from_value`.

    Long texts are cut, then quotes and labels, then trailing citations, until it fits.
    """
    citations = list(answer.citations)
    for sizes in _VALUE_SIZES:
        value = _pack(answer, citations, *sizes)
        if len(value) <= limit:
            return value
    while citations:
        citations.pop()
        value = _pack(answer, citations, 150, 100, 40, 0)
        if len(value) <= limit:
            return value
    return _pack(answer, [], 80, 80, 0, 0)


def answer_from_value(value: str) -> Answer:
    """The `Answer` a feedback button carries; raises ValueError when the value was not made by `feedback_value`."""
    try:
        data = json.loads(value)
        citations = tuple(Citation(*c) for c in data["c"])
        return Answer(question=data["q"], text=data["a"], found=bool(data["f"]), citations=citations, mode=data["m"])
    except (TypeError, KeyError, json.JSONDecodeError) as e:
        raise ValueError(f"not a feedback value: {e}") from e


def _pack(
    answer: Answer, citations: list[Citation], text_chars: int, question_chars: int, label_chars: int, quote_chars: int
) -> str:
    data = {
        "q": clip(answer.question, question_chars),
        "a": clip(answer.text, text_chars),
        "f": answer.found,
        "m": answer.mode,
        "c": [
            [
                c.n,
                clip(c.title, label_chars),
                c.version,
                c.kind,
                clip(c.section, label_chars),
                clip(c.source, 200),
                c.url if len(c.url) <= 300 else "",
                clip(c.quote, quote_chars) if quote_chars else "",
            ]
            for c in citations
        ],
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def _context(text: str) -> dict[str, Any]:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": text}]}


def _button(label: str, action_id: str, value: str) -> dict[str, Any]:
    return {
        "type": "button",
        "text": {"type": "plain_text", "text": label, "emoji": True},
        "action_id": action_id,
        "value": value,
    }
