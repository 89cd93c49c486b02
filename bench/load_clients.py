"""Concurrent clients asking web replicas through Gradio's HTTP API, with every request's outcome kept.

A bounded script rather than locust: the figures the load test reports (p50/p95, and errors placed on the
timeline of an outage) come straight from the records, and the clients run in the benchmark's own process,
so the outage can be switched on and off at known instants. Each request is the two calls a Gradio client
makes: POST /gradio_api/call/ask, then the server-sent events of its result.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bench.evaluate import percentile

OK, UNAVAILABLE, ERROR = "ok", "unavailable", "error"
TIMEOUT_S = 120.0  # a request waits at most this long (queued behind the replica's workers included)


@dataclass(frozen=True)
class Record:
    """One question: which replica, when it started (seconds from the run's start), how long, what came back."""

    replica: int
    started: float
    seconds: float
    outcome: str  # OK, UNAVAILABLE (the one-line "index unavailable" answer) or ERROR (anything else wrong)
    detail: str = ""


def ask(client: Any, base: str, question: str) -> tuple[str, str]:
    """Ask one replica; the outcome and, when it is not OK, why."""
    try:
        start = client.post(f"{base}/gradio_api/call/ask", json={"data": [question, "", [], ""]})
        start.raise_for_status()
        event_id = start.json()["event_id"]
        event, data = "", ""
        with client.stream("GET", f"{base}/gradio_api/call/ask/{event_id}") as events:
            events.raise_for_status()
            for line in events.iter_lines():
                if line.startswith("event:"):
                    event = line.removeprefix("event:").strip()
                elif line.startswith("data:") and event in ("complete", "error"):
                    data = line.removeprefix("data:").strip()
                    break
    except Exception as e:  # a refused connection, a timeout, a 5xx: all count, none stops the run
        return ERROR, f"{type(e).__name__}: {e}"[:200]
    if event == "error" and "index unavailable" in data:  # the replica's one line while its server is away
        return UNAVAILABLE, data[:200]
    if event != "complete":
        return ERROR, f"event {event or 'none'}: {data[:200]}"
    answer = (json.loads(data) or [{}])[0]
    if not isinstance(answer, dict) or not answer.get("answer"):
        return ERROR, f"unexpected result: {data[:200]}"
    return OK, ""


def drive(
    bases: Sequence[str],
    questions: Sequence[str],
    *,
    clients: int,
    seconds: float,
    events: Sequence[tuple[float, Callable[[], None]]] = (),
) -> list[Record]:
    """`clients` threads asking in a loop for `seconds`, spread evenly over the replicas; `events` are
    (at seconds, action) run on the timeline, e.g. cutting one replica's link to its server."""
    import httpx

    records: list[Record] = []
    lock = threading.Lock()
    t0 = time.perf_counter()
    stop_at = t0 + seconds

    def client(n: int) -> None:
        replica = n % len(bases)
        mine = itertools.cycle(questions[n % len(questions) :] + questions[: n % len(questions)])
        with httpx.Client(timeout=TIMEOUT_S) as http:
            while (now := time.perf_counter()) < stop_at:
                outcome, detail = ask(http, bases[replica], next(mine))
                record = Record(replica, now - t0, time.perf_counter() - now, outcome, detail)
                with lock:
                    records.append(record)
                if outcome != OK:
                    time.sleep(0.2)  # a failure returns at once: don't spin on it

    threads = [threading.Thread(target=client, args=(n,), daemon=True) for n in range(clients)]
    for t in threads:
        t.start()
    for at, action in sorted(events, key=lambda e: e[0]):
        time.sleep(max(0.0, t0 + at - time.perf_counter()))
        action()
    for t in threads:
        t.join(TIMEOUT_S + seconds)
    return sorted(records, key=lambda r: r.started)


def summary(records: Sequence[Record], outage: tuple[float, float] | None = None) -> dict[str, Any]:
    """Counts and latency percentiles; with an outage (start, end), where on the timeline the failures fell."""
    done = [r for r in records if r.outcome == OK]
    out: dict[str, Any] = {
        "requests": len(records),
        "ok": len(done),
        "unavailable": sum(r.outcome == UNAVAILABLE for r in records),
        "errors": sum(r.outcome == ERROR for r in records),
        "p50_ms": _ms(done, 50),
        "p95_ms": _ms(done, 95),
        "per_replica": {
            str(n): {
                "requests": sum(r.replica == n for r in records),
                "p50_ms": _ms([r for r in done if r.replica == n], 50),
            }
            for n in sorted({r.replica for r in records})
        },
        "failures": [r.detail for r in records if r.outcome != OK][:5],
    }
    if outage:
        start, end = outage
        failed = [r for r in records if r.outcome != OK]
        # A failure belongs to the outage when the request was in flight at some instant of it.
        out["failed_in_outage"] = sum(r.started <= end and r.started + r.seconds >= start for r in failed)
        out["failed_outside"] = len(failed) - out["failed_in_outage"]
        out["failed_after"] = sum(r.started > end for r in failed)
        out["ok_after"] = sum(r.started > end for r in done)
        out["first_ok_after_s"] = round(
            min((r.started + r.seconds - end for r in done if r.started > end), default=-1), 2
        )
    return out


def _ms(records: Sequence[Record], p: float) -> float | None:
    value = percentile([r.seconds * 1e3 for r in records], p)
    return None if value is None else round(value, 1)
