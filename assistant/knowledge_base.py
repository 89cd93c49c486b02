"""The one object every interface talks to: ask, stream, search, versions, plan, api_diff, scan, plan_dependencies."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from assistant.answer.extractive import Answerer, ExtractiveAnswerer
from assistant.answer.respond import finished, respond
from assistant.embed.embedder import Embedder
from assistant.embed.loading import check_precision, load_with_model
from assistant.gate.decision import Gate, Verdict
from assistant.index.catalog import IndexedFile
from assistant.index.generation import load_generation
from assistant.index.store import ChunkStore
from assistant.model.query import Query
from assistant.model.records import Answer, Passage
from assistant.runtime.bounded import BoundedWorker
from assistant.runtime.settings import Settings
from assistant.search.retrieval import HybridRetriever
from assistant.tuning import DEFAULT, Tuning
from assistant.understand.condense import Condenser, understand

if TYPE_CHECKING:
    from assistant.model.api import ApiDiff, ReleaseTree
    from assistant.upgrade.bumps import Bump, DependencyPlan
    from assistant.upgrade.plan import UpgradePlan
    from assistant.upgrade.scan import Progress, ScanReport

logger = logging.getLogger(__name__)


class KnowledgeBase:
    """Release docs you can ask questions of. Build once with `open`, share across threads."""

    def __init__(
        self,
        settings: Settings,
        retriever: HybridRetriever,
        answerer: Answerer | None = None,
        *,
        tuning: Tuning = DEFAULT,
    ) -> None:
        self.settings = settings
        self.tuning = tuning  # the stages' tuned values, handed to each
        self.retriever = retriever
        self.extractive = ExtractiveAnswerer(retriever, tuning, max_units=settings.top_k)
        self.answerer: Answerer = answerer or self.extractive
        self._stamp = retriever.store.stamp()
        self._reload_lock = threading.Lock()
        self._scans = BoundedWorker(memory_mb=settings.scan_memory_mb)  # its process starts at the first scan
        # An answerer that can also condense follow-ups (the LLM one) does; otherwise build_query's heuristic.
        self.condenser: Condenser | None = self.answerer if isinstance(self.answerer, Condenser) else None

    @classmethod
    def open(
        cls,
        settings: Settings,
        *,
        embedder: Embedder | None = None,
        answerer: Answerer | None = None,
        tuning: Tuning = DEFAULT,
    ) -> KnowledgeBase:
        """Load the index built by `ingest.sync`; raises `IndexNotReady` when there is none."""
        store = ChunkStore.open(settings)
        generation, embedder = load_with_model(settings, store, embedder)
        kb = cls(settings, HybridRetriever.of(store, embedder, generation, tuning), answerer, tuning=tuning)
        if answerer is None and settings.llm:
            from assistant.answer.llm import LLMAnswerer  # LangChain's chat models load only when one is configured

            kb.answerer = kb.condenser = LLMAnswerer.from_settings(settings, fallback=kb.extractive, tuning=tuning)
        embedder.encode(["warm-up"])  # load the model now, not on the first user's question
        return kb

    def refresh(self) -> bool:
        """Pick up a generation another process (`app.py ingest`, on any machine sharing the server) made live;
        True when it reloaded. Raises `IndexUnavailable` while the server does not answer (the next call retries),
        and `IndexNotReady` when the new generation was embedded at another precision than this process embeds."""
        store = self.retriever.store
        if store.stamp() == self._stamp:
            return False
        with self._reload_lock:
            stamp = store.stamp()
            if stamp == self._stamp:
                return False
            generation = load_generation(self.settings, store, store.manifest())
            check_precision(generation.manifest, self.retriever.embedder, self.settings.embedding_precision)
            retriever = HybridRetriever.of(store, self.retriever.embedder, generation, self.tuning)
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
        return self.retriever.catalog.listing(product)

    def has_product(self, product: str) -> bool:
        """Whether the index holds `product` (its name, a module or an alias), releases or none."""
        return self.retriever.catalog.product(product) is not None

    def files(self, product: str | None = None) -> dict[str, list[IndexedFile]]:
        """Each indexed product's files, with the releases each holds and where they were read; only
        `product`'s when given, none when it is not indexed."""
        return {p.name: list(p.files) for p in self.retriever.catalog.chosen(product)}

    def search(
        self, query: str, *, k: int = 10, version: str | None = None, product: str | None = None
    ) -> list[Passage]:
        """The k best passages for a free-text query, with scores."""
        self.refresh()
        r, limit = self.retriever, self.settings.max_question_chars
        limits = {"version": version, "product": product, "max_chars": limit}
        return r.search(understand(query, r.catalog, r.spellings, tuning=self.tuning, **limits), k)

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
        r = self.retriever
        query = understand(
            question,
            r.catalog,
            r.spellings,
            history=history,
            version=version,
            product=product,
            max_chars=self.settings.max_question_chars,
            condenser=self.condenser,
            timings=timings,
            tuning=self.tuning,
        )
        answer: Answer | None = None
        for answer in self._answer(query, timings):
            if not answer.final:
                yield answer
        assert answer is not None
        timings["total"] = (time.perf_counter() - started) * 1e3
        yield finished(answer, query, timings, self.settings.max_question_chars)

    def examples(self, limit: int = 4) -> list[str]:
        """Up to `limit` questions the indexed docs answer, drawn from them and checked by asking each one
        (`assistant.examples`): what an interface offers a user who does not know what to ask."""
        from assistant.examples import example_questions

        self.refresh()
        return example_questions(self, limit)

    def plan(
        self,
        from_version: str,
        to_version: str,
        *,
        product: str | None = None,
        code: ApiDiff | None = None,
        notes: Sequence[str] = (),
    ) -> UpgradePlan:
        """Every change the docs announce after `from_version` up to `to_version`, in release order, cited; with
        `code` (`api_diff`), what the releases' code shows too, linked to the docs' changes or apart (and from the
        code alone when the product's docs are not indexed). `notes`: why the code diff is missing or partial."""
        from dataclasses import replace

        from packaging.utils import canonicalize_name

        from assistant.upgrade.code_plan import code_plan, with_code
        from assistant.upgrade.plan import NotIndexed, make_plan, named_in_docs
        from assistant.upgrade.targeting import doc_targets

        self.refresh()
        try:
            plan = make_plan(self.retriever.chunks, self.retriever.catalog, from_version, to_version, product)
        except NotIndexed:
            if code is None or canonicalize_name(product or "") != canonicalize_name(code.product):
                raise
            plan = code_plan(code, from_version, to_version)
        else:
            if code is not None and canonicalize_name(code.product) not in {
                canonicalize_name(n) for n in (plan.product, product or "")
            }:
                notes = (*notes, f"the code diff is of {code.product}, not {plan.product}: left out")
            elif code is not None:
                named = named_in_docs(self.retriever.chunks, self.retriever.catalog, plan.product)
                plan = with_code(plan, code, doc_targets(plan), named)
        return replace(plan, notes=(*plan.notes, *notes)) if notes else plan

    def api_diff(
        self,
        trees: Sequence[ReleaseTree],
        *,
        progress: Callable[[list[ReleaseTree]], Iterable[ReleaseTree]] | None = None,
        cached_only: bool = False,
        paths: Sequence[str | Path] = (),
        bounded: bool = False,
    ) -> ApiDiff:
        """What changed in the public API of consecutive releases (oldest first), read from their unpacked source
        without running it; cached by the archives' sha256 (`assistant.upgrade.api`). `progress` wraps the
        releases as they are loaded (none is when every pair is cached); with `cached_only`, `NotCached` unless
        every pair is. With `paths`, also each name the code there takes from the product that the newest
        release shows gone, which the older one did not (`assistant.upgrade.api.namespaces`): one the older
        release made at run time is in no diff of the two. `bounded` (what servers ask for; `progress` is not
        shown) works in the scan's worker process, raising `Overrun` as `scan` does: the code under `paths` is read
        there, never in this process, within the scan's size cap per file, and none of it is kept there for the
        next request."""
        from assistant.upgrade.reach import diff_reached

        cache_dir = self.settings.api_diffs_path
        if bounded:
            return self._scans.run(
                diff_reached,
                list(trees),
                list(map(Path, paths)),
                cache_dir=cache_dir,
                cached_only=cached_only,
                max_bytes=self.settings.scan_max_file_kb * 1024,
                keep_parses=False,
                seconds=self.settings.scan_timeout_s,
            )
        return diff_reached(trees, paths, cache_dir=cache_dir, progress=progress, cached_only=cached_only)

    def scan(
        self,
        paths: Sequence[str | Path],
        plan: UpgradePlan,
        *,
        progress: Progress | None = None,
        bounded: bool = False,
        parallel: bool = False,
    ) -> ScanReport:
        """Where the Python files and notebooks under `paths` use what `plan` says changed; a file over the
        settings' size caps is named and skipped. `bounded` (what servers ask for, without `progress`) runs the
        scan in a worker process, one at a time, raising `Overrun` past `scan_timeout_s` or `scan_memory_mb`:
        a large or pathological file can then neither hold this process's interpreter nor exhaust its memory.
        `parallel` reads many files in a process per core (the command line's choice: see `scan.scan`)."""
        from assistant.upgrade.scan import scan_capped
        from assistant.upgrade.targeting import targets

        worker = self._scans if bounded else None
        returns = dict(plan.code_returns)  # the releases' annotations type receivers, installed or not
        return scan_capped(
            paths, targets(plan), self.settings, progress=progress, worker=worker, parallel=parallel, returns=returns
        )

    def plan_dependencies(
        self,
        bumps: Sequence[Bump],
        paths: Sequence[str | Path] = (),
        *,
        progress: Progress | None = None,
        parallel: bool = False,
        no_docs: Mapping[str, str] | None = None,
        code: Mapping[str, ApiDiff] | None = None,
        notes: Mapping[str, Sequence[str]] | None = None,
    ) -> DependencyPlan:
        """A plan per dependency bumped (a registry name, from → to), from the indexed docs of the product it names
        and, where `code` has its diff (`api_diff`, by registry name), its releases' code; with the hits in the code
        under `paths` (scanned once for every plan, as `scan` does); worst first, the packages without a plan said
        why (`assistant.upgrade.bumps`), `no_docs` saying why a fetch found none and `notes` why a diff is missing."""
        from assistant.upgrade.bumps import plan_dependencies
        from assistant.upgrade.scan import scan_capped

        self.refresh()
        settings = self.settings

        returns = {k: v for diff in (code or {}).values() for k, v in diff.returns.items()}  # they type receivers

        def scan(targets: list) -> ScanReport:
            return scan_capped(paths, targets, settings, progress=progress, parallel=parallel, returns=returns)

        r = self.retriever
        return plan_dependencies(
            r.chunks, r.catalog, bumps, scan=scan if paths else None, no_docs=no_docs, code=code, notes=notes
        )

    def _answer(self, query: Query, timings: dict[str, float]) -> Iterator[Answer]:
        """The pipeline: an upgrade question is answered from its plan; any other is searched, gated, answered."""
        from assistant.answer.upgrade import plan_answer, plan_for

        r = self.retriever
        if query.upgrade is not None and (plan := plan_for(query.upgrade, r.chunks, r.catalog)) is not None:
            yield from plan_answer(query.question, plan, query.language, self.tuning)
            return
        n = self.tuning.search.answer_passages
        gate = Gate(r, self.extractive, self.tuning)
        reason = gate.before_search(query)
        if reason is not None:
            yield from respond(query, Verdict((), reason), self.answerer, tuning=self.tuning)
            return
        passages = r.search(query, n, timings)
        started = time.perf_counter()
        verdict = gate.after_search(query, passages)
        following = (r.chunks, r.by_id) if self.answerer is self.extractive else None
        yield from respond(query, verdict, self.answerer, following=following, tuning=self.tuning)
        if verdict.reason is None:
            timings["answer"] = (time.perf_counter() - started) * 1e3
