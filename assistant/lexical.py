"""The lexical index of one generation: BM25 (bm25s) and document frequencies, saved once and loaded at start.

Tokenising every chunk and building BM25 is most of what opening a large index costs, and it gives the same
result for the same generation every time. So it is saved under the generation's name, by the writer after a
sync and by any reader that finds it missing, and loaded (memory-mapped) by every later start. The key also
holds a digest of the tokenizer's source, so a changed tokenizer never reads an index built by the old one.
A folder index keeps it beside the Chroma folder; on a Chroma server each replica keeps its own copy in its
data folder (the server holds vectors and records, not files).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from assistant import text
from assistant.models import Chunk
from assistant.text import index_text, tokens

if TYPE_CHECKING:
    from assistant.settings import Settings

logger = logging.getLogger(__name__)

_FORMAT = 1
_META = "reldocs.json"


@dataclass(frozen=True)
class LexicalIndex:
    """BM25 over a generation's chunks (in their order), and each token's document frequency."""

    bm25: Any
    df: dict[str, int]
    documents: int
    ids: str = ""  # digest of the chunk ids in order: BM25 knows documents by position only

    @classmethod
    def build(cls, chunks: Sequence[Chunk]) -> LexicalIndex:
        bm25 = _bm25s().BM25()
        corpus = [tokens(index_text(c)) for c in chunks]
        if not corpus:
            return cls(bm25, {}, 0, _digest(chunks))
        bm25.index(corpus, show_progress=False)
        return cls(bm25, _frequencies(bm25), len(corpus), _digest(chunks))

    def save(self, folder: Path) -> None:
        """Written into a temporary folder then renamed into place: a reader sees all of it or none."""
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
        try:
            if self.documents:
                self.bm25.save(str(tmp), show_progress=False)
            meta = {"format": _FORMAT, "documents": self.documents, "ids": self.ids}
            (tmp / _META).write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
            os.replace(tmp, folder)
        except OSError as e:  # another process saved it first (the folder exists), or the disk is full
            shutil.rmtree(tmp, ignore_errors=True)
            if not (folder / _META).is_file():
                logger.warning("could not save the lexical index to %s: %s", folder, e)

    @classmethod
    def load(cls, folder: Path, chunks: Sequence[Chunk]) -> LexicalIndex | None:
        """The saved index, or None when it is missing, damaged or not built from `chunks` in this order."""
        try:
            meta = json.loads((folder / _META).read_text(encoding="utf-8"))
            ids = _digest(chunks)
            if meta.get("format") != _FORMAT or meta.get("documents") != len(chunks) or meta.get("ids") != ids:
                return None
            if not chunks:
                return cls(_bm25s().BM25(), {}, 0, ids)
            bm25 = _bm25s().BM25.load(str(folder), mmap=True, show_progress=False)
            if int(bm25.scores["num_docs"]) != len(chunks):
                return None
            return cls(bm25, _frequencies(bm25), len(chunks), ids)
        except (OSError, ValueError, KeyError, TypeError) as e:
            if not isinstance(e, FileNotFoundError):
                logger.warning("rebuilding the lexical index: %s is unreadable (%s)", folder, e)
            return None

    def scores(self, query_tokens: list[str]) -> np.ndarray:
        return self.bm25.get_scores(query_tokens)


def lexical_index(settings: Settings, generation: str, chunks: Sequence[Chunk]) -> LexicalIndex:
    """The generation's lexical index: loaded when saved, else built and saved for the next start."""
    folder = _folder(settings, generation)
    found = LexicalIndex.load(folder, chunks)
    if found is not None:
        return found
    built = LexicalIndex.build(chunks)
    shutil.rmtree(folder, ignore_errors=True)  # a damaged or stale save of this name: replaced, not kept
    built.save(folder)
    _drop_others(folder)
    return built


def _folder(settings: Settings, generation: str) -> Path:
    if settings.chroma_url:
        root = settings.data_dir / "cache" / "lexical" / f"{settings.chroma_tenant}-{settings.chroma_database}"
    else:
        root = settings.index_path / "lexical"
    return root / f"{generation}-{_tokenizer_digest()}"


def _drop_others(keep: Path) -> None:
    """Older generations' indexes: nothing reads them once a newer generation is live."""
    for other in keep.parent.iterdir():
        if other != keep and other.is_dir() and not other.name.startswith("."):  # not another writer's work
            shutil.rmtree(other, ignore_errors=True)


def _frequencies(bm25: Any) -> dict[str, int]:
    """Each token's document frequency: its column's entries in the BM25 matrix (a BM25 score is never 0
    where the token occurs). bm25s adds the empty token to every vocabulary; it is no word."""
    counts = np.diff(np.asarray(bm25.scores["indptr"]))
    return {token: int(counts[i]) for token, i in bm25.vocab_dict.items() if token}


def _digest(chunks: Sequence[Chunk]) -> str:
    return hashlib.sha256("\n".join(c.id for c in chunks).encode()).hexdigest()


@cache
def _tokenizer_digest() -> str:
    return hashlib.sha256(Path(text.__file__).read_bytes()).hexdigest()[:12]


def _bm25s() -> Any:
    import bm25s

    # bm25s sets its own logger to DEBUG on import; put it back under the app's logging config.
    logging.getLogger("bm25s").setLevel(logging.NOTSET)
    return bm25s
