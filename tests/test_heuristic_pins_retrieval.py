"""Pins for the retrieval heuristics and the knowledge base's release narrowing: each test is a case one heuristic
decides, and fails when `bench/ablation.py --pytest NAME` switches it off.

No model and no Chroma: dense search is a stand-in store with a fixed cosine per chunk (the embedding model is
not what these rules are about); BM25 is the real one, built in memory over the chunks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
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


def test_the_one_passage_a_ranking_is_sure_of_is_read_though_fusion_ranks_it_low(tmp_path: Path) -> None:
    # HEAD_PASSAGES. Nine entries about the `LegacyVersion` class both rankings find middling; only BM25 finds the
    # one saying it was renamed, first ("renamed" is common in these notes). Fusion ranks that entry ninth, past
    # the passages the answerer reads.
    renamed = make("Rename the `LegacyVersion` class to `OldVersion`.", "22.0", 0)
    others = [make(f"The `LegacyVersion` class gains `attr{n}`.", f"1{n}.0", n + 1) for n in range(9)]
    filler = [make(f"Renamed the tag number {n}.", f"0.{n}", 20 + n) for n in range(30)]
    r = retriever([renamed, *others, *filler], [0.3] + [0.7 - n / 100 for n in range(9)] + [0.35] * 30)
    question = "Which release renamed the LegacyVersion class?"
    query = build_query(question, r.catalog)
    assert renamed not in [p.chunk for p in r.search(query, 8)]
    assert renamed in [p.chunk for p in r.search(query, 8, heads=1)]
    answer = KnowledgeBase(Settings(data_dir=tmp_path), r).ask(question)
    assert answer.found and "22.0: Rename the `LegacyVersion` class to `OldVersion`." in answer.text
    # Another product's best match is no evidence for the product a question names.
    acme = replace(renamed, id="a0", product="acme", source="acme/NEWS.md")
    r = retriever([acme, *others, *filler], [0.3] + [0.7 - n / 100 for n in range(9)] + [0.35] * 30)
    query = build_query("Which pandas release renamed the LegacyVersion class?", r.catalog)
    assert query.prefer_products == ("pandas",) and acme not in [p.chunk for p in r.search(query, 8, heads=1)]


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

    def within(self, products: object) -> CannedRetriever:
        return self  # one product

    def search(self, query: Query, k: int, timings: dict[str, float] | None = None, *, heads: int = 0) -> list[Passage]:
        found = self.by_release[query.versions[0]] if query.versions else self.joint
        return [Passage(c, 1.0 - i / 100, similarity=0.5) for i, c in enumerate(found[:k])]


def test_a_release_that_ranks_below_other_releases_is_searched_alone(tmp_path: Path) -> None:
    # _from_release narrowing. 3.0.0 does answer, but the joint search ranked its note below 2.2.0's and
    # brought only an unrelated 3.0.0 passage: refusing with "only 2.2.0 covers it" would be wrong.
    other = make("`read_csv()` no longer accepts `squeeze`.", "2.2.0", 0)
    unrelated = make("Python 3.11 or newer is now required.", "3.0.0", 1)
    own = make("`read_csv()` no longer accepts `squeeze`, deprecated since 1.4.", "3.0.0", 2)
    searcher = CannedRetriever([other, unrelated, own], [other, unrelated], {"3.0.0": [own, unrelated]})
    kb = KnowledgeBase(Settings(data_dir=tmp_path), searcher)  # type: ignore[arg-type]
    answer = kb.ask("Does read_csv accept squeeze in pandas 3.0?")
    assert answer.found and "deprecated since 1.4" in answer.text
    assert {c.version for c in answer.citations} == {"3.0.0"}


def test_a_release_whose_answer_other_releases_bury_is_searched_alone(tmp_path: Path) -> None:
    # _from_release narrowing, when the joint search found too little evidence at all: its passages, other
    # releases' and an unrelated 3.0.0 one, say nothing of `read_csv`; 3.0.0 alone does.
    others = [make(f"Wheels are published for platform {n}.", "2.2.0", n) for n in range(3)]
    unrelated = make("Python 3.11 or newer is now required.", "3.0.0", 3)
    own = make("`read_csv()` no longer accepts `squeeze`.", "3.0.0", 4)
    searcher = CannedRetriever([*others, unrelated, own], [*others, unrelated], {"3.0.0": [own, unrelated]})
    kb = KnowledgeBase(Settings(data_dir=tmp_path), searcher)  # type: ignore[arg-type]
    answer = kb.ask("Does read_csv accept squeeze in pandas 3.0?")
    assert answer.found and answer.text.startswith("3.0.0: `read_csv()` no longer accepts `squeeze`")


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
    assert answer.found and answer.text.startswith("`numpy.float_` was removed")  # not the look-alike words


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
    assert removed in [p.chunk for p in r.search(build_query(question, r.catalog), 8, heads=1)]
    plain = build_query("Which release made passing cache=None to @cached work?", r.catalog)
    assert removed not in [p.chunk for p in r.search(plain, 8, heads=1)]
    answer = KnowledgeBase(Settings(data_dir=tmp_path), r).ask(question)
    assert answer.found and "8.0.0: Drop support for `@cached(cache=None)`" in answer.text


def test_the_entry_removing_a_gone_name_is_found_by_the_name_when_the_question_matches_miss_it() -> None:
    # NAME_CANDIDATES. The one entry removing `operatorPrecedence` is long (it lists every removed name), so BM25
    # ranks it below forty short notes sharing the question's other words, and meaning ranks it last: among the
    # question's matches no entry removes the name. The chunks naming it hold the removal.
    names = ", ".join(f"`helper{n}` (use `tool{n}`)" for n in range(30))
    removed = make(
        f"Deprecated features removed: `operatorPrecedence`, synonym of `infixNotation` - convert to calling "
        f"`infixNotation`; {names}.",
        "3.0.0",
        0,
    )
    named = [make(f"Fixed `operatorPrecedence` when grammar {n} nests calls.", f"1.{n}", n + 1) for n in range(8)]
    filler = [make(f"An old grammar port {n} calls the parser instead.", f"0.{n}", 20 + n) for n in range(40)]
    r = retriever([removed, *named, *filler], [0.0] + [0.5] * 8 + [0.4] * 40)
    query = build_query(
        "Porting an old grammar: operatorPrecedence no longer exists. What do I call instead?", r.catalog
    )
    assert removed.id not in [cid for cid, _ in r._lexical(query)]  # the case: the question's matches miss it
    assert removed in [p.chunk for p in r.search(query, 8)]


def test_the_release_asked_about_answers_when_its_sentence_is_nearly_the_best(tmp_path: Path) -> None:
    # OWN_CLOSE. 3.0's "Draft 7 is now the default" answers which draft 3.0 uses, alone; a later release's entry
    # holds one more of the question's words and ranks first by a hair, which says nothing of 3.0. Far behind, the
    # asked release's sentence is no answer, and the question is refused.
    own = make("Draft 7 is now the default.", "3.0.0", 0)
    later = make("Schema draft 2020 is now the default when validating.", "4.1.0", 1)
    filler = [
        make(f"Faster parsing of tag {n} when validating{' a schema' if n < 1 else ''}.", f"1.{n}", 5 + n)
        for n in range(5)
    ]
    kb = KnowledgeBase(Settings(data_dir=tmp_path), retriever([own, later, *filler], [0.5, 0.5] + [0.1] * 5))
    answer = kb.ask("With pandas 3.0, which draft is the default when validating a schema?")
    assert answer.found and answer.text.startswith("3.0.0: Draft 7 is now the default.")
    near_miss = kb.ask("In pandas 3.0, is schema draft 2020 the default when validating?")  # 4.1.0 made it so
    assert not near_miss.found and "4.1.0" in near_miss.text


def test_a_word_common_in_the_named_products_docs_is_no_evidence_of_them(tmp_path: Path) -> None:
    # ScopedTerms.idf. attrs' notes say "validate" everywhere; among the threading library's many notes it looks
    # rare. Counted within attrs' docs, the docs of the product a question names, it weighs next to nothing.
    def note(text: str, product: str, n: int) -> Chunk:
        return replace(make(text, "1.0.0", n), id=f"{product}{n}", product=product, source=f"{product}/NEWS.md")

    attrs = [
        note("Validators validate each field on assignment.", "attrs", 0),
        note("`attrs.validators.instance_of` can validate containers.", "attrs", 1),
        note("Hooks validate after converters run.", "attrs", 2),
        note("Converters coerce values before validators validate them.", "attrs", 3),
    ]
    workers = [note(f"Worker threads are limited to {n} by default.", "anyio", n) for n in range(20)]
    r = retriever([*attrs, *workers], [0.6] * 4 + [0.3] * 20)
    assert r.within(["attrs"]).idf("valid") < r.idf("valid")
    kb = KnowledgeBase(Settings(data_dir=tmp_path), r)
    assert kb.ask("What changed in attrs?").found  # nothing asked but the product: every passage is about it


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
