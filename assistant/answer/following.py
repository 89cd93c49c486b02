"""The rest of a section the best passages stop short of.

Chunks are small, so a change and its fix often fall in neighbouring chunks of one section: "The `copy`
keyword … is deprecated" and a list of methods in one, "… so it can be safely removed from your code" in the
next. The question's words (and so the search) meet the first; the answer is in the second. The chunk that
follows each of the best passages in its section is read with them, at the score of the passage it follows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assistant.model.records import Chunk, Passage
from assistant.tuning import DEFAULT, Tuning


def with_following(
    passages: Sequence[Passage], chunks: Sequence[Chunk], position: Mapping[str, int], tuning: Tuning = DEFAULT
) -> list[Passage]:
    """`passages`, then the chunk after each of the first few (`tuning.answer.following_from`) when it continues
    the same section of the same document and is not among them already. `chunks` are in reading order,
    `position` maps an id to its index."""
    out = list(passages)
    have = {p.chunk.id for p in passages}
    for passage in passages[: tuning.answer.following_from]:
        nxt = next_in_section(passage.chunk, chunks, position)
        if nxt is None or nxt.id in have:
            continue
        have.add(nxt.id)
        out.append(Passage(nxt, passage.score))
    return out


def next_in_section(chunk: Chunk, chunks: Sequence[Chunk], position: Mapping[str, int]) -> Chunk | None:
    """The chunk after `chunk` when it continues the same section of the same document."""
    i = position.get(chunk.id)
    if i is None or i + 1 >= len(chunks):
        return None
    nxt = chunks[i + 1]
    return nxt if nxt.source == chunk.source and nxt.section == chunk.section else None
