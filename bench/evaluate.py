"""Score reldocs against the evaluation set in bench/questions.jsonl.

Usage:
    python bench/evaluate.py [--corpus DIR] [--index DIR] [--questions FILE]
                             [--json] [--show-failures]

The script is a report: it exits 0 whatever the scores are, 2 for bad arguments
(unreadable questions file, missing corpus folder) and 1 only when the core cannot
run at all. `load_questions` and `evaluate` are importable without the core.
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
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_QUESTIONS = Path(__file__).resolve().parent / "questions.jsonl"
REQUIRED_KEYS = (
    "id",
    "question",
    "answerable",
    "lang",
    "must_contain",
    "sources",
    "version",
)
ANSWER_PREVIEW_CHARS = 300


class SupportsAsk(Protocol):
    """What `evaluate` needs from a knowledge base (the core's `KnowledgeBase`)."""

    def ask(self, question: str, history: Sequence[Any] = (), version: str | None = None) -> Any: ...


def default_corpus_dir() -> Path:
    """`$RELDOCS_CORPUS_DIR`, else the shared corpus next to the repository."""
    env = os.environ.get("RELDOCS_CORPUS_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "shared" / "corpus"


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
            missing = [key for key in REQUIRED_KEYS if key not in item]
            if missing:
                raise ValueError(f"{path}:{lineno}: missing keys {missing}")
            if item["id"] in seen:
                raise ValueError(f"{path}:{lineno}: duplicate id {item['id']!r}")
            if item["answerable"] and not item["must_contain"]:
                raise ValueError(f"{path}:{lineno}: answerable question without must_contain")
            seen.add(item["id"])
            questions.append(item)
    return questions


def normalize(text: str) -> str:
    """Drop backticks, collapse whitespace and case-fold, for phrase matching."""
    return re.sub(r"\s+", " ", text.replace("`", "")).strip().casefold()


def missing_phrases(text: str, phrases: Iterable[str]) -> list[str]:
    """The phrases that do not occur in `text` (after normalising both sides)."""
    haystack = normalize(text)
    return [phrase for phrase in phrases if normalize(phrase) not in haystack]


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
    cited = [str(c.source) for c in getattr(answer, "citations", ()) or ()]
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
        missing = missing_phrases(text, question["must_contain"])
        expected = set(question["sources"])
        result["missing_phrases"] = missing
        result["expected_sources"] = sorted(expected)
        result["answer_ok"] = error is None and found and not missing
        result["source_ok"] = error is None and any(source in expected for source in cited)
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


def evaluate(kb: SupportsAsk, questions: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Ask every question; return overall, per-language, latency metrics and failures."""
    results = [_score_one(kb, question) for question in questions]
    latencies = [r["latency_ms"] for r in results]
    langs = sorted({r["lang"] for r in results})
    report = _metrics(results)
    report["by_lang"] = {lang: _metrics([r for r in results if r["lang"] == lang]) for lang in langs}
    report["latency_ms"] = {
        "p50": percentile(latencies, 50),
        "p95": percentile(latencies, 95),
        "n": len(latencies),
    }
    report["errors"] = sum(r["error"] is not None for r in results)
    report["failures"] = [r for r in results if not r["ok"]]
    return report


def _fmt_ratio(ratio: dict[str, Any]) -> str:
    if not ratio["total"]:
        return "   n/a"
    return f"{ratio['count']:>3}/{ratio['total']:<3} {100 * ratio['rate']:5.1f}%"


def _fmt_ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}"


def format_report(report: dict[str, Any], show_failures: bool = False) -> str:
    """Human-readable rendering of an `evaluate` result."""
    names = ("answer_acc", "source_acc", "refusal_acc", "false_refusal")
    header = f"reldocs benchmark: {report['questions']} questions"
    lines = [f"{header} ({report['errors']} errors)"]
    lines += [f"  {name:<14}{_fmt_ratio(report[name])}" for name in names]
    lines.append("  by language:")
    for lang, sub in report["by_lang"].items():
        cells = "  ".join(f"{name.split('_')[0]} {_fmt_ratio(sub[name])}" for name in names)
        lines.append(f"    {lang:<3} n={sub['questions']:<4}{cells}")
    latency = report["latency_ms"]
    lines.append(f"  latency ms: p50 {_fmt_ms(latency['p50'])}  p95 {_fmt_ms(latency['p95'])}  (n={latency['n']})")
    if show_failures:
        lines.append(f"\nfailures ({len(report['failures'])}):")
        lines += [_format_failure(failure) for failure in report["failures"]]
    return "\n".join(lines)


def _format_failure(result: dict[str, Any]) -> str:
    if result["answerable"]:
        checks = [
            name
            for name, ok in (
                ("answer", result["answer_ok"]),
                ("source", result["source_ok"]),
            )
            if not ok
        ]
        if result["false_refusal"]:
            checks.append("refused")
    else:
        checks = ["refusal"]
    text = " ".join(result["text"].split())
    if len(text) > ANSWER_PREVIEW_CHARS:
        text = text[: ANSWER_PREVIEW_CHARS - 1] + "…"
    failed = ", ".join(checks)
    lines = [f"- {result['id']} [{result['lang']}] failed {failed}: {result['question']}"]
    if result["version"]:
        lines.append(f"    version filter: {result['version']}")
    if result["error"]:
        lines.append(f"    error: {result['error']}")
    if result["answerable"]:
        if result["missing_phrases"]:
            lines.append(f"    missing: {result['missing_phrases']}")
        lines.append(f"    expected sources: {result['expected_sources']}")
    lines.append(f"    found={result['found']}  cited: {result['cited_sources'] or '-'}")
    lines.append(f"    answer: {text or '-'}")
    return "\n".join(lines)


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Score reldocs against the evaluation set.")
    parser.add_argument("--corpus", type=Path, default=None, help="corpus root folder")
    parser.add_argument("--index", type=Path, default=None, help="index folder (built if needed)")
    parser.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS, help="JSONL file")
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
    from assistant.settings import Settings
    from ingest import sync

    settings = Settings(corpus_dir=corpus_dir, index_dir=index_dir)
    # Keep stdout clean for --json: whatever ingest prints goes to stderr.
    with contextlib.redirect_stdout(sys.stderr):
        sync(settings, progress=not quiet)
    return KnowledgeBase.open(settings)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    args = _parse_args(argv)
    corpus_dir = (args.corpus or default_corpus_dir()).resolve()
    if not corpus_dir.is_dir():
        print(f"error: corpus folder not found: {corpus_dir}", file=sys.stderr)
        return 2
    try:
        questions = load_questions(args.questions)
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

    report = evaluate(kb, questions)
    if args.json:
        if not args.show_failures:
            report = {key: value for key, value in report.items() if key != "failures"}
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print(f"corpus: {corpus_dir}\nindex: {index_dir}\nquestions: {args.questions}")
        print(format_report(report, show_failures=args.show_failures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
