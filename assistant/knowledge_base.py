"""The one object every interface talks to: ask, stream, search, versions."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Protocol, runtime_checkable

from assistant.answering import Answerer, ExtractiveAnswerer, assess, refusal
from assistant.catalog import sort_versions
from assistant.embeddings import Embedder, SentenceTransformerEmbedder
from assistant.models import Answer, Passage
from assistant.query import Query, build_query
from assistant.retrieval import HybridRetriever
from assistant.settings import Settings
from assistant.store import ChunkStore

logger = logging.getLogger(__name__)

ANSWER_PASSAGES = 8  # passages the answerer reads; `top_k` of them at most are cited
OWN_RELEASE = 0.8  # the named release's passages must cover the question about as well as the best do


@runtime_checkable
class Condenser(Protocol):
    """Rewrites a follow-up as a standalone question for search; None keeps the heuristic query."""

    def condense(self, question: str, history: Sequence[str]) -> str | None: ...


class KnowledgeBase:
    """Release docs you can ask questions of. Build once with `open`, share across threads."""

    def __init__(self, settings: Settings, retriever: HybridRetriever, answerer: Answerer | None = None) -> None:
        self.settings = settings
        self.retriever = retriever
        self.extractive = ExtractiveAnswerer(retriever, max_units=settings.top_k)
        self.answerer: Answerer = answerer or self.extractive
        self._stamp = retriever.store.stamp()
        self._reload_lock = threading.Lock()
        # An answerer that can also condense follow-ups (the LLM one) does; otherwise build_query's heuristic.
        self.condenser: Condenser | None = self.answerer if isinstance(self.answerer, Condenser) else None

    @classmethod
    def open(
        cls, settings: Settings, *, embedder: Embedder | None = None, answerer: Answerer | None = None
    ) -> KnowledgeBase:
        """Load the index built by `ingest.sync`; raises `IndexNotReady` when there is none."""
        store = ChunkStore(settings.index_path)
        manifest = store.manifest()
        chunks = store.load_chunks(manifest)
        embedder = embedder or SentenceTransformerEmbedder(settings.embedding_model)
        assert manifest is not None  # load_chunks raised otherwise
        kb = cls(settings, HybridRetriever(store, manifest, embedder, chunks), answerer)
        if answerer is None and settings.llm:
            from assistant.llm import LLMAnswerer  # LangChain's chat models load only when one is configured

            kb.answerer = kb.condenser = LLMAnswerer.from_settings(settings, fallback=kb.extractive)
        embedder.encode(["warm-up"])  # load the model now, not on the first user's question
        return kb

    def refresh(self) -> bool:
        """Pick up a generation another process (`app.py ingest`) made live; True when it reloaded."""
        store = self.retriever.store
        if store.stamp() == self._stamp:
            return False
        with self._reload_lock:
            stamp = store.stamp()
            if stamp == self._stamp:
                return False
            manifest = store.manifest()
            retriever = HybridRetriever(store, manifest, self.retriever.embedder, store.load_chunks(manifest))
            self.retriever = self.extractive.stats = retriever
            self._stamp = stamp
            logger.info("index changed on disk; reloaded %d chunks", len(retriever.chunks))
            return True

    def versions(self, product: str | None = None) -> list[str]:
        """Indexed versions of one product (name, module or alias), or of all products; oldest first."""
        return self.retriever.catalog.versions(product)

    def products(self) -> dict[str, list[str]]:
        """Each indexed product's name with its versions, oldest first."""
        return {p.name: list(p.versions) for p in self.retriever.catalog.products}

    def search(
        self, query: str, *, k: int = 10, version: str | None = None, product: str | None = None
    ) -> list[Passage]:
        """The k best passages for a free-text query, with scores."""
        self.refresh()
        q = build_query(
            query, self.retriever.catalog, version=version, product=product, max_chars=self.settings.max_question_chars
        )
        return self.retriever.search(q, k)

    def ask(
        self, question: str, history: Sequence[str] = (), version: str | None = None, *, product: str | None = None
    ) -> Answer:
        """Answer a question; `history` holds the user's earlier questions in this conversation."""
        *_, answer = self.stream(question, history, version, product=product)
        return answer

    def stream(
        self, question: str, history: Sequence[str] = (), version: str | None = None, *, product: str | None = None
    ) -> Iterator[Answer]:
        """Drafts of the answer as it is written; the last one has `final=True` and timings."""
        started = time.perf_counter()
        timings: dict[str, float] = {}
        self.refresh()
        query = self._query(question, history, version, product, timings)
        answer: Answer | None = None
        for answer in self._answer(query, timings):
            if not answer.final:
                yield answer
        assert answer is not None
        timings["total"] = (time.perf_counter() - started) * 1e3
        if len(" ".join(question.split())) > self.settings.max_question_chars:
            answer = replace(answer, notice=_joined(answer.notice, self._truncation_note(query.language)))
        yield replace(answer, final=True, timings_ms={k: round(v, 2) for k, v in timings.items()})

    def _query(
        self,
        question: str,
        history: Sequence[str],
        version: str | None,
        product: str | None,
        timings: dict[str, float],
    ) -> Query:
        """The question made searchable; with a condenser, a follow-up is first rewritten to stand alone."""
        catalog = self.retriever.catalog
        limits = {"version": version, "product": product, "max_chars": self.settings.max_question_chars}
        query = build_query(question, catalog, history=history, **limits)
        if self.condenser is None or not any(h.strip() for h in history):
            return query
        started = time.perf_counter()
        standalone = self.condenser.condense(query.question, history)
        timings["condense"] = (time.perf_counter() - started) * 1e3
        if not standalone:
            return query
        searched = build_query(standalone, catalog, **limits)
        # The user's own words and language stay what the answer is for; only what is searched changes.
        return replace(
            searched,
            question=query.question,
            language=query.language,
            prefer=searched.prefer or query.prefer,
            prefer_products=searched.prefer_products or query.prefer_products,
            unknown_versions=query.unknown_versions,  # a version the model made up must not cause a refusal
        )

    def _answer(self, query: Query, timings: dict[str, float]) -> Iterator[Answer]:
        no = self._precheck(query)
        if no is not None:
            yield no
            return
        passages = self.retriever.search(query, ANSWER_PASSAGES, timings)
        started = time.perf_counter()
        no = self._evidence_check(query, passages) or self._release_check(query, passages)
        if no is not None:
            yield no
            return
        yield from self.answerer.stream(query, passages)
        timings["answer"] = (time.perf_counter() - started) * 1e3

    def _precheck(self, query: Query) -> Answer | None:
        if query.versions and not set(query.versions) & set(self.versions()):
            return refusal(query, reason=self._coverage_note(query))
        if query.unknown_versions and not query.prefer:
            return refusal(query, reason=self._coverage_note(query))
        if not query.terms and not query.prefer:
            return refusal(query)
        return None

    def _evidence_check(self, query: Query, passages: Sequence[Passage]) -> Answer | None:
        reason = assess(query, passages, self.retriever, self.extractive.best_coverage(query, passages))
        return None if reason is None else refusal(query, reason=reason or None)

    def _release_check(self, query: Query, passages: Sequence[Passage]) -> Answer | None:
        """A question about a release is answered from that release's docs, or not at all: quoting another
        release's notes would read as "yes, in the one you asked about". The refusal names the releases that
        do cover it."""
        if not query.prefer or query.versions:
            return None
        own = [p for p in passages if p.chunk.version in query.prefer and self._in_products(p, query)]
        best = self.extractive.best_coverage
        if own and self._evidence_check(query, own) is None and best(query, own) >= OWN_RELEASE * best(query, passages):
            return None
        others = sort_versions({p.chunk.version for p in passages if p.chunk.version and p not in own})
        asked = ", ".join(query.prefer)
        if query.language == "fr":
            note = f"(Les notes de {asked} n'en parlent pas" + (
                f" ; celles de {', '.join(others)} oui.)" if others else ".)"
            )
        else:
            note = f"(The {asked} docs don't cover it" + (f"; the {', '.join(others)} docs do.)" if others else ".)")
        return refusal(query, reason=note)

    @staticmethod
    def _in_products(passage: Passage, query: Query) -> bool:
        return not query.prefer_products or passage.chunk.product in query.prefer_products

    def _coverage_note(self, query: Query) -> str:
        """'(The indexed docs cover PyTorch versions 2.7.0–2.12.0.)', for the products the question is about."""
        fr = query.language == "fr"
        scope = set(query.products or query.prefer_products)
        products = [p for p in self.retriever.catalog.products if not scope or p.spellings & scope]
        spans = []
        for p in products:
            if not p.versions:
                continue
            name = f"{p.name} " if p.name else ""
            if len(p.versions) == 1:
                spans.append(f"{name}{'la version' if fr else 'version'} {p.versions[0]}")
            else:
                word = "les versions" if fr else "versions"
                spans.append(f"{name}{word} {p.versions[0]}–{p.versions[-1]}")
        if not spans:
            return "(Aucune version n'est indexée.)" if fr else "(No version is indexed.)"
        if fr:
            return f"(Les documents indexés couvrent {' ; '.join(spans)}.)"
        return f"(The indexed docs cover {'; '.join(spans)}.)"

    def _truncation_note(self, language: str) -> str:
        n = self.settings.max_question_chars
        if language == "fr":
            return f"La question a été coupée à {n} caractères ; seul ce début a été lu."
        return f"Your question was cut to its first {n} characters; only those were read."


def _joined(first: str | None, second: str) -> str:
    return f"{first} {second}" if first else second
