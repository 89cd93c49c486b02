"""Exact dense search in memory gives Chroma's neighbours, filters as Chroma does, and is kept per generation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from assistant.generation_cache import cache_folder
from assistant.knowledge_base import KnowledgeBase
from assistant.settings import Settings
from assistant.vectors import ExactVectors, exact_vectors
from ingest import sync

QUESTIONS = ("why does torchrun no longer use port 29500?", "Quel optimiseur supporte fused=True ?", "CUDA 12.6")


def test_exact_search_finds_chromas_neighbours_with_the_same_filters(kb: KnowledgeBase) -> None:
    r = kb.retriever
    assert isinstance(r.vectors, ExactVectors)  # what the knowledge base searches with
    version = r.chunks[0].version
    for question in QUESTIONS:
        vector = r.embedder.encode([question])[0]
        for only in ({}, {"versions": [version]}, {"products": [r.chunks[0].product]}, {"versions": ["9.9"]}):
            exact = r.vectors.query(vector, 5, **only)
            chroma = r.store.query(vector, 5, manifest=r.manifest, **only)
            assert [i for i, _ in exact] == [i for i, _ in chroma], (question, only)
            assert np.allclose([s for _, s in exact], [s for _, s in chroma], atol=1e-5)
            assert all(r.chunks[r.by_id[i]].version == version for i, _ in exact if "versions" in only)


def test_the_writer_saves_the_vectors_and_a_start_loads_them(
    settings: Settings, kb: KnowledgeBase, embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = cache_folder(settings, "vectors", kb.retriever.manifest.collection)
    assert (folder / "vectors.npy").is_file()  # written by the sync that built the session's index

    def no_fetch(*_: object, **__: object) -> None:
        raise AssertionError("the vectors were fetched from Chroma at start")

    monkeypatch.setattr(type(kb.retriever.store), "embeddings", no_fetch)
    again = KnowledgeBase.open(settings, embedder=embedder)
    assert np.array_equal(again.retriever.vectors.matrix, kb.retriever.vectors.matrix)
    assert again.ask(QUESTIONS[0]).text == kb.ask(QUESTIONS[0]).text


def test_missing_or_damaged_vectors_are_fetched_again(corpus_copy: Path, tmp_path: Path, embedder) -> None:
    settings = Settings(corpus_dir=corpus_copy, data_dir=tmp_path / "data")
    sync(settings, progress=False, embedder=embedder)
    kb = KnowledgeBase.open(settings, embedder=embedder)
    r = kb.retriever
    folder = cache_folder(settings, "vectors", r.manifest.collection)
    (folder / "vectors.npy").write_bytes(b"not numpy")
    fetched = exact_vectors(settings, r.store, r.manifest, r.chunks)
    assert fetched is not None and np.allclose(fetched.matrix, r.vectors.matrix)
    assert exact_vectors(settings, r.store, r.manifest, r.chunks[::-1]).ids == [c.id for c in r.chunks[::-1]]
    assert np.load(folder / "vectors.npy").shape == (len(r.chunks), 384)  # saved again, in the new order
