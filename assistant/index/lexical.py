"""The lexical index of one generation: BM25 (bm25s) and document frequencies, saved once and loaded at start.

Tokenising every chunk and building BM25 is most of what opening a large index costs, and it gives the same
result for the same generation every time. So it is saved under the generation's name, by the writer after a
sync and by any reader that finds it missing, and loaded by every later start. The key also holds
`TOKENIZER_VERSION`, so a changed tokenizer never reads an index built by the old one (an edit of text.py
that tokenises alike keeps every saved index), and the saved index records the chunk ids it was built from, in
order. Where it is kept: `assistant.index.generation_cache`.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from assistant.index.generation_cache import cache_folder, ids_digest, written
from assistant.model.records import Chunk
from assistant.text.words import strip_markup, tokens

if TYPE_CHECKING:
    from assistant.runtime.settings import Settings

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
            return cls(bm25, {}, 0, ids_digest(chunks))
        bm25.index(corpus, show_progress=False)
        return cls(bm25, _frequencies(bm25), len(corpus), ids_digest(chunks))

    def save(self, folder: Path) -> None:
        try:
            with written(folder) as tmp:
                if self.documents:
                    self.bm25.save(str(tmp), show_progress=False)
                meta = {"format": _FORMAT, "documents": self.documents, "ids": self.ids}
                (tmp / _META).write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
        except OSError as e:  # a full disk, say: the next start builds it again
            logger.warning("could not save the lexical index to %s: %s", folder, e)

    @classmethod
    def load(cls, folder: Path, chunks: Sequence[Chunk]) -> LexicalIndex | None:
        """The saved index, or None when it is missing, damaged or not built from `chunks` in this order."""
        try:
            meta = json.loads((folder / _META).read_text(encoding="utf-8"))
            ids = ids_digest(chunks)
            if meta.get("format") != _FORMAT or meta.get("documents") != len(chunks) or meta.get("ids") != ids:
                return None
            if not chunks:
                return cls(_bm25s().BM25(), {}, 0, ids)
            bm25 = _bm25s().BM25.load(str(folder), show_progress=False)  # read whole: see assistant.index.vectors
            if int(bm25.scores["num_docs"]) != len(chunks):
                return None
            return cls(bm25, _frequencies(bm25), len(chunks), ids)
        except (OSError, ValueError, KeyError, TypeError) as e:
            if not isinstance(e, FileNotFoundError):
                logger.warning("rebuilding the lexical index: %s is unreadable (%s)", folder, e)
            return None

    def scores(self, query_tokens: list[str]) -> np.ndarray:
        return self.bm25.get_scores(query_tokens)


# The BM25 index saved with each generation is keyed by this: bump it whenever `text.tokens` or `index_text`
# return something else for the same chunk (tests/test_lexical.py pins their output on a sample and fails until).
TOKENIZER_VERSION = 1


def index_text(chunk: Chunk) -> str:
    """What the model and BM25 see: where the chunk sits, then its readable text without code. A changelog's
    chunk says its product and release there too, as a release's own notes do in their title."""
    where = f"{chunk.product} {chunk.version}\n" if chunk.kind == "changelog" and chunk.version else ""
    return f"{chunk.title}\n{where}{chunk.section}\n{strip_markup(chunk.text, keep_code=False, keep_refs=False)}"


class TermStats(Protocol):
    """Corpus statistics the checks and the answerer weigh terms with (the retriever provides them)."""

    def idf(self, token: str) -> float: ...

    def knows(self, token: str) -> bool: ...


def lexical_index(settings: Settings, generation: str, chunks: Sequence[Chunk]) -> LexicalIndex:
    """The generation's lexical index: loaded when saved, else built and saved for the next start."""
    folder = cache_folder(settings, "lexical", lexical_key(generation))
    found = LexicalIndex.load(folder, chunks)
    if found is not None:
        return found
    built = LexicalIndex.build(chunks)
    built.save(folder)
    return built


def _frequencies(bm25: Any) -> dict[str, int]:
    """Each token's document frequency: its column's entries in the BM25 matrix (a BM25 score is never 0
    where the token occurs). bm25s adds the empty token to every vocabulary; it is no word."""
    counts = np.diff(np.asarray(bm25.scores["indptr"]))
    return {token: int(counts[i]) for token, i in bm25.vocab_dict.items() if token}


def lexical_key(generation: str) -> str:
    """The saved lexical index's name for `generation` under the current tokenizer."""
    return f"{generation}-t{TOKENIZER_VERSION}"


def _bm25s() -> Any:
    import bm25s

    # bm25s sets its own logger to DEBUG on import; put it back under the app's logging config.
    logging.getLogger("bm25s").setLevel(logging.NOTSET)
    return bm25s


def bm25_idf(documents: int, df: int) -> float:
    """BM25's rarity of a token that `df` of `documents` chunks hold; `df=0` gives the rarest a token can be."""
    return math.log(1 + (documents - df + 0.5) / (df + 0.5))
