"""Benchmarks: quality against two baselines, latency against the model's floor, ingest, scale and cold start.

Usage:
    python bench/run.py [--quick] [--out FILE] [--corpus DIR] [--docs DIR]
    python bench/run.py --render FILE [--docs DIR]     # rewrite the docs from saved results

Writes the full results as JSON (default bench/results/run-<time>.json) and regenerates
docs/benchmarks.md with its plots (docs/bench-*.png). `--quick` is sized to finish within five
minutes on two cores; the full run takes longer (the 100k-chunk corpus dominates). Each benchmark is
its own module (ingest_speed, quality, latency, cold_start, scale); report, goals and plots write the page.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # run as a script: `python bench/run.py`
    sys.path.insert(0, str(REPO_ROOT))

from bench.cold_start import FLOOR_IMPORTS, measure_cold_start  # noqa: E402
from bench.common import DOCS_DIR, FULL, QUICK, RESULTS_DIR, Plan, log, read_chunks  # noqa: E402
from bench.evaluate import DEFAULT_QUESTIONS, default_corpus_dir, load_questions  # noqa: E402
from bench.goals import goals  # noqa: E402
from bench.ingest_speed import child_ingest, measure_ingest, padded_tokens  # noqa: E402
from bench.latency import measure_latency  # noqa: E402
from bench.machine import Phases, machine  # noqa: E402
from bench.plots import plot  # noqa: E402
from bench.quality import measure_quality  # noqa: E402
from bench.report import render_markdown, write_docs  # noqa: E402
from bench.scale import measure_scale  # noqa: E402

# What callers (tests, other scripts) import from here, as before the split.
__all__ = ["goals", "main", "padded_tokens", "plot", "read_chunks", "render_markdown", "run"]

SHIPPED_CORPUS = REPO_ROOT / "corpus"


def run(args: argparse.Namespace) -> dict[str, Any]:
    from assistant.embed.embedder import make_embedder
    from assistant.knowledge_base import KnowledgeBase
    from assistant.runtime.settings import Settings
    from ingest import sync

    plan = QUICK if args.quick else FULL
    if args.scale_sizes:
        sizes = tuple(int(s) for s in args.scale_sizes.split(","))
        plan = Plan(**{**plan.__dict__, "scale_sizes": sizes, "scale_real": min(sizes)})
    corpus = Path(args.corpus or default_corpus_dir()).resolve()
    if not corpus.is_dir():
        raise SystemExit(f"error: corpus folder not found: {corpus} (set RELDOCS_CORPUS_DIR or --corpus)")
    questions = load_questions(args.questions)
    started = time.time()
    phases = Phases()
    work = Path(tempfile.mkdtemp(prefix="reldocs-bench-"))
    models = Settings().model_path  # the app's own ONNX export (made once if missing), not one per temp dir
    try:
        settings = Settings(corpus_dir=corpus, index_dir=work / "index", data_dir=work / "data", model_dir=models)
        result: dict[str, Any] = {}
        with phases.phase("ingest (child process)"):
            result["ingest"] = measure_ingest(corpus, settings.index_path, settings.data_dir, plan, model_dir=models)
        log(f"  {result['ingest']}")
        embedder = make_embedder(settings)
        kb = KnowledgeBase.open(settings, embedder=embedder)
        with phases.phase("quality"):
            result["quality"], details = measure_quality(kb, embedder, questions)
        with phases.phase("warm latency"):
            result["latency_ms"] = measure_latency(kb, embedder, questions, plan.latency_passes)
        log(f"  {result['latency_ms']}")
        cold: list[dict[str, Any]] = []
        with phases.phase("cold start"):
            if SHIPPED_CORPUS.resolve() != corpus:
                shipped = Settings(corpus_dir=SHIPPED_CORPUS, data_dir=work / "shipped", model_dir=models)
                sync(shipped, progress=False, embedder=embedder)
                cold.append(measure_cold_start(shipped, work, plan.cold_rounds, label="shipped corpus"))
            label = f"{corpus.name} (benchmark corpus)"
            cold.append(measure_cold_start(settings, work, plan.cold_rounds, label=label))

        def cold_at_scale(scaled: Any) -> None:
            n = len(read_chunks(scaled.corpus_dir))
            scaled = scaled.model_copy(update={"model_dir": models})
            label = f"synthetic, {n} chunks"
            cold.append(measure_cold_start(scaled, work, plan.cold_rounds, label=label, no_sync=True))

        with phases.phase("scale"):
            result["scale"] = measure_scale(work, plan, embedder, at_largest=cold_at_scale)
        result["cold_start"] = {"floor_command": f'python -c "{FLOOR_IMPORTS}"', "corpora": cold}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result["goals"] = goals(result)
    result["meta"] = {
        "mode": plan.mode,
        "plan": plan.__dict__,
        "started": time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(started)),
        "duration_s": round(time.time() - started, 1),
        "corpus": str(corpus),
        "questions": {"file": str(Path(args.questions)), "n": len(questions)},
        "machine": machine(),
        "phases": phases.records,
        "embedder": type(embedder).__name__,
    }
    result["details"] = details
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Benchmark reldocs: quality, latency, ingest, scale, cold start.")
    parser.add_argument("--quick", action="store_true", help="smaller plan that finishes within 5 minutes on 2 cores")
    parser.add_argument("--out", type=Path, default=None, help="JSON results file (default bench/results/run-*.json)")
    parser.add_argument(
        "--corpus", type=Path, default=None, help="corpus folder (default $RELDOCS_CORPUS_DIR or ../shared/corpus)"
    )
    parser.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS, help="evaluation set (JSONL)")
    parser.add_argument("--docs", type=Path, default=DOCS_DIR, help="where benchmarks.md and the plots are written")
    parser.add_argument(
        "--scale-sizes",
        default=None,
        help="comma-separated chunk targets, overriding the plan's (the cold start also runs at the largest)",
    )
    parser.add_argument("--render", type=Path, default=None, help="only rewrite the docs from this results JSON")
    parser.add_argument("--child-ingest", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_ingest:
        child_ingest(json.loads(args.child_ingest), args.out)
        return 0
    if args.render:
        result = json.loads(args.render.read_text(encoding="utf-8"))
        result["goals"] = goals(result)
        write_docs(result, args.docs)
        return 0

    out = args.out or RESULTS_DIR / f"run-{time.strftime('%Y%m%d-%H%M%S')}.json"
    result = run(args)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")
    write_docs(result, args.docs)
    log(f"results: {out}; report: {args.docs / 'benchmarks.md'}")
    for goal in result["goals"]:
        log(f"  {'met ' if goal['met'] else 'MISSED'}  {goal['goal']}: {goal['value']} (target {goal['target']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
