"""The live generation of the index as the read side holds it: its chunks, lexical index and vectors.

Each is read from the cache files of that generation when present (`chunk_cache`, `lexical`, `vectors`), and
built (and saved) from the store otherwise. Moved from the facade, which loads one at open and at each reload.
"""

from __future__ import annotations

from dataclasses import dataclass

from assistant.index.chunk_cache import cached_chunks, save_chunks
from assistant.index.lexical import LexicalIndex, lexical_index
from assistant.index.store import ChunkStore, Manifest
from assistant.index.vectors import ExactVectors, exact_vectors
from assistant.model.records import Chunk
from assistant.runtime.settings import Settings


@dataclass(frozen=True)
class Generation:
    """One generation's chunks in reading order, its lexical index, and its vectors (None: query the store)."""

    manifest: Manifest
    chunks: list[Chunk]
    lexical: LexicalIndex
    vectors: ExactVectors | None


def load_generation(settings: Settings, store: ChunkStore, manifest: Manifest | None) -> Generation:
    """The live generation's chunks, with its saved lexical index and vectors (built or fetched if missing);
    raises `IndexNotReady` when the store holds none."""
    chunks = cached_chunks(settings, manifest) if manifest is not None else None
    if chunks is None:
        chunks = store.load_chunks(manifest)
        assert manifest is not None  # load_chunks raised otherwise
        save_chunks(settings, manifest.collection, chunks)
    assert manifest is not None  # load_chunks raised otherwise
    return Generation(
        manifest,
        chunks,
        lexical_index(settings, manifest.collection, chunks),
        exact_vectors(settings, store, manifest, chunks),
    )
