"""The gate: whether the passages search found answer the question, or why not (a `refusals.Reason`), and which
of them to answer from.

A question about one product is answered from that product's passages. A question about one release is
answered from that release's; when they cannot answer it, the question is refused, naming why. The knowledge
base's facade calls `Gate.after_search` between search and answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from assistant.gate import refusals
from assistant.gate.evidence import Evidence
from assistant.model.query import Query, prefers_product
from assistant.model.records import Passage
from assistant.search.retrieval import HybridRetriever
from assistant.search.sentences import SentenceRanker
from assistant.tuning import Tuning


@dataclass(frozen=True)
class Verdict:
    """The gate's output: the passages to answer from, or the reason to refuse (`reason` set, nothing to cite)."""

    passages: Sequence[Passage]
    reason: refusals.Reason | None = None


class Gate:
    """The decision for one generation of the index: `retriever` is the knowledge base's, `ranker` scores
    sentences as its answerer does, and `tuning` holds the evidence needed and the rules that apply
    (`tuning.gate`)."""

    def __init__(self, retriever: HybridRetriever, ranker: SentenceRanker, tuning: Tuning) -> None:
        self.retriever = retriever
        self.ranker = ranker
        self.tuning = tuning

    def before_search(self, query: Query) -> refusals.Reason | None:
        """Refusals that need no search (a release the index does not hold, no topic)."""
        return refusals.before_search(query, self.retriever.catalog, self.tuning)

    def after_search(self, query: Query, passages: Sequence[Passage]) -> Verdict:
        """The passages to answer from, or the reason to refuse instead."""
        passages = self.weighed(query, passages)
        reason = self._evidence(query, passages)
        if query.prefer and not query.versions and reason is None:  # a release asked about answers, or refuses
            reason = self._release(query, passages, self._own(query, passages))
        return Verdict((), reason) if reason is not None else Verdict(passages)

    def weighed(self, query: Query, passages: Sequence[Passage]) -> Sequence[Passage]:
        """The passages search found that the gate weighs: a question about one product is answered from its docs
        (another's would read as being about it), where search found any."""
        return [p for p in passages if prefers_product(query, p.chunk, self.tuning)] or passages

    def _evidence(self, query: Query, passages: Sequence[Passage]) -> refusals.Reason | None:
        return refusals.judge(self.evidence(query, passages), self.tuning)

    def evidence(self, query: Query, passages: Sequence[Passage]) -> Evidence:
        """What the gate weighs of these passages for this question (`refusals.judge` decides from it)."""
        best = self.ranker.best_coverage(query, passages)
        ranked = self.ranker.ranked(query, passages)
        words, text = frozenset[str](), ""
        if ranked:  # read under its section: "Support for Python 3.7." under "Removed" says it was dropped
            words, text = ranked[0].unit.tokens, f"{passages[ranked[0].p_idx].chunk.section}: {ranked[0].unit.text}"
        return refusals.evidence(query, passages, self.retriever, best, best=words, best_text=text, tuning=self.tuning)

    @staticmethod
    def _own(query: Query, passages: Sequence[Passage]) -> list[Passage]:
        return [p for p in passages if query.prefers(p.chunk)]  # `query.prefer` is set: its release

    def _release(self, query: Query, passages: Sequence[Passage], own: Sequence[Passage]) -> refusals.Reason | None:
        ok = bool(own) and self._evidence(query, own) is None
        leads = self._leads(query, passages)
        return refusals.release(query, passages, own, ok, leads=leads, tuning=self.tuning)

    def _leads(self, query: Query, passages: Sequence[Passage]) -> bool:
        """Whether the best sentence to quote is of the release asked about: what a release did is that release's
        to say. A how-question may take its fix from another release (the one that deprecated the thing: "fails
        after upgrading to 3.0: how do I pass it now?"), its version shown beside it."""
        ranked = self.ranker.ranked(query, passages)
        return not ranked or query.prefers(passages[ranked[0].p_idx].chunk) or query.asks_how
