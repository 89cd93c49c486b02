"""The benchmark's baselines over the real index: each retrieves and answers, so a comparison with them means
something (a dense baseline finding nothing once scored 0 on every set and went unnoticed)."""

from __future__ import annotations

import pytest

from assistant.embed.embedder import Embedder
from assistant.knowledge_base import KnowledgeBase
from assistant.understand.query import build_query
from bench.baselines import DenseBaseline, baseline_kb

QUESTION = "What is the minimum CUDA version to build PyTorch 2.12 from source?"


@pytest.mark.parametrize("kind", ["dense", "bm25"])
def test_a_baseline_retrieves_and_answers_from_the_index(kb: KnowledgeBase, embedder: Embedder, kind: str) -> None:
    baseline = baseline_kb(kb, kind, embedder)
    passages = baseline.retriever.search(build_query(QUESTION, kb.retriever.catalog), 5)
    assert len(passages) == 5 and any("CUDA" in p.chunk.text for p in passages)
    if kind == "dense":  # the refusal gate reads a cosine similarity, best first
        sims = [p.similarity for p in passages]
        assert all(s is not None and 0.0 < s <= 1.0 for s in sims) and sims == sorted(sims, reverse=True)
    assert baseline.ask(QUESTION).found


def test_the_dense_baseline_honours_a_version_filter(kb: KnowledgeBase, embedder: Embedder) -> None:
    dense = DenseBaseline(kb.retriever, embedder)
    version = kb.versions()[0]
    query = build_query(QUESTION, kb.retriever.catalog, version=version)
    assert {p.chunk.version for p in dense.search(query, 5)} == {version}
