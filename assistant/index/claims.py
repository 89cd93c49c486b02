"""First to claim a key wins, across every process that shares the index (Slack replicas de-duplicate with it).

In a folder: a SQLite table beside the index, one transaction per claim. On a Chroma server: one collection
per key, since creating a collection whose name is taken fails atomically on the server (adding a record
whose id exists is silently ignored, so records cannot do this).
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from assistant.index.chroma_server import already_exists

if TYPE_CHECKING:
    from assistant.index.store import ChunkStore

logger = logging.getLogger(__name__)

CLAIMS_FILE = "claims.sqlite3"
CLAIM_PREFIX = "reldocs-claim-"
KEEP_S = 86_400.0  # Slack retries within minutes; a day's claims are plenty
_PRUNE_EVERY_S = 3600.0


class Claims(Protocol):
    """`claim(keys)` is True for exactly one caller per key, whichever process asks first."""

    def claim(self, keys: Sequence[str]) -> bool: ...


def shared_claims(store: ChunkStore) -> Claims:
    """The claims every replica of `store`'s index sees."""
    return ChromaClaims(store) if store.remote else SqliteClaims(store.path / CLAIMS_FILE)


class SqliteClaims:
    """A `claims` table; `BEGIN IMMEDIATE` makes check-and-insert one step for every process on the machine."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._pruned = 0.0

    def claim(self, keys: Sequence[str]) -> bool:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        now = time.time()
        con = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        try:
            con.execute("CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, at REAL NOT NULL)")
            con.execute("BEGIN IMMEDIATE")
            taken = any(con.execute("SELECT 1 FROM claims WHERE key = ?", (k,)).fetchone() for k in keys)
            if not taken:
                con.executemany("INSERT INTO claims VALUES (?, ?)", [(k, now) for k in keys])
            if now - self._pruned > _PRUNE_EVERY_S:
                con.execute("DELETE FROM claims WHERE at < ?", (now - KEEP_S,))
                self._pruned = now
            con.execute("COMMIT")
            return not taken
        finally:
            con.close()


class ChromaClaims:
    """A collection named after each key's hash; its creation is the claim."""

    def __init__(self, store: ChunkStore) -> None:
        self.store = store
        self._pruned = 0.0
        self._lock = threading.Lock()

    def claim(self, keys: Sequence[str]) -> bool:
        client = self.store.client
        with self.store.reaching():
            # Keys in the caller's order: of two replicas, whoever creates the first key's collection wins.
            for key in keys:
                name = CLAIM_PREFIX + hashlib.sha256(key.encode()).hexdigest()[:40]
                try:
                    client.create_collection(name, metadata={"at": time.time()}, embedding_function=None)
                except Exception as e:
                    if already_exists(e):
                        return False
                    raise
            self._prune(client)
        return True

    def _prune(self, client: object) -> None:
        with self._lock:
            now = time.time()
            if now - self._pruned < _PRUNE_EVERY_S:
                return
            self._pruned = now
        for col in client.list_collections():  # type: ignore[attr-defined]
            if col.name.startswith(CLAIM_PREFIX) and float((col.metadata or {}).get("at", now)) < now - KEEP_S:
                try:
                    client.delete_collection(col.name)  # type: ignore[attr-defined]
                except Exception as e:  # another replica pruned it first
                    logger.debug("claim %s already pruned: %s", col.name, e)
