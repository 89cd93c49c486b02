"""What every benchmark shares: the plans, the goals' thresholds, logging, CPU and memory readings."""

from __future__ import annotations

import contextlib
import re
import resource
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.evaluate import percentile

REPO_ROOT = Path(__file__).resolve().parents[1]
DOCS_DIR = REPO_ROOT / "docs"
RESULTS_DIR = REPO_ROOT / "bench" / "results"
COLD_QUESTION = "Why does torchrun no longer use port 29500 when I launch a single-node job?"
SYSTEMS = {
    "ours": "reldocs (hybrid)",
    "dense_baseline": "dense only (Chroma nearest neighbours)",
    "bm25_baseline": "BM25 only",
}
GOALS = {"latency_ratio": 1.5, "ingest_ratio": 0.9, "scale_span": 100, "scale_p50_ratio": 2.0, "cold_ratio": 2.0}


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


def read_chunks(root: Path) -> list[Any]:
    """The corpus as ingest chunks it (unreadable files skipped, as ingest does)."""
    from ingest.chunking import chunk_document
    from ingest.loader import DocumentError, discover, load_document

    chunks = []
    for path in discover(Path(root)):
        with contextlib.suppress(DocumentError):
            chunks.extend(chunk_document(load_document(path, Path(root))))
    return chunks


def put_section(page: Path, heading: str, lines: Sequence[str], before: str) -> None:
    """Put a generated section (`lines`, `heading` first) in `page`, replacing an earlier one, or else before the
    first occurrence of `before` (a heading, "\n## Goals")."""
    text = page.read_text(encoding="utf-8")
    block = "\n".join(lines).rstrip() + "\n\n"
    pattern = re.compile(rf"^{re.escape(heading)}\n.*?(?=^## )", re.MULTILINE | re.DOTALL)
    if pattern.search(text):
        text = pattern.sub(lambda _: block, text, count=1)
    else:
        text = text.replace(before, "\n" + block + before.lstrip("\n"), 1)
    page.write_text(text, encoding="utf-8")
