"""The index on disk: Chroma collections, one per generation, and a manifest naming the live one.

A sync writes a complete new generation and then swaps the manifest with an atomic rename, so a crash
or kill mid-ingest leaves the previous generation live and usable.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from assistant.changes import dumps as dump_changes
from assistant.changes import loads as load_changes
from assistant.document import dumps, loads
from assistant.errors import IndexNotReady
from assistant.models import Chunk

logger = logging.getLogger(__name__)

MANIFEST = "manifest.json"
_META_FIELDS = ("source", "title", "product", "version", "kind", "section", "language", "url")
_ADD_BATCH = 1000
_PAGE = 5000  # rows per get(): well under SQLite's limit on variables in one statement


@dataclass
class Manifest:
    """What the live generation holds; `files` maps each indexed source to its content hash."""

    collection: str
    model: str
    chunker: int
    files: dict[str, str] = field(default_factory=dict)
    errors: dict[str, dict[str, str]] = field(default_factory=dict)  # source -> {"hash", "error"}
    warnings: list[dict[str, str]] = field(default_factory=list)  # [{"file", "field", "problem"}], metadata fixed
    chunks: int = 0
    built_at: float = 0.0


class ChunkStore:
    """Chroma on disk under `path/chroma`; the manifest under `path/manifest.json`."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._client: Any = None

    # -- reading ---------------------------------------------------------------------------------
    def stamp(self) -> float:
        """Changes whenever a sync makes a new generation live (cheap: one stat)."""
        try:
            return (self.path / MANIFEST).stat().st_mtime_ns
        except OSError:
            return 0.0

    def manifest(self) -> Manifest | None:
        try:
            data = json.loads((self.path / MANIFEST).read_text(encoding="utf-8"))
            return Manifest(**data)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, TypeError) as e:
            logger.warning("ignoring unreadable index manifest: %s", e)
            return None

    @property
    def client(self) -> Any:
        if self._client is None:
            import chromadb
            from chromadb.config import Settings as ChromaSettings

            self.path.mkdir(parents=True, exist_ok=True)
            self._client = chromadb.PersistentClient(
                path=str(self.path / "chroma"), settings=ChromaSettings(anonymized_telemetry=False)
            )
        return self._client

    def collection(self, manifest: Manifest | None = None) -> Any:
        manifest = manifest or self.manifest()
        if manifest is None:
            raise IndexNotReady(f"no index at {self.path}; run `python app.py ingest`")
        try:
            return self.client.get_collection(manifest.collection)
        except Exception as e:  # chromadb raises NotFoundError or ValueError depending on version
            raise IndexNotReady(f"index at {self.path} is damaged ({e}); run `python app.py ingest --rebuild`") from e

    def load_chunks(self, manifest: Manifest | None = None) -> list[Chunk]:
        """Every chunk of the live generation, in document order."""
        col = self.collection(manifest)
        got: dict[str, list] = {"ids": [], "documents": [], "metadatas": []}
        # Paged: one get() of a 100k-chunk collection exceeds SQLite's limit on query variables.
        for offset in range(0, col.count(), _PAGE):
            page = col.get(include=["documents", "metadatas"], limit=_PAGE, offset=offset)
            for key in got:
                got[key].extend(page[key])
        chunks = [
            Chunk(
                id=i,
                text=doc or "",
                **{k: str((meta or {}).get(k, "")) for k in _META_FIELDS},
                entries=loads(str((meta or {}).get("entries", ""))),
                changes=load_changes(str((meta or {}).get("changes", ""))),
            )
            for i, doc, meta in zip(got["ids"], got["documents"], got["metadatas"], strict=True)
        ]
        order = {i: int((m or {}).get("ordinal", 0)) for i, m in zip(got["ids"], got["metadatas"], strict=True)}
        return sorted(chunks, key=lambda c: (c.source, order[c.id]))

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
        res = self.collection(manifest).query(
            query_embeddings=vector.reshape(1, -1), n_results=k, where=where, include=["distances"]
        )
        return [(i, 1.0 - float(d)) for i, d in zip(res["ids"][0], res["distances"][0], strict=True)]

    # -- writing ---------------------------------------------------------------------------------
    def embeddings(self, ids: Iterable[str], manifest: Manifest) -> dict[str, np.ndarray]:
        """Stored vectors of the live generation, to carry unchanged chunks over without re-embedding."""
        ids = list(ids)
        if not ids:
            return {}
        col = self.collection(manifest)
        out: dict[str, np.ndarray] = {}
        for start in range(0, len(ids), _PAGE):
            got = col.get(ids=ids[start : start + _PAGE], include=["embeddings"])
            out.update((i, np.asarray(v, dtype=np.float32)) for i, v in zip(got["ids"], got["embeddings"], strict=True))
        return out

    def write_generation(self, chunks: Sequence[Chunk], vectors: np.ndarray, manifest: Manifest) -> None:
        """Write all chunks into a fresh collection, then make it live atomically."""
        name = f"chunks-{time.strftime('%Y%m%d%H%M%S')}-{os.getpid()}-{time.monotonic_ns() % 10**6}"
        col = self.client.create_collection(name, configuration={"hnsw": HNSW})
        for start in range(0, len(chunks), _ADD_BATCH):
            part = chunks[start : start + _ADD_BATCH]
            col.add(
                ids=[c.id for c in part],
                documents=[c.text for c in part],
                metadatas=[
                    # Entries and changes as JSON strings: Chroma's metadata values are scalars.
                    {
                        **{k: getattr(c, k) for k in _META_FIELDS},
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
        self.write_manifest(manifest)
        self.drop_stale(keep=name)

    def write_manifest(self, manifest: Manifest) -> None:
        tmp = self.path / f".{MANIFEST}.tmp"
        tmp.write_text(json.dumps(asdict(manifest), indent=1, sort_keys=True), encoding="utf-8")
        os.replace(tmp, self.path / MANIFEST)  # the atomic step that makes a generation live

    def drop_stale(self, *, keep: str) -> None:
        """Delete collections of older or interrupted generations."""
        for col in self.client.list_collections():
            name = col if isinstance(col, str) else col.name
            if name != keep and name.startswith("chunks-"):
                self.client.delete_collection(name)


# Chroma's defaults (16 neighbours, ef 100) missed a passage ranked 2nd by exact cosine in 1 of 3 builds of the
# shared corpus under a version filter; with a denser graph searched wider, both rebuilds measured found it.
# A generation keeps the settings it was written with: an existing index gets these on `ingest --rebuild`.
HNSW = {"space": "cosine", "ef_construction": 200, "ef_search": 200, "max_neighbors": 32}


def _within(name: str, values: list[str]) -> dict[str, Any]:
    return {name: values[0]} if len(values) == 1 else {name: {"$in": values}}
