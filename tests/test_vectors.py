"""Exact dense search in memory gives Chroma's neighbours, filters as Chroma does, and is kept per generation."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from assistant.index import vectors
from assistant.index.chunk_filter import ChunkFilter
from assistant.index.generation_cache import cache_folder
from assistant.index.vectors import ExactVectors, exact_vectors
from assistant.knowledge_base import KnowledgeBase
from assistant.model.records import Chunk
from assistant.runtime.settings import Settings
from ingest import sync

QUESTIONS = ("why does torchrun no longer use port 29500?", "Quel optimiseur supporte fused=True ?", "CUDA 12.6")


# The fake embedder's vectors stand for the model's below: what is checked is how they are stored and searched.


def test_exact_search_finds_chromas_neighbours_with_the_same_filters(fake_kb: KnowledgeBase) -> None:
    r = fake_kb.retriever
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
    fake_settings: Settings, fake_kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = cache_folder(fake_settings, "vectors", fake_kb.retriever.manifest.collection)
    assert (folder / "vectors.npy").is_file()  # written by the sync that built the session's index

    def no_fetch(*_: object, **__: object) -> None:
        raise AssertionError("the vectors were fetched from Chroma at start")

    monkeypatch.setattr(type(fake_kb.retriever.store), "embeddings", no_fetch)
    again = KnowledgeBase.open(fake_settings)
    assert np.array_equal(again.retriever.vectors.matrix, fake_kb.retriever.vectors.matrix)
    assert again.ask(QUESTIONS[0]).text == fake_kb.ask(QUESTIONS[0]).text


def test_the_matrix_is_kept_in_the_layout_its_searches_read_fastest(
    fake_settings: Settings, fake_kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = fake_kb.retriever
    saved = np.load(cache_folder(fake_settings, "vectors", r.manifest.collection) / "vectors.npy")
    # Whole-index searches read it column-major; it is saved so, and loaded without a copy.
    assert r.vectors.matrix.flags.f_contiguous and not r.vectors.matrix.flags.c_contiguous
    assert saved.flags.f_contiguous and np.array_equal(saved, r.vectors.matrix)
    monkeypatch.setattr(vectors, "EXACT_MAX", 10)  # above it, filtered searches copy rows out: row-major
    large = ExactVectors(r.vectors.matrix, r.chunks, whole=r.store)
    assert large.matrix.flags.c_contiguous
    vector = r.embedder.encode([QUESTIONS[1]])[0]
    for only in ({"versions": [r.chunks[0].version]}, {"products": [r.chunks[0].product]}):
        ids = [i for i, _ in r.vectors.query(vector, 5, **only)]
        assert ids == [i for i, _ in large.query(vector, 5, manifest=r.manifest, **only)]


def test_missing_or_damaged_vectors_are_fetched_again(corpus_copy: Path, tmp_path: Path, fake_embedder) -> None:
    settings = Settings(corpus_dir=corpus_copy, data_dir=tmp_path / "data")
    sync(settings, progress=False, embedder=fake_embedder)
    kb = KnowledgeBase.open(settings, embedder=fake_embedder)
    r = kb.retriever
    folder = cache_folder(settings, "vectors", r.manifest.collection)
    (folder / "vectors.npy").write_bytes(b"not numpy")
    fetched = exact_vectors(settings, r.store, r.manifest, r.chunks)
    assert fetched is not None and np.allclose(fetched.matrix, r.vectors.matrix)
    assert exact_vectors(settings, r.store, r.manifest, r.chunks[::-1]).ids == [c.id for c in r.chunks[::-1]]
    assert np.load(folder / "vectors.npy").shape == (len(r.chunks), 384)  # saved again, in the new order


def _chunk(i: int, product: str, version: str) -> Chunk:
    return Chunk(f"c{i}", "text", f"{product}/{version}/notes.md", "Notes", product, version, "release-notes", "")


FILTERED = [
    _chunk(i, p, v) for i, (p, v) in enumerate([("a", "1.0"), ("b", "1.0"), ("a", "2.0"), ("a", "1.0"), ("b", "3")])
]


@pytest.mark.parametrize(
    ("versions", "products", "rows"),
    [
        (None, None, None),  # nothing asked: every chunk, said as None so callers skip the filter
        (["1.0"], None, [0, 1, 3]),
        (["3", "1.0"], None, [0, 1, 3, 4]),  # versions in any order, rows ascending
        (["1.0"], ["a"], [0, 3]),
        (None, ["a", "b"], None),  # a filter that keeps everything is no filter
        (["9.9"], None, []),
        (["1.0"], ["zzz"], []),
    ],
)
def test_chunk_filter_selects_rows_by_version_and_product(
    versions: list[str] | None, products: list[str] | None, rows: list[int] | None
) -> None:
    f = ChunkFilter(FILTERED)
    got = f.rows(versions, products)
    assert (None if got is None else got.tolist()) == rows
    mask = f.mask(versions, products)
    assert (None if mask is None else np.flatnonzero(mask).tolist()) == rows


def test_a_whole_index_search_above_exact_max_is_chromas_and_a_filtered_one_stays_in_memory(
    fake_kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = fake_kb.retriever
    monkeypatch.setattr(vectors, "EXACT_MAX", 10)  # the shipped index stands for one too large for one core
    calls: list[dict[str, object]] = []
    store_query = type(r.store).query

    def counted(self: object, *args: object, **kwargs: object) -> list[tuple[str, float]]:
        calls.append(kwargs)
        return store_query(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(type(r.store), "query", counted)
    large = ExactVectors(r.vectors.matrix, r.chunks, whole=r.store)
    vector = r.embedder.encode([QUESTIONS[0]])[0]
    product = r.chunks[0].product
    for only in ({}, {"products": [c.product for c in r.chunks]}):  # all products: the whole index too
        calls.clear()
        assert large.query(vector, 5, manifest=r.manifest, **only) == r.store.query(vector, 5, manifest=r.manifest)
        assert len(calls) == 2 and "products" not in calls[0]  # Chroma searched unfiltered, as fast as it goes
    # Half the chunks put in another release, so a release's rows are a part of the index.
    halves = [replace(c, version="0.1") if i % 2 else c for i, c in enumerate(r.chunks)]
    large = ExactVectors(r.vectors.matrix, halves, whole=r.store)
    calls.clear()
    exact = large.query(vector, 3, versions=["0.1"], products=[product], manifest=r.manifest)
    assert not calls  # within a release: the rows of that release, in memory
    sims = r.vectors.matrix[1::2] @ vector
    assert [i for i, _ in exact] == [halves[1 + 2 * j].id for j in np.argsort(-sims)[:3]]
