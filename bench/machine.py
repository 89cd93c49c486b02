"""The machine the numbers come from, and how busy other processes kept it during each phase."""

from __future__ import annotations

import contextlib
import os
import platform
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.common import REPO_ROOT, log


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
    names = ("torch", "sentence-transformers", "transformers", "onnxruntime", "tokenizers", "chromadb")
    for name in (*names, "bm25s", "numpy"):
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
