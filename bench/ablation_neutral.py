"""What switching a heuristic off puts in its place, for `bench/ablation_table.py`: patterns that never match,
limits lifted, functions that skip a branch; and the `Ablation` record the table is made of."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from assistant.answer.extractive import ExtractiveAnswerer
from assistant.gate import refusals
from assistant.gate.decision import Gate
from assistant.model.records import Passage
from assistant.search.coverage import Terms
from assistant.search.retrieval import HybridRetriever
from assistant.search.scoped_terms import ScopedTerms
from assistant.search.sentences import Scored

NEVER = re.compile(r"(?!)()")  # never matches; its group keeps `sub(r"\1", …)` valid


def without(pattern: re.Pattern[str], piece: str) -> re.Pattern[str]:
    """A live pattern of the core with one of its pieces taken out (so the ablation cannot drift from it)."""
    assert piece in pattern.pattern, piece
    return re.compile(pattern.pattern.replace(piece, ""), pattern.flags)


UNLIMITED = 10**9
INFINITE = float("inf")

A, S, C, U, R, Q, H, K, G, T = (
    "assistant.answer.extractive",
    "assistant.search.sentences",
    "assistant.search.coverage",
    "assistant.model.units",
    "assistant.gate.refusals",
    "assistant.understand.query",
    "assistant.search.retrieval",
    "assistant.knowledge_base",
    "assistant.gate.decision",
    "assistant.text.words",
)


@dataclass(frozen=True)
class Ablation:
    """One heuristic switched off: its name, the module it lives in, what "off" means, and the patches."""

    name: str
    module: str
    off: str
    patches: tuple[tuple[str, str, Any], ...]
    rebuild: bool = False  # the patch acts when the retriever is built (its indexes), not per question


def ab(
    name: str, off: str, *patches: tuple[str, str, Any], module: str | None = None, rebuild: bool = False
) -> Ablation:
    """An `Ablation`, its module named after the first patch's unless given."""
    where = module or patches[0][0].removeprefix("assistant.").split(".")[0] + ".py"
    return Ablation(name, where, off, patches, rebuild)


class UnlimitedAnswerer(ExtractiveAnswerer):
    """The extractive answerer with no cap on quoted sentences (the knowledge base passes `top_k`)."""

    def __init__(self, stats: Any, *, max_units: int = 0, following: Any = None) -> None:
        super().__init__(stats, max_units=UNLIMITED, following=following)


_terms_of = Terms.of.__func__  # type: ignore[attr-defined]


def terms_without_spellings(cls: type[Terms], query: Any, stats: Any) -> Terms:
    """`Terms.of` blind to the docs' spellings of the question's symbols."""
    return _terms_of(cls, replace(query, spellings=()), stats)


def from_release_unnarrowed(
    self: Gate, query: Any, passages: list[Passage], weak: Any | None = None
) -> tuple[list[Passage], Any | None]:
    """`_from_release` that keeps every passage instead of narrowing to the release asked about."""
    return passages, weak or self._release(query, passages, self._own(query, passages))


def with_leads_off(self: Any, group: list[Scored], passages: Any) -> list[Scored]:
    """`_with_leads` that keeps a passage's sentences in their own order."""
    return sorted(group, key=lambda s: s.u_idx)


_release_rule = refusals.release


def release_led_by_any(*args: Any, leads: bool = True) -> Any:
    """The release rule, whatever sentence leads the answer."""
    return _release_rule(*args)


class WholeIndexRarity(ScopedTerms):
    """A named product's terms weighed by their rarity in the whole index."""

    def idf(self, token: str) -> float:
        return self.stats.idf(token)


def knows_no_snake_prefix(self: HybridRetriever, token: str) -> bool:
    """`HybridRetriever.knows` without the snake_case prefix leniency."""
    return token in self._idf or token in self._tails or ("." in token and self.knows_prefix(token + "."))
