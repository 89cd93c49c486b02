"""The one object every interface talks to: ask, stream, search, versions."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Protocol, runtime_checkable

from assistant.answering import Answerer, ExtractiveAnswerer, assess, refusal
from assistant.embeddings import Embedder, SentenceTransformerEmbedder
from assistant.models import Answer, Passage
from assistant.query import Query, build_query
from assistant.retrieval import HybridRetriever
from assistant.settings import Settings
from assistant.store import ChunkStore

logger = logging.getLogger(__name__)

ANSWER_PASSAGES = 8  # passages the answerer reads; `top_k` of them at most are cited


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

    def versions(self) -> list[str]:
        """Indexed versions, oldest first."""
        return list(self.retriever.versions)

    def search(self, query: str, *, k: int = 10, version: str | None = None) -> list[Passage]:
        """The k best passages for a free-text query, with scores."""
        self.refresh()
        q = build_query(query, self.versions(), version=version, max_chars=self.settings.max_question_chars)
        return self.retriever.search(q, k)

    def ask(self, question: str, history: Sequence[str] = (), version: str | None = None) -> Answer:
        """Answer a question; `history` holds the user's earlier questions in this conversation."""
        *_, answer = self.stream(question, history, version)
        return answer

    def stream(self, question: str, history: Sequence[str] = (), version: str | None = None) -> Iterator[Answer]:
        """Drafts of the answer as it is written; the last one has `final=True` and timings."""
        started = time.perf_counter()
        timings: dict[str, float] = {}
        self.refresh()
        query = self._query(question, history, version, timings)
        answer: Answer | None = None
        for answer in self._answer(query, timings):
            if not answer.final:
                yield answer
        assert answer is not None
        timings["total"] = (time.perf_counter() - started) * 1e3
        if len(" ".join(question.split())) > self.settings.max_question_chars:
            answer = replace(answer, notice=_joined(answer.notice, self._truncation_note(query.language)))
        yield replace(answer, final=True, timings_ms={k: round(v, 2) for k, v in timings.items()})

    def _query(self, question: str, history: Sequence[str], version: str | None, timings: dict[str, float]) -> Query:
        """The question made searchable; with a condenser, a follow-up is first rewritten to stand alone."""
        max_chars = self.settings.max_question_chars
        query = build_query(question, self.versions(), history=history, version=version, max_chars=max_chars)
        if self.condenser is None or not any(h.strip() for h in history):
            return query
        started = time.perf_counter()
        standalone = self.condenser.condense(query.question, history)
        timings["condense"] = (time.perf_counter() - started) * 1e3
        if not standalone:
            return query
        searched = build_query(standalone, self.versions(), version=version, max_chars=max_chars)
        # The user's own words and language stay what the answer is for; only what is searched changes.
        return replace(
            searched,
            question=query.question,
            language=query.language,
            prefer=searched.prefer or query.prefer,
            unknown_versions=query.unknown_versions,  # a version the model made up must not cause a refusal
        )

    def _answer(self, query: Query, timings: dict[str, float]) -> Iterator[Answer]:
        no = self._precheck(query)
        if no is not None:
            yield no
            return
        passages = self.retriever.search(query, ANSWER_PASSAGES, timings)
        started = time.perf_counter()
        no = self._evidence_check(query, passages)
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

    def _coverage_note(self, query: Query) -> str:
        versions = self.versions()
        fr = query.language == "fr"
        if not versions:
            return "(Aucune version n'est indexée.)" if fr else "(No version is indexed.)"
        if len(versions) == 1:
            return (
                f"(Les documents indexés couvrent la version {versions[0]}.)"
                if fr
                else (f"(The indexed docs cover version {versions[0]}.)")
            )
        span = f"{versions[0]}–{versions[-1]}"
        return (
            f"(Les documents indexés couvrent les versions {span}.)"
            if fr
            else (f"(The indexed docs cover versions {span}.)")
        )

    def _truncation_note(self, language: str) -> str:
        n = self.settings.max_question_chars
        if language == "fr":
            return f"La question a été coupée à {n} caractères ; seul ce début a été lu."
        return f"Your question was cut to its first {n} characters; only those were read."


def _joined(first: str | None, second: str) -> str:
    return f"{first} {second}" if first else second
