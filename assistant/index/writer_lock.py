"""One writer at a time: an ingest holds the writer lock from reading the old manifest to swapping in the new.

In a folder the lock is `fcntl.flock` on `.writer.lock`: the kernel releases it when the process dies, even
by `kill -9`. On a Chroma server there is no compare-and-set, but creating a collection whose name is taken
fails atomically on the server: the lock is the `reldocs-writer` collection, its metadata a lease that the
holder renews every third of `writer_lease_s` and that anyone may break once it has expired.

The race accepted on the server: two writers that both find an expired lease may both break it, and the
second to break it deletes the first one's fresh lock. Each holder checks that the lock collection is still
the one it created (same id) when it renews and again just before making its generation live, so the loser
stops before its swap; what is left is the window between that last check and the swap (milliseconds, and
only after a holder went silent for a whole lease). Leases compare wall clocks, so the writers' clocks must
agree to well within `writer_lease_s`.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from assistant.index.chroma_server import already_exists
from assistant.model.errors import WriterBusy

if TYPE_CHECKING:
    from assistant.index.store import ChunkStore
    from assistant.runtime.settings import Settings

logger = logging.getLogger(__name__)

LOCK_FILE = ".writer.lock"
LOCK_COLLECTION = "reldocs-writer"
_POLL_S = 0.25
NAME_WAIT_S = 1.0  # the holder writes its name right after taking the lock; a loser waits this long to read it


class WriterLock(Protocol):
    """Held with `with`; `confirm()` raises `WriterBusy` when the lock was lost (the server's lease broken)."""

    def __enter__(self) -> WriterLock: ...

    def __exit__(self, *exc: object) -> None: ...

    def confirm(self) -> None: ...


def writer_lock(store: ChunkStore, settings: Settings) -> WriterLock:
    """The lock of the index `store` writes to."""
    if store.remote:
        return LeaseLock(store, wait_s=settings.writer_wait_s, lease_s=settings.writer_lease_s)
    return FileLock(store.path, wait_s=settings.writer_wait_s)


def _me() -> str:
    return f"pid {os.getpid()} on {socket.gethostname()}"


def _busy(where: object, holder: str) -> WriterBusy:
    return WriterBusy(
        f"another ingest ({holder}) is writing the index at {where}; try again when it is done, "
        "or set RELDOCS_WRITER_WAIT_S to wait for it"
    )


def _say_waiting(holder: str, where: object, wait_s: float) -> None:
    """One line when an ingest starts waiting for another, so a command that seems to hang says why."""
    logger.warning("another ingest (%s) is writing the index at %s; waiting up to %g s for it", holder, where, wait_s)


class FileLock:
    """`flock` on a file in the index folder; the file's text names the holder for the message."""

    def __init__(self, folder: Path, *, wait_s: float) -> None:
        self.folder, self.wait_s = folder, wait_s
        self._fd: int | None = None

    def __enter__(self) -> FileLock:
        import fcntl

        self.folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + self.wait_s
        waited = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = _holder_of(fd)
                    os.close(fd)
                    raise _busy(self.folder, holder) from None
                if not waited:
                    _say_waiting(_holder_of(fd), self.folder, self.wait_s)
                waited = True
                time.sleep(_POLL_S)
        os.ftruncate(fd, 0)
        os.pwrite(fd, _me().encode(), 0)
        self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing releases the flock
            self._fd = None

    def confirm(self) -> None:
        """A flock cannot be taken away while held."""


def _holder_of(fd: int) -> str:
    """The name the lock's holder writes just after taking it: read again for a moment while it is not there yet
    (an ingest started at the same instant may find the lock taken and its file still empty)."""
    deadline = time.monotonic() + NAME_WAIT_S
    while True:
        holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
        if holder or time.monotonic() >= deadline:
            return holder or "unknown"
        time.sleep(0.01)


class LeaseLock:
    """The `reldocs-writer` collection on the server, with an expiring lease renewed by a daemon thread."""

    def __init__(self, store: ChunkStore, *, wait_s: float, lease_s: float) -> None:
        self.store, self.wait_s, self.lease_s = store, wait_s, lease_s
        self._id: Any = None
        self._lost = threading.Event()
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None

    def __enter__(self) -> LeaseLock:
        deadline = time.monotonic() + self.wait_s
        waited = False
        while not self._try():
            if time.monotonic() >= deadline:
                raise _busy(self.store.where, self._holder())
            if not waited:
                _say_waiting(self._holder(), self.store.where, self.wait_s)
            waited = True
            time.sleep(_POLL_S)
        self._beat = threading.Thread(target=self._renew, name="writer-lease", daemon=True)
        self._beat.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._beat is not None:
            self._beat.join(timeout=5)
        try:
            if self._mine():
                self.store.client.delete_collection(LOCK_COLLECTION)
        except Exception as e:  # the lease expires by itself
            logger.warning("could not release the writer lock: %s", e)

    def confirm(self) -> None:
        with self.store.reaching():
            mine = not self._lost.is_set() and self._mine()
        if not mine:
            raise WriterBusy(
                f"this ingest lost the writer lock on {self.store.where} (its lease expired and another "
                "ingest took over); the previous generation stays live, run ingest again"
            )

    def _lease(self) -> dict[str, Any]:
        return {"holder": _me(), "expires": time.time() + self.lease_s}

    def _try(self) -> bool:
        for _ in range(2):  # a second go right after breaking an expired lease
            with self.store.reaching():
                try:
                    metadata = self._lease()
                    created = self.store.client.create_collection(
                        LOCK_COLLECTION, metadata=metadata, embedding_function=None
                    )
                    self._id = created.id
                    return True
                except Exception as e:
                    if not already_exists(e):
                        raise
                if not self._break_expired():
                    return False
        return False

    def _break_expired(self) -> bool:
        held = self._current()
        if held is None:
            return True  # released meanwhile
        if float((held.metadata or {}).get("expires", 0)) >= time.time():
            return False
        # Re-read just before breaking it: a lock renewed or replaced since is left alone.
        again = self._current()
        if again is None or again.id != held.id:
            return again is None
        logger.warning("breaking an expired writer lock (%s)", (held.metadata or {}).get("holder"))
        self.store.client.delete_collection(LOCK_COLLECTION)
        return True

    def _current(self) -> Any:
        from chromadb.errors import NotFoundError

        try:
            return self.store.client.get_collection(LOCK_COLLECTION, embedding_function=None)
        except NotFoundError:
            return None

    def _mine(self) -> bool:
        held = self._current()
        return held is not None and held.id == self._id

    def _holder(self) -> str:
        try:
            held = self._current()
        except Exception:
            return "unknown"
        return str((held.metadata or {}).get("holder", "unknown")) if held is not None else "unknown"

    def _renew(self) -> None:
        while not self._stop.wait(self.lease_s / 3):
            try:
                held = self._current()
                if held is None or held.id != self._id:
                    logger.error("the writer lock was taken over; this ingest will not make its generation live")
                    self._lost.set()
                    return
                held.modify(metadata=self._lease())
            except Exception as e:  # a blip: the next beat tries again, the lease has two more beats to go
                logger.warning("could not renew the writer lock: %s", e)
