"""Property test: the k best positive scores, found by partitioning only the positive ones, are exactly the first
k positive entries of a stable sort of the whole ranking (ties in position order)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.search.retrieval import best_positive

# Few distinct values, zeros most of all: a BM25 ranking is mostly zeros, with ties among the rest.
SCORES = st.lists(st.sampled_from([0.0, 0.0, 0.0, 0.5, 1.0, 1.5, 2.25, 7.0]), max_size=300)


@settings(max_examples=300, deadline=None)
@given(SCORES, st.integers(min_value=1, max_value=60))
def test_best_positive_is_the_stable_ranking_cut_at_k(values: list[float], k: int) -> None:
    scores = np.array(values, dtype=np.float64)
    order = np.argsort(-scores, kind="stable")
    expected = [int(i) for i in order if scores[i] > 0][:k]
    assert [int(i) for i in best_positive(scores, k)] == expected
