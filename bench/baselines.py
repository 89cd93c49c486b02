"""What a user would build instead of reldocs, and the retrieval metrics all systems are scored with.

Each baseline is a drop-in retriever for `KnowledgeBase`: the same query parsing, refusal gate and
ExtractiveAnswerer run on top of it, so only retrieval differs between "ours" and a baseline. Term
statistics (idf, known symbols) that the gate and the answerer weigh with come from the real index.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Sequence
from typing import Any

import numpy as np

from assistant.embed.embedder import Embedder
from assistant.index.lexical import index_text
from assistant.knowledge_base import KnowledgeBase
from assistant.model.query import Query
from assistant.model.records import Passage
from assistant.search.retrieval import HybridRetriever
from assistant.text.words import tokens
from assistant.tuning import DEFAULT
from bench.evaluate import normalize


def rank_score(rank: int) -> float:
    """A single ranking's reciprocal-rank score (0-based rank), the scale the fused scores have."""
    return 1.0 / (DEFAULT.search.rrf_k + rank + 1)


class _Baseline:
    """Everything but `search` is the real retriever's: term statistics, versions, chunks, store."""

    def __init__(self, hybrid: HybridRetriever) -> None:
        self.hybrid = hybrid

    def __getattr__(self, name: str) -> Any:
        if name == "hybrid":  # not set yet (copying): no recursion
            raise AttributeError(name)
        return getattr(self.hybrid, name)


class DenseBaseline(_Baseline):
    """Nearest neighbours of the raw question in the persisted Chroma collection, with the same model and chunks:
    what a vector-store `similarity_search` (langchain-chroma's, say) returns. Chroma is asked directly: reldocs
    keeps chunk text in metadata, not as Chroma documents, and langchain-chroma drops results without one."""

    def __init__(self, hybrid: HybridRetriever, embedder: Embedder) -> None:
        super().__init__(hybrid)
        self.embedder = embedder

    def search(self, query: Query, k: int, timings: dict[str, float] | None = None) -> list[Passage]:
        """The k nearest chunks."""
        started = time.perf_counter()
        vector = self.embedder.encode([query.question])[0]
        # The similarity is what the refusal gate reads.
        hits = self.store.query(vector, k, versions=query.versions or None, manifest=self.manifest)
        if timings is not None:
            timings["dense"] = (time.perf_counter() - started) * 1e3
        found = [(self.chunks[self.by_id[i]], sim) for i, sim in hits if i in self.by_id]
        return [Passage(c, rank_score(rank), similarity=sim) for rank, (c, sim) in enumerate(found)]


class BM25Baseline(_Baseline):
    """bm25s over the same chunks with the project's tokenizer, and nothing else."""

    def __init__(self, hybrid: HybridRetriever) -> None:
        super().__init__(hybrid)
        import bm25s

        logging.getLogger("bm25s").setLevel(logging.NOTSET)
        self.bm25 = bm25s.BM25()
        self.bm25.index([tokens(index_text(c)) for c in self.chunks], show_progress=False)
        self._version_of = np.array([c.version for c in self.chunks], dtype=object)

    def search(self, query: Query, k: int, timings: dict[str, float] | None = None) -> list[Passage]:
        """The k best BM25 chunks."""
        started = time.perf_counter()
        toks = tokens(query.question)
        if not toks or not self.chunks:
            return []
        scores = self.bm25.get_scores(toks)
        if query.versions:
            scores = np.where(np.isin(self._version_of, query.versions), scores, 0.0)
        top = [int(i) for i in np.argsort(-scores)[:k] if scores[i] > 0]
        if timings is not None:
            timings["lexical"] = (time.perf_counter() - started) * 1e3
        return [Passage(self.chunks[i], rank_score(r), bm25=float(scores[i])) for r, i in enumerate(top)]


def baseline_kb(kb: KnowledgeBase, kind: str, embedder: Embedder) -> KnowledgeBase:
    """A KnowledgeBase like `kb` whose retrieval is replaced by the 'dense' or 'bm25' baseline."""
    hybrid = kb.retriever
    retriever = DenseBaseline(hybrid, embedder) if kind == "dense" else BM25Baseline(hybrid)
    return KnowledgeBase(kb.settings, retriever)  # type: ignore[arg-type]  # duck-typed retriever


# -- metrics -------------------------------------------------------------------------------------


def first_hit(sources: Sequence[str], expected: Collection[str]) -> int | None:
    """1-based rank of the first retrieved source that is expected; None when none is."""
    return next((rank for rank, source in enumerate(sources, start=1) if source in expected), None)


def recall_at(ranks: Sequence[int | None], k: int) -> float:
    """Share of questions with an expected source in the top k."""
    return sum(r is not None and r <= k for r in ranks) / len(ranks) if ranks else 0.0


def mrr_at(ranks: Sequence[int | None], k: int) -> float:
    """Mean reciprocal rank of the first expected source, counting ranks beyond k as misses."""
    return sum(1.0 / r for r in ranks if r is not None and r <= k) / len(ranks) if ranks else 0.0


def retrieval_quality(
    search: Callable[[str, str | None], Sequence[Passage]], questions: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """recall@5 and MRR@10 over the answerable questions, of the expected source and of the evidence.

    A passage is evidence when its text holds one of the question's `must_contain` phrases: finer than
    the source file, of which a corpus has few.
    """
    ranks: dict[str, int | None] = {}
    evidence: dict[str, int | None] = {}
    for q in questions:
        if q["answerable"] and q["sources"]:
            passages = list(search(q["question"], q.get("version")))[:10]
            ranks[q["id"]] = first_hit([p.chunk.source for p in passages], set(q["sources"]))
            phrases = [normalize(m) for m in q["must_contain"]]
            holds = ["yes" if any(m in normalize(p.chunk.text) for m in phrases) else "" for p in passages]
            evidence[q["id"]] = first_hit(holds, {"yes"})
    hits, found = list(ranks.values()), list(evidence.values())
    return {
        "recall@5": recall_at(hits, 5),
        "mrr@10": mrr_at(hits, 10),
        "evidence_recall@5": recall_at(found, 5),
        "evidence_mrr@10": mrr_at(found, 10),
        "n": len(hits),
        "ranks": ranks,
        "evidence_ranks": evidence,
    }
