"""Stage 1's entry: a question, with its conversation, made into the `Query` the later stages read.

A follow-up ("and in 2.11?") leans on the questions before it. Without a condenser the heuristic query builder
reads the history; with one (the LLM answerer can condense), the follow-up is first rewritten to stand alone
for search, while the user's own words and language stay what the answer is for. Moved from the facade.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol, runtime_checkable

from assistant.index.catalog import Catalog
from assistant.model.query import Query
from assistant.tuning import Tuning
from assistant.understand.plan_question import planned
from assistant.understand.query import build_query, with_spellings


@runtime_checkable
class Condenser(Protocol):
    """Rewrites a follow-up as a standalone question for search; None keeps the heuristic query."""

    def condense(self, question: str, history: Sequence[str]) -> str | None: ...


def understand(
    question: str,
    catalog: Catalog,
    spellings: Callable[[str], Sequence[str]],
    *,
    history: Sequence[str] = (),
    version: str | None = None,
    product: str | None = None,
    max_chars: int,
    condenser: Condenser | None = None,
    timings: dict[str, float] | None = None,
    tuning: Tuning,
) -> Query:
    """The question made searchable, with the upgrade whose whole plan it asks for (`Query.upgrade`); with a
    condenser, a follow-up is first rewritten to stand alone."""
    limits = {"version": version, "product": product, "max_chars": max_chars}
    query = _searchable(question, catalog, spellings, history, limits, condenser, timings, tuning)
    return replace(query, upgrade=planned(query, catalog, tuning))


def _searchable(
    question: str,
    catalog: Catalog,
    spellings: Callable[[str], Sequence[str]],
    history: Sequence[str],
    limits: dict[str, Any],
    condenser: Condenser | None,
    timings: dict[str, float] | None,
    tuning: Tuning,
) -> Query:
    query = with_spellings(build_query(question, catalog, history=history, tuning=tuning, **limits), spellings, tuning)
    if condenser is None or not any(h.strip() for h in history):
        return query
    started = time.perf_counter()
    standalone = condenser.condense(query.question, history)
    if timings is not None:
        timings["condense"] = (time.perf_counter() - started) * 1e3
    if not standalone:
        return query
    searched = with_spellings(build_query(standalone, catalog, tuning=tuning, **limits), spellings, tuning)
    # The user's own words and language stay what the answer is for; only what is searched changes.
    return replace(
        searched,
        question=query.question,
        language=query.language,
        prefer=searched.prefer or query.prefer,
        prefer_products=searched.prefer_products or query.prefer_products,
        truncated=query.truncated,
        unknown_versions=query.unknown_versions,  # a version the model made up must not cause a refusal
    )
