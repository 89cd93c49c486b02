"""Slack rendering of answers: mrkdwn text, Block Kit blocks, and the feedback buttons' compact value.

Pure functions of an `Answer`; nothing here talks to Slack. Everything in an answer came from the docs, which
other projects wrote, so every string is escaped for mrkdwn and every link goes through `link`: http(s) only,
and never with visible text that names another host than the one it opens.
"""

from __future__ import annotations

import json
import re
from typing import Any

from assistant.model.records import Answer, Citation
from assistant.text.untrusted import looks_like_url, one_line, safe_url, url_host, without_controls

SECTION_LIMIT = 3000  # Slack's cap on a section block's text
VALUE_LIMIT = 2000  # Slack's cap on a button's value
MAX_ANSWER_CHARS = 12000  # longer answers are cut; a thread message should stay readable
LABEL_CHARS = 150
FEEDBACK_ACTIONS = {"feedback_up": "up", "feedback_down": "down"}

# A code span or block, or the start of a Markdown link or image; the link's target is read by `_destination`.
# A '[' that starts no link is matched on to its first ']', line end or '`' by the last branch and passed over:
# every '[' before that point fails alike, and trying each of them read on to it (quadratic).
_TOKEN = re.compile(r"(?P<code>```.*?```|`[^`\n]+`)|(?P<image>!?)\[(?P<label>[^\]\n]*)\]\(|\[[^\]\n`]*", re.DOTALL)
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__")
_ITALIC = re.compile(r"(?<![*\w])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![*\w])")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
# The title ends at the line's last character other than blank or '#' (or is its first character, when it has no
# other): found from the end at once, where the shortest title (`(.+?)`) re-read the rest at every character.
_HEADING = re.compile(r"^#{1,6}[ \t]+(.*[^ \t#\n]|.)[ \t#]*$", re.MULTILINE)
_BULLET = re.compile(r"^([ \t]*)[-*+][ \t]+", re.MULTILINE)
# "@here" typed as text: Slack notifies only for `<!here>` unless a message is posted with link_names (the bot
# never sets it), but a word joiner after the '@' keeps that true whatever a future caller passes.
_MASS_MENTION = re.compile(r"(?<![\w@/.:-])@(?=(?:channel|here|everyone)\b)", re.IGNORECASE)
_WORD_JOINER = "\u2060"
# Punctuation a reader does not take as part of a URL written in prose: "(see https://x.org/a)."
_AROUND_URL = "()[]{}<>\"'.,;:!?*_~`"
_EMBEDDED_URL = re.compile(r"(?i)(?<![a-z0-9+.-])(?:[a-z][a-z0-9+.-]*://|www\.)[^\s\"'<>`\\]+")
_VALUE_SIZES = ((1000, 400, 150, 160), (400, 200, 80, 0), (150, 100, 40, 0))  # answer, question, label, quote
_HOLD = "\x00"  # brackets a placeholder for a finished piece; the input cannot hold it, controls are removed
_BOLD_MARK = "\x02"  # stands for a bold '*' while single-star italics are converted
_MAX_TARGET_CHARS = 1000  # a longer link target is left as text


def escape(text: str) -> str:
    """Escape the three characters Slack treats as control sequences."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def safe_text(text: str) -> str:
    """Doc-derived text as inert mrkdwn: controls gone, `& < >` escaped, a typed "@here" unable to notify."""
    return _MASS_MENTION.sub("@" + _WORD_JOINER, escape(without_controls(text)))


def link(url: str, label: str) -> str:
    """`<url|label>` for an http(s) `url`, re-serialised by `safe_url`; only the label for any other target.

    A label that names another host than the target's ("https://pytorch.org/docs" opening evil.example) is
    not shown: the link is written as its own URL instead, so what a reader sees is where the click goes.
    """
    target = safe_url(url)
    shown = _label(label)
    if target is None:
        return shown
    if not shown or _disguises(label, url_host(target)):
        return f"<{escape(target)}>"
    return f"<{escape(target)}|{shown}>"


def to_mrkdwn(markdown: str) -> str:
    """Markdown, as an answer may contain it, to Slack mrkdwn; code spans and blocks are only escaped.

    Links go through `link` (their targets may hold balanced parentheses, as in CommonMark), images become
    their alt text, and everything else is `safe_text`.
    """
    held: list[str] = []

    def hold(piece: str) -> str:
        held.append(piece)
        return f"{_HOLD}{len(held) - 1}{_HOLD}"

    text = without_controls(markdown)  # also makes sure no placeholder or bold mark comes from the input
    pieces: list[str] = []
    done = at = 0
    while m := _TOKEN.search(text, at):
        if m["code"]:
            piece, end = safe_text(m["code"]), m.end()
        elif m["label"] is None:  # brackets that start no link: nothing in them does either
            at = m.end()
            continue
        elif found := _destination(text, m.end()):
            target, end = found
            piece = _label(m["label"]) if m["image"] else link(target, m["label"])
        else:  # brackets that are no link: read on from just inside them
            at = m.start() + 1
            continue
        pieces += [safe_text(text[done : m.start()]), hold(piece)]
        done = at = end
    pieces.append(safe_text(text[done:]))
    text = "".join(pieces)
    text = _HEADING.sub(lambda m: f"{_BOLD_MARK}{m.group(1)}{_BOLD_MARK}", text)
    text = _BULLET.sub(lambda m: f"{m.group(1)}• ", text)
    text = _BOLD.sub(lambda m: f"{_BOLD_MARK}{m.group(1) or m.group(2)}{_BOLD_MARK}", text)
    text = _ITALIC.sub(r"_\1_", text)
    text = _STRIKE.sub(r"~\1~", text)
    text = text.replace(_BOLD_MARK, "*")
    return re.sub(f"{_HOLD}(\\d+){_HOLD}", lambda m: held[int(m.group(1))], text)


def _destination(text: str, start: int) -> tuple[str, int] | None:
    """The target of a Markdown link whose '(' ends at `start`, and the index after its ')'; None when unclosed.

    Parentheses in the target nest (`[x](javascript:alert(1))` ends after both), a backslash escapes the next
    character, and a title after the target (`(url "title")`) is skipped.
    """
    depth, i = 0, start
    stop = min(len(text), start + _MAX_TARGET_CHARS)  # a bound keeps many unclosed '(' on one line linear
    while i < stop:
        ch = text[i]
        if ch == "\n":
            return None
        if ch == "\\":
            i += 1
        elif ch == "(":
            depth += 1
        elif ch == ")":
            if depth == 0:
                inside = text[start:i].strip()
                if inside.startswith("<"):  # `(<target> "title")`
                    return inside[1:].split(">", 1)[0], i + 1
                return (inside.split() or [""])[0], i + 1
            depth -= 1
        i += 1
    return None


def _label(label: str) -> str:
    """A link's visible text as inert mrkdwn on one line; '|' would end it early, so it becomes '¦'."""
    return safe_text(one_line(label).replace("|", "¦"))


def _disguises(label: str, host: str) -> bool:
    """True when `label`, or a URL written in it, names a host other than `host`: what a reader checks."""
    label = one_line(label)
    words = (w.strip(_AROUND_URL) for w in label.split())
    # The whole label may be a bare host ("evil.com"); inside prose only a word with a scheme, a path or "www."
    # counts, so a title mentioning `torch.nn` keeps its link; a URL glued to other text (`src="http://…`) too.
    candidates = [
        label.strip(_AROUND_URL),
        *(w for w in words if ":" in w or "/" in w or w.lower().startswith("www.")),
        *_EMBEDDED_URL.findall(label),
    ]
    return any(looks_like_url(c) and _named_host(c) != host for c in candidates if c)


def _named_host(text: str) -> str:
    """The host a reader takes URL-like `text` to name; '' when a browser would open none (`javascript:…`)."""
    return url_host(text if "://" in text else f"https://{text}")


def clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, ending in '…' when cut."""
    if len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + "…" if limit > 0 else ""


def source_line(c: Citation) -> str:
    """`[n] <url|Title › Section>  _v2.12.0 · kind_`, or the file path when the source has no http(s) URL."""
    label = clip(" › ".join(p for p in map(one_line, (c.title, c.section)) if p) or one_line(c.source), LABEL_CHARS)
    where = link(c.url, label) if safe_url(c.url) else f"*{_label(label)}* ({safe_text(one_line(c.source))})"
    meta = " · ".join(p for p in (f"v{one_line(c.version)}" if c.version else "", one_line(c.kind)) if p)
    return f"[{c.n}] {where}" + (f"  _{safe_text(meta)}_" if meta else "")


def sources_text(answer: Answer) -> str:
    return "*Sources*\n" + "\n".join(source_line(c) for c in answer.citations) if answer.citations else ""


def answer_text(answer: Answer) -> str:
    """The whole answer as one mrkdwn message: the fallback text of the blocks, and what notifications show."""
    parts = [to_mrkdwn(clip(answer.text, MAX_ANSWER_CHARS))]
    if answer.notice:
        parts.append(f"_{safe_text(answer.notice)}_")
    if answer.citations:
        parts.append(sources_text(answer))
    return "\n\n".join(parts)


def answer_blocks(answer: Answer, *, feedback: bool = True, show_question: bool = False) -> list[dict[str, Any]]:
    """Block Kit for an answer: the question (for private replies, which do not echo it), text, sources, 👍/👎."""
    blocks: list[dict[str, Any]] = []
    if show_question:
        blocks.append(_context(f"*Q:* {safe_text(clip(answer.question, 500))}"))
    blocks += [_section(part) for part in split(to_mrkdwn(clip(answer.text, MAX_ANSWER_CHARS)), SECTION_LIMIT)]
    if answer.notice:
        blocks.append(_context(f"_{safe_text(clip(answer.notice, 1000))}_"))
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
