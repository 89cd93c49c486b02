"""Ingest throughput against the encode floor, measured in a child process so its peak RSS is its own."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.common import REPO_ROOT, Plan, cpu_seconds, peak_rss_mb, read_chunks

RUN_SCRIPT = Path(__file__).resolve().with_name("run.py")  # the child is `run.py --child-ingest`


def measure_ingest(
    corpus: Path, index: Path, data: Path, plan: Plan, *, model_dir: Path | None = None
) -> dict[str, Any]:
    """First ingest, re-ingest and the encode floor, in a fresh process so its peak RSS is ingest's own."""
    spec = {
        "corpus": str(corpus),
        "index": str(index),
        "data": str(data),
        "floor_fraction": plan.floor_fraction,
        "rounds": plan.ingest_rounds,
        "model_dir": str(model_dir) if model_dir else None,
    }
    out = data / "ingest-child.json"
    data.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, str(RUN_SCRIPT), "--child-ingest", json.dumps(spec), "--out", str(out)]
    subprocess.run(cmd, cwd=REPO_ROOT, check=True)
    return json.loads(out.read_text())


class RecordingEmbedder:
    """Passes encodes through, keeping their time and batches, to show where an ingest's time went."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.seconds = 0.0
        self.calls: list[list[str]] = []

    def encode(self, texts: list[str], *, batch_size: int = 32) -> Any:
        started = time.perf_counter()
        vectors = self.inner.encode(texts, batch_size=batch_size)
        self.seconds += time.perf_counter() - started
        self.calls.append(list(texts))
        return vectors


def padded_tokens(model: Any, calls: Sequence[Sequence[str]], batch: int) -> tuple[int, int]:
    """Tokens the model ran (each batch padded to its longest text) and the real tokens among them."""
    limit = model.max_seq_length
    ran = real = 0
    for texts in calls:
        ids = model.tokenizer(list(texts), truncation=True, max_length=limit)["input_ids"]
        lengths = sorted((min(limit, len(i)) for i in ids), reverse=True)
        for i in range(0, len(lengths), batch):
            part = lengths[i : i + batch]
            ran += part[0] * len(part)
            real += sum(part)
    return ran, real


def token_model(embedder: Any) -> Any:
    """What `padded_tokens` reads (`max_seq_length`, a transformers-style tokenizer) from either backend."""
    if hasattr(embedder, "model"):  # sentence-transformers
        return embedder.model

    class Onnx:
        max_seq_length = embedder.max_seq_length

        @staticmethod
        def tokenizer(texts: list[str], **_: object) -> dict[str, list[list[int]]]:
            encodings = embedder.tokenizer.encode_batch(texts)  # truncated already, and padded: drop the pads
            return {"input_ids": [[i for i, m in zip(e.ids, e.attention_mask, strict=True) if m] for e in encodings]}

    return Onnx()


def child_ingest(spec: dict[str, Any], out: Path) -> None:
    """Runs in the child: rounds of (half the floor, a full ingest, the other half), then a re-ingest."""
    from assistant.embed.embedder import make_embedder
    from assistant.index.lexical import index_text
    from assistant.runtime.settings import Settings
    from ingest import sync

    settings = Settings(
        corpus_dir=spec["corpus"], index_dir=spec["index"], data_dir=spec["data"], model_dir=spec.get("model_dir")
    )
    started = time.perf_counter()
    embedder = make_embedder(settings)
    embedder.encode(["warm-up"])
    load_s = time.perf_counter() - started

    texts = sorted((index_text(c) for c in read_chunks(settings.corpus_dir)), key=len, reverse=True)
    batch = settings.embedding_batch_size
    # Every n-th batch of the length-sorted texts: batches as homogeneous as encoding them all would make.
    step = max(1, round(1 / spec["floor_fraction"]))
    blocks = [texts[i : i + batch] for i in range(0, len(texts), batch)][::step]

    def floor(part: list[list[str]]) -> tuple[float, float]:
        t0, c0 = time.perf_counter(), cpu_seconds()
        for block in part:
            embedder.encode(block, batch_size=batch)
        return time.perf_counter() - t0, cpu_seconds() - c0

    # Each round: half of the floor, a full ingest, the other half; so a change in background load hits both
    # alike. Medians over the rounds.
    rounds: list[dict[str, float]] = []
    recorder = RecordingEmbedder(embedder)
    for n in range(spec["rounds"]):
        floor_a, floor_a_cpu = floor(blocks[0::2])
        recorder.seconds, recorder.calls = 0.0, []
        t0, c0 = time.perf_counter(), cpu_seconds()
        first = sync(settings, rebuild=True, progress=False, embedder=recorder)
        ingest_s, ingest_cpu = time.perf_counter() - t0, cpu_seconds() - c0
        if n == 0:
            peak_mb = peak_rss_mb()  # the first ingest's high-water mark, model included
        floor_b, floor_b_cpu = floor(blocks[1::2])
        rounds.append(
            {
                "ingest_s": round(ingest_s, 2),
                "ingest_cpu_s": round(ingest_cpu, 2),
                "ingest_encode_s": round(recorder.seconds, 2),
                "floor_s": round(floor_a + floor_b, 2),
                "floor_cpu_s": round(floor_a_cpu + floor_b_cpu, 2),
            }
        )
    floor_chunks = sum(map(len, blocks))

    def median(key: str) -> float:
        return statistics.median(r[key] for r in rounds)

    t0 = time.perf_counter()
    again = sync(settings, progress=False, embedder=embedder)
    reingest_s = time.perf_counter() - t0
    result = {
        "embedder": type(embedder).__name__,
        "chunks": first.chunks,
        "files": first.files,
        "chunks_per_s": round(first.chunks / median("ingest_s"), 2),
        "encode_floor_chunks_per_s": round(floor_chunks / median("floor_s"), 2),
        # Per CPU second: less sensitive to other processes than wall time, a cross-check of the ratio.
        "cpu_chunks_per_s": round(first.chunks / median("ingest_cpu_s"), 2),
        "encode_floor_cpu_chunks_per_s": round(floor_chunks / median("floor_cpu_s"), 2),
        "first_ingest_s": median("ingest_s"),
        "reingest_s": round(reingest_s, 3),
        "reingest_changed": again.changed,
        "peak_rss_mb": round(peak_mb, 1),
        "model_load_s": round(load_s, 2),
        "floor_chunks": floor_chunks,
        "batch_size": batch,
        "ingest_encode_s": median("ingest_encode_s"),
        "rounds": rounds,
        "round_ratios": [round((first.chunks / r["ingest_s"]) / (floor_chunks / r["floor_s"]), 2) for r in rounds],
    }
    model = token_model(embedder)
    ran, real = padded_tokens(model, recorder.calls, batch)
    floor_ran, floor_real = padded_tokens(model, blocks, batch)
    # Padding waste explains most of a gap between ingest and floor: both run the same model per token.
    result["ingest_tokens"] = {"padded": ran, "real": real}
    result["floor_tokens"] = {"padded": floor_ran, "real": floor_real}
    out.write_text(json.dumps(result))
