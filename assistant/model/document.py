"""The document model ingest builds and answering reads: a chunk's ordered entries, as readable prose.

Every format (Markdown, reStructuredText, HTML, plain text, changelogs) is parsed once, at ingest, into
paragraphs, list items and code; a `Chunk` carries them, the store persists them (`dumps`/`loads`, one JSON
string: Chroma metadata holds only scalars), and `assistant.model.units` reads them instead of parsing the chunk's
text again. `Chunk.text` stays the Markdown-flavoured text that embeddings, BM25 and prompts see.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Literal

logger = logging.getLogger(__name__)

Kind = Literal["paragraph", "item", "row", "code"]
KINDS: tuple[Kind, ...] = ("paragraph", "item", "row", "code")  # stored by position: only append


@dataclass(frozen=True)
class Entry:
    """One paragraph, list item (or a further paragraph of one), table row or code block of a chunk, in
    document order."""

    kind: Kind
    # Readable prose: no list marker, link targets or emphasis; `code` spans keep their backticks, as quotes
    # show them. A code entry holds the code itself, without its fence.
    text: str
    # The label line heading it ("✓Solution" is "Solution"), until the next one; a code block's label is the
    # line introducing it ("Version 2.11:").
    label: str = ""
    depth: int = 0  # list nesting: 0 for a top-level item or paragraph, 1 for an item nested in one, ...
    continues: bool = False  # a further (indented) paragraph of the entry before it, not an entry of its own


def dumps(entries: tuple[Entry, ...]) -> str:
    """Entries as compact JSON for one metadata field: `[kind, text]`, then label, depth, continues when set."""
    rows = []
    for e in entries:
        row: list[object] = [KINDS.index(e.kind), e.text, e.label, e.depth, int(e.continues)]
        while len(row) > 2 and not row[-1]:
            row.pop()
        rows.append(row)
    return json.dumps(rows, ensure_ascii=False, separators=(",", ":"))


def loads(data: str) -> tuple[Entry, ...]:
    """What `dumps` wrote; () for a missing or unreadable field (the chunk is then read as one paragraph)."""
    if not data:
        return ()
    try:
        return tuple(_entry(*row) for row in json.loads(data))
    except (ValueError, TypeError, IndexError) as e:
        logger.warning("ignoring unreadable chunk entries: %s", e)
        return ()


def _entry(kind: int, text: str, label: str = "", depth: int = 0, continues: int = 0) -> Entry:
    return Entry(KINDS[int(kind)], str(text), str(label), int(depth), bool(continues))
