"""Query latency and store cost on synthetic corpora up to 100k chunks."""

from __future__ import annotations

import gc
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.common import Plan, log, pct, read_chunks


def measure_scale(
    work: Path, plan: Plan, embedder: Any, *, at_largest: Callable[[Any], None] | None = None
) -> list[dict[str, Any]]:
    """Query latency and ingest cost on synthetic corpora; the real model at one size, synthetic vectors elsewhere.

    `at_largest` is called with the Settings of the largest size's index while it still exists (the cold
    start is measured there).
    """
    import numpy as np

    from assistant.index.store import ChunkStore, Manifest
    from assistant.knowledge_base import KnowledgeBase
    from assistant.runtime.settings import Settings
    from bench.synthetic import generate, sample_questions
    from ingest import sync
    from ingest.chunking import CHUNKER_VERSION

    rows: list[dict[str, Any]] = []
    base: np.ndarray | None = None
    other_per_chunk = 0.0  # seconds per chunk the real ingest spent beyond chunking and the store write
    rng = np.random.default_rng(0)
    order = [plan.scale_real, *sorted(set(plan.scale_sizes) - {plan.scale_real})]
    for target in order:
        root = work / f"scale-{target}"
        corpus = generate(root / "corpus", target, seed=target)
        t0 = time.perf_counter()
        chunks = read_chunks(corpus.root)
        chunk_s = time.perf_counter() - t0
        n = len(chunks)
        real_s = None
        if base is None:
            real = Settings(corpus_dir=corpus.root, index_dir=root / "real-index", data_dir=root / "data")
            t0 = time.perf_counter()
            sync(real, rebuild=True, progress=False, embedder=embedder)
            real_s = time.perf_counter() - t0
            store = ChunkStore(real.index_path)
            stored = store.embeddings([c.id for c in chunks], store.manifest())
            vectors = base = np.stack([stored[c.id] for c in chunks])
        else:
            # Real vectors of the real-model corpus, reused with noise (cosine ~0.9 to their origin).
            vectors = base[np.arange(n) % len(base)] + rng.normal(0, 0.025, (n, base.shape[1])).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        # The same store path for every size (the real-model size too), so the store series is like for like.
        settings = Settings(corpus_dir=corpus.root, index_dir=root / "index", data_dir=root / "data")
        write_s = open_s = error = None
        timings: list[dict[str, float]] = []
        step = "ChunkStore.write_generation"
        try:
            t0 = time.perf_counter()
            ChunkStore(settings.index_path).write_generation(
                chunks, vectors, Manifest(collection="", model=settings.embedding_model, chunker=CHUNKER_VERSION)
            )
            write_s = time.perf_counter() - t0
            step = "KnowledgeBase.open"
            t0 = time.perf_counter()
            kb = KnowledgeBase.open(settings, embedder=embedder)
            open_s = time.perf_counter() - t0
            step = "kb.ask"
            asked = sample_questions(kb.retriever.chunks, plan.scale_queries + 3, seed=target)
            for q in asked[:3]:
                kb.ask(q["question"])
            timings = [kb.ask(q["question"]).timings_ms for q in asked[3:]]
            del kb
            if at_largest and target == max(plan.scale_sizes):
                step = "cold start"
                at_largest(settings)
        except Exception as e:  # a failure at some size is a result: recorded, and the series goes on
            error = f"{step} failed: {type(e).__name__}: {e}"
            log(f"  {n} chunks: {error}")
        totals = [t["total"] for t in timings]
        ingest_rate, how = None, "modelled"
        if real_s is not None:
            other_per_chunk = max(0.0, real_s - chunk_s - (write_s or 0.0)) / n
            ingest_rate, how = n / real_s, "real-model"
        elif write_s is not None:
            ingest_rate = n / (n * other_per_chunk + chunk_s + write_s)
        row = {
            "target": target,
            "chunks": n,
            "files": corpus.files,
            "p50_ms": pct(totals, 50),
            "p95_ms": pct(totals, 95),
            "stages_p50": {
                k: pct([t[k] for t in timings if k in t], 50) for k in ("embed", "dense", "lexical", "answer")
            },
            "ingest_chunks_per_s": None if ingest_rate is None else round(ingest_rate, 2),
            "ingest_measured": how,
            "store_chunks_per_s": None if write_s is None else round(n / (chunk_s + write_s), 1),
            "chunk_s": round(chunk_s, 2),
            "write_s": None if write_s is None else round(write_s, 2),
            "open_s": None if open_s is None else round(open_s, 2),
            "real_ingest_s": None if real_s is None else round(real_s, 2),
            "queries": len(totals),
            "error": error,
        }
        rows.append(row)
        log(f"  {n} chunks: {row}")
        gc.collect()
        shutil.rmtree(root, ignore_errors=True)
    return sorted(rows, key=lambda r: r["chunks"])
