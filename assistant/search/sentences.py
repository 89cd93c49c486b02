"""Sentence-level search: every sentence of the passages found, scored by how much of the question it holds.

The gate weighs this evidence to decide whether to answer, and the extractive answerer quotes the best of it;
both read the same scores, kept per question until the index is reloaded. Moved unchanged from the answerer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from assistant.index.lexical import TermStats
from assistant.model.query import Query
from assistant.model.records import Chunk, Passage
from assistant.model.units import Unit, units_of
from assistant.search.coverage import Terms, coverage
from assistant.search.removals import removals
from assistant.text.bounds import as_said
from assistant.text.words import tokens
from assistant.tuning import Tuning

MEMO_SIZE = 8192  # sentence scores and term weights kept; one question takes a few dozen entries
# What a sentence's score weighs (`tuning.search.sentence_model` holds a weight for each): its coverage of the
# question's terms; what its changelog entry covers, less its own coverage (below 0 for a lead sentence its heading
# counts more for than for its entry); the passage's retrieval score, relative to the best; whether it leads its
# entry; whether it is of the release the question names; whether its entry removes a name the question says is
# gone.
FEATURES = ("coverage", "entry", "prior", "lead", "release", "gone")


def _words(unit: Unit, fr: bool, drops: Sequence[str] = (), terms: Sequence[str] = ()) -> frozenset[str]:
    """The words a sentence is matched by: a French question's are matched against its English gloss; where
    the question asks whether a version was dropped (`drops`), as the sentence's version bounds read."""
    words = unit.glossed if fr and unit.glossed is not None else unit.tokens
    return as_said(words, unit.text, drops, terms) if drops else words


def _context(chunk: Chunk) -> frozenset[str]:
    """The words of where a chunk sits (its title and section), which count for its lead sentences."""
    return frozenset(tokens(f"{chunk.title} {chunk.section}"))


class SentenceRanker:
    """Scores the sentences of passages against a question, keeping the scores for the question's next look: a
    weighted sum of `FEATURES`, the weights fitted by bench/fit_sentences.py (`tuning.search.sentence_model`)."""

    def __init__(self, stats: TermStats, tuning: Tuning) -> None:
        unknown = {name for name, _ in tuning.search.sentence_model} - set(FEATURES)
        if unknown:  # a misspelt weight would weigh nothing, silently
            raise ValueError(f"sentence_model weighs no such feature: {', '.join(sorted(unknown))}")
        # The refusal checks and the answer weigh the same question's terms and score the same passages' sentences
        # more than once (the answer adds only the chunks that follow them): both are kept in `_memo`, a few
        # hundred questions' worth, until the index is reloaded (`stats` set again).
        self.tuning = tuning
        self.stats = stats

    def scored_units(self, query: Query, passages: Sequence[Passage]) -> list[Scored]:
        """Every sentence of the passages with its term coverage, best first."""
        weights = dict(self.tuning.search.sentence_model)
        out = [
            Scored(sum(weights.get(f, 0.0) * x for f, x in zip(FEATURES, row, strict=True)), row[0], p, u, unit)
            for p, u, unit, row in self.features(query, passages)
        ]
        out.sort(key=lambda s: s.score, reverse=True)
        return out

    def features(self, query: Query, passages: Sequence[Passage]) -> Iterator[tuple[int, int, Unit, tuple[float, ...]]]:
        """Each sentence of the passages (passage and sentence index, the sentence) with its `FEATURES`."""
        tuning = self.tuning
        terms = self._kept(("terms", query.terms, query.spellings), lambda: Terms.of(query, self.stats, tuning))
        top = passages[0].score if passages and passages[0].score else 1.0
        for p_idx, passage in enumerate(passages):
            prior = passage.score / top
            # A question naming a release is answered from that release's passages first.
            own = float(bool(query.prefer) and query.prefers(passage.chunk))
            units = units_of(passage.chunk, tuning)
            covs = self._coverages(query, terms, passage.chunk, units)
            removing = removals(passage.chunk, tuning) if query.asks_gone else frozenset()
            wholes = self._entry_coverages(query, terms, passage.chunk, units)
            for u_idx, (unit, cov, whole) in enumerate(zip(units, covs, wholes, strict=True)):
                row = (cov, whole - cov, prior, float(unit.lead), own, float(unit.entry in removing))
                yield p_idx, u_idx, unit, row

    @property
    def stats(self) -> TermStats:
        return self._stats

    @stats.setter
    def stats(self, stats: TermStats) -> None:  # a reloaded index weighs terms anew
        self._stats = stats
        self._memo: dict[tuple[object, ...], Any] = {}

    def _kept(self, key: tuple[object, ...], make: Callable[[], Any]) -> Any:
        value = self._memo.get(key)
        if value is None:  # shared across threads: another may clear the memo meanwhile
            if len(self._memo) > MEMO_SIZE:
                self._memo.clear()
            value = self._memo[key] = make()
        return value

    def _coverages(self, query: Query, terms: Terms, chunk: Chunk, units: Sequence[Unit]) -> list[float]:
        """Each sentence's coverage of the question's terms (kept per question and chunk)."""
        key = ("coverage", query.terms, query.spellings, query.drops, query.language == "fr", chunk.id)
        return self._kept(key, lambda: self._covered(query, terms, chunk, units))

    def _covered(self, query: Query, terms: Terms, chunk: Chunk, units: Sequence[Unit]) -> list[float]:
        """Each sentence's coverage of `terms`, the question's terms weighed by some statistics."""
        tuned = self.tuning.search
        if not terms.weights:  # all of none: every sentence holds what the question asks about
            return [1.0] * len(units)
        fr = query.language == "fr"
        context = _context(chunk)
        # A section heading speaks for its entries' lead sentences ("what breaks" -> "Breaking Changes").
        return [
            coverage(
                terms,
                _words(unit, fr, query.drops, query.terms),
                context,
                tuned.lead_context_weight if unit.lead else 0.0,
            )
            for unit in units
        ]

    def _entry_coverages(self, query: Query, terms: Terms, chunk: Chunk, units: Sequence[Unit]) -> list[float]:
        """A changelog sentence's coverage counted over its whole entry; other documents' sentences keep their
        own, because a release note's paragraph or list item may discuss several changes."""
        if chunk.kind != "changelog":
            return self._coverages(query, terms, chunk, units)
        fr = query.language == "fr"

        def covered() -> list[float]:
            if not terms.weights:
                return [1.0] * len(units)
            words: dict[int, set[str]] = {}
            for unit in units:
                words.setdefault(unit.entry, set()).update(_words(unit, fr, query.drops, query.terms))
            whole = {e: coverage(terms, frozenset(w)) for e, w in words.items()}
            return [whole[u.entry] for u in units]

        return self._kept(("entry coverage", query.terms, query.spellings, query.drops, fr, chunk.id), covered)

    def ranked(self, query: Query, passages: Sequence[Passage]) -> list[Scored]:
        """`scored_units`, kept for the refusal checks, which ask it of the same passages more than once."""
        key = ("ranked", query, tuple((p.chunk.id, p.score) for p in passages))
        return self._kept(key, lambda: self.scored_units(query, passages))

    def best_coverage(self, query: Query, passages: Sequence[Passage]) -> float:
        """The best sentence coverage of the question's terms."""
        return max((s.coverage for s in self.ranked(query, passages)), default=0.0)


@dataclass
class Scored:
    score: float
    coverage: float
    p_idx: int
    u_idx: int
    unit: Unit
    also: list[int] = field(default_factory=list)  # other passages that say the same
