"""How much of a question a sentence holds: the question's terms weighed by rarity, and their weighted share
found in a sentence's words."""

from __future__ import annotations

from dataclasses import dataclass, field

from assistant.index.lexical import TermStats
from assistant.model.query import Query
from assistant.tuning import Tuning


@dataclass(frozen=True)
class Terms:
    """A question's terms weighed by rarity, computed once per question."""

    weights: dict[str, float]
    spellings: dict[str, frozenset[str]] = field(default_factory=dict)  # `np.float_` -> {`numpy.float_`}

    @classmethod
    def of(cls, query: Query, stats: TermStats, tuning: Tuning) -> Terms:
        """The question's terms weighed by `stats`; with the docs' spellings of its symbols where
        `tuning.search.coverage_spellings`."""
        tuned = tuning.search
        spellings = {t: frozenset(alts) for t, alts in (query.spellings if tuned.coverage_spellings else ())}
        # A symbol weighs as rare as its rarest spelling the docs use.
        weights = {t: min([stats.idf(t), *(stats.idf(a) for a in spellings.get(t, ()))]) for t in query.terms}
        return cls(weights, spellings)


def coverage(
    terms: Terms, toks: frozenset[str], context: frozenset[str] = frozenset(), context_weight: float = 0.0
) -> float:
    """Weighted share of query terms found in the sentence's words `toks`, or in its `context` at
    `context_weight`."""
    total = sum(terms.weights.values())
    if not total:
        return 0.0
    got = 0.0
    for term, w in terms.weights.items():
        if term in toks or (term in terms.spellings and terms.spellings[term] & toks):
            got += w
        elif term in context:
            got += context_weight * w
    return got / total
