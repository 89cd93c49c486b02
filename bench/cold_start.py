"""Cold start: `python app.py ask --json Q` from process start, against the floor of importing what it must.

The floor is `python -c "import onnxruntime, tokenizers, chromadb"`: the runtime, the tokenizer and the
store an answer cannot do without. Ask and floor run interleaved, round after round, so background load
hits both alike; medians are reported. A separate child then times the stages of one cold start (imports,
embedder, chunks read back, lexical index loaded, first answer) to show where the rest goes.

Usage (standalone; `bench/run.py` runs it too, on the corpora it has indexed):
    python bench/cold_start.py [--rounds 3] [--synthetic 100000] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # run as a script: `python bench/cold_start.py`
    sys.path.insert(0, str(REPO_ROOT))

from bench.common import COLD_QUESTION, log  # noqa: E402

FLOOR_IMPORTS = "import onnxruntime, tokenizers, chromadb"
GOAL_RATIO = 2.0

# Child processes report their own peak RSS into the file named by argv[1] when they exit.
_REPORT_RSS = """
import atexit, sys
def _report(path=sys.argv[1]):
    hwm = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:"))
    open(path, "w").write(str(int(hwm.split()[1]) / 1024))
atexit.register(_report)
"""
_FLOOR_SNIPPET = _REPORT_RSS + FLOOR_IMPORTS + "\n"
_APP_SNIPPET = (
    _REPORT_RSS
    + """
import runpy
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""
)
# The stages of one cold `ask`, as `app.open_knowledge_base` runs them, each timed from process start.
_STAGES_SNIPPET = """
import time
started = time.perf_counter()
import json, sys
import app
from assistant.index.chunk_cache import cached_chunks
from assistant.embed.embedder import make_embedder
from assistant.knowledge_base import KnowledgeBase
from assistant.search.retrieval import HybridRetriever
from assistant.runtime.settings import load_settings
from assistant.index.store import ChunkStore
from assistant.index.lexical import lexical_index
from assistant.index.vectors import exact_vectors
out = {"imports": time.perf_counter() - started}
settings = load_settings()
t = time.perf_counter(); embedder = make_embedder(settings); out["embedder"] = time.perf_counter() - t
t = time.perf_counter()
store = ChunkStore.open(settings)
manifest = store.manifest()
chunks = cached_chunks(settings, manifest) or store.load_chunks(manifest)
out["load_chunks"] = time.perf_counter() - t
t = time.perf_counter()
lexical = lexical_index(settings, manifest.collection, chunks)
out["lexical_load"] = time.perf_counter() - t
t = time.perf_counter()
vectors = exact_vectors(settings, store, manifest, chunks)
out["vectors_load"] = time.perf_counter() - t
t = time.perf_counter(); retriever = HybridRetriever(store, manifest, embedder, chunks, lexical, vectors)
out["retriever_build"] = time.perf_counter() - t
t = time.perf_counter()
KnowledgeBase(settings, retriever).ask(sys.argv[1])
out["first_answer"] = time.perf_counter() - t
out["total"] = time.perf_counter() - started
out["chunks"] = len(chunks)
out["embedder_class"] = type(embedder).__name__
out["chromadb_imported"] = "chromadb" in sys.modules
print(json.dumps(out))
"""


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


def child_env(settings: Any, work: Path) -> dict[str, str]:
    """The environment a cold child runs in: the index and model of `settings`, a throwaway data folder.

    Bytecode caching is left on (the unmeasured first run writes the caches), as on a user's machine: this
    sandbox sets PYTHONDONTWRITEBYTECODE, which would recompile every module of reldocs at each start.
    """
    return {
        **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
        "RELDOCS_CORPUS_DIR": str(settings.corpus_dir),
        "RELDOCS_INDEX_DIR": str(settings.index_path),
        "RELDOCS_DATA_DIR": str(work / "cold-data"),
        "RELDOCS_MODEL_DIR": str(settings.model_path),
        "RELDOCS_EMBEDDING_BACKEND": settings.embedding_backend,
    }


def measure_cold_start(settings: Any, work: Path, rounds: int, *, label: str, no_sync: bool = False) -> dict[str, Any]:
    """Median wall time of a cold `ask --json` and of the import floor, interleaved, plus a stage breakdown.

    `no_sync` for an index whose manifest lists no files (the synthetic ones), where a plain `ask`
    would start by re-indexing the corpus.
    """
    env = child_env(settings, work)
    args = ["ask", "--json", *(["--no-sync"] if no_sync else []), COLD_QUESTION]
    ask = [sys.executable, "-c", _APP_SNIPPET, str(REPO_ROOT / "app.py"), *args]
    floor = [sys.executable, "-c", _FLOOR_SNIPPET]
    _timed_child(ask, env, work)  # unmeasured: fills the page cache and, if need be, exports the model
    ask_runs, floor_runs, ask_rss, floor_rss = [], [], [], []
    for _ in range(rounds):
        wall, rss = _timed_child(floor, env, work)
        floor_runs.append(wall * 1e3)
        floor_rss.append(rss)
        wall, rss = _timed_child(ask, env, work)
        ask_runs.append(wall * 1e3)
        ask_rss.append(rss)
    result = {
        "label": label,
        "command": "python app.py " + " ".join(args[:-1]) + " Q",
        "ask": round(statistics.median(ask_runs), 1),
        "floor": round(statistics.median(floor_runs), 1),
        "ask_runs": [round(v, 1) for v in ask_runs],
        "floor_runs": [round(v, 1) for v in floor_runs],
        "ask_peak_rss_mb": round(max(ask_rss), 1),
        "floor_peak_rss_mb": round(max(floor_rss), 1),
    }
    result["ratio"] = round(result["ask"] / result["floor"], 2)
    result["stages_ms"] = stages(env)
    log(f"  cold start, {label}: {result}")
    return result


def stages(env: dict[str, str]) -> dict[str, Any]:
    """One cold start's stages in ms, from a child that runs them one by one (an error is a result too)."""
    proc = subprocess.run(
        [sys.executable, "-c", _STAGES_SNIPPET, COLD_QUESTION], cwd=REPO_ROOT, env=env, capture_output=True, text=True
    )
    if proc.returncode:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"}
    out = json.loads(proc.stdout.splitlines()[-1])
    return {k: round(v * 1e3, 1) if isinstance(v, float) else v for k, v in out.items()}


def synthetic_index(work: Path, target: int, base: Any) -> Any:
    """A synthetic corpus of about `target` chunks, indexed with `base`'s vectors plus noise (as bench/scale does)."""
    import numpy as np

    from assistant.index.store import ChunkStore, Manifest
    from assistant.runtime.settings import Settings
    from bench.common import read_chunks
    from bench.synthetic import generate
    from ingest.chunking import CHUNKER_VERSION

    root = work / f"cold-{target}"
    corpus = generate(root / "corpus", target, seed=target)
    chunks = read_chunks(corpus.root)
    rng = np.random.default_rng(0)
    n = len(chunks)
    vectors = base[np.arange(n) % len(base)] + rng.normal(0, 0.025, (n, base.shape[1])).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    settings = Settings(
        corpus_dir=corpus.root, index_dir=root / "index", data_dir=root / "data", model_dir=Settings().model_path
    )
    manifest = Manifest(collection="", model=settings.embedding_model, chunker=CHUNKER_VERSION)
    ChunkStore(settings.index_path).write_generation(chunks, vectors, manifest)
    return settings


def stored_vectors(settings: Any) -> Any:
    """The live generation's vectors, one row per chunk."""
    import numpy as np

    from assistant.index.store import ChunkStore

    store = ChunkStore.open(settings)
    manifest = store.manifest()
    chunks = store.load_chunks(manifest)
    stored = store.embeddings([c.id for c in chunks], manifest)
    return np.stack([stored[c.id] for c in chunks])


def main(argv: Sequence[str] | None = None) -> int:
    from assistant.embed.embedder import make_embedder
    from assistant.runtime.settings import Settings
    from bench.evaluate import default_corpus_dir
    from ingest import sync

    parser = argparse.ArgumentParser(description="Cold start of `app.py ask` against the import floor.")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved (floor, ask) pairs per corpus")
    parser.add_argument("--synthetic", type=int, default=100_000, help="synthetic chunks (0 to skip)")
    parser.add_argument("--out", type=Path, default=None, help="write the results as JSON here")
    args = parser.parse_args(argv)
    models = Settings().model_path  # the app's own export, made once if missing
    work = Path(tempfile.mkdtemp(prefix="reldocs-cold-"))
    results = []
    try:
        corpora = [("shipped corpus", REPO_ROOT / "corpus"), ("shared corpus", default_corpus_dir())]
        embedder = base = None
        for label, corpus in corpora:
            if not Path(corpus).is_dir():
                log(f"  {label}: {corpus} is absent, skipped")
                continue
            settings = Settings(corpus_dir=corpus, data_dir=work / label.replace(" ", "-"), model_dir=models)
            embedder = embedder or make_embedder(settings)
            t0 = time.perf_counter()
            sync(settings, progress=False, embedder=embedder)
            log(f"  {label} indexed in {time.perf_counter() - t0:.1f}s")
            results.append(measure_cold_start(settings, work, args.rounds, label=label))
            base = stored_vectors(settings)  # the last (largest) real corpus seeds the synthetic vectors
        if args.synthetic and base is not None:
            t0 = time.perf_counter()
            settings = synthetic_index(work, args.synthetic, base)
            log(f"  synthetic index of ~{args.synthetic} chunks written in {time.perf_counter() - t0:.1f}s")
            label = f"synthetic, {args.synthetic // 1000}k chunks" if args.synthetic >= 1000 else "synthetic"
            results.append(measure_cold_start(settings, work, args.rounds, label=label, no_sync=True))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out = {"floor_command": f'python -c "{FLOOR_IMPORTS}"', "rounds": args.rounds, "corpora": results}
    text = json.dumps(out, indent=1)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
