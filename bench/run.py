"""Benchmarks: quality against two baselines, latency against the model's floor, ingest, and scale.

Usage:
    python bench/run.py [--quick] [--out FILE] [--corpus DIR] [--docs DIR]
    python bench/run.py --render FILE [--docs DIR]     # rewrite the docs from saved results

Writes the full results as JSON (default bench/results/run-<time>.json) and regenerates
docs/benchmarks.md with its plots (docs/bench-*.png). `--quick` is sized to finish within five
minutes on two cores; the full run takes longer (the 100k-chunk corpus dominates).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # run as a script: `python bench/run.py`
    sys.path.insert(0, str(REPO_ROOT))

from bench.evaluate import DEFAULT_QUESTIONS, default_corpus_dir, evaluate, load_questions, percentile  # noqa: E402

DOCS_DIR = REPO_ROOT / "docs"
RESULTS_DIR = REPO_ROOT / "bench" / "results"
COLD_QUESTION = "Why does torchrun no longer use port 29500 when I launch a single-node job?"
SYSTEMS = {"ours": "reldocs (hybrid)", "dense_baseline": "dense only (langchain-chroma)", "bm25_baseline": "BM25 only"}
GOALS = {"latency_ratio": 3.0, "ingest_ratio": 0.8, "scale_span": 100}


@dataclass(frozen=True)
class Plan:
    """How much each part measures; the quick plan fits five minutes on two cores."""

    mode: str
    floor_fraction: float  # share of the corpus chunks the encode floor is measured on
    ingest_rounds: int  # (floor, ingest) rounds; medians are reported
    latency_passes: int  # warm passes over the question set
    cold_rounds: int  # subprocess pairs (ask, floor) for the cold start
    scale_sizes: tuple[int, ...]
    scale_real: int  # the size ingested with the real model; the others get synthetic vectors
    scale_queries: int


QUICK = Plan(
    "quick",
    floor_fraction=1 / 3,
    ingest_rounds=1,
    latency_passes=1,
    cold_rounds=1,
    scale_sizes=(200, 2000, 25000),
    scale_real=200,
    scale_queries=15,
)
FULL = Plan(
    "full",
    floor_fraction=1.0,
    ingest_rounds=3,
    latency_passes=3,
    cold_rounds=3,
    scale_sizes=(300, 1000, 3000, 10000, 30000, 100000),
    scale_real=1000,
    scale_queries=60,
)


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def pct(values: Sequence[float], p: float) -> float | None:
    value = percentile(values, p)
    return None if value is None else round(value, 2)


# -- machine and noise ----------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    """CPU, cores, memory and library versions of the machine the numbers come from."""
    from importlib.metadata import PackageNotFoundError, version

    import psutil

    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    versions = {}
    for name in ("torch", "sentence-transformers", "transformers", "chromadb", "langchain-chroma", "bm25s", "numpy"):
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            versions[name] = None
    import torch

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain"], cwd=REPO_ROOT, capture_output=True, text=True)
    return {
        "cpu": cpu,
        "cores_logical": psutil.cpu_count(),
        "cores_physical": psutil.cpu_count(logical=False),
        "cores_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else psutil.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "memory_gb": round(psutil.virtual_memory().total / 2**30, 1),
        "os": platform.platform(),
        "python": platform.python_version(),
        "versions": versions,
        "commit": (commit.stdout.strip() or "unknown") + ("+dirty" if dirty.stdout.strip() else ""),
    }


class Phases:
    """Wall time of each phase and how much of the CPUs other processes used meanwhile (the noise)."""

    def __init__(self) -> None:
        import psutil

        self.me = psutil.Process()
        self.records: list[dict[str, Any]] = []

    def _sample(self) -> tuple[float, float, float]:
        import psutil

        t = psutil.cpu_times()
        busy = t.user + t.nice + t.system + getattr(t, "irq", 0) + getattr(t, "softirq", 0) + getattr(t, "steal", 0)
        own = self.me.cpu_times()
        return time.perf_counter(), busy, own.user + own.system + own.children_user + own.children_system

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        log(f"{name} …")
        wall0, busy0, own0 = self._sample()
        load0 = os.getloadavg()[0]
        yield
        wall1, busy1, own1 = self._sample()
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        other = max(0.0, (busy1 - busy0) - (own1 - own0))
        self.records.append(
            {
                "phase": name,
                "wall_s": round(wall1 - wall0, 1),
                "other_cpu_share": round(other / max(wall1 - wall0, 1e-9) / cores, 3),
                "load_avg_1m": [round(load0, 2), round(os.getloadavg()[0], 2)],
            }
        )
        log(f"{name} done in {wall1 - wall0:.1f}s (other processes used {self.records[-1]['other_cpu_share']:.0%} CPU)")


# -- ingest ---------------------------------------------------------------------------------------


def measure_ingest(corpus: Path, index: Path, data: Path, plan: Plan) -> dict[str, Any]:
    """First ingest, re-ingest and the encode floor, in a fresh process so its peak RSS is ingest's own."""
    spec = {
        "corpus": str(corpus),
        "index": str(index),
        "data": str(data),
        "floor_fraction": plan.floor_fraction,
        "rounds": plan.ingest_rounds,
    }
    out = data / "ingest-child.json"
    data.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child-ingest", json.dumps(spec), "--out", str(out)]
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


def child_ingest(spec: dict[str, Any], out: Path) -> None:
    """Runs in the child: rounds of (half the floor, a full ingest, the other half), then a re-ingest."""
    from assistant.embeddings import SentenceTransformerEmbedder
    from assistant.settings import Settings
    from assistant.text import index_text
    from ingest import sync

    settings = Settings(corpus_dir=spec["corpus"], index_dir=spec["index"], data_dir=spec["data"])
    started = time.perf_counter()
    embedder = SentenceTransformerEmbedder(settings.embedding_model)
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
    ran, real = padded_tokens(embedder.model, recorder.calls, batch)
    floor_ran, floor_real = padded_tokens(embedder.model, blocks, batch)
    # Padding waste explains most of a gap between ingest and floor: both run the same model per token.
    result["ingest_tokens"] = {"padded": ran, "real": real}
    result["floor_tokens"] = {"padded": floor_ran, "real": floor_real}
    out.write_text(json.dumps(result))


def read_chunks(root: Path) -> list[Any]:
    """The corpus as ingest chunks it (unreadable files skipped, as ingest does)."""
    from ingest.chunking import chunk_document
    from ingest.loader import DocumentError, discover, load_document

    chunks = []
    for path in discover(Path(root)):
        with contextlib.suppress(DocumentError):
            chunks.extend(chunk_document(load_document(path, Path(root))))
    return chunks


# -- quality and latency --------------------------------------------------------------------------


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


def cpu_seconds() -> float:
    """CPU time of this process, all threads."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def peak_rss_mb() -> float:
    """This process's peak RSS; VmHWM, since ru_maxrss also counts the parent it was forked from."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# Child processes report their own peak RSS into the file named by argv[1] when they exit.
_REPORT_RSS = """
import atexit, sys
def _report(path=sys.argv[1]):
    hwm = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:"))
    open(path, "w").write(str(int(hwm.split()[1]) / 1024))
atexit.register(_report)
"""
_FLOOR_SNIPPET = (
    _REPORT_RSS
    + """
from sentence_transformers import SentenceTransformer
model = SentenceTransformer(sys.argv[2], device="cpu", local_files_only=True)
model.encode([sys.argv[3]], normalize_embeddings=True)
"""
)
_APP_SNIPPET = (
    _REPORT_RSS
    + """
import runpy
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""
)


def _timed_child(cmd: list[str], env: dict[str, str], work: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one child process, started with its RSS file as argv[1]."""
    rss_file, log_path = work / "child-rss.txt", work / "child.log"
    rss_file.unlink(missing_ok=True)
    with log_path.open("wb") as err:
        started = time.perf_counter()
        proc = subprocess.run(
            [*cmd[:3], str(rss_file), *cmd[3:]], cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err
        )
        wall = time.perf_counter() - started
    if proc.returncode:
        raise RuntimeError(f"{cmd[3:5]} exited {proc.returncode}: {log_path.read_text(errors='replace')[-2000:]}")
    return wall, float(rss_file.read_text())


def measure_cold_start(settings: Any, work: Path, rounds: int) -> dict[str, Any]:
    """`python app.py ask --no-sync` from a fresh process, against importing and loading the model alone."""
    from assistant.embeddings import resolve_model

    env = {
        **os.environ,
        "RELDOCS_CORPUS_DIR": str(settings.corpus_dir),
        "RELDOCS_INDEX_DIR": str(settings.index_path),
        "RELDOCS_DATA_DIR": str(work / "cold-data"),
    }
    ask = [sys.executable, "-c", _APP_SNIPPET, str(REPO_ROOT / "app.py"), "ask", "--no-sync", COLD_QUESTION]
    floor = [sys.executable, "-c", _FLOOR_SNIPPET, resolve_model(settings.embedding_model), COLD_QUESTION]
    ask_runs, floor_runs, ask_rss, floor_rss = [], [], [], []
    for _ in range(rounds):  # alternated, so background load hits both alike
        wall, rss = _timed_child(floor, env, work)
        floor_runs.append(wall * 1e3)
        floor_rss.append(rss)
        wall, rss = _timed_child(ask, env, work)
        ask_runs.append(wall * 1e3)
        ask_rss.append(rss)
    return {
        "ask": round(statistics.median(ask_runs), 1),
        "floor": round(statistics.median(floor_runs), 1),
        "ask_runs": [round(v, 1) for v in ask_runs],
        "floor_runs": [round(v, 1) for v in floor_runs],
        "ask_peak_rss_mb": round(max(ask_rss), 1),
        "floor_peak_rss_mb": round(max(floor_rss), 1),
    }


# -- scale ----------------------------------------------------------------------------------------


def measure_scale(work: Path, plan: Plan, embedder: Any) -> list[dict[str, Any]]:
    """Query latency and ingest cost on synthetic corpora; the real model at one size, synthetic vectors elsewhere."""
    import numpy as np

    from assistant.knowledge_base import KnowledgeBase
    from assistant.settings import Settings
    from assistant.store import ChunkStore, Manifest
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


# -- goals, report --------------------------------------------------------------------------------


def goals(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The acceptance criteria, each with the measured value and whether it is met."""
    q = result["quality"]
    lat = result["latency_ms"]
    ing = result["ingest"]
    sizes = [r["chunks"] for r in result["scale"] if r["p50_ms"] is not None]  # sizes that could be queried
    failed = [r["chunks"] for r in result["scale"] if r["p50_ms"] is None]
    best_mrr = max(q["dense_baseline"]["mrr@10"], q["bm25_baseline"]["mrr@10"])
    best_recall = max(q["dense_baseline"]["recall@5"], q["bm25_baseline"]["recall@5"])
    latency_ratio = lat["p50"] / lat["floor_p50"] if lat["floor_p50"] else float("inf")
    ingest_ratio = ing["chunks_per_s"] / ing["encode_floor_chunks_per_s"]
    span = max(sizes) / min(sizes) if sizes else 0.0
    return [
        {
            "goal": "MRR@10 above both baselines",
            "target": f"> {best_mrr:.3f}",
            "value": f"{q['ours']['mrr@10']:.3f}",
            "met": q["ours"]["mrr@10"] > best_mrr,
        },
        {
            "goal": "recall@5 above both baselines",
            "target": f"> {best_recall:.3f}",
            "value": f"{q['ours']['recall@5']:.3f}",
            "met": q["ours"]["recall@5"] > best_recall,
        },
        {
            "goal": "warm p50 ≤ 3× the floor",
            "target": f"≤ {GOALS['latency_ratio'] * lat['floor_p50']:.1f} ms",
            "value": f"{lat['p50']:.1f} ms ({latency_ratio:.2f}×)",
            "met": latency_ratio <= GOALS["latency_ratio"],
        },
        {
            "goal": "ingest ≥ 0.8× the encode floor",
            "target": f"≥ {GOALS['ingest_ratio'] * ing['encode_floor_chunks_per_s']:.1f} chunks/s",
            "value": f"{ing['chunks_per_s']:.1f} chunks/s ({ingest_ratio:.2f}×)",
            "met": ingest_ratio >= GOALS["ingest_ratio"],
        },
        {
            "goal": "scale series spans ≥ 100×",
            "target": "≥ 100×",
            "value": f"{min(sizes, default=0)} → {max(sizes, default=0)} chunks ({span:.0f}×)"
            + (f"; failed at {', '.join(map(str, failed))}" if failed else ""),
            "met": span >= GOALS["scale_span"],
        },
    ]


# -- docs/benchmarks.md and plots -----------------------------------------------------------------


def write_docs(result: dict[str, Any], docs: Path) -> None:
    """Regenerate benchmarks.md and its plots from one result."""
    docs.mkdir(parents=True, exist_ok=True)
    plot(result, docs)
    (docs / "benchmarks.md").write_text(render_markdown(result), encoding="utf-8")


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
    ax.plot(*series(lambda r: r["open_s"]), "o-", label="open (load chunks + BM25 build)")
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


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]


def _rate(ing: dict[str, Any], key: str) -> str:
    return f"{ing[key]:.1f}" if key in ing else "–"


def _shown(path: str) -> str:
    """A path as seen from the repository."""
    return os.path.relpath(path, REPO_ROOT)


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "es" if noun.endswith("s") else "s")


def _cpu_ratio(ing: dict[str, Any]) -> str:
    if "cpu_chunks_per_s" not in ing:
        return "–"
    return f"{ing['cpu_chunks_per_s'] / ing['encode_floor_cpu_chunks_per_s']:.2f}×"


def _fmt(value: float | None, spec: str) -> str:
    return "–" if value is None else format(value, spec)


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def _versus(details: dict[str, Any], other: str) -> tuple[int, int]:
    """Questions where reldocs ranks an expected source higher / lower than `other` does."""
    ours, theirs = details["ours"]["ranks"], details[other]["ranks"]
    worst = 10**6
    better = sum((ours[i] or worst) < (theirs.get(i) or worst) for i in ours)
    worse = sum((ours[i] or worst) > (theirs.get(i) or worst) for i in ours)
    return better, worse


def _losses(result: dict[str, Any], other: str) -> list[tuple[str, int | None, int | None]]:
    ours, theirs = result["details"]["ours"]["ranks"], result["details"][other]["ranks"]
    return [(i, ours[i], theirs.get(i)) for i in ours if (ours[i] or 10**6) > (theirs.get(i) or 10**6)]


def _padded_per_chunk(ing: dict[str, Any]) -> tuple[float, float]:
    """Padded tokens per chunk the ingest's encode calls ran, and the floor's."""
    return ing["ingest_tokens"]["padded"] / ing["chunks"], ing["floor_tokens"]["padded"] / ing["floor_chunks"]


def explain_misses(result: dict[str, Any]) -> list[str]:
    """One paragraph per missed goal, built from the measurements that explain it."""
    out = []
    lat, ing = result["latency_ms"], result["ingest"]
    phases = {p["phase"]: p for p in result["meta"]["phases"]}
    quality_done = False
    for goal in result["goals"]:
        if goal["met"]:
            continue
        name = goal["goal"]
        if name.startswith(("MRR", "recall")):
            if quality_done:
                continue
            quality_done = True
            missed = " and ".join(g["goal"].split(" ")[0] for g in result["goals"][:2] if not g["met"])
            parts = []
            for other in ("dense_baseline", "bm25_baseline"):
                better, worse = _versus(result["details"], other)
                lost = _losses(result, other)
                text = f"{SYSTEMS[other]} ranks an expected source higher than reldocs on {_n(worse, 'question')}"
                if lost:
                    text += " (" + ", ".join(f"{i}: {o or '–'} vs {t}" for i, o, t in lost) + ")"
                parts.append(f"{text}, lower on {better}")
            lines = [f"- **{missed} above both baselines** — missed. " + "; ".join(parts) + "."]
            lost = _losses(result, "bm25_baseline")
            dense = result["details"]["dense_baseline"]["ranks"]
            dragged = [i for i, _, theirs in lost if (dense.get(i) or 10**6) > (theirs or 10**6)]
            if lost:
                lines.append(
                    f"  On {len(dragged)} of the {_n(len(lost), 'question')} lost to BM25 only, dense-only retrieval "
                    "also ranked the expected source lower than BM25 did: there the dense signal pulled the fused "
                    "ranking down. (Ranks are reldocs vs baseline; – is not in the top 10; the questions are in "
                    "`bench/questions.jsonl`.)"
                )
            out.append("\n".join(lines))
        elif name.startswith("warm p50"):
            stages = ", ".join(f"{k} {_ms(v['p50'])}" for k, v in lat["stages"].items() if k != "total")
            out.append(
                f"- **{name}** — missed: p50 {lat['p50']:.1f} ms against a floor of {lat['floor_p50']:.1f} ms. "
                f"Stage p50s (ms): {stages}."
            )
        elif name.startswith("ingest"):
            share = phases.get("ingest (child process)", {}).get("other_cpu_share", 0)
            per_ingest, per_floor = _padded_per_chunk(ing)
            out.append(
                f"- **{name}** — missed: of the {ing['first_ingest_s']:.1f} s ingest, {ing['ingest_encode_s']:.1f} s "
                f"were spent inside the model's `encode`, the rest reading, chunking and writing Chroma. The encode "
                f"calls themselves were slower than the floor's because of how the ingest batches its texts: its "
                f"batches ran {per_ingest:.0f} tokens per chunk once padded to their longest member, against "
                f"{per_floor:.0f} for the floor's length-sorted batches (same model, same batch size). Per CPU "
                f"second the ratio is {_cpu_ratio(ing)}, so background load does not explain it (other processes "
                f"used {share:.0%} of the CPUs meanwhile)."
            )
        else:
            out.append(f"- **{name}** — missed: {goal['value']}.")
    for r in result["scale"]:
        if r.get("error"):
            out.append(
                f"- **Scale, {r['chunks']} chunks** — {r['error']}. The sizes that did run are in the series; this "
                "one could not be queried."
            )
    return out


def render_markdown(result: dict[str, Any]) -> str:
    """docs/benchmarks.md from one result."""
    meta, mach = result["meta"], result["meta"]["machine"]
    q, lat, ing, rows = result["quality"], result["latency_ms"], result["ingest"], result["scale"]
    cold = lat.get("cold_ms", {})
    flag = " --quick" if meta["mode"] == "quick" else ""
    noisy = [p for p in meta["phases"] if p["other_cpu_share"] > 0.1]
    real_n = next((r["chunks"] for r in rows if r["ingest_measured"] == "real-model"), "–")
    lines = [
        "# Benchmarks",
        "",
        f"Generated by `python bench/run.py{flag}` on {meta['started']} ({meta['mode']} run, "
        f"{meta['duration_s'] / 60:.1f} min, commit `{mach['commit']}`), over `{_shown(meta['corpus'])}` "
        f"({ing['files']} files, {ing['chunks']} chunks) and the {meta['questions']['n']} questions of "
        "`bench/questions.jsonl`. Rerun with `python bench/run.py --out bench/results/full.json` (this page and "
        "its plots are rewritten); `--quick` runs a reduced plan: two minutes on two idle cores, up to about seven "
        "when other work takes half the CPUs.",
        "",
        "## Goals",
        "",
        *_table(
            ("goal", "target", "measured", "met"),
            [(g["goal"], g["target"], g["value"], "yes" if g["met"] else "**no**") for g in result["goals"]],
        ),
        "",
    ]
    misses = explain_misses(result)
    if misses:
        lines += ["Missed goals and failures, and why:", "", *misses, ""]
    lines += [
        "## Machine",
        "",
        f"- CPU: {mach['cpu']}, {mach['cores_usable']} usable cores ({mach['cores_logical']} logical), "
        f"torch on {mach['torch_threads']} threads; memory {mach['memory_gb']} GB",
        f"- {mach['os']}, Python {mach['python']}",
        "- " + ", ".join(f"{k} {v}" for k, v in mach["versions"].items()),
        "- Background load, as the share of all CPUs used by other processes during each phase: "
        + ", ".join(f"{p['phase']} {p['other_cpu_share']:.0%}" for p in meta["phases"])
        + ".",
    ]
    if noisy:
        lines += [
            "",
            "> The machine was shared with other work during this run ("
            + ", ".join(p["phase"] for p in noisy)
            + " ran with more than 10% of the CPUs taken by other processes). With two cores, a busy neighbour "
            "slows the model's matrix multiplies by far more than its share, so absolute times are noisy; the "
            "ratios to the floors are more stable because each floor is measured interleaved with what it bounds.",
        ]
    lines += [
        "",
        "## Quality",
        "",
        "![quality](bench-quality.png)",
        "",
        *_table(
            (
                "system",
                "recall@5",
                "MRR@10",
                "evidence recall@5",
                "evidence MRR@10",
                "answer acc",
                "refusal acc",
            ),
            [
                (
                    label,
                    f"{q[k]['recall@5']:.3f}",
                    f"{q[k]['mrr@10']:.3f}",
                    _num(q[k].get("evidence_recall@5")),
                    _num(q[k].get("evidence_mrr@10")),
                    f"{q[k]['answer_acc']:.3f}",
                    f"{q[k]['refusal_acc']:.3f}",
                )
                for k, label in SYSTEMS.items()
            ],
        ),
        "",
        f"recall@5 and MRR@10 are over the {q['ours']['answerable']} answerable questions: a hit is a retrieved "
        "passage whose source file is one of the question's expected `sources` (`kb.search(question, k=10)`, with "
        "the question's version filter where it has one). The corpus has only a few source files, so *evidence* "
        "recall and MRR are also given, at passage level: a hit is a passage whose text holds one of the "
        "question's `must_contain` phrases. Answer accuracy is the share of answerable questions "
        f"answered with every `must_contain` phrase; refusal accuracy the share of the {q['ours']['unanswerable']} "
        "unanswerable ones refused without citations (both scored by `bench/evaluate.py`).",
        "",
        *(
            [
                "",
                "**Errors**: "
                + ", ".join(f"{SYSTEMS[k]} raised on {q[k]['errors']} questions" for k in SYSTEMS if q[k].get("errors"))
                + " (scored as failures; see `details` in the JSON).",
            ]
            if any(q[k].get("errors") for k in SYSTEMS)
            else []
        ),
        "Only retrieval differs between the three rows. The baselines are what a user would build instead: "
        "**dense only** is langchain-chroma's `Chroma.similarity_search(question, k)` over the same persisted "
        "collection (same model, same chunks); **BM25 only** is bm25s over the same chunks with the project's "
        "tokenizer. Both get the raw question, as a user would pass it, while reldocs adds its query understanding "
        "(version detection, synonym and French glossary expansion) and fuses both rankings. Their passages then "
        "go through the same refusal gate and the same ExtractiveAnswerer (a `KnowledgeBase` with the baseline as "
        "its retriever), so answer and refusal accuracy differ only because the passages do.",
    ]
    for other in ("dense_baseline", "bm25_baseline"):
        better, worse = _versus(result["details"], other)
        lines.append(
            f"Against {SYSTEMS[other]}, reldocs ranks an expected source higher on {better} questions "
            f"and lower on {worse}."
        )
    st = lat["stages"]
    lines += [
        "",
        "## Latency",
        "",
        "![latency](bench-latency.png)",
        "",
        *_table(
            ("stage", "p50 (ms)", "p95 (ms)", "n"),
            [(name, _ms(st[name]["p50"]), _ms(st[name]["p95"]), st[name]["n"]) for name in st]
            + [("**floor**: encode one query", _ms(lat["floor_p50"]), _ms(lat["floor_p95"]), lat["n"])],
        ),
        "",
        f"Warm `kb.ask` over every question of the set ({_n(meta['plan']['latency_passes'], 'pass')}, after a "
        "warm-up), "
        "stage times from `Answer.timings_ms`: *embed* the query, *dense* Chroma search, *lexical* BM25, "
        "*retrieve* = dense + lexical, *answer* = evidence check plus the extractive answer (absent when the "
        "question is refused before retrieval). The floor is `SentenceTransformerEmbedder.encode([question])` with "
        "the same model, measured right before each question. "
        f"p50 is **{lat['p50'] / lat['floor_p50']:.2f}×** the floor.",
        "",
    ]
    if cold:
        lines += [
            *_table(
                ("cold start", "median (ms)", "runs (ms)", "peak RSS (MB)"),
                [
                    ("`python app.py ask --no-sync …`", _ms(cold["ask"]), cold["ask_runs"], cold["ask_peak_rss_mb"]),
                    (
                        "floor: import sentence_transformers, load the model, encode one query",
                        _ms(cold["floor"]),
                        cold["floor_runs"],
                        cold["floor_peak_rss_mb"],
                    ),
                ],
            ),
            "",
            f"A fresh `ask` costs {cold['ask'] / cold['floor']:.2f}× the floor: on top of the model it imports "
            "chromadb and the CLI, reads every chunk back from Chroma and builds the BM25 index.",
            "",
        ]
    lines += [
        "## Ingest",
        "",
        *_table(
            ("measure", "value"),
            [
                ("chunks", ing["chunks"]),
                ("full ingest (`sync(rebuild=True)`, model loaded)", f"{ing['first_ingest_s']:.1f} s"),
                ("ingest throughput", f"{ing['chunks_per_s']:.1f} chunks/s"),
                ("floor: raw `encode` of the same chunk texts", f"{ing['encode_floor_chunks_per_s']:.1f} chunks/s"),
                ("ratio", f"{ing['chunks_per_s'] / ing['encode_floor_chunks_per_s']:.2f}×"),
                ("re-ingest, nothing changed", f"{ing['reingest_s'] * 1e3:.0f} ms"),
                ("time inside `encode` during the ingest", f"{ing['ingest_encode_s']:.1f} s"),
                (
                    "tokens per chunk, padded to the batch's longest (ingest / floor / unpadded)",
                    f"{_padded_per_chunk(ing)[0]:.0f} / {_padded_per_chunk(ing)[1]:.0f} / "
                    f"{ing['ingest_tokens']['real'] / ing['chunks']:.0f}",
                ),
                ("peak RSS of the ingest process", f"{ing['peak_rss_mb']:.0f} MB"),
                ("model load (first encode included)", f"{ing['model_load_s']:.1f} s"),
            ],
        ),
        "",
        f"Measured in a child process: model load, then {_n(len(ing.get('rounds', [1])), 'round')} of the floor on "
        "half of its sample, a full ingest (`sync(rebuild=True)`, the first into an empty temp index), and the floor "
        "on the other half; medians over the rounds (ingest/floor ratio per round: "
        f"{', '.join(f'{r:.2f}' for r in ing.get('round_ratios', [])) or '–'}). Then a second `sync` with nothing "
        f"changed. The floor encodes {ing['floor_chunks']} of the {ing['chunks']} chunk texts (`index_text`, "
        f"sorted by length and cut into batches of the ingest's size, {ing['batch_size']}"
        + (
            f", keeping one batch in {round(1 / meta['plan']['floor_fraction'])}"
            if meta["plan"]["floor_fraction"] < 1
            else ""
        )
        + "), one `encode` call per batch as the ingest makes them. "
        "Per CPU second instead of per wall second, less sensitive to other processes, the ingest ran at "
        f"{_rate(ing, 'cpu_chunks_per_s')} and the floor at {_rate(ing, 'encode_floor_cpu_chunks_per_s')} chunks "
        "per CPU-second. Peak RSS is the process's high-water mark right after the first ingest (model included). "
        "The padded-token row shows how much work the ingest's batching asks of the model: each batch runs at the "
        "length of its longest text, so batches that mix long and short texts cost more than the floor's "
        "length-sorted ones.",
        "",
        "## Scale",
        "",
        "![scale](bench-scale.png)",
        "",
        *_table(
            (
                "chunks",
                "files",
                "query p50 (ms)",
                "p95 (ms)",
                "ingest (chunks/s)",
                "how",
                "chunk+store (chunks/s)",
                "write (s)",
                "open (s)",
            ),
            [
                (
                    r["chunks"],
                    r["files"],
                    _ms(r["p50_ms"]),
                    _ms(r["p95_ms"]),
                    _fmt(r["ingest_chunks_per_s"], ".1f"),
                    r["ingest_measured"],
                    _fmt(r["store_chunks_per_s"], ".0f"),
                    _fmt(r["write_s"], ".1f"),
                    _fmt(r["open_s"], ".1f") if not r.get("error") else f"**failed**: {r['error']}",
                )
                for r in rows
            ],
        ),
        "",
        "The corpora are synthetic release notes from `bench/synthetic.py` (seeded; headings per category and "
        "module, bulleted entries with dotted symbols, PR links, code fences), chunked by the real chunker. "
        "What is real and what is not:",
        "",
        f"- **Real** at every size: reading and chunking the files, `ChunkStore.write_generation` (Chroma, HNSW), "
        "`KnowledgeBase.open` (chunks read back, BM25 built), and every query: real query embedding, real Chroma "
        f"search, real BM25, the real answerer ({meta['plan']['scale_queries']} questions per size about symbols of "
        "random chunks, half naming a version, after three warm-up questions).",
        f"- **Real model at one size**: the {real_n}-chunk corpus is ingested end to end with `sync` and the real "
        "model (*real-model* in the table); its vectors are read back from the index and written again through "
        "the store path below, like every other size.",
        "- **Synthetic vectors at the other sizes**: embedding 100k chunks on two cores would take hours, so the "
        "other corpora get those real vectors reused with Gaussian noise (cosine ≈ 0.9 to their origin), written "
        "through the same `ChunkStore.write_generation`. Their dense results are therefore unrelated to the "
        "query's content, so retrieval quality is not measured at scale; latency and store cost are. Their "
        "*modelled* end-to-end ingest adds the per-chunk cost the real-model ingest spent beyond chunking and "
        "writing (embedding, mostly) to the chunk and write time measured at that size.",
        "",
        "## Reproducing",
        "",
        "```",
        "python bench/run.py --quick --out /tmp/quick.json --docs /tmp/quick-docs   # ~2 min on 2 idle cores",
        "python bench/run.py --out bench/results/full.json   # this page",
        "```",
        "",
        "`RELDOCS_CORPUS_DIR` or `--corpus` picks the corpus (default `../shared/corpus`). The JSON holds every "
        "number above plus per-question ranks and failed question ids for each system (`details`).",
        "",
    ]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> dict[str, Any]:
    from assistant.embeddings import SentenceTransformerEmbedder
    from assistant.knowledge_base import KnowledgeBase
    from assistant.settings import Settings

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
    try:
        settings = Settings(corpus_dir=corpus, index_dir=work / "index", data_dir=work / "data")
        result: dict[str, Any] = {}
        with phases.phase("ingest (child process)"):
            result["ingest"] = measure_ingest(corpus, settings.index_path, settings.data_dir, plan)
        log(f"  {result['ingest']}")
        embedder = SentenceTransformerEmbedder(settings.embedding_model)
        kb = KnowledgeBase.open(settings, embedder=embedder)
        with phases.phase("quality"):
            result["quality"], details = measure_quality(kb, embedder, questions)
        with phases.phase("warm latency"):
            result["latency_ms"] = measure_latency(kb, embedder, questions, plan.latency_passes)
        log(f"  {result['latency_ms']}")
        with phases.phase("cold start"):
            result["latency_ms"]["cold_ms"] = measure_cold_start(settings, work, plan.cold_rounds)
        log(f"  {result['latency_ms']['cold_ms']}")
        with phases.phase("scale"):
            result["scale"] = measure_scale(work, plan, embedder)
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
    }
    result["details"] = details
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Benchmark reldocs: quality, latency, ingest and scale.")
    parser.add_argument("--quick", action="store_true", help="smaller plan that finishes within 5 minutes on 2 cores")
    parser.add_argument("--out", type=Path, default=None, help="JSON results file (default bench/results/run-*.json)")
    parser.add_argument(
        "--corpus", type=Path, default=None, help="corpus folder (default $RELDOCS_CORPUS_DIR or ../shared/corpus)"
    )
    parser.add_argument("--questions", type=Path, default=DEFAULT_QUESTIONS, help="evaluation set (JSONL)")
    parser.add_argument("--docs", type=Path, default=DOCS_DIR, help="where benchmarks.md and the plots are written")
    parser.add_argument("--scale-sizes", default=None, help="comma-separated chunk targets, overriding the plan's")
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
