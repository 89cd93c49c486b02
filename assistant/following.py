"""The rest of a section the best passages stop short of.

Chunks are small, so a change and its fix often fall in neighbouring chunks of one section: "The `copy`
keyword … is deprecated" and a list of methods in one, "… so it can be safely removed from your code" in the
next. The question's words (and so the search) meet the first; the answer is in the second. The chunk that
follows each of the best passages in its section is read with them, at the score of the passage it follows.

A changelog splits one change across its release's sections the same way: "### Deprecated: the `proxies`
argument is now deprecated", and under "### Added" of the same release, "You should use the `proxy` argument
instead of the deprecated `proxies`". For a how-question, the chunks of the best passage's release that name
what its change is about and tell the reader what to do are read with it too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assistant.instructions import instructs
from assistant.models import Chunk, Passage
from assistant.text import sentences

FOLLOWING_FROM = 3  # the best passages whose section's next chunk is read too
RELEASE_SPAN = 40  # chunks looked at on each side of a changelog passage, for the rest of its release


def with_following(
    passages: Sequence[Passage], chunks: Sequence[Chunk], position: Mapping[str, int], *, asks_how: bool = False
) -> list[Passage]:
    """`passages`, then the chunk after each of the first `FOLLOWING_FROM` when it continues the same section of
    the same document and is not among them already; for a how-question, then the fixes the best passage's
    changelog release gives (`release_fixes`). `chunks` are in reading order, `position` maps an id to its
    index."""
    out = list(passages)
    have = {p.chunk.id for p in passages}
    read = [(p, next_in_section(p.chunk, chunks, position)) for p in passages[:FOLLOWING_FROM]]
    if asks_how and passages:
        read += [(passages[0], fix) for fix in release_fixes(passages[0].chunk, chunks, position)]
    for passage, nxt in read:
        if nxt is None or nxt.id in have:
            continue
        have.add(nxt.id)
        out.append(Passage(nxt, passage.score))
    return out


def release_fixes(chunk: Chunk, chunks: Sequence[Chunk], position: Mapping[str, int]) -> list[Chunk]:
    """The other chunks of `chunk`'s release in a changelog that name a code name its changes are about in a
    sentence telling the reader what to do."""
    names = {s for change in chunk.changes for s in change.symbols}
    i = position.get(chunk.id)
    if chunk.kind != "changelog" or not names or i is None:
        return []
    lo, hi = max(0, i - RELEASE_SPAN), min(len(chunks), i + RELEASE_SPAN + 1)
    same = [c for c in chunks[lo:hi] if c.source == chunk.source and c.version == chunk.version and c.id != chunk.id]
    return [c for c in same if any(instructs(s) and any(n in s for n in names) for s in sentences(c.text))]


def next_in_section(chunk: Chunk, chunks: Sequence[Chunk], position: Mapping[str, int]) -> Chunk | None:
    """The chunk after `chunk` when it continues the same section of the same document."""
    i = position.get(chunk.id)
    if i is None or i + 1 >= len(chunks):
        return None
    nxt = chunks[i + 1]
    return nxt if nxt.source == chunk.source and nxt.section == chunk.section else None
