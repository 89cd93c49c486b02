"""Quality of reldocs and the two baselines (dense-only, BM25-only) on every evaluation set, over one index
holding every product (PyTorch, pandas, SQLAlchemy, Pydantic, Django), per set and over all sets together.

Usage:
    python bench/quality_sets.py [--corpus DIR] [--more-corpus DIR] [--work DIR] [--out FILE] [--doc FILE]

Writes the figures as JSON (`--out`) and as a Markdown page (`--doc`, default docs/benchmarks-products.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from bench.dense_layout import measure_layouts  # noqa: E402
from bench.eval_corpus import stage_corpus  # noqa: E402
from bench.evaluate import (  # noqa: E402
    SET_NAMES,
    default_corpus_dir,
    default_more_dir,
    load_questions,
    set_questions,
    set_sources,
)
from bench.latency import measure_latency  # noqa: E402
from bench.quality import measure_quality  # noqa: E402

SYSTEMS = {"ours": "reldocs", "dense_baseline": "dense only", "bm25_baseline": "BM25 only"}
LATENCY_PASSES = 3
SHOWN = ("recall@5", "mrr@10", "answer_acc", "source_acc", "refusal_acc")


def measure(corpus: Path, more: Path, work: Path, backend: str = "auto") -> dict[str, Any]:
    """Per set and pooled: each system's retrieval and answer metrics over the combined index."""
    from assistant.embed.embedder import make_embedder
    from assistant.knowledge_base import KnowledgeBase
    from assistant.runtime.settings import Settings
    from ingest import sync

    staged = stage_corpus(set_sources("all", corpus, more), work / "corpus")
    settings = Settings(corpus_dir=staged, data_dir=work / "data", embedding_backend=backend)  # type: ignore[arg-type]
    embedder = make_embedder(settings)
    sync(settings, progress=True, embedder=embedder)
    kb = KnowledgeBase.open(settings, embedder=embedder)
    sets = {name: load_questions(set_questions(name)) for name in SET_NAMES}
    report: dict[str, Any] = {"chunks": len(kb.retriever.chunks), "products": kb.products(), "sets": {}}
    for name, questions in {**sets, "all": [q for qs in sets.values() for q in qs]}.items():
        print(f"{name}: {len(questions)} questions", file=sys.stderr, flush=True)
        report["sets"][name] = measure_quality(kb, embedder, questions)[0]
    asked = [q["question"] for qs in sets.values() for q in qs]
    report["latency_ms"] = warm_latency(kb, embedder, asked)
    report["dense_ms"] = measure_layouts(kb, embedder, asked)
    return report


def warm_latency(kb: Any, embedder: Any, questions: Sequence[str], passes: int = LATENCY_PASSES) -> dict[str, float]:
    """p50/p95 of a whole answer against the floor, encoding the same question alone, interleaved
    (`bench/latency.py`, as `bench/run.py` measures); over `passes` passes, for a median that varies less."""
    measured = measure_latency(kb, embedder, [{"question": q} for q in questions], passes)
    p50, f50 = measured["p50"], measured["floor_p50"]
    return {
        "p50": round(p50, 1),
        "p95": round(measured["p95"], 1),
        "encode_p50": round(f50, 1),
        "ratio": round(p50 / f50, 2),
    }


def render(report: dict[str, Any]) -> str:
    """The Markdown page: for each set, a row per system; the best figure of each set in bold."""
    lines = [
        "# Quality per product, one index for all",
        "",
        f"One index of {report['chunks']} chunks holds "
        + ", ".join(f"{p} ({len(v)} releases)" for p, v in report["products"].items())
        + ". Every evaluation set is asked of it; `all` pools the questions. Baselines share the query parsing, "
        "refusal gate and answerer, so only retrieval differs (see `bench/baselines.py`). "
        "Rerun with `python bench/quality_sets.py`.",
        "",
        "Warm answer latency over all {n} questions in this index ({passes} passes): p50 {p50} ms, p95 {p95} ms, "
        "against {f} ms to encode one question with the same model, measured interleaved (ratio {r}).".format(
            n=sum(s["ours"]["answerable"] + s["ours"]["unanswerable"] for k, s in report["sets"].items() if k != "all"),
            p50=report["latency_ms"]["p50"],
            p95=report["latency_ms"]["p95"],
            f=report["latency_ms"]["encode_p50"],
            r=report["latency_ms"]["ratio"],
            passes=LATENCY_PASSES,
        )
        + _layouts(report.get("dense_ms", {})),
        "",
        "| set | n | system | " + " | ".join(SHOWN) + " |",
        "|---|---|---|" + "---|" * len(SHOWN),
    ]
    for name, systems in report["sets"].items():
        n = systems["ours"]["answerable"] + systems["ours"]["unanswerable"]
        for key, label in SYSTEMS.items():
            cells = [_cell(systems, key, m) for m in SHOWN]
            lines.append(
                f"| {name if key == 'ours' else ''} | {n if key == 'ours' else ''} | {label} | "
                + " | ".join(cells)
                + " |"
            )
    return "\n".join(lines) + "\n"


def _layouts(dense: dict[str, float]) -> str:
    if not dense:
        return ""
    return (
        " Dense search right after a query encode (`bench/dense_layout.py`, p50): of the whole index "
        f"{dense['whole_column_major_p50']} ms with the matrix column-major, as it is kept, against "
        f"{dense['whole_row_major_p50']} ms row-major; within the smallest product ({dense['product_share']:.0%} "
        f"of the rows, copied out) {dense['product_column_major_p50']} against {dense['product_row_major_p50']} ms."
    )


def _cell(systems: dict[str, Any], key: str, metric: str) -> str:
    value = systems[key][metric]
    best = max(s[metric] for s in systems.values())
    text = f"{value:.3f}"
    return f"**{text}**" if value == best else text


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=default_corpus_dir(), help="the PyTorch corpus root")
    parser.add_argument("--more-corpus", type=Path, default=default_more_dir(), help="the other products")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "reldocs-quality-sets")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    parser.add_argument("--doc", type=Path, default=REPO_ROOT / "docs" / "benchmarks-products.md")
    parser.add_argument("--backend", choices=("auto", "onnx", "torch"), default="auto", help="embedding backend")
    args = parser.parse_args(argv)
    report = measure(args.corpus, args.more_corpus, args.work, args.backend)
    if args.out:
        args.out.write_text(json.dumps(report, indent=2), encoding="utf-8")
    args.doc.write_text(render(report), encoding="utf-8")
    print(render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
