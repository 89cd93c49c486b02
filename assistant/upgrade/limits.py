"""The edges of what the scan reads: files over a size cap.

The scan reads at most a capped number of bytes of each file (CPython's parser takes some 100 MB per MB of
real code, and far more for pathological code: 880 KB of one-name statements, 800 MB): a larger file is named
and skipped, as one that does not parse is (`read_at_most`, `size_text` for the message).
"""

from __future__ import annotations

from pathlib import Path

from assistant.runtime.bounded import MB


def read_at_most(path: Path, limit: int | None) -> bytes | None:
    """The file's bytes, or None when it holds more than `limit` (of which no more than that is read)."""
    with path.open("rb") as f:
        data = f.read() if limit is None else f.read(limit + 1)
    return None if limit is not None and len(data) > limit else data


def size_text(n: int) -> str:
    """'1 MB', '500 KB', '10 bytes'."""
    return f"{n / MB:.3g} MB" if n >= MB else f"{n / 1024:.3g} KB" if n >= 1024 else f"{n} bytes"
