"""Readable units of a chunk: the sentences and list entries an answer quotes, and a chunk as a quote.

Both read the entries ingest parsed (`assistant.model.document`), never the chunk's Markdown: a chunk built without
them (by hand, in a test) is read as one paragraph."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import pairwise

from assistant.model.document import Entry
from assistant.model.records import Chunk
from assistant.text.french import translate_french
from assistant.text.words import sentences, strip_markup, tokens
from assistant.tuning import DEFAULT, Tuning

HEADING_ENTRY = -1  # a sentence-like heading leads every entry under it


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
    # The code block the sentence introduces ("… install additional dependencies:" then `pip install …`): the
    # last sentence of its entry, ending in a colon, with a code block right after the entry.
    shows: str = ""


def entries(chunk: Chunk) -> tuple[Entry, ...]:
    """The chunk's entries as ingest parsed them; without them (a chunk built by hand), its text as one paragraph."""
    return chunk.entries or (Entry("paragraph", strip_markup(re.sub(r"(?<!\s)\s*\n\s*", " ", chunk.text))),)


def numbered(parts: Sequence[Entry]) -> Iterator[tuple[int, Entry]]:
    """(entry number, part) of each part that is no code block, numbered as units carry `entry`: a list entry's
    further paragraphs keep its number."""
    entry = 0
    for part in parts:
        if part.kind != "code":
            entry += not part.continues
            yield entry, part


@lru_cache(maxsize=8192)
def units_of(chunk: Chunk, tuning: Tuning = DEFAULT) -> tuple[Unit, ...]:
    """The sentences of a chunk, code blocks left out; first a heading that states a change
    (`tuning.units.headline`)."""
    out: list[Unit] = []
    heading = chunk.section.rsplit(" › ", 1)[-1]
    tuned = tuning.units

    def unit(text: str, lead: bool, entry: int) -> Unit:
        glossed = None
        if chunk.language == "fr":  # matched as a French question's terms are weighed: in English
            glossed = frozenset(tokens(translate_french(text, tuning)))
        return Unit(text, frozenset(tokens(text)), lead, entry, glossed)

    if tuned.headline.search(heading) and ": " not in heading:
        # Some notes put the whole change in a `###` heading ("…now raises `NotImplementedError`…").
        out.append(unit(heading, True, HEADING_ENTRY))
    parts = entries(chunk)
    after = {id(a): b.text for a, b in pairwise(parts) if b.kind == "code"}  # the code right after a part
    for entry, part in numbered(parts):
        said = sentences(part.text)
        for i, sentence in enumerate(said):
            out.append(unit(sentence, i == 0, entry))
        if said and id(part) in after and out[-1].text.endswith(":"):
            out[-1] = replace(out[-1], shows=after[id(part)])
    return tuple(out)


def excerpt(chunk: Chunk, around: str = "", tuning: Tuning = DEFAULT) -> str:
    """The passage as readable text, cut to `tuning.units.quote_chars` characters while keeping `around` inside."""
    limit = tuning.units.quote_chars
    parts: list[str] = []
    label = ""
    for part in entries(chunk):
        if part.kind == "code":
            continue  # its label ("Version 2.11:") is the paragraph before it, quoted as such
        if part.label and part.label != label:
            parts.append(f"{part.label}:")  # "✓Solution" reads "Solution:" before what it heads
        label = part.label
        parts.append(part.text)  # the quote reads as prose: entries joined, their markers gone
    text = " ".join(p for p in parts if p)
    if len(text) <= limit:
        return text
    at = text.find(around) if around else -1
    # The window shows the quote with some of what leads to it, and ends with the text if the quote is near it.
    start = max(0, min(at - tuning.units.quote_lead_chars, len(text) - limit)) if at > limit - len(around) else 0
    cut = text[start : start + limit]
    if start + limit < len(text):
        cut = cut.rsplit(" ", 1)[0] + "…"
    if start:
        cut = "…" + cut.split(" ", 1)[-1]  # from a word's start
    return cut
