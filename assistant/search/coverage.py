"""How much of a question a sentence holds: the question's terms weighed by rarity, and their weighted share
found in a sentence's words (a symbol counting partly when only its parts are there)."""

from __future__ import annotations

from dataclasses import dataclass, field

from assistant.index.lexical import TermStats
from assistant.model.query import Query
from assistant.text.words import is_symbol, tokens
from assistant.tuning import Tuning


@dataclass(frozen=True)
class Terms:
    """A question's terms weighed by rarity, with the parts of its code symbols, computed once per question."""

    weights: dict[str, float]
    parts: dict[str, frozenset[str]]
    spellings: dict[str, frozenset[str]] = field(default_factory=dict)  # `np.float_` -> {`numpy.float_`}

    @classmethod
    def of(cls, query: Query, stats: TermStats, tuning: Tuning) -> Terms:
        """The question's terms weighed by `stats`; with the docs' spellings of its symbols where
        `tuning.search.coverage_spellings`."""
        tuned = tuning.search
        parts = {t: frozenset(tokens(t)) - {t} for t in query.terms if is_symbol(t)}
        spellings = {t: frozenset(alts) for t, alts in (query.spellings if tuned.coverage_spellings else ())}
        # A symbol weighs as rare as its rarest spelling the docs use.
        weights = {t: min([stats.idf(t), *(stats.idf(a) for a in spellings.get(t, ()))]) for t in query.terms}
        return cls(weights, {t: p for t, p in parts.items() if p}, spellings)


def coverage(
    terms: Terms, toks: frozenset[str], context: frozenset[str], context_weight: float, tuning: Tuning
) -> float:
    """Weighted share of query terms found; symbols count partly (`tuning.search.part_weight`) when only their
    parts are there."""
    total = sum(terms.weights.values())
    if not total:
        return 0.0
    got = 0.0
    for term, w in terms.weights.items():
        if term in toks or (term in terms.spellings and terms.spellings[term] & toks):
            got += w
        elif term in context:
            got += context_weight * w
        elif term in terms.parts:
            parts = terms.parts[term]
            got += tuning.search.part_weight * w * len(parts & toks) / len(parts)
    return got / total
