"""The dense search's matrix product in each layout, each right after a query encode, as it runs in an answer.

The encoder streams its weights through the caches just before the product, so the product reads the matrix from
memory; a product timed in a loop of its own reads it from cache and says nothing of an answer. Each question is
encoded, then searched with the row-major matrix, encoded again, then searched with the column-major one.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from bench.common import pct


def measure_layouts(kb: Any, embedder: Any, questions: list[str], passes: int = 3) -> dict[str, float]:
    """p50 (ms) of one dense search of the whole index, and of one within its smallest product (a few rows
    copied out), with the index's matrix row-major and column-major."""
    from assistant.index.vectors import ExactVectors
    from assistant.tuning import DEFAULT

    vectors = kb.retriever.vectors
    if vectors is None:
        return {}
    layouts = {"row_major": np.ascontiguousarray, "column_major": np.asfortranarray}
    searches = {}
    for name, lay_out in layouts.items():
        searches[name] = ExactVectors(vectors.matrix, kb.retriever.chunks)
        searches[name].matrix = lay_out(vectors.matrix)  # this layout, whichever the index's size gives it
    # A product filter selects every spelling of the product ("PyTorch" in front matter, "pytorch" as a folder).
    spelled = [sorted(p.spellings) for p in kb.retriever.catalog.products]
    rows = {tuple(s): vectors.filter.rows(None, s) for s in spelled}  # None: every row
    sizes = {s: len(vectors.ids) if r is None else len(r) for s, r in rows.items()}
    scopes = {"whole": {}, "product": {"products": list(min(sizes, key=sizes.__getitem__))}}
    times: dict[str, list[float]] = {f"{scope}_{name}": [] for scope in scopes for name in layouts}
    for _ in range(passes):
        for question in questions:
            for scope, only in scopes.items():
                for name, searched in searches.items():
                    vector = embedder.encode([question])[0]
                    started = time.perf_counter()
                    searched.query(vector, DEFAULT.search.candidates, **only)
                    times[f"{scope}_{name}"].append((time.perf_counter() - started) * 1e3)
    return {f"{key}_p50": round(pct(t, 50), 3) for key, t in times.items()} | {
        "product_share": round(min(sizes.values()) / len(vectors.ids), 3)
    }
