"""What the docs of the products a question names contain: the refusal checks' `TermStats` within them.

In an index holding several products, "nothing mentions `JSON Schema`" must hold for the product asked about:
that another product's notes name it says nothing of this one's. The BM25 matrix already lists, for each
token, the chunks holding it (its column), so a token is known within some products when one of those chunks
is theirs; nothing is tokenised again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from assistant.index.lexical import TermStats


class ScopedTerms:
    """`stats` limited to the chunks `allowed` marks: a token the index holds only elsewhere is unknown here; its
    rarity is the whole index's. Names the index knows through longer names (`finders.find` in
    `staticfiles.finders.find`) are judged on the whole index."""

    def __init__(self, stats: TermStats, bm25: Any, allowed: np.ndarray) -> None:
        self.stats = stats
        self.allowed = allowed
        self.vocab: dict[str, int] = bm25.vocab_dict
        self.indptr = np.asarray(bm25.scores["indptr"])
        self.indices = np.asarray(bm25.scores["indices"])

    def _df(self, token: str) -> int:
        column = self.vocab.get(token)
        if column is None:
            return 0
        return int(self.allowed[self.indices[self.indptr[column] : self.indptr[column + 1]]].sum())

    def idf(self, token: str) -> float:
        """BM25's rarity, as in the whole index (`HybridRetriever.idf`)."""
        return self.stats.idf(token)

    def knows(self, token: str) -> bool:
        return self._df(token) > 0 if token in self.vocab else self.stats.knows(token)

    def knows_prefix(self, prefix: str) -> bool:
        return self.stats.knows_prefix(prefix)
