"""👍/👎 feedback on answers, as JSON lines in the data folder (shared by all interfaces).

One line per vote on an answer by one voter (a browser session in the web UI, a user in Slack): voting again
on the same answer rewrites that line's vote in place, so a script clicking 👍 three hundred times leaves one
line. Each entry is bounded (long texts are cut, citations are capped) and so is the file: it rotates before
a line would take it past `max_bytes`, keeping `backups` older files. `entries()` reads them line by line.

How a repeated vote finds its line cheaply: every line starts with a fixed-width header, `{"vote": "up"  ,
"time": 1718900000.123, "key": "<32 hex>", …` (JSON allows the spaces), so a new vote overwrites those bytes
where they are. Each log keeps a map from key to line offset for the current file (so no more keys than the
capped file has lines), updated by reading only what was appended since it last looked, by this process or
another; the file's inode tells it when another process rotated. Writers (threads, and processes sharing the
data folder) take an `fcntl.flock` on a lock file beside the log, so appends, in-place votes and rotation
never interleave. A vote on an answer whose line was rotated away starts a new line in the current file.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from assistant.model.records import Answer

if TYPE_CHECKING:
    from assistant.runtime.settings import Settings

logger = logging.getLogger(__name__)

Vote = Literal["up", "down"]
VOTES: dict[str, str] = {"up": '"up"  ', "down": '"down"'}  # the same width, so a vote can change in place
DEFAULT_MAX_BYTES = 4 * 1024 * 1024
DEFAULT_BACKUPS = 3
# What one entry keeps at most: a line stays a few tens of kB, whatever the answer held.
QUESTION_CHARS = 2000
ANSWER_CHARS = 8000
MAX_CITATIONS = 10
QUOTE_CHARS = 600
URL_CHARS = 500
FIELD_CHARS = 200  # the other citation fields (title, section, source, …), the user and the channel
_KEY_CHARS = 32
_HEADER = re.compile(rb'\{"vote": "(?:up"  |down"), "time": [ \d.]{14}, "key": "([0-9a-f]{32})", ')


def answer_key(answer: Answer, channel: str, voter: str) -> str:
    """What makes two votes the same vote: the answer (its question and text) and who votes, where."""
    parts = (channel, voter, answer.question, answer.text)
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:_KEY_CHARS]


def _clip(text: Any, limit: int) -> Any:
    """`text` cut to at most `limit` characters (ending in '…' when cut); anything not a string as it is."""
    if not isinstance(text, str) or len(text) <= limit:
        return text
    return text[: limit - 1] + "…"


class FeedbackLog:
    """The feedback file at `path`: one line per (answer, voter), bounded in size, rotated, read incrementally."""

    def __init__(self, path: Path, *, max_bytes: int = DEFAULT_MAX_BYTES, backups: int = DEFAULT_BACKUPS) -> None:
        if max_bytes < 1 or backups < 0:
            raise ValueError("max_bytes must be positive and backups not negative")
        self.path = Path(path)
        self.max_bytes = max_bytes
        self.backups = backups
        self._lock = threading.Lock()
        # The current file as last seen: its inode, how far it was read, and where each key's line starts.
        self._inode: tuple[int, int] | None = None
        self._read_to = 0
        self._offsets: dict[str, int] = {}

    @classmethod
    def from_settings(cls, settings: Settings) -> FeedbackLog:
        """The log every interface writes to, with the size and rotation of `settings`."""
        return cls(settings.feedback_path, max_bytes=settings.feedback_max_bytes, backups=settings.feedback_backups)

    def record(
        self, answer: Answer, vote: Vote, *, channel: str, voter: str | None, user: str | None = None
    ) -> dict[str, Any]:
        """Store `voter`'s vote on `answer`: a new line the first time, the same line's vote after that.

        `voter` is who may hold one vote per answer: a web session, a Slack user (None counts as one
        anonymous voter). Returns the entry as stored.
        """
        if vote not in VOTES:
            raise ValueError(f"vote must be 'up' or 'down', not {vote!r}")
        key = answer_key(answer, channel, voter or "")
        now = time.time()
        header = _header(vote, now, key)
        entry = {
            "vote": vote,
            "time": now,
            "key": key,
            "channel": _clip(channel, FIELD_CHARS),
            "user": _clip(user, FIELD_CHARS),
            "question": _clip(answer.question, QUESTION_CHARS),
            "answer": _clip(answer.text, ANSWER_CHARS),
            "found": answer.found,
            "mode": _clip(answer.mode, FIELD_CHARS),
            "citations": [_citation(asdict(c)) for c in answer.citations[:MAX_CITATIONS]],
        }
        with self._lock, self._locked():
            self._catch_up()
            offset = self._offsets.get(key)
            if offset is not None and self._revote(offset, key, header):
                return entry
            rest = json.dumps({k: v for k, v in entry.items() if k not in ("vote", "time", "key")}, ensure_ascii=False)
            # A lone surrogate (JSON can carry one) is written as its \uXXXX escape, which JSON reads back.
            line = header + rest[1:].encode("utf-8", "backslashreplace") + b"\n"
            self._append(key, line)
        return entry

    def entries(self) -> Iterator[dict[str, Any]]:
        """Every stored vote, oldest file first, read one line at a time (a torn or foreign line is skipped)."""
        for path in self.files():
            try:
                f = path.open("rb")
            except FileNotFoundError:  # rotated away since it was listed
                continue
            with f:
                for raw in f:
                    try:
                        entry = json.loads(raw)
                    except ValueError:
                        continue
                    if isinstance(entry, dict):
                        yield entry

    def files(self) -> list[Path]:
        """The log's files that exist, oldest first: the rotated ones (`.N` … `.1`), then the current one."""
        names = [self._backup(n) for n in range(self.backups, 0, -1)] + [self.path]
        return [p for p in names if p.exists()]

    # -- writing, under the lock -------------------------------------------------------------------------

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path.with_name(self.path.name + ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, or when the process dies
            yield

    def _catch_up(self) -> None:
        """Index the lines appended since the last look (by this log or another process); start over when the
        file is a new one (rotated or removed)."""
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            self._inode, self._read_to, self._offsets = None, 0, {}
            return
        inode = (stat.st_dev, stat.st_ino)
        if inode != self._inode or stat.st_size < self._read_to:
            self._inode, self._read_to, self._offsets = inode, 0, {}
        if stat.st_size == self._read_to:
            return
        with self.path.open("rb") as f:
            f.seek(self._read_to)
            offset = self._read_to
            for raw in f:
                if not raw.endswith(b"\n"):  # a line being written by a process that died: leave it
                    break
                if match := _HEADER.match(raw):
                    self._offsets[match.group(1).decode()] = offset
                offset += len(raw)
            self._read_to = offset

    def _revote(self, offset: int, key: str, header: bytes) -> bool:
        """Overwrite the vote and time of `key`'s line at `offset`; False when that line is no longer there."""
        try:
            f = self.path.open("r+b")
        except FileNotFoundError:
            return False
        with f:
            f.seek(offset)
            match = _HEADER.match(f.read(len(header)))
            if match is None or match.group(1).decode() != key:
                del self._offsets[key]
                return False
            f.seek(offset)
            f.write(header)
        return True

    def _append(self, key: str, line: bytes) -> None:
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            size = 0
        if size and size + len(line) > self.max_bytes:
            self._rotate()
            size = 0
        torn = size > self._read_to  # the last line's writer died mid-line: end that line, so this one parses
        with self.path.open("ab") as f:
            f.write(b"\n" + line if torn else line)
        stat = self.path.stat()
        start = size + torn
        self._inode, self._offsets[key], self._read_to = (stat.st_dev, stat.st_ino), start, start + len(line)

    def _rotate(self) -> None:
        """`log.jsonl` becomes `log.jsonl.1`, `.1` becomes `.2`, … and the oldest beyond `backups` goes."""
        if self.backups == 0:
            self.path.unlink(missing_ok=True)
        else:
            self._backup(self.backups).unlink(missing_ok=True)
            for n in range(self.backups - 1, 0, -1):
                if self._backup(n).exists():
                    os.replace(self._backup(n), self._backup(n + 1))
            os.replace(self.path, self._backup(1))
        self._inode, self._read_to, self._offsets = None, 0, {}
        logger.info("feedback log reached %d bytes; rotated it", self.max_bytes)

    def _backup(self, n: int) -> Path:
        return self.path.with_name(f"{self.path.name}.{n}")


def _header(vote: Vote, when: float, key: str) -> bytes:
    # Fixed width: 14 characters hold a Unix time with milliseconds until the year 2286.
    return f'{{"vote": {VOTES[vote]}, "time": {when:14.3f}, "key": "{key}", '.encode()


def _citation(fields: dict[str, Any]) -> dict[str, Any]:
    limits = {"quote": QUOTE_CHARS, "url": URL_CHARS}
    return {name: _clip(value, limits.get(name, FIELD_CHARS)) for name, value in fields.items()}
