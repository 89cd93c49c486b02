"""Does every heuristic earn its keep? Switch each off in turn and score every evaluation set.

The heuristics and what "off" means for each are listed in `bench/ablation_table.py`. Each set's index is
built (or reused) once with the core's ingest, exactly as `bench/evaluate.py --set S` does, and kept open.
Each ablation opens each set's knowledge base anew with its tuned values replaced (`Tuning.with_values`: a
fresh answerer, so no warm coverage cache, and the retriever over the same index reading the new values) and,
for what is no tuned value, patches the core's modules and clears their caches; where it acts at build time,
the retriever is built anew. Then it asks every question again and records which checks and answers changed. The report,
`docs/heuristics-ablation.md`, gives each heuristic's per-set and total deltas and a verdict: `keep`
(switching it off loses), `harmful` (switching it off gains), `mixed` or `no-effect`.

Usage (index caches live in the temp dir, so give each checkout its own):
    TMPDIR=/tmp/mine python bench/ablation.py                  # score the five sets, write the report
    TMPDIR=/tmp/mine python bench/ablation.py --sets pytorch pandas sqlalchemy pydantic django all
    TMPDIR=/tmp/mine python bench/ablation.py --tests --json raw.json    # also the fast tests, per ablation
    TMPDIR=/tmp/mine python bench/ablation.py --tests-from raw.json      # reuse those test results
    TMPDIR=/tmp/mine python bench/ablation.py --only "sentences: prior" _HOW --out -   # a few, to stdout
    python bench/ablation.py --pytest NAME -- tests/test_answers.py   # pytest with one heuristic off

One pass over the five sets takes about 2 s in-process; the table tests take about 3 s per ablation.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import importlib
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from assistant.knowledge_base import KnowledgeBase  # noqa: E402
from assistant.model.units import units_of  # noqa: E402
from assistant.search.removals import removals  # noqa: E402
from assistant.search.retrieval import HybridRetriever  # noqa: E402
from assistant.text.instructions import instructs  # noqa: E402
from assistant.text.words import _short_tokens, _stem  # noqa: E402
from assistant.tuning import DEFAULT, Tuning  # noqa: E402
from bench import evaluate as ev  # noqa: E402
from bench.ablation_neutral import Ablation  # noqa: E402
from bench.ablation_report import CHECKS, COMBINED, FAST_TESTS, flips, rates, render  # noqa: E402
from bench.ablation_table import ABLATIONS  # noqa: E402

DEFAULT_OUT = REPO_ROOT / "docs" / "heuristics-ablation.md"
SETS = ev.SET_NAMES  # pytorch and the four product sets, each over its own index
Outcome = dict[str, frozenset[str]]  # question id -> the checks it fails


class CachedEmbedder:
    """The real embedder, remembering question vectors: an ablation rarely changes the searched text."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self._seen: dict[str, np.ndarray] = {}

    def encode(self, texts: list[str], *, batch_size: int = 32) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._seen]
        if missing:
            self._seen.update(zip(missing, self.inner.encode(missing, batch_size=batch_size), strict=True))
        return np.stack([self._seen[t] for t in texts])


class Recorder:
    """A knowledge base that remembers each answer's text and citations, to tell which answers changed."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self.kb = kb
        self.answers: list[str] = []
        self.lengths: list[int] = []

    def ask(self, question: str, history: Sequence[str] = (), version: str | None = None) -> Any:
        try:
            answer = self.kb.ask(question, history, version)
        except Exception as exc:  # `evaluate` scores it as an error; the answer still needs its place
            self.answers.append(f"error: {type(exc).__name__}: {exc}")
            self.lengths.append(0)
            raise
        cited = "".join(f"\n[{c.n}] {c.source} {c.quote}" for c in answer.citations)
        self.answers.append(answer.text + cited)
        self.lengths.append(len(answer.text))
        return answer


def _resolve(path: str) -> Any:
    """A module, or a class inside one, by dotted path."""
    with contextlib.suppress(ModuleNotFoundError):
        return importlib.import_module(path)
    parent, _, name = path.rpartition(".")
    return getattr(_resolve(parent), name)


@contextlib.contextmanager
def switched_off(ablation: Ablation | None, *, defaults: bool = False) -> Iterator[None]:
    """The core with one heuristic's patches made (None: as shipped); sentence caches cleared. Its tuned values
    are the knowledge base's to take (`_fresh`); with `defaults`, `DEFAULT` itself holds them too (`_defaults`)."""
    with contextlib.ExitStack() as stack:
        for target, attr, value in ablation.patches if ablation else ():
            stack.enter_context(mock.patch.object(_resolve(target), attr, value))
        if defaults and ablation is not None:
            stack.enter_context(_defaults(ablation.tuning))
        _clear_caches()
        try:
            yield
        finally:
            _clear_caches()


@contextlib.contextmanager
def _defaults(values: Sequence[tuple[str, Any]]) -> Iterator[None]:
    """`DEFAULT` with `values` (`part__field`) written into it, restored after. Only for `--pytest`: the tests
    build their knowledge bases and call the stages without a tuning, so they read `DEFAULT`, a frozen object
    that only this process, for this run, changes in place."""
    DEFAULT.with_values(**dict(values))  # every name must be a tuned value
    saved = []
    for name, value in values:
        part, _, key = name.partition("__")
        holder = getattr(DEFAULT, part)
        saved.append((holder, key, getattr(holder, key)))
        object.__setattr__(holder, key, value)
    try:
        yield
    finally:
        for holder, key, value in reversed(saved):
            object.__setattr__(holder, key, value)


def _clear_caches() -> None:
    """The core's caches of what a patched heuristic may decide: sentences, stems, short texts' tokens,
    instructions, removals."""
    units_of.cache_clear()
    _stem.cache_clear()  # the spelling fold acts inside the cached stemmer
    _short_tokens.cache_clear()  # ... and a question's or a sentence's tokens keep its stems
    instructs.cache_clear()
    removals.cache_clear()


def open_sets(names: Sequence[str]) -> dict[str, tuple[KnowledgeBase, list[dict[str, Any]]]]:
    """Each set's knowledge base over its own corpus and index (what `evaluate.py --set S` opens)."""
    from assistant.embed.embedder import SentenceTransformerEmbedder
    from assistant.runtime.settings import Settings
    from ingest import sync

    embedder = CachedEmbedder(SentenceTransformerEmbedder(Settings().embedding_model))
    out = {}
    for name in names:
        corpus_dir, files = ev._plan(argparse.Namespace(set=name, corpus=None, more_corpus=None, questions=None))
        settings = Settings(corpus_dir=corpus_dir, index_dir=ev.default_index_dir(corpus_dir).resolve())
        with contextlib.redirect_stdout(sys.stderr):
            sync(settings, progress=False, embedder=embedder.inner)
        questions = [q for path in files.values() for q in ev.load_questions(path)]
        out[name] = (KnowledgeBase.open(settings, embedder=embedder), questions)  # type: ignore[arg-type]
    return out


def _fresh(kb: KnowledgeBase, ablation: Ablation | None) -> KnowledgeBase:
    """A knowledge base over the same index with the ablation's tuned values, a new answerer (no warm coverage
    cache) and a retriever reading those values: built anew over the same chunks where the ablation acts at
    build time, else a copy of the open one (what it builds, its indexes, no ablation of this kind changes).
    The retriever's one cache, the last question's vector, is safe: a text's vector does not depend on any
    heuristic."""
    r, tuning = kb.retriever, ablation.tuned() if ablation else DEFAULT
    if ablation and ablation.rebuild:
        retriever = HybridRetriever(r.store, r.manifest, r.embedder, r.chunks, tuning=tuning)
    else:
        retriever = _retuned(r, tuning)
    return KnowledgeBase(kb.settings, retriever, tuning=tuning)


def _retuned(retriever: HybridRetriever, tuning: Tuning) -> HybridRetriever:
    """`retriever` over the same index, reading `tuning` at each search."""
    if retriever.tuning is tuning:
        return retriever
    out = copy.copy(retriever)
    out.tuning = tuning
    return out


def score(sets: Mapping[str, tuple[KnowledgeBase, list[dict[str, Any]]]], ablation: Ablation | None) -> dict[str, Any]:
    """Every set asked with `ablation` switched off: per set, the metrics and each question's failed checks."""
    out: dict[str, Any] = {}
    with switched_off(ablation):
        for name, (kb, questions) in sets.items():
            recorder = Recorder(_fresh(kb, ablation))
            report = ev.evaluate(recorder, questions)
            failed: Outcome = {q["id"]: frozenset() for q in questions}
            for f in report["failures"]:
                checks = ("answer", "source") if f["answerable"] else ("refusal",)
                failed[f["id"]] = frozenset(c for c in checks if not f[f"{c}_ok"])
            counts = {c: (report[f"{c}_acc"]["count"], report[f"{c}_acc"]["total"]) for c in CHECKS}
            answers = dict(zip((q["id"] for q in questions), recorder.answers, strict=True))
            answered = [n for q, n in zip(questions, recorder.lengths, strict=True) if q["answerable"]]
            out[name] = {
                "counts": counts,
                "failed": failed,
                "errors": report["errors"],
                "answers": answers,
                "chars": sum(answered) / max(len(answered), 1),
            }
    return out


def run_tests(ablation: Ablation | None, tests: Sequence[str]) -> list[str]:
    """Failed test ids of the fast tests with `ablation` switched off, in a fresh interpreter."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--pytest", ablation.name if ablation else "", "--", *tests]
    proc = subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, text=True, check=False)
    failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", proc.stdout, re.MULTILINE)
    if proc.returncode not in (0, 1) or (proc.returncode == 1 and not failed):
        failed.append(f"pytest exit {proc.returncode}")
    return failed


def _pytest(name: str, args: Sequence[str]) -> int:
    """pytest with one heuristic switched off ('' for none), patched (and `DEFAULT` changed) before the tests
    are collected."""
    import pytest

    ablation = next((a for a in ABLATIONS if a.name == name), None) if name else None
    if name and ablation is None:
        print(f"error: unknown heuristic {name!r}", file=sys.stderr)
        return 2
    with switched_off(ablation, defaults=True):
        return int(pytest.main(["-q", "-p", "no:cacheprovider", "-m", "not slow", *args]))


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Switch off each answerer heuristic in turn and score every evaluation set.",
        epilog="example: TMPDIR=/tmp/mine python bench/ablation.py --tests",
    )
    parser.add_argument(
        "--sets",
        nargs="+",
        choices=(*SETS, COMBINED, *ev.FETCHED_SETS),
        default=list(SETS),
        help="evaluation sets to score, each over its own index; 'all' adds every set over one combined index",
    )
    parser.add_argument("--only", nargs="+", metavar="NAME", help="only these heuristics (names as in the report)")
    parser.add_argument("--tests", action="store_true", help="also run the fast tests under each ablation")
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="report path, '-' for stdout")
    parser.add_argument("--json", type=Path, default=None, help="also write the raw results here")
    parser.add_argument("--tests-from", type=Path, default=None, help="test results of an earlier --json run")
    parser.add_argument("--pytest", metavar="NAME", default=None, help="run pytest with NAME off ('' for none)")
    parser.add_argument("pytest_args", nargs="*", help="after --: tests for --pytest")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    args = _parse_args(argv)
    if args.pytest is not None:
        return _pytest(args.pytest, args.pytest_args or FAST_TESTS)
    chosen = [a for a in ABLATIONS if not args.only or a.name in args.only]
    unknown = set(args.only or ()) - {a.name for a in ABLATIONS}
    if unknown:
        print(f"error: unknown heuristics {sorted(unknown)}", file=sys.stderr)
        return 2
    sets = open_sets(args.sets)
    started = time.perf_counter()
    base = score(sets, None)
    print("baseline: " + "; ".join(f"{n} {rates(r['counts'])}" for n, r in base.items()), file=sys.stderr)
    if score(sets, None) != base:
        print("warning: the baseline is not reproducible in-process", file=sys.stderr)
    results = {}
    for ablation in chosen:
        results[ablation.name] = score(sets, ablation)
        lost, gained = flips(base, results[ablation.name])
        print(f"{ablation.name}: lost {len(lost)} gained {len(gained)}", file=sys.stderr)
    seconds = time.perf_counter() - started
    tests = json.loads(args.tests_from.read_text(encoding="utf-8"))["tests"] if args.tests_from else None
    if args.tests:
        tests = {"": run_tests(None, FAST_TESTS)}
        for ablation in chosen:
            tests[ablation.name] = run_tests(ablation, FAST_TESTS)
            print(f"tests {ablation.name}: {len(tests[ablation.name])} failing", file=sys.stderr)
    report = render(base, results, tests, seconds)
    if args.json:
        raw = {"baseline": base, "ablations": results, "tests": tests}
        args.json.write_text(json.dumps(raw, default=sorted, indent=1), encoding="utf-8")
    if args.out == "-":
        print(report)
    else:
        Path(args.out).write_text(report, encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
