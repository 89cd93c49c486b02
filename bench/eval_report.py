"""The evaluation report as text: the scores, per language and per set, and each failure with its answer."""

from __future__ import annotations

from typing import Any

ANSWER_PREVIEW_CHARS = 300


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
    if report.get("by_set"):
        lines.append("  by set:")
        lines.append(
            f"    {'set':<11} {'n':>4}  " + "  ".join(f"{name.split('_')[0]:<16}" for name in names) + "  p50 ms"
        )
        rows = list(report["by_set"].items())
        if len(rows) > 1:
            rows.append(("total", report))
        for name, sub in rows:
            cells = "  ".join(f"{_fmt_ratio(sub[metric]):<16}" for metric in names)
            lines.append(f"    {name:<11} {sub['questions']:>4}  {cells}  {_fmt_ms(sub['latency_ms']['p50'])}")
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
    where = f"{result['set']} {result['lang']}" if result.get("set") else result["lang"]
    lines = [f"- {result['id']} [{where}] failed {failed}: {result['question']}"]
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
