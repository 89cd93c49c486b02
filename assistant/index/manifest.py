"""Where the manifest lives: the record naming the live generation and what the last sync saw.

Writing it is the one atomic step that makes a generation live: a file renamed over the old one in a folder,
a single record upserted on a Chroma server (so replicas on other machines need nothing but the URL).
"""

from __future__ import annotations

import json
import logging
import os
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

logger = logging.getLogger(__name__)

MANIFEST = "manifest.json"
META_COLLECTION = "reldocs-meta"
_RECORD = "manifest"


@dataclass
class Manifest:
    """What the live generation holds; `files` maps each indexed source to its content hash."""

    collection: str
    model: str
    chunker: int
    files: dict[str, str] = field(default_factory=dict)
    errors: dict[str, dict[str, str]] = field(default_factory=dict)  # source -> {"hash", "error"}
    warnings: list[dict[str, str]] = field(default_factory=list)  # [{"file", "field", "problem"}], metadata fixed
    # [{"file", "product", "releases", "release_from"}] per indexed file, for `ingest --json` without a read
    documents: list[dict[str, Any]] = field(default_factory=list)
    chunks: int = 0
    built_at: float = 0.0


class ManifestStore(Protocol):
    """Reads and swaps the manifest; `stamp` is called on every question, so it must stay cheap."""

    def read(self) -> Manifest | None: ...

    def write(self, manifest: Manifest) -> None: ...

    def stamp(self) -> str: ...

    def forget(self) -> None:
        """Drop what was cached from a connection that failed."""


def _parsed(text: str) -> Manifest | None:
    try:
        return Manifest(**json.loads(text))
    except (ValueError, TypeError) as e:
        logger.warning("ignoring unreadable index manifest: %s", e)
        return None


def _text(manifest: Manifest) -> str:
    return json.dumps(asdict(manifest), indent=1, sort_keys=True)


class FileManifest:
    """`manifest.json` in the index folder; read without loading Chroma (an unchanged sync stays instant)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def read(self) -> Manifest | None:
        try:
            return _parsed((self.folder / MANIFEST).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except OSError as e:
            logger.warning("ignoring unreadable index manifest: %s", e)
            return None

    def write(self, manifest: Manifest) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / f".{MANIFEST}.tmp"
        tmp.write_text(_text(manifest), encoding="utf-8")
        os.replace(tmp, self.folder / MANIFEST)  # the atomic step that makes a generation live

    def stamp(self) -> str:
        try:
            return str((self.folder / MANIFEST).stat().st_mtime_ns)
        except OSError:
            return ""

    def forget(self) -> None:
        """Nothing is cached."""


class ChromaManifest:
    """One record of the `reldocs-meta` collection on the server: the manifest JSON as its document.

    The collection has no embedding function and the record a constant one-number vector: nothing here is
    searched, and Chroma's default function would download a model.
    """

    def __init__(self, client: Callable[[], Any]) -> None:
        self._client = client
        self._collection: Any = None

    def read(self) -> Manifest | None:
        got = self._get(["documents"])
        docs = got["documents"] if got else []
        return _parsed(docs[0]) if docs and docs[0] else None

    def write(self, manifest: Manifest) -> None:
        col = self._meta(create=True)
        # One record upserted is all-or-nothing on the server: readers see the old generation or the new one.
        col.upsert(
            ids=[_RECORD],
            documents=[_text(manifest)],
            metadatas=[{"stamp": f"{time.time_ns()}-{uuid.uuid4().hex[:12]}"}],
            embeddings=[[1.0]],
        )

    def stamp(self) -> str:
        got = self._get(["metadatas"])
        metas = got["metadatas"] if got else []
        return str((metas[0] or {}).get("stamp", "")) if metas else ""

    def forget(self) -> None:
        """Drop the cached collection handle (after a reconnect, or when the collection was recreated)."""
        self._collection = None

    def _get(self, include: list[str]) -> dict[str, Any] | None:
        from chromadb.errors import NotFoundError

        try:
            col = self._meta(create=False)
            return None if col is None else col.get(ids=[_RECORD], include=include)
        except NotFoundError:  # dropped by hand since it was opened: read it afresh next time
            self._collection = None
            return None

    def _meta(self, *, create: bool) -> Any:
        from chromadb.errors import NotFoundError

        if self._collection is None:
            client = self._client()
            if create:
                self._collection = client.get_or_create_collection(META_COLLECTION, embedding_function=None)
            else:
                try:
                    self._collection = client.get_collection(META_COLLECTION, embedding_function=None)
                except NotFoundError:
                    return None
        return self._collection
