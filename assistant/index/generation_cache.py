"""Files derived from one index generation (its lexical index, its vectors), kept so a start loads them.

They live beside a folder index (`<index>/<kind>/`), or in a replica's data folder for an index on a Chroma
server (the server holds vectors and records, not files). Each is a folder named after the generation,
written whole under a temporary name and renamed into place, so a reader sees all of it or none; a
generation's files replace the older generations' ones.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from assistant.model.records import Chunk

if TYPE_CHECKING:
    from assistant.runtime.settings import Settings


def cache_folder(settings: Settings, kind: str, name: str) -> Path:
    """Where the `kind` files of the generation `name` are kept."""
    if settings.chroma_url:
        root = settings.data_dir / "cache" / kind / f"{settings.chroma_tenant}-{settings.chroma_database}"
    else:
        root = settings.index_path / kind
    return root / name


def ids_digest(chunks: Sequence[Chunk]) -> str:
    """The chunk ids in order: what files indexed by position must have been built from."""
    return hashlib.sha256("\n".join(c.id for c in chunks).encode()).hexdigest()


@contextmanager
def written(folder: Path) -> Iterator[Path]:
    """A temporary folder to fill; renamed to `folder` (replacing what was there) when the block ends, and
    the older generations' folders beside it deleted. An error leaves no trace."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        yield tmp
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(tmp, folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for other in folder.parent.iterdir():
        if other != folder and other.is_dir() and not other.name.startswith("."):  # not another writer's work
            shutil.rmtree(other, ignore_errors=True)
