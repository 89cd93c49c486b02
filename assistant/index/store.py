"""The index: Chroma collections, one per generation, and a manifest naming the live one.

A sync writes a complete new generation and then swaps the manifest atomically, so a crash or kill
mid-ingest leaves the previous generation live and usable. The index is a local folder by default, or a
Chroma server (`RELDOCS_CHROMA_URL`) that several replicas share; see `assistant/index/chroma_server.py`.
"""

from __future__ import annotations

import itertools
import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from assistant.index.chroma_server import Folder, Location, location, unreachable
from assistant.index.manifest import MANIFEST, Manifest, ManifestStore
from assistant.model.changes import dumps as dump_changes
from assistant.model.changes import loads as load_changes
from assistant.model.document import dumps, loads
from assistant.model.errors import IndexNotReady, IndexUnavailable
from assistant.model.records import Chunk

if TYPE_CHECKING:
    from assistant.runtime.settings import Settings

__all__ = ["MANIFEST", "ChunkStore", "Manifest"]

logger = logging.getLogger(__name__)

GENERATION_PREFIX = "chunks-"
META_FIELDS = (
    "source",
    "title",
    "product",
    "version",
    "kind",
    "section",
    "language",
    "url",
    "release_from",
)  # Chunk's text fields
TEXT_FIELD = "text"
_ADD_BATCH = 1000
_PAGE = 5000  # rows per get(): well under SQLite's limit on variables in one statement


class ChunkStore:
    """The index in a folder (`path/chroma` and `path/manifest.json`) or on a Chroma server."""

    def __init__(self, where: str | Path | Location) -> None:
        self.where: Location = Folder(Path(where)) if isinstance(where, str | Path) else where
        self._client: Any = None
        self._live: Any = None  # the last collection looked up, dropped with the client
        self.manifests: ManifestStore = self.where.manifests(lambda: self.client)

    @classmethod
    def open(cls, settings: Settings) -> ChunkStore:
        """The store `settings` name: the Chroma server when `chroma_url` is set, else the index folder."""
        return cls(location(settings))

    @property
    def path(self) -> Path:
        """The index folder (folder mode), where the writer lock and Slack claims live too."""
        if not isinstance(self.where, Folder):
            raise AttributeError(f"the index at {self.where} has no folder")
        return self.where.path

    @property
    def remote(self) -> bool:
        return self.where.remote

    @contextmanager
    def reaching(self) -> Iterator[None]:
        """Turn a server that does not answer into `IndexUnavailable`, and reconnect on the next call."""
        try:
            yield
        except IndexUnavailable:
            self._disconnect()
            raise
        except Exception as e:
            fault = self.where.fault(e)
            if fault is None:
                raise
            self._disconnect()
            raise fault from e

    def _disconnect(self) -> None:
        self._client = None
        self._live = None
        self.manifests.forget()

    # -- reading ---------------------------------------------------------------------------------
    def stamp(self) -> str:
        """Changes whenever a sync makes a new generation live (cheap: a stat, or one small get)."""
        with self.reaching():
            return self.manifests.stamp()

    def manifest(self) -> Manifest | None:
        with self.reaching():
            return self.manifests.read()

    @property
    def client(self) -> Any:
        if self._client is None:
            with self.reaching():
                self._client = self.where.connect()
        return self._client

    def collection(self, manifest: Manifest | None = None) -> Any:
        manifest = manifest or self.manifest()
        if manifest is None:
            raise IndexNotReady(f"no index at {self.where}; run `python app.py ingest`")
        if self._live is not None and self._live.name == manifest.collection:
            return self._live  # one lookup per generation, not one per question
        with self.reaching():
            try:
                self._live = self.client.get_collection(manifest.collection)
                return self._live
            except Exception as e:  # chromadb raises NotFoundError or ValueError depending on version
                if unreachable(e):
                    raise
                where = self.where
                raise IndexNotReady(f"index at {where} is damaged ({e}); run `python app.py ingest --rebuild`") from e

    def load_chunks(self, manifest: Manifest | None = None) -> list[Chunk]:
        """Every chunk of the live generation, in document order."""
        col = self.collection(manifest)
        got: dict[str, list] = {"ids": [], "documents": [], "metadatas": []}
        with self.reaching():
            # Paged: one get() of a 100k-chunk collection exceeds SQLite's limit on query variables.
            for offset in range(0, col.count(), _PAGE):
                page = col.get(include=["documents", "metadatas"], limit=_PAGE, offset=offset)
                for key in got:
                    got[key].extend(page[key])
        chunks = [
            Chunk(
                id=i,
                text=str((meta or {}).get(TEXT_FIELD) or doc or ""),  # a generation written before held documents
                **{k: str((meta or {}).get(k, "")) for k in META_FIELDS},
                entries=loads(str((meta or {}).get("entries", ""))),
                changes=load_changes(str((meta or {}).get("changes", ""))),
            )
            for i, doc, meta in zip(got["ids"], got["documents"], got["metadatas"], strict=True)
        ]
        keys = [(c.source, int((m or {}).get("ordinal", 0))) for c, m in zip(chunks, got["metadatas"], strict=True)]
        if all(a <= b for a, b in itertools.pairwise(keys)):  # a sync writes them in this order: nothing to sort
            return chunks
        return [c for _, c in sorted(zip(keys, chunks, strict=True), key=lambda kc: kc[0])]

    def query(
        self,
        vector: np.ndarray,
        k: int,
        *,
        versions: Sequence[str] | None = None,
        products: Sequence[str] | None = None,
        manifest: Manifest | None = None,
    ) -> list[tuple[str, float]]:
        """Nearest chunk ids with cosine similarity, optionally within some versions and products."""
        clauses = [
            _within(name, list(values)) for name, values in (("version", versions), ("product", products)) if values
        ]
        where: dict[str, Any] | None = None
        if clauses:
            where = clauses[0] if len(clauses) == 1 else {"$and": clauses}
        col = self.collection(manifest)
        with self.reaching():
            res = col.query(query_embeddings=vector.reshape(1, -1), n_results=k, where=where, include=["distances"])
        return [(i, 1.0 - float(d)) for i, d in zip(res["ids"][0], res["distances"][0], strict=True)]

    # -- writing ---------------------------------------------------------------------------------
    def embeddings(self, ids: Iterable[str], manifest: Manifest) -> dict[str, np.ndarray]:
        """Stored vectors of the live generation, to carry unchanged chunks over without re-embedding."""
        ids = list(ids)
        if not ids:
            return {}
        col = self.collection(manifest)
        out: dict[str, np.ndarray] = {}
        with self.reaching():
            for start in range(0, len(ids), _PAGE):
                got = col.get(ids=ids[start : start + _PAGE], include=["embeddings"])
                pairs = zip(got["ids"], got["embeddings"], strict=True)
                out.update((i, np.asarray(v, dtype=np.float32)) for i, v in pairs)
        return out

    def write_generation(
        self,
        chunks: Sequence[Chunk],
        vectors: np.ndarray,
        manifest: Manifest,
        *,
        before_live: Callable[[], None] = lambda: None,
    ) -> None:
        """Write all chunks into a fresh collection, then make it live atomically.

        `before_live` runs just before the swap (the writer lock confirms it is still held); raising there
        leaves the new collection an orphan for the next sync to drop, and the old generation live.
        """
        name = f"{GENERATION_PREFIX}{time.strftime('%Y%m%d%H%M%S')}-{os.getpid()}-{time.monotonic_ns() % 10**6}"
        with self.reaching():
            col = self.client.create_collection(name, configuration={"hnsw": HNSW})
            for start in range(0, len(chunks), _ADD_BATCH):
                part = chunks[start : start + _ADD_BATCH]
                col.add(
                    ids=[c.id for c in part],
                    metadatas=[
                        # Entries and changes as JSON strings: Chroma's metadata values are scalars. The text is
                        # metadata too, not a Chroma document, which Chroma would index for a full-text search
                        # nothing here makes (BM25 is ours): a third of the write's time.
                        {
                            **{k: getattr(c, k) for k in META_FIELDS},
                            TEXT_FIELD: c.text,
                            "entries": dumps(c.entries),
                            "changes": dump_changes(c.changes),
                            "ordinal": start + n,
                        }
                        for n, c in enumerate(part)
                    ],
                    embeddings=vectors[start : start + len(part)],
                )
        manifest.collection = name
        manifest.chunks = len(chunks)
        manifest.built_at = time.time()
        before_live()
        self.write_manifest(manifest)
        self.drop_stale(keep=name)

    def write_manifest(self, manifest: Manifest) -> None:
        with self.reaching():
            self.manifests.write(manifest)

    def drop_stale(self, *, keep: str) -> None:
        """Delete collections of older or interrupted generations (only the writer holding the lock calls this)."""
        with self.reaching():
            for col in self.client.list_collections():
                name = col if isinstance(col, str) else col.name
                if name != keep and name.startswith(GENERATION_PREFIX):
                    logger.info("dropping stale generation %s", name)
                    self.client.delete_collection(name)


# Chroma's defaults (16 neighbours, ef 100) missed a passage ranked 2nd by exact cosine in 1 of 3 builds of the
# shared corpus under a version filter; with a denser graph searched wider, both rebuilds measured found it.
# A generation keeps the settings it was written with: an existing index gets these on `ingest --rebuild`.
HNSW = {"space": "cosine", "ef_construction": 200, "ef_search": 200, "max_neighbors": 32}


def _within(name: str, values: list[str]) -> dict[str, Any]:
    return {name: values[0]} if len(values) == 1 else {name: {"$in": values}}
