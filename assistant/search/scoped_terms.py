"""What the docs of the products a question names contain: the refusal checks' `TermStats` within them.

In an index holding several products, "nothing mentions `JSON Schema`" must hold for the product asked about:
that another product's notes name it says nothing of this one's. The BM25 matrix already lists, for each
token, the chunks holding it (its column), so a token is known within some products when one of those chunks
is theirs; nothing is tokenised again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from assistant.index.lexical import TermStats, bm25_idf
from assistant.tuning import Tuning


class ScopedTerms:
    """`stats` limited to the chunks `allowed` marks: a token the index holds only elsewhere is unknown here, and
    rarity is counted among those chunks ("validate", rare in an index of many products, is in every other
    passage of a validation library's notes; unless `tuning.search.scoped_rarity` is off: then as in the whole
    index). Names the index knows through longer names (`finders.find`, `SECRET_KEY` in `SECRET_KEY_FALLBACKS`)
    are judged on the whole index."""

    def __init__(self, stats: TermStats, bm25: Any, allowed: np.ndarray, tuning: Tuning) -> None:
        self.stats = stats
        self.tuning = tuning
        self.allowed = allowed
        self.vocab: dict[str, int] = bm25.vocab_dict
        self.indptr = np.asarray(bm25.scores["indptr"])
        self.indices = np.asarray(bm25.scores["indices"])
        self.n = int(allowed.sum())

    def _df(self, token: str) -> int:
        column = self.vocab.get(token)
        if column is None:
            return 0
        return int(self.allowed[self.indices[self.indptr[column] : self.indptr[column + 1]]].sum())

    def idf(self, token: str) -> float:
        """BM25's rarity, as in the index (`HybridRetriever.idf`), among the allowed chunks."""
        if not self.tuning.search.scoped_rarity:
            return self.stats.idf(token)
        return bm25_idf(self.n, self._df(token))

    def knows(self, token: str) -> bool:
        return self._df(token) > 0 if token in self.vocab else self.stats.knows(token)

    def knows_prefix(self, prefix: str) -> bool:
        return self.stats.knows_prefix(prefix)
