"""Which chunks lie within a question's versions and products, as row positions.

Dense and lexical search both restrict themselves to the releases and products a question names. The rows
of each version and product are grouped once per generation, so a filter costs the size of what it selects,
not a pass over every chunk's metadata (comparing 100,000 version strings costs more than the search).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from assistant.model.records import Chunk


class ChunkFilter:
    """Row positions of one generation's chunks by version and by product."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self.size = len(chunks)
        by_version: dict[str, list[int]] = {}
        by_product: dict[str, list[int]] = {}
        for i, chunk in enumerate(chunks):
            by_version.setdefault(chunk.version, []).append(i)
            by_product.setdefault(chunk.product, []).append(i)
        self._versions = {v: np.array(rows, dtype=np.int64) for v, rows in by_version.items()}
        self._products = {p: np.array(rows, dtype=np.int64) for p, rows in by_product.items()}

    def rows(self, versions: Sequence[str] | None = None, products: Sequence[str] | None = None) -> np.ndarray | None:
        """Ascending positions of the chunks within `versions` and `products`; None when that is every chunk."""
        picked = [
            self._union(groups, wanted)
            for groups, wanted in ((self._versions, versions), (self._products, products))
            if wanted
        ]
        if not picked:
            return None
        rows = picked[0] if len(picked) == 1 else np.intersect1d(*picked, assume_unique=True)
        return None if len(rows) == self.size else rows

    def mask(self, versions: Sequence[str] | None = None, products: Sequence[str] | None = None) -> np.ndarray | None:
        """`rows` as a boolean mask over every chunk; None when every chunk is within."""
        rows = self.rows(versions, products)
        if rows is None:
            return None
        allowed = np.zeros(self.size, dtype=bool)
        allowed[rows] = True
        return allowed

    @staticmethod
    def _union(groups: dict[str, np.ndarray], wanted: Sequence[str]) -> np.ndarray:
        found = [groups[w] for w in dict.fromkeys(wanted) if w in groups]
        if not found:
            return np.zeros(0, dtype=np.int64)
        # A chunk has one version and one product, so the groups are disjoint: sorting joins them.
        return found[0] if len(found) == 1 else np.sort(np.concatenate(found))
