"""Pins for the retrieval heuristics and the knowledge base's release narrowing: each test is a case one heuristic
decides, and fails when `bench/ablation.py --pytest NAME` switches it off.

No model and no Chroma: dense search is a stand-in store with a fixed cosine per chunk (the embedding model is
not what these rules are about); BM25 is the real one, built in memory over the chunks.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from assistant.index.store import Manifest
from assistant.knowledge_base import KnowledgeBase
from assistant.model.query import Query
from assistant.model.records import Chunk, Passage
from assistant.runtime.settings import Settings
from assistant.search.retrieval import HybridRetriever, fuse
from assistant.understand.query import build_query
from tests.test_answer_rules import Stats


def make(text: str, version: str, n: int) -> Chunk:
    return Chunk(f"c{n}-{version}", text, f"pandas/{version}/notes.md", "Notes", "pandas", version, "release-notes", "")


# -- fusing the two rankings ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dense", "lexical", "voters"),
    [
        # Every dense candidate votes, a weak one too.
        ([("a", 0.9), ("b", 0.75), ("c", 0.5)], [], {"a", "b", "c"}),
        # LEXICAL_RATIO: a BM25 score under half the best is the long tail of a common word.
        ([], [("a", 10.0), ("b", 6.0), ("c", 4.0)], {"a", "b"}),
    ],
    ids=["dense", "LEXICAL_RATIO"],
)
def test_only_the_confident_head_of_a_ranking_votes(
    dense: list[tuple[str, float]], lexical: list[tuple[str, float]], voters: set[str]
) -> None:
    assert set(fuse(dense, lexical)) == voters


def test_two_signals_agreeing_outrank_one_signals_favourite() -> None:
    # RRF_K. Both rankings put `b` third; each puts a different chunk first. Agreement is the stronger
    # evidence: the damping keeps one ranking's head from outvoting it.
    dense = [("a", 0.80), ("x", 0.79), ("b", 0.78)]
    lexical = [("y", 10.0), ("z", 9.5), ("b", 9.0)]
    fused = fuse(dense, lexical)
    assert max(fused, key=fused.__getitem__) == "b"


# -- searching --------------------------------------------------------------------------------------------


class FixedStore:
    """Dense search stand-in: each chunk's cosine to any question is fixed; the filters work as Chroma's."""

    def __init__(self, chunks: Sequence[Chunk], cosines: Sequence[float]) -> None:
        self.hits = [(c, s) for c, s in zip(chunks, cosines, strict=True)]

    def stamp(self) -> float:
        return 1.0

    def query(
        self,
        vector: np.ndarray,
        k: int,
        *,
        versions: Sequence[str] | None = None,
        products: Sequence[str] | None = None,
        manifest: Manifest | None = None,
    ) -> list[tuple[str, float]]:
        hits = [
            (c.id, s)
            for c, s in self.hits
            if (not versions or c.version in versions) and (not products or c.product in products)
        ]
        return sorted(hits, key=lambda h: h[1], reverse=True)[:k]


class ZeroEmbedder:
    """Every text is the same vector: `FixedStore` decides the cosines."""

    name = "fixed"

    def encode(self, texts: list[str], *, batch_size: int = 32) -> np.ndarray:
        return np.zeros((len(texts), 4), dtype=np.float32)


def retriever(chunks: list[Chunk], cosines: list[float]) -> HybridRetriever:
    store = FixedStore(chunks, cosines)
    return HybridRetriever(store, Manifest("c", "fixed", 1), ZeroEmbedder(), chunks)  # type: ignore[arg-type]


def test_the_release_a_question_names_outranks_a_slightly_better_match_elsewhere() -> None:
    # PREFERRED_BOOST. Both releases say the same; 2.2.0's note matches a little better on both signals,
    # but the user asked about 3.0 and its passage is the one to read first.
    chunks = [
        make("`read_csv()` no longer accepts `squeeze`: `read_csv(squeeze=True)` raises.", "2.2.0", 0),
        make("`read_csv()` no longer accepts `squeeze`.", "3.0.0", 1),
    ]
    r = retriever(chunks, [0.80, 0.78])
    query = build_query("Does read_csv accept squeeze in pandas 3.0?", r.catalog)
    assert query.prefer == ("3.0.0",)
    assert [p.chunk.version for p in r.search(query, 2)] == ["3.0.0", "2.2.0"]


# -- answering about a release ----------------------------------------------------------------------------


class CannedRetriever(Stats):
    """A retriever stand-in whose search returns fixed passages: the joint ones, or those of a release filter."""

    def __init__(self, chunks: list[Chunk], joint: list[Chunk], by_release: dict[str, list[Chunk]]) -> None:
        super().__init__(chunks)
        self.chunks, self.by_id = chunks, {c.id: i for i, c in enumerate(chunks)}  # reading order, as the index's
        self.store = FixedStore([], [])
        self.joint, self.by_release = joint, by_release

    def spellings(self, symbol: str) -> list[str]:
        return []

    def search(self, query: Query, k: int, timings: dict[str, float] | None = None) -> list[Passage]:
        found = self.by_release[query.versions[0]] if query.versions else self.joint
        return [Passage(c, 1.0 - i / 100, similarity=0.5) for i, c in enumerate(found[:k])]


def test_a_symbol_written_through_an_import_alias_finds_the_docs_spelling(tmp_path: Path) -> None:
    # with_spellings and coverage spellings. The docs import numpy as np and write the full name; a user writes
    # the alias. Without the docs' spelling the symbol looks unknown and the question is refused.
    chunks = [
        make("```python\nimport numpy as np\n```", "2.0.0", 0),
        make("`numpy.float_` was removed; use `numpy.float64` instead.", "2.0.0", 1),
        make("`np` scalars such as `float_` now print without their type.", "2.0.0", 2),
    ]
    kb = KnowledgeBase(Settings(data_dir=tmp_path), retriever(chunks, [0.1, 0.5, 0.6]))
    answer = kb.ask("What replaces np.float_?")
    # First, before the look-alike words.
    assert answer.found and answer.text.lstrip("- ").startswith("`numpy.float_` was removed")


def test_the_entry_removing_a_name_the_question_says_is_gone_is_read(tmp_path: Path) -> None:
    # REMOVAL_HEADS. Nine entries about passing `cache=None` to `@cached` beat the one that dropped it on both
    # signals ("stopped working" shares no word with "Drop support"); the user wants the release that dropped it.
    removed = make("Drop support for `@cached(cache=None)`.", "8.0.0", 0)
    others = [
        make(f"Passing `cache=None` to `@cached` works with the `opt{n}` option.", f"1.{n}", n + 1) for n in range(9)
    ]
    filler = [make(f"Updated the tag number {n}.", f"0.{n}", 20 + n) for n in range(30)]
    r = retriever([removed, *others, *filler], [0.1] + [0.7 - n / 100 for n in range(9)] + [0.1] * 30)
    question = "We passed cache=None to @cached and that stopped working. Which release did it?"
    assert removed in [p.chunk for p in r.search(build_query(question, r.catalog), 8)]
    plain = build_query("Which release made passing cache=None to @cached work?", r.catalog)
    assert removed not in [p.chunk for p in r.search(plain, 8)]
    answer = KnowledgeBase(Settings(data_dir=tmp_path), r).ask(question)
    assert answer.found and "8.0.0: Drop support for `@cached(cache=None)`" in answer.text


def test_a_passage_is_both_searches_when_both_put_it_among_their_first() -> None:
    # AGREEMENT_HEADS. BM25 puts the entry naming `read_csv` first; the dense stand-in puts it last of six, past
    # the five it compares: only passages both rankings hold near their heads are `both`.
    named = make("`read_csv()` no longer accepts `squeeze`.", "3.0.0", 0)
    others = [make(f"Styler option number {n} was renamed.", "3.0.0", n + 1) for n in range(5)]
    r = retriever([named, *others], [0.1, 0.9, 0.8, 0.7, 0.6, 0.5])
    query = build_query("Does read_csv accept squeeze?", r.catalog)
    found = {p.chunk.id: p.both for p in r.search(query, 6)}
    assert found[named.id] is False
    r = retriever([named, *others], [0.95, 0.9, 0.8, 0.7, 0.6, 0.5])
    assert {p.chunk.id: p.both for p in r.search(query, 6)}[named.id] is True
