"""Score reldocs against its evaluation sets: bench/questions.jsonl (PyTorch) and one set per product.

Usage:
    python bench/evaluate.py [--corpus DIR] [--index DIR] [--questions FILE]
                             [--json] [--show-failures]
    python bench/evaluate.py --set {pytorch,pandas,sqlalchemy,pydantic,django,all}
                             [--corpus DIR] [--more-corpus DIR] [--index DIR] [--json] [--show-failures]

Without `--set` the PyTorch set is scored over `--corpus` (default ../shared/corpus). `--set pandas`
(or sqlalchemy, pydantic, django) scores that product's set over a temp corpus holding only its docs,
copied from `--more-corpus` (default ../shared/corpus-more); `--set all` builds one index over every
product plus PyTorch and scores every set against it, reported per set and in total.

The script is a report: it exits 0 whatever the scores are, 2 for bad arguments
(unreadable questions file, missing corpus folder) and 1 only when the core cannot
run at all. `load_questions`, `evaluate` and `evaluate_sets` are
importable without the core.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import math
import os
import re
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

REPO_ROOT = Path(__file__).resolve().parents[1]
BENCH_DIR = Path(__file__).resolve().parent
if str(REPO_ROOT) not in sys.path:  # run as a script: `bench` is a package of the repository
    sys.path.insert(0, str(REPO_ROOT))

from bench.eval_corpus import stage_corpus, staged_corpus_dir  # noqa: E402
from bench.eval_report import format_report  # noqa: E402

DEFAULT_QUESTIONS = BENCH_DIR / "questions.jsonl"
PRODUCT_SETS = ("pandas", "sqlalchemy", "pydantic", "django")  # each: bench/questions-<name>.jsonl
SET_NAMES = ("pytorch", *PRODUCT_SETS)
# Asked only by name, never in `all`: their docs are fetched from PyPI by bench/fetch_changelogs.py, not shared.
CHANGELOG_SET = "changelogs"
CHANGELOG_SETS = (CHANGELOG_SET, "changelogs-more", "changelogs-blind", "changelogs-blind2", "changelogs-blind3")
# ... and of per-release notes and guides (`<product>/<version>/<file>`), fetched by bench/fetch_release_notes.py.
RELEASE_NOTES_SETS = ("release-notes-blind", "release-notes-blind2", "mixed-blind")
FETCHED_SETS = (*CHANGELOG_SETS, *RELEASE_NOTES_SETS)
REQUIRED_KEYS = (
    "id",
    "question",
    "answerable",
    "lang",
    "must_contain",
    "sources",
    "version",
)


class SupportsAsk(Protocol):
    """What `evaluate` needs from a knowledge base (the core's `KnowledgeBase`)."""

    def ask(self, question: str, history: Sequence[Any] = (), version: str | None = None) -> Any: ...


def default_corpus_dir() -> Path:
    """`$RELDOCS_CORPUS_DIR`, else the shared corpus next to the repository."""
    env = os.environ.get("RELDOCS_CORPUS_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "shared" / "corpus"


def default_more_dir() -> Path:
    """`$RELDOCS_MORE_CORPUS_DIR`, else ../shared/corpus-more: one `<product>/<version>/` tree per product set."""
    env = os.environ.get("RELDOCS_MORE_CORPUS_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "shared" / "corpus-more"


def changelogs_dir(name: str = CHANGELOG_SET) -> Path:
    """Where bench/fetch_changelogs.py puts a changelog set's docs (`<product>/<file>`, no version folders), and
    bench/fetch_release_notes.py the release notes set's (`<product>/<version>/<file>`)."""
    return Path(tempfile.gettempdir()) / f"reldocs-{name}"


def set_questions(name: str) -> Path:
    """The questions file of one evaluation set."""
    if name not in (*SET_NAMES, *FETCHED_SETS):
        raise ValueError(f"unknown set {name!r}; choose from {', '.join((*SET_NAMES, *FETCHED_SETS))}")
    return DEFAULT_QUESTIONS if name == "pytorch" else BENCH_DIR / f"questions-{name}.jsonl"


def set_sources(name: str, pytorch_corpus: Path, more_dir: Path) -> dict[str, Path]:
    """Folder to copy per product for `--set name` (`all`: every product plus PyTorch), keyed by product.

    The PyTorch corpus root is copied whole: it already holds `pytorch/<version>/...`.
    """
    names = (*PRODUCT_SETS, "pytorch") if name == "all" else (name,)
    return {n: pytorch_corpus if n == "pytorch" else more_dir / n for n in names}


def default_index_dir(corpus_dir: Path) -> Path:
    """A temp folder keyed by the corpus path, so reruns reuse the same index."""
    key = hashlib.sha256(str(corpus_dir.resolve()).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"reldocs-bench-index-{key}"


def load_questions(path: Path | str) -> list[dict[str, Any]]:
    """Read a JSONL question file; raises ValueError/TypeError naming the bad line."""
    questions: list[dict[str, Any]] = []
    seen: set[str] = set()
    with Path(path).open(encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: invalid JSON ({exc.msg})") from exc
            if not isinstance(item, dict):
                raise TypeError(f"{path}:{lineno}: expected a JSON object")
            if "q" in item and "question" not in item:
                item = from_blind_format(item)
            missing = [key for key in REQUIRED_KEYS if key not in item]
            if missing:
                raise ValueError(f"{path}:{lineno}: missing keys {missing}")
            if item["id"] in seen:
                raise ValueError(f"{path}:{lineno}: duplicate id {item['id']!r}")
            if item["answerable"] and not item["must_contain"] and not item.get("any_of"):
                raise ValueError(f"{path}:{lineno}: answerable question without must_contain")
            seen.add(item["id"])
            questions.append(item)
    return questions


def from_blind_format(item: dict[str, Any]) -> dict[str, Any]:
    """A question written as ../shared/blind-sets.md says (`q`, `any`, `src`, `ans`, `version`) in this scorer's
    terms: one phrase of `any` suffices (backticks and asterisks dropped), `src` are parts of the cited path, and
    `version` is the release the citation must be of, not a filter on the search."""
    return {
        "id": item.get("id"),
        "question": item.get("q"),
        "answerable": bool(item.get("ans")),
        "lang": item.get("lang", "en"),
        "must_contain": [],
        "any_of": list(item.get("any") or []),
        "sources": list(item.get("src") or []),
        "source_parts": True,
        "version": None,
        "versions": [item["version"]] if item.get("version") else [],
        "drop": "`*",
    }


def normalize(text: str, drop: str = "`") -> str:
    """Drop backticks (or the characters of `drop`), collapse whitespace and case-fold, for phrase matching."""
    return re.sub(r"\s+", " ", re.sub(f"[{re.escape(drop)}]", "", text)).strip().casefold()


def missing_phrases(text: str, phrases: Iterable[str], drop: str = "`") -> list[str]:
    """The phrases that do not occur in `text` (after normalising both sides)."""
    haystack = normalize(text, drop)
    return [phrase for phrase in phrases if normalize(phrase, drop) not in haystack]


def expected_source(question: dict[str, Any], cited: Any) -> bool:
    """`cited` (a citation, or a chunk: its `source`, and its `version` where the set names releases) is what the
    question expects: its file (a blind set names parts of the path, not the path) and, where the set names
    releases, one of them (a changelog holds every release in one file, so there the citation must also be of the
    release asked about)."""
    expected, source = question["sources"], str(cited.source)
    where = any(p in source for p in expected) if question.get("source_parts") else source in expected
    versions = {release(v) for v in question.get("versions") or ()}
    return where and (not versions or release(cited.version) in versions)


def release(version: str) -> str:
    """A release number as a changelog may write it or a question's author normalise it: "6.0" is "6.0.0"."""
    return re.sub(r"(?:\.0)+$", "", version.strip().lower().removeprefix("v"))


def percentile(values: Sequence[float], pct: float) -> float | None:
    """Nearest-rank percentile; None for an empty sample."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


def _ratio(count: int, total: int) -> dict[str, Any]:
    return {"count": count, "total": total, "rate": count / total if total else None}


def _score_one(kb: SupportsAsk, question: dict[str, Any]) -> dict[str, Any]:
    """Ask one question and judge the answer against its expectations."""
    started = time.perf_counter()
    error: str | None = None
    try:
        answer = kb.ask(question["question"], history=(), version=question.get("version"))
    except Exception as exc:
        answer, error = None, f"{type(exc).__name__}: {exc}"
    elapsed_ms = (time.perf_counter() - started) * 1000

    text = getattr(answer, "text", "") or ""
    found = bool(getattr(answer, "found", False))
    citations = getattr(answer, "citations", ()) or ()
    cited = [str(c.source) for c in citations]
    timings = getattr(answer, "timings_ms", None) or {}
    latency = float(timings.get("total", elapsed_ms))

    result: dict[str, Any] = {
        "id": question["id"],
        "lang": question.get("lang", "en"),
        "answerable": bool(question["answerable"]),
        "question": question["question"],
        "version": question.get("version"),
        "found": found,
        "text": text,
        "cited_sources": cited,
        "latency_ms": latency,
        "error": error,
    }
    if question["answerable"]:
        drop = question.get("drop", "`")
        missing = missing_phrases(text, question["must_contain"], drop)
        alternatives = question.get("any_of") or []
        if alternatives and len(missing_phrases(text, alternatives, drop)) == len(alternatives):
            missing.append(" | ".join(alternatives))  # none of them
        expected = set(question["sources"])
        result["missing_phrases"] = missing
        result["expected_sources"] = sorted(expected)
        result["answer_ok"] = error is None and found and not missing
        result["source_ok"] = error is None and any(expected_source(question, c) for c in citations)
        result["false_refusal"] = error is None and not found
        result["ok"] = result["answer_ok"] and result["source_ok"]
    else:
        result["refusal_ok"] = error is None and not found and not cited
        result["ok"] = result["refusal_ok"]
    return result


def _metrics(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    answerable = [r for r in results if r["answerable"]]
    unanswerable = [r for r in results if not r["answerable"]]
    return {
        "questions": len(results),
        "answer_acc": _ratio(sum(r["answer_ok"] for r in answerable), len(answerable)),
        "source_acc": _ratio(sum(r["source_ok"] for r in answerable), len(answerable)),
        "refusal_acc": _ratio(sum(r["refusal_ok"] for r in unanswerable), len(unanswerable)),
        "false_refusal": _ratio(sum(r["false_refusal"] for r in answerable), len(answerable)),
    }


def _latency(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    latencies = [r["latency_ms"] for r in results]
    return {"p50": percentile(latencies, 50), "p95": percentile(latencies, 95), "n": len(latencies)}


def _report(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    langs = sorted({r["lang"] for r in results})
    report = _metrics(results)
    report["by_lang"] = {lang: _metrics([r for r in results if r["lang"] == lang]) for lang in langs}
    report["latency_ms"] = _latency(results)
    report["errors"] = sum(r["error"] is not None for r in results)
    report["failures"] = [r for r in results if not r["ok"]]
    return report


def evaluate(kb: SupportsAsk, questions: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Ask every question; return overall, per-language, latency metrics and failures."""
    return _report([_score_one(kb, question) for question in questions])


def check_unique_ids(sets: Mapping[str, Sequence[dict[str, Any]]]) -> None:
    """Raise ValueError when two sets share a question id (failures and reports are keyed by id)."""
    seen: dict[str, str] = {}
    for name, questions in sets.items():
        for question in questions:
            if question["id"] in seen:
                raise ValueError(f"duplicate id {question['id']!r} in sets {seen[question['id']]!r} and {name!r}")
            seen[question["id"]] = name


def evaluate_sets(kb: SupportsAsk, sets: Mapping[str, Sequence[dict[str, Any]]]) -> dict[str, Any]:
    """`evaluate` over several named sets asked of one knowledge base, plus `by_set` metrics per set.

    Overall figures pool every question; each failure names its set. Ids must be unique across sets.
    """
    check_unique_ids(sets)
    results = []
    for name, questions in sets.items():
        results += [{**_score_one(kb, question), "set": name} for question in questions]
    report = _report(results)
    report["by_set"] = {}
    for name in sets:
        subset = [r for r in results if r["set"] == name]
        report["by_set"][name] = {
            **_metrics(subset),
            "latency_ms": _latency(subset),
            "errors": sum(r["error"] is not None for r in subset),
        }
    return report


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Score reldocs against the evaluation sets.",
        epilog="example: python bench/evaluate.py --set pandas --show-failures",
    )
    parser.add_argument("--corpus", type=Path, default=None, help="corpus root folder (the PyTorch docs)")
    parser.add_argument(
        "--more-corpus",
        type=Path,
        default=None,
        help="folder of the other products' docs, <product>/<version>/ (default ../shared/corpus-more)",
    )
    parser.add_argument("--index", type=Path, default=None, help="index folder (built if needed)")
    parser.add_argument("--questions", type=Path, default=None, help="JSONL file (default: the PyTorch set)")
    parser.add_argument(
        "--set",
        choices=(*SET_NAMES, *FETCHED_SETS, "all"),
        default=None,
        help="evaluation set: its questions over its product's docs alone; 'all' = every set over one index",
    )
    parser.add_argument(
        "--system",
        choices=("reldocs", "bm25", "dense"),
        default="reldocs",
        help="what retrieves: reldocs' hybrid search, or a BM25 or dense-only baseline (same gate and answerer)",
    )
    parser.add_argument("--json", action="store_true", help="print the metrics as JSON")
    parser.add_argument(
        "--show-failures",
        action="store_true",
        help="list failed questions with their answers",
    )
    return parser.parse_args(argv)


def _open_kb(corpus_dir: Path, index_dir: Path, quiet: bool) -> SupportsAsk:
    """Build or update the index with the core's ingest, then open the KnowledgeBase."""
    if str(REPO_ROOT) not in sys.path:
        sys.path.insert(0, str(REPO_ROOT))
    from assistant.knowledge_base import KnowledgeBase
    from assistant.runtime.settings import Settings
    from ingest import sync

    settings = Settings(corpus_dir=corpus_dir, index_dir=index_dir)
    # Keep stdout clean for --json: whatever ingest prints goes to stderr.
    with contextlib.redirect_stdout(sys.stderr):
        sync(settings, progress=not quiet)
    return KnowledgeBase.open(settings)


def _plan(args: argparse.Namespace) -> tuple[Path, dict[str, Path]]:
    """The corpus folder to index and the questions file per set; raises ValueError/FileNotFoundError."""
    pytorch_corpus = (args.corpus or default_corpus_dir()).resolve()
    if args.set is None:
        questions = args.questions or DEFAULT_QUESTIONS
        name = "pytorch" if questions.resolve() == DEFAULT_QUESTIONS else questions.stem
        if not pytorch_corpus.is_dir():
            raise FileNotFoundError(f"corpus folder not found: {pytorch_corpus}")
        return pytorch_corpus, {name: questions}
    if args.questions is not None:
        raise ValueError("--questions cannot be combined with --set (the set names its questions)")
    names = SET_NAMES if args.set == "all" else (args.set,)
    files = {name: set_questions(name) for name in names}
    if args.set in FETCHED_SETS:
        folder = changelogs_dir(args.set)
        if not folder.is_dir():
            script = "fetch_release_notes" if args.set in RELEASE_NOTES_SETS else "fetch_changelogs"
            raise FileNotFoundError(f"{folder} not found: fetch the docs with python bench/{script}.py")
        return folder, files
    if args.set == "pytorch":
        if not pytorch_corpus.is_dir():
            raise FileNotFoundError(f"corpus folder not found: {pytorch_corpus}")
        return pytorch_corpus, files
    sources = set_sources(args.set, pytorch_corpus, (args.more_corpus or default_more_dir()).resolve())
    return stage_corpus(sources, staged_corpus_dir(args.set, sources)), files


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    args = _parse_args(argv)
    try:
        corpus_dir, files = _plan(args)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        sets = {name: load_questions(path) for name, path in files.items()}
        check_unique_ids(sets)
    except (OSError, TypeError, ValueError) as exc:
        print(f"error: cannot load questions: {exc}", file=sys.stderr)
        return 2
    index_dir = (args.index or default_index_dir(corpus_dir)).resolve()

    try:
        kb = _open_kb(corpus_dir, index_dir, quiet=args.json)
    except Exception as exc:
        print(
            f"error: cannot open the knowledge base: {type(exc).__name__}: {exc}",
            file=sys.stderr,
        )
        return 1

    if args.system != "reldocs":  # the same index, gate and answerer; only the retrieval differs
        from bench.baselines import baseline_kb

        kb = baseline_kb(kb, args.system, kb.retriever.embedder)  # type: ignore[attr-defined]
    report = evaluate_sets(kb, sets)
    if args.json:
        if not args.show_failures:
            report = {key: value for key, value in report.items() if key != "failures"}
        print(
            json.dumps(
                {"set": args.set or next(iter(sets)), "system": args.system, **report}, indent=2, ensure_ascii=False
            )
        )
    else:
        questions = ", ".join(str(path) for path in files.values())
        print(f"corpus: {corpus_dir}\nindex: {index_dir}\nsystem: {args.system}\nquestions: {questions}")
        print(format_report(report, show_failures=args.show_failures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
