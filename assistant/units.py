"""Readable units of a chunk: the sentences and list entries an answer quotes, and a chunk as a quote."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from assistant.models import Chunk
from assistant.query import translate_french
from assistant.text import sentences, strip_markup, tokens

QUOTE_CHARS = 600
_FENCE_BLOCK = re.compile(r"^\s*(`{3,}|~{3,}).*?^\s*\1\s*$", re.MULTILINE | re.DOTALL)
_BULLET = re.compile(r"^\s*(?:[-*+●•]|\d{1,3}[.)])\s*")
_LABEL = re.compile(r"^\s*[✓✔➜→]\s*(\w+(?: \w+)?):?\s*$", re.MULTILINE)  # "✓Solution" on a line of its own
# A heading that states a change ("… now raises `NotImplementedError` …"), not a topic ("Release Engineering").
_HEADLINE = re.compile(
    r"^(?=(?:\S+\s+){3,})(?=.*\b(?:is|are|was|were|now|no longer|removed?|added|changed?|fails?|deprecated|raises?|"
    r"switched|renamed|moved|requires?|default|dropped|replaced|supports?)\b)"
)
HEADING_ENTRY = -1  # a sentence-like heading leads every entry under it
# An instruction: an imperative ("Use X", "To keep Y, set Z"), a "should/must", or a bare "instead".
_DIRECTIVE = re.compile(
    r"^(?:to [^,]{3,60},\s*)?(?:please\s+)?(?:use|call|set|pass|import|migrate|replace|update|install|enable|"
    r"disable|remove|switch|wrap|add|opt|build|upgrade|downgrade|move|rename)\b"
    r"|\b(?:should|must|need to|please)\b|\binstead\b(?!\s+of)"
    # The fix stated as what to use: "X may be used", "is recommended", "in favour of Y", "replaced by Y".
    r"|\b(?:may|can) be (?:used|passed|called|set)\b|\brecommended\b|\bin fav(?:ou|o)r of\b|\breplaced (?:by|with)\b",
    re.IGNORECASE,
)
_LIST_MARK = re.compile(r"^[ \t]*(?:[-*+•●]|\d{1,3}[.)])[ \t]+", re.MULTILINE)
_GLUED_NUMBER = re.compile(r"^\d{1,2}(?=[A-Z])")  # "1If building…" from a flattened numbered list


@dataclass(frozen=True)
class Unit:
    """A sentence or list entry: the smallest piece of a passage an answer quotes."""

    text: str
    tokens: frozenset[str]
    lead: bool  # first sentence of a list entry or paragraph: usually its summary
    entry: int = 0  # which list entry (or top-level paragraph) of the chunk it belongs to
    # A French question's terms are weighed in English (glossary words translated); a French sentence is
    # matched against them the same way. Other questions see `tokens`, the sentence's own words.
    glossed: frozenset[str] | None = None

    @property
    def directive(self) -> bool:
        """Tells the reader what to do ("Use X instead", "Call .item()"): the answer to a how-question."""
        return bool(_DIRECTIVE.search(self.text))


@lru_cache(maxsize=8192)
def units_of(chunk: Chunk) -> tuple[Unit, ...]:
    """Readable sentences of a chunk, code blocks and 'Version 2.11:' labels left out."""
    text = _FENCE_BLOCK.sub("\n", chunk.text)
    out: list[Unit] = []
    paragraph: list[str] = []
    entry = 0
    heading = chunk.section.rsplit(" › ", 1)[-1]

    def unit(text: str, lead: bool, entry: int) -> Unit:
        glossed = frozenset(tokens(translate_french(text))) if chunk.language == "fr" else None
        return Unit(text, frozenset(tokens(text)), lead, entry, glossed)

    if _HEADLINE.search(heading) and ": " not in heading:
        # Some notes put the whole change in a `###` heading ("…now raises `NotImplementedError`…").
        out.append(unit(heading, True, HEADING_ENTRY))

    def flush() -> None:
        if paragraph:
            for i, sentence in enumerate(sentences(strip_markup(" ".join(paragraph)))):
                if len(sentence) >= 15 and not (sentence.endswith(":") and len(sentence) < 60):
                    out.append(unit(sentence, i == 0, entry))
            paragraph.clear()

    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped or _LABEL.match(stripped):
            flush()  # "✓Solution" heads the next sentences; it is not part of them
        elif _BULLET.match(line) and not stripped.startswith("`") and not re.match(r"\*\S", stripped):
            # "* entry" is a bullet; "*emphasis*" at the start of a line is not
            flush()
            entry += 1
            paragraph.append(_GLUED_NUMBER.sub("", _BULLET.sub("", line).strip()))
        else:
            if not paragraph and not line.startswith((" ", "\t")):
                entry += 1  # an unindented paragraph starts an entry; indented ones continue a list entry
            paragraph.append(stripped)
    flush()
    return tuple(out)


def excerpt(chunk: Chunk, around: str = "", limit: int = QUOTE_CHARS) -> str:
    """The passage as readable text, cut to `limit` characters while keeping `around` inside."""
    text = strip_markup(_FENCE_BLOCK.sub(" ", chunk.text))
    text = _LABEL.sub(r"\1:", text)
    text = _LIST_MARK.sub("", text)  # the quote reads as prose: entries joined, their bullets gone
    text = re.sub(r"\s*\n\s*", " ", text)
    if len(text) <= limit:
        return text
    start = max(0, text.find(around) - 80) if around and text.find(around) > limit - len(around) else 0
    cut = text[start : start + limit].rsplit(" ", 1)[0]
    return ("…" if start else "") + cut + "…"
