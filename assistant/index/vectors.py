"""Dense search in memory: the generation's vectors as one matrix, searched with a matrix product.

Chroma's HNSW query costs about 1.3 ms per question on a few thousand chunks (5 ms with a product filter,
over 100 ms with a version filter at 100,000 chunks, where it filters through its metadata store), while the
exact product over the same 3,000 × 384 matrix costs 0.2 ms on one core, with no approximation. So the
matrix answers every search within some versions or products (the product over the rows selected costs in
proportion to them), and every search of an index up to `EXACT_MAX` chunks. A search of the whole of a
larger index goes to Chroma's HNSW, which is unfiltered there and stays fast (one core multiplies 100,000 ×
384 in about 11 ms, Chroma's index answers in 2). The matrix is saved with each generation (by the writer,
or fetched once from Chroma by a reader that lacks it) and read at start; above `MATRIX_MAX` chunks it is not
kept and Chroma serves alone. Same contract as `ChunkStore.query`, so the retriever calls whichever it has.

BLAS runs on one thread: its worker threads keep spinning after each product and halved the speed of the
query encoder's own threads (onnxruntime), which costs far more than a multi-threaded product saves.

The matrix is column-major where it serves whole-index searches (up to `EXACT_MAX` chunks): the query encoder
streams its 90 MB of weights just before, so the matrix comes from memory, and one core searches it from there in
about two thirds of the time column-major (`bench/dense_layout.py`: 0.46 against 0.72 ms at 3,244 × 384). A
filter's few rows are copied out, which a column-major matrix does more slowly (0.27 against 0.21 ms for 5% of
the rows): above `EXACT_MAX`, where the matrix only serves filtered searches, it stays row-major.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from assistant.index.chunk_filter import ChunkFilter
from assistant.index.generation_cache import cache_folder, ids_digest, written
from assistant.model.records import Chunk

if TYPE_CHECKING:
    from assistant.index.store import ChunkStore, Manifest
    from assistant.runtime.settings import Settings

logger = logging.getLogger(__name__)

EXACT_MAX = 20_000  # one core multiplies 20,000 × 384 in about 1 ms, as long as Chroma's HNSW query takes
MATRIX_MAX = 250_000  # 384 MB of float32 vectors: beyond that the memory is not worth a faster filtered search
# Selecting fewer rows than this share copies them out; more, the whole product is cheaper. A column-major
# matrix's rows are scattered, so copying them out pays only for very few.
GATHER_SHARE = {"row": 0.25, "column": 0.05}
_MATRIX, _META = "vectors.npy", "vectors.json"


class ExactVectors:
    """Cosine similarity against every chunk (vectors are unit length), within optional versions/products;
    a search of the whole of an index larger than `EXACT_MAX` is handed to `whole` (Chroma's HNSW)."""

    def __init__(
        self,
        matrix: np.ndarray,
        chunks: Sequence[Chunk],
        *,
        whole: ChunkStore | None = None,
    ) -> None:
        _one_blas_thread()
        self.matrix = laid_out(matrix)
        self.ids = [c.id for c in chunks]
        self.filter = ChunkFilter(chunks)  # the retriever filters its BM25 scores with it too
        self.whole = whole if len(chunks) > EXACT_MAX else None

    def query(
        self,
        vector: np.ndarray,
        k: int,
        *,
        versions: Sequence[str] | None = None,
        products: Sequence[str] | None = None,
        manifest: Any = None,
    ) -> list[tuple[str, float]]:
        """The k nearest chunk ids with their cosine similarity, best first."""
        rows = self.filter.rows(versions, products)
        if rows is None and self.whole is not None:
            return self.whole.query(vector, k, manifest=manifest)
        v = np.asarray(vector, dtype=np.float32).reshape(-1)
        if rows is None:
            rows, sims = np.arange(len(self.ids)), self.matrix @ v
        elif len(rows) < GATHER_SHARE["row" if self.matrix.flags.c_contiguous else "column"] * len(self.ids):
            sims = self.matrix[rows] @ v
        else:
            sims = (self.matrix @ v)[rows]
        best = np.arange(len(rows))
        if len(rows) > k:
            best = np.argpartition(-sims, k - 1)[:k]
        best = best[np.argsort(-sims[best], kind="stable")]
        return [(self.ids[rows[i]], float(sims[i])) for i in best]


def exact_vectors(
    settings: Settings,
    store: ChunkStore,
    manifest: Manifest,
    chunks: Sequence[Chunk],
) -> ExactVectors | None:
    """The generation's vectors for search in memory: loaded when saved, else fetched from Chroma and saved.
    None above `MATRIX_MAX` chunks, or when they cannot be had (Chroma's own search then serves)."""
    if not chunks or len(chunks) > MATRIX_MAX:
        return None
    folder = cache_folder(settings, "vectors", manifest.collection)
    matrix = _load(folder, chunks)
    if matrix is None:
        stored = store.embeddings([c.id for c in chunks], manifest)
        if len(stored) != len(chunks):
            logger.warning(
                "%d of %d chunks have no stored vector; dense search stays with Chroma",
                len(chunks) - len(stored),
                len(chunks),
            )
            return None
        matrix = laid_out(np.stack([stored[c.id] for c in chunks]))  # once, for the save and the search
        save_vectors(settings, manifest.collection, chunks, matrix)
    return ExactVectors(matrix, chunks, whole=store)


def save_vectors(settings: Settings, generation: str, chunks: Sequence[Chunk], matrix: np.ndarray) -> None:
    """Keep a generation's vectors (row i is chunk i) for the next start; a failure only costs a refetch."""
    if len(chunks) > MATRIX_MAX:
        return
    try:
        with written(cache_folder(settings, "vectors", generation)) as tmp:
            np.save(tmp / _MATRIX, laid_out(matrix))  # loaded as it is searched
            meta = {"ids": ids_digest(chunks), "rows": len(chunks)}
            (tmp / _META).write_text(json.dumps(meta), encoding="utf-8")
    except OSError as e:
        logger.warning("could not save the vectors of %s: %s", generation, e)


def laid_out(matrix: np.ndarray) -> np.ndarray:
    """The float32 matrix in the layout its searches read fastest (column-major up to `EXACT_MAX` rows)."""
    if len(matrix) <= EXACT_MAX:
        return np.asfortranarray(matrix, dtype=np.float32)
    return np.ascontiguousarray(matrix, dtype=np.float32)


@cache
def _one_blas_thread() -> None:
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")


def _load(folder: Any, chunks: Sequence[Chunk]) -> np.ndarray | None:
    try:
        meta = json.loads((folder / _META).read_text(encoding="utf-8"))
        if meta.get("rows") != len(chunks) or meta.get("ids") != ids_digest(chunks):
            return None
        # Read whole (at most 384 MB), not memory-mapped: a mapped file truncated under a running replica would
        # kill it with SIGBUS.
        matrix = np.load(folder / _MATRIX)
        return matrix if matrix.ndim == 2 and matrix.shape[0] == len(chunks) else None
    except (OSError, ValueError, KeyError, TypeError) as e:
        if not isinstance(e, FileNotFoundError):
            logger.warning("fetching the vectors again: %s is unreadable (%s)", folder, e)
        return None
