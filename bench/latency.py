"""Warm per-question latency by stage, each question preceded by its floor: one query encode."""

from __future__ import annotations

import time
from typing import Any

from bench.common import pct


def measure_latency(kb: Any, embedder: Any, questions: list[dict[str, Any]], passes: int) -> dict[str, Any]:
    """Warm per-question stage timings of `kb.ask`, each question preceded by the floor: one encode."""
    for q in questions[:5]:
        kb.ask(q["question"], version=q.get("version"))
    floor: list[float] = []
    stages: dict[str, list[float]] = {k: [] for k in ("embed", "dense", "lexical", "retrieve", "answer", "total")}
    for _ in range(passes):
        for q in questions:
            t0 = time.perf_counter()
            embedder.encode([q["question"]])
            floor.append((time.perf_counter() - t0) * 1e3)
            timings = kb.ask(q["question"], version=q.get("version")).timings_ms
            for key, value in timings.items():
                stages.setdefault(key, []).append(value)
            if "dense" in timings:
                stages["retrieve"].append(timings["dense"] + timings.get("lexical", 0.0))
    return {
        "p50": pct(stages["total"], 50),
        "p95": pct(stages["total"], 95),
        "floor_p50": pct(floor, 50),
        "floor_p95": pct(floor, 95),
        "n": len(stages["total"]),
        "stages": {k: {"p50": pct(v, 50), "p95": pct(v, 95), "n": len(v)} for k, v in stages.items() if v},
    }
