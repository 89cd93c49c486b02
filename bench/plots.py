"""The benchmark report's three plots."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.common import GOALS, SYSTEMS


def plot(result: dict[str, Any], docs: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # Quality: four metrics, three systems.
    metrics = ("recall@5", "mrr@10", "evidence_recall@5", "evidence_mrr@10", "answer_acc", "refusal_acc")
    fig, ax = plt.subplots(figsize=(10, 3.8))
    width = 0.26
    for i, (key, label) in enumerate(SYSTEMS.items()):
        values = [result["quality"][key].get(m, 0.0) for m in metrics]
        bars = ax.bar([x + (i - 1) * width for x in range(len(metrics))], values, width, label=label)
        ax.bar_label(bars, fmt="%.2f", fontsize=7, padding=1)
    ax.set_xticks(range(len(metrics)), [m.replace("_", " ") for m in metrics], fontsize=8)
    ax.set_ylim(0, 1.25)
    ax.set_title("Quality on the evaluation set (higher is better)")
    ax.legend(fontsize=8, loc="upper center", ncol=3)
    fig.tight_layout()
    fig.savefig(docs / "bench-quality.png", dpi=110)
    plt.close(fig)

    # Latency: warm stage p50/p95 against the floor.
    lat = result["latency_ms"]
    names = [s for s in ("embed", "dense", "lexical", "answer", "total") if s in lat["stages"]]
    fig, ax = plt.subplots(figsize=(8, 3.2))
    y = range(len(names))
    ax.barh(y, [lat["stages"][s]["p95"] for s in names], color="#c6dbef", label="p95")
    ax.barh(y, [lat["stages"][s]["p50"] for s in names], color="#3182bd", label="p50")
    ax.axvline(lat["floor_p50"], color="black", lw=1, label=f"floor p50 ({lat['floor_p50']:.1f} ms)")
    ax.axvline(GOALS["latency_ratio"] * lat["floor_p50"], color="red", lw=1, ls="--", label="3× floor (goal)")
    ax.set_yticks(list(y), names)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("ms per question (warm, log scale)")
    ax.set_title("Where a question's time goes")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(docs / "bench-latency.png", dpi=110)
    plt.close(fig)

    # Scale: query latency, ingest throughput and store cost against corpus size.
    rows = result["scale"]

    def series(get: Any) -> tuple[list[int], list[float]]:
        points = [(r["chunks"], get(r)) for r in rows if get(r) is not None]
        return [p[0] for p in points], [p[1] for p in points]

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    ax = axes[0]
    ax.plot(*series(lambda r: r["p50_ms"]), "o-", color="black", label="total p50")
    for stage in ("embed", "dense", "lexical", "answer"):
        ax.plot(*series(lambda r, s=stage: r["stages_p50"][s]), ".--", label=stage)
    ax.set(xscale="log", yscale="log", xlabel="chunks", ylabel="ms per question", title="Query latency (p50)")
    ax.legend(fontsize=7)
    ax = axes[1]
    ax.plot(*series(lambda r: r["ingest_chunks_per_s"]), "o-", label="ingest, end to end")
    real = [(r["chunks"], r["ingest_chunks_per_s"]) for r in rows if r["ingest_measured"] == "real-model"]
    if real:
        ax.plot(*zip(*real, strict=True), "s", ms=9, mfc="none", color="red", label="measured with the real model")
    ax.plot(*series(lambda r: r["store_chunks_per_s"]), "^--", label="chunk + store only (no embedding)")
    ax.set(xscale="log", yscale="log", xlabel="chunks", ylabel="chunks / s", title="Ingest throughput")
    ax.legend(fontsize=7)
    ax = axes[2]
    ax.plot(*series(lambda r: r["write_s"]), "^--", label="Chroma write (write_generation)")
    ax.plot(*series(lambda r: r["open_s"]), "o-", label="open (load chunks + lexical index)")
    ax.plot(*series(lambda r: r["chunk_s"]), ".:", label="read + chunk")
    for r in rows:
        if r.get("error"):
            for a in axes:
                a.axvline(r["chunks"], color="red", lw=0.8, ls=":")
            axes[0].annotate("failed", (r["chunks"], 0.5), xycoords=("data", "axes fraction"), color="red", fontsize=7)
    ax.set(xscale="log", yscale="log", xlabel="chunks", ylabel="seconds", title="One-off costs")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(docs / "bench-scale.png", dpi=110)
    plt.close(fig)
