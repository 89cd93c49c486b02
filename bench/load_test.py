"""Load test: two web replicas on one Chroma server, 50 concurrent clients, then one replica loses its server.

Usage:
    python bench/load_test.py [--clients 50] [--seconds 60] [--outage-at 25] [--outage 10] [--corpus DIR]

Everything runs on 127.0.0.1: a real `chroma run`, one `python app.py ingest` into it, two `python app.py web`
replicas (replica 0 reaches the server through a relay that is cut for the outage, replica 1 directly), and
the clients of `bench.load_clients`. Writes bench/results/load-<time>.json and docs/load-test.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:  # run as a script: `python bench/load_test.py`
    sys.path.insert(0, str(REPO_ROOT))

from bench.chroma_process import ChromaServer, free_port  # noqa: E402
from bench.load_clients import drive, summary  # noqa: E402
from bench.tcp_proxy import TcpProxy  # noqa: E402

DOCS = REPO_ROOT / "docs" / "load-test.md"
RESULTS_DIR = REPO_ROOT / "bench" / "results"
QUESTIONS = REPO_ROOT / "bench" / "questions.jsonl"
SHARED_CORPUS = REPO_ROOT.parent / "shared" / "corpus"
DATABASE = "load"


def log(message: str) -> None:
    print(f"[load {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def environment(work: Path, corpus: Path, chroma_url: str, name: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELDOCS_")}
    return env | {
        "RELDOCS_CORPUS_DIR": str(corpus),
        "RELDOCS_DATA_DIR": str(work / name),
        "RELDOCS_MODEL_DIR": str(work / "models"),  # one ONNX export for the ingest and both replicas
        "RELDOCS_CHROMA_URL": chroma_url,
        "RELDOCS_CHROMA_DATABASE": DATABASE,
    }


@contextmanager
def replica(env: dict[str, str], log_path: Path) -> Iterator[str]:
    """`python app.py web` on a free port; yields its base URL once the page is served."""
    port = free_port()
    with log_path.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "app.py", "web", "--port", str(port)], cwd=REPO_ROOT, env=env, stdout=out, stderr=out
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 180
            while not _serves(base):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"replica did not start: {log_path.read_text(errors='replace')[-1500:]}")
                time.sleep(0.5)
            yield base
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


def _serves(base: str) -> bool:
    try:
        with urllib.request.urlopen(base + "/", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


def questions() -> list[str]:
    return [json.loads(line)["question"] for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line]


def run(args: argparse.Namespace) -> dict[str, Any]:
    corpus = Path(args.corpus) if args.corpus else (SHARED_CORPUS if SHARED_CORPUS.is_dir() else REPO_ROOT / "corpus")
    asked = questions()
    with tempfile.TemporaryDirectory(prefix="reldocs-load-") as tmp, ExitStack() as stack:
        work = Path(tmp)
        server = ChromaServer(work / "chroma" / "db")
        (work / "chroma").mkdir()
        server.start()
        stack.callback(server.stop)
        log(f"chroma run on {server.url}; ingesting {corpus}")
        ingest = subprocess.run(
            [sys.executable, "app.py", "ingest", "--json"],
            cwd=REPO_ROOT,
            env=environment(work, corpus, server.url, "ingest"),
            capture_output=True,
            text=True,
        )
        if ingest.returncode:
            raise RuntimeError(f"ingest failed: {ingest.stderr[-1500:]}")
        chunks = json.loads(ingest.stdout)["chunks"]
        relay = TcpProxy(("127.0.0.1", server.port))
        stack.callback(relay.close)
        bases = [
            stack.enter_context(replica(environment(work, corpus, relay.url, "r0"), work / "r0.log")),
            stack.enter_context(replica(environment(work, corpus, server.url, "r1"), work / "r1.log")),
        ]
        log(f"replicas on {bases}; warming up")
        drive(bases, asked, clients=2, seconds=3)
        log(f"steady: {args.clients} clients for {args.seconds} s")
        steady = drive(bases, asked, clients=args.clients, seconds=args.seconds)
        start, end = args.outage_at, args.outage_at + args.outage
        log(f"outage: replica 0 loses its server from {start} s to {end} s")
        outage = drive(
            bases,
            asked,
            clients=args.clients,
            seconds=args.seconds,
            events=[(start, relay.cut), (end, relay.restore)],
        )
    return {
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
        "corpus": str(corpus),
        "chunks": chunks,
        "clients": args.clients,
        "seconds": args.seconds,
        "cpus": os.cpu_count(),
        "outage_window_s": [start, end],
        "steady": summary(steady),
        "outage": summary(outage, (start, end)),
        "outage_timeline": timeline(outage),
    }


def timeline(records: Sequence[Any], step: float = 5.0) -> list[dict[str, Any]]:
    """Requests started in each `step`-second slice, by outcome: where the failures fall."""
    slices: dict[int, dict[str, int]] = {}
    for r in records:
        counts = slices.setdefault(int(r.started // step), {"ok": 0, "unavailable": 0, "error": 0})
        counts[r.outcome] += 1
    return [{"from_s": n * step, **counts} for n, counts in sorted(slices.items())]


def render(result: dict[str, Any]) -> str:
    steady, outage = result["steady"], result["outage"]
    start, end = result["outage_window_s"]

    def row(name: str, s: dict[str, Any]) -> str:
        per = " / ".join(f"{v['p50_ms']}" for v in s["per_replica"].values())
        counts = f"{s['requests']} | {s['ok']} | {s['unavailable']} | {s['errors']}"
        return f"| {name} | {counts} | {s['p50_ms']} | {s['p95_ms']} | {per} |"

    lines = [
        "# Load test: two web replicas on one Chroma server",
        "",
        f"Measured {result['when']} with `python bench/load_test.py` on {result['cpus']} cores, all on 127.0.0.1: "
        f"a real `chroma run` holding {result['chunks']} chunks ({_shown(result['corpus'])}), two `python app.py web` "
        f"replicas, and {result['clients']} concurrent clients asking through Gradio's HTTP API "
        f"(`/gradio_api/call/ask`) for {result['seconds']} s per run, spread evenly over the replicas. "
        "Questions cycle through `bench/questions.jsonl`. Latencies are per question, from the POST to the "
        "result event, queueing in the replica included.",
        "",
        '| run | questions | answered | "index unavailable" | errors | p50 ms | p95 ms | p50 ms per replica |',
        "|---|---|---|---|---|---|---|---|",
        row("steady", steady),
        row(f"replica 0 cut off its server {start}–{end} s", outage),
        "",
        f"In the outage run, replica 0 reaches the server through a relay that is cut at {start} s (live "
        f"connections reset, new ones refused) and restored at {end} s; replica 1 keeps its own connection.",
        f"- Failed questions that were in flight during the outage: {outage['failed_in_outage']}; "
        f"outside it: **{outage['failed_outside']}**; started after it: **{outage['failed_after']}**.",
        f"- Answered after the outage: {outage['ok_after']}; the first answer came "
        f"{outage['first_ok_after_s']} s after the relay was restored (the replica reconnects by itself).",
        "",
        "Requests started per 5-second slice of the outage run:",
        "",
        '| from s | answered | "index unavailable" | errors |',
        "|---|---|---|---|",
        *(f"| {t['from_s']:g} | {t['ok']} | {t['unavailable']} | {t['error']} |" for t in result["outage_timeline"]),
        "",
    ]
    return "\n".join(lines)


def _shown(path: str) -> str:
    p = Path(path)
    return p.name if not p.is_relative_to(REPO_ROOT.parent) else str(p.relative_to(REPO_ROOT.parent))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=50, help="Concurrent clients (default 50).")
    parser.add_argument("--seconds", type=float, default=60, help="Length of each run (default 60).")
    parser.add_argument("--outage-at", type=float, default=25, help="When replica 0 loses its server (s).")
    parser.add_argument("--outage", type=float, default=10, help="How long it stays cut off (s).")
    parser.add_argument("--corpus", help="Corpus to index (default ../shared/corpus, else corpus/).")
    parser.add_argument("--docs", default=str(DOCS), help="Where to write the Markdown report.")
    args = parser.parse_args(argv)
    result = run(args)
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    out = RESULTS_DIR / f"load-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    Path(args.docs).write_text(render(result), encoding="utf-8")
    log(f"wrote {out} and {args.docs}")
    print(json.dumps({k: result[k] for k in ("steady", "outage")}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
