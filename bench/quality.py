"""Quality of reldocs and of the two baselines on one evaluation set."""

from __future__ import annotations

from typing import Any

from bench.common import log
from bench.evaluate import evaluate


def measure_quality(kb: Any, embedder: Any, questions: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any]]:
    """recall@5, MRR@10, answer and refusal accuracy of reldocs and of the two baselines."""
    from bench.baselines import baseline_kb, retrieval_quality

    systems = {
        "ours": kb,
        "dense_baseline": baseline_kb(kb, "dense", embedder),
        "bm25_baseline": baseline_kb(kb, "bm25", embedder),
    }
    quality: dict[str, Any] = {}
    details: dict[str, Any] = {}
    for name, system in systems.items():
        retrieval = retrieval_quality(lambda text, version, s=system: s.search(text, k=10, version=version), questions)
        report = evaluate(system, questions)
        quality[name] = {
            "recall@5": round(retrieval["recall@5"], 4),
            "mrr@10": round(retrieval["mrr@10"], 4),
            "evidence_recall@5": round(retrieval["evidence_recall@5"], 4),
            "evidence_mrr@10": round(retrieval["evidence_mrr@10"], 4),
            "answer_acc": round(report["answer_acc"]["rate"], 4),
            "refusal_acc": round(report["refusal_acc"]["rate"], 4),
            "source_acc": round(report["source_acc"]["rate"], 4),
            "false_refusal": round(report["false_refusal"]["rate"], 4),
            "answerable": report["answer_acc"]["total"],
            "unanswerable": report["refusal_acc"]["total"],
            "ask_p50_ms": report["latency_ms"]["p50"],
            "errors": report["errors"],
        }
        crashed = [f for f in report["failures"] if f["error"]]
        if crashed:
            log(f"  WARNING {name}: {len(crashed)} questions raised, e.g. {crashed[0]['id']}: {crashed[0]['error']}")
        details[name] = {
            "ranks": retrieval["ranks"],
            "evidence_ranks": retrieval["evidence_ranks"],
            "failed": sorted(f["id"] for f in report["failures"]),
            "errors": {f["id"]: f["error"] for f in report["failures"] if f["error"]},
        }
        log(f"  {name}: {quality[name]}")
    return quality, details
