"""A generation's chunks kept as one local file, so a start reads them without asking Chroma.

Reading 1,300 chunks back from Chroma costs a client, its import (0.4 s) and a paged `get`; 100,000 chunks take
over 7 s of `get` alone. A generation never changes once written (a sync writes a new one under a new name), so
its chunks, saved once in reading order by the writer (or by the first reader that lacks them), stay right for
as long as the generation does. JSON, not pickle: a file in the index folder is never code. A damaged or
foreign file is read from Chroma again.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from assistant.index.generation_cache import cache_folder, written
from assistant.index.store import META_FIELDS
from assistant.model.changes import dumps as dump_changes
from assistant.model.changes import loads as load_changes
from assistant.model.document import dumps, loads
from assistant.model.records import Chunk

if TYPE_CHECKING:
    from assistant.index.manifest import Manifest
    from assistant.runtime.settings import Settings

logger = logging.getLogger(__name__)

_FILE = "chunks.json"
_FORMAT = 1


def cached_chunks(settings: Settings, manifest: Manifest) -> list[Chunk] | None:
    """The generation's chunks as saved, in reading order; None when they are not (or not wholly) there."""
    path = cache_folder(settings, "chunks", manifest.collection) / _FILE
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        rows = saved["chunks"]
        if saved.get("format") != _FORMAT or saved.get("generation") != manifest.collection:
            return None
        if manifest.chunks and len(rows) != manifest.chunks:
            return None
        return [_chunk(*row) for row in rows]
    except (OSError, ValueError, KeyError, TypeError) as e:
        if not isinstance(e, FileNotFoundError):
            logger.warning("reading the chunks from the index again: %s is unreadable (%s)", path, e)
        return None


def save_chunks(settings: Settings, generation: str, chunks: Sequence[Chunk]) -> None:
    """Keep a generation's chunks for the next start; a failure only costs reading them from Chroma."""
    rows = [
        [c.id, c.text, *(getattr(c, f) for f in META_FIELDS), dumps(c.entries), dump_changes(c.changes)] for c in chunks
    ]
    try:
        with written(cache_folder(settings, "chunks", generation)) as tmp:
            data = {"format": _FORMAT, "generation": generation, "chunks": rows}
            (tmp / _FILE).write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    except OSError as e:
        logger.warning("could not save the chunks of %s: %s", generation, e)


def _chunk(id: str, text: str, *fields: str) -> Chunk:
    """A saved row: id, text, the text fields in `META_FIELDS` order, then entries and changes as JSON."""
    if len(fields) != len(META_FIELDS) + 2 or not all(isinstance(f, str) for f in (id, text, *fields)):
        raise TypeError("a saved chunk row has the wrong shape")
    *meta, entries, changes = fields
    return Chunk(
        id, text, **dict(zip(META_FIELDS, meta, strict=True)), entries=loads(entries), changes=load_changes(changes)
    )
