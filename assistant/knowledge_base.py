"""The one object every interface talks to: ask, stream, search, versions, plan, scan."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from assistant.answering import Answerer, ExtractiveAnswerer
from assistant.bounded import BoundedWorker
from assistant.chunk_cache import cached_chunks, save_chunks
from assistant.embeddings import Embedder, make_embedder
from assistant.errors import ReldocsError
from assistant.following import next_in_section, with_following
from assistant.gate import Gate
from assistant.lexical import LexicalIndex, lexical_index
from assistant.messages import say
from assistant.models import Answer, Chunk, Passage
from assistant.query import Query, build_query, with_spellings
from assistant.refusals import refusal
from assistant.retrieval import HybridRetriever
from assistant.settings import Settings
from assistant.store import ChunkStore, Manifest
from assistant.vectors import ExactVectors, exact_vectors

if TYPE_CHECKING:
    from assistant.plan import UpgradePlan
    from assistant.scan import Progress, ScanReport

logger = logging.getLogger(__name__)

ANSWER_PASSAGES = 8  # passages the answerer reads; `top_k` of them at most are cited
HEAD_PASSAGES = 3  # ... and each ranking's first few, where fusion ranked them lower


@runtime_checkable
class Condenser(Protocol):
    """Rewrites a follow-up as a standalone question for search; None keeps the heuristic query."""

    def condense(self, question: str, history: Sequence[str]) -> str | None: ...


class KnowledgeBase:
    """Release docs you can ask questions of. Build once with `open`, share across threads."""

    def __init__(self, settings: Settings, retriever: HybridRetriever, answerer: Answerer | None = None) -> None:
        self.settings = settings
        self.retriever = retriever
        self.extractive = ExtractiveAnswerer(retriever, max_units=settings.top_k, following=self._next_in_section)
        self.answerer: Answerer = answerer or self.extractive
        self._stamp = retriever.store.stamp()
        self._reload_lock = threading.Lock()
        self._scans = BoundedWorker(memory_mb=settings.scan_memory_mb)  # its process starts at the first scan
        # An answerer that can also condense follow-ups (the LLM one) does; otherwise build_query's heuristic.
        self.condenser: Condenser | None = self.answerer if isinstance(self.answerer, Condenser) else None

    @classmethod
    def open(
        cls, settings: Settings, *, embedder: Embedder | None = None, answerer: Answerer | None = None
    ) -> KnowledgeBase:
        """Load the index built by `ingest.sync`; raises `IndexNotReady` when there is none."""
        from concurrent.futures import ThreadPoolExecutor

        store = ChunkStore.open(settings)
        manifest = store.manifest()
        with ThreadPoolExecutor(1, thread_name_prefix="embedder") as pool:
            # The model loads while the chunks are read: a cold start waits for the slower of the two only.
            loading = pool.submit(make_embedder, settings) if embedder is None else None
            try:
                chunks, lexical, vectors = _generation(settings, store, manifest)
            except ReldocsError:
                # A model that cannot load is said first: building the missing index would stop on it too.
                failed = loading.exception() if loading is not None else None
                if isinstance(failed, ReldocsError):
                    raise failed from None
                raise
            embedder = embedder or loading.result()  # type: ignore[union-attr]
        assert manifest is not None  # load_chunks raised otherwise
        kb = cls(settings, HybridRetriever(store, manifest, embedder, chunks, lexical, vectors), answerer)
        if answerer is None and settings.llm:
            from assistant.llm import LLMAnswerer  # LangChain's chat models load only when one is configured

            kb.answerer = kb.condenser = LLMAnswerer.from_settings(settings, fallback=kb.extractive)
        embedder.encode(["warm-up"])  # load the model now, not on the first user's question
        return kb

    def refresh(self) -> bool:
        """Pick up a generation another process (`app.py ingest`, on any machine sharing the server) made live;
        True when it reloaded. Raises `IndexUnavailable` while the server does not answer: the next call retries."""
        store = self.retriever.store
        if store.stamp() == self._stamp:
            return False
        with self._reload_lock:
            stamp = store.stamp()
            if stamp == self._stamp:
                return False
            manifest = store.manifest()
            chunks, lexical, vectors = _generation(self.settings, store, manifest)
            assert manifest is not None  # load_chunks raised otherwise
            retriever = HybridRetriever(store, manifest, self.retriever.embedder, chunks, lexical, vectors)
            self.retriever = self.extractive.stats = retriever
            self._stamp = stamp
            logger.info("index changed; reloaded %d chunks", len(retriever.chunks))
            return True

    def versions(self, product: str | None = None) -> list[str]:
        """Indexed versions of one product (name, module or alias), or of all products; oldest first."""
        return self.retriever.catalog.versions(product)

    def products(self, product: str | None = None) -> dict[str, list[str]]:
        """Each indexed product's name with its versions, oldest first; only `product`'s (a name, module or
        alias) when given, none when it is not indexed."""
        catalog = self.retriever.catalog
        chosen = catalog.products if product is None else [p for p in [catalog.product(product)] if p]
        return {p.name: list(p.versions) for p in chosen}

    def search(
        self, query: str, *, k: int = 10, version: str | None = None, product: str | None = None
    ) -> list[Passage]:
        """The k best passages for a free-text query, with scores."""
        self.refresh()
        q = build_query(
            query, self.retriever.catalog, version=version, product=product, max_chars=self.settings.max_question_chars
        )
        q = with_spellings(q, self.retriever.spellings)
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
        if query.truncated:
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
        query = with_spellings(build_query(question, catalog, history=history, **limits), self.retriever.spellings)
        if self.condenser is None or not any(h.strip() for h in history):
            return query
        started = time.perf_counter()
        standalone = self.condenser.condense(query.question, history)
        timings["condense"] = (time.perf_counter() - started) * 1e3
        if not standalone:
            return query
        searched = with_spellings(build_query(standalone, catalog, **limits), self.retriever.spellings)
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

    def plan(self, from_version: str, to_version: str, *, product: str | None = None) -> UpgradePlan:
        """Every change the docs announce after `from_version` up to `to_version`, in release order, cited."""
        from assistant.plan import make_plan

        self.refresh()
        return make_plan(self.retriever.chunks, self.retriever.catalog, from_version, to_version, product)

    def scan(
        self, paths: Sequence[str | Path], plan: UpgradePlan, *, progress: Progress | None = None, bounded: bool = False
    ) -> ScanReport:
        """Where the Python files and notebooks under `paths` use what `plan` says changed; a file over the
        settings' size caps is named and skipped. `bounded` (what servers ask for, without `progress`) runs the
        scan in a worker process, one at a time, raising `Overrun` past `scan_timeout_s` or `scan_memory_mb`:
        LibCST on a large file can then neither hold this process's interpreter nor exhaust its memory."""
        from assistant.plan import targets
        from assistant.scan import scan

        caps = {
            "max_bytes": self.settings.scan_max_file_kb * 1024,
            "max_notebook_bytes": self.settings.scan_max_notebook_kb * 1024,
        }
        if not bounded:
            return scan(paths, targets(plan), progress=progress, **caps)
        return self._scans.run(
            scan, list(map(Path, paths)), targets(plan), seconds=self.settings.scan_timeout_s, **caps
        )

    def _answer(self, query: Query, timings: dict[str, float]) -> Iterator[Answer]:
        from assistant.upgrade_answer import plan_answer, plan_for, planned

        # "What breaks if I go from 2.10 to 2.12?" is the whole plan's question.
        asked = planned(query, self.retriever.catalog)
        plan = plan_for(asked, self.retriever.chunks, self.retriever.catalog) if asked else None
        if plan is not None:
            yield from plan_answer(query.question, plan, query.language)
            return
        gate = Gate(
            self.retriever, self.extractive, lambda q: self.retriever.search(q, ANSWER_PASSAGES, heads=HEAD_PASSAGES)
        )
        reason = gate.before_search(query)
        if reason is not None:
            yield refusal(query, reason)
            return
        passages = self.retriever.search(query, ANSWER_PASSAGES, timings, heads=HEAD_PASSAGES)
        started = time.perf_counter()
        passages, reason = gate.after_search(query, passages)
        if reason is not None:
            yield refusal(query, reason)
            return
        if self.answerer is self.extractive:
            passages = with_following(passages, self.retriever.chunks, self.retriever.by_id)
        yield from self.answerer.stream(query, passages)
        timings["answer"] = (time.perf_counter() - started) * 1e3

    def _next_in_section(self, chunk: Chunk) -> Chunk | None:
        return next_in_section(chunk, self.retriever.chunks, self.retriever.by_id)

    def _truncation_note(self, language: str) -> str:
        return say("truncated", language, n=self.settings.max_question_chars)


def _joined(first: str | None, second: str) -> str:
    return f"{first} {second}" if first else second


def _generation(
    settings: Settings, store: ChunkStore, manifest: Manifest | None
) -> tuple[list[Chunk], LexicalIndex, ExactVectors | None]:
    """The live generation's chunks, with its saved lexical index and vectors (built or fetched if missing)."""
    chunks = cached_chunks(settings, manifest) if manifest is not None else None
    if chunks is None:
        chunks = store.load_chunks(manifest)
        assert manifest is not None  # load_chunks raised otherwise
        save_chunks(settings, manifest.collection, chunks)
    return (
        chunks,
        lexical_index(settings, manifest.collection, chunks),
        exact_vectors(settings, store, manifest, chunks),
    )
