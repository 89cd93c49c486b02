"""Issue 36 on a real web server: an upload or a paste cannot stall or sink it. The Upgrade tab's event is
private, hidden from the API page but not from `/gradio_api/queue/join`, so these tests call it as an attacker
would, with raw HTTP, while timing the chat's `ask` endpoint."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import gradio as gr
import httpx
import pytest
from netutil import free_port

from assistant.knowledge_base import KnowledgeBase
from assistant.runtime.settings import Settings
from interfaces.web import build_ui, launch

MB = 1024 * 1024
ASK = "Which optimizer gained fused=True?"
SCAN_BUDGET_S = 2.0
ASK_LIMIT_S = 2.0
# Code dense with hits of the 2.11 -> 2.12 plan, just under the paste cap: some 0.3 s of scanning; with a dozen
# files like it uploaded beside it, past the budget.
SMALL = "from torch.distributed.nn import functional as F\nF.all_reduce(t)\n"
HEAVY = SMALL + "F.all_reduce(t)\n" * 6_000
HEAVY_FILES = 12


@pytest.fixture(scope="module")
def served(kb: KnowledgeBase, settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[gr.Blocks]:
    """The session's index served as `app.py web` serves it (the chat, the Upgrade tab, /mcp), with the default
    caps and a short scan budget so that a scan past it ends within the test."""
    limited = settings.model_copy(
        update={"data_dir": tmp_path_factory.mktemp("web-limits"), "scan_timeout_s": SCAN_BUDGET_S}
    )
    knowledge = KnowledgeBase(limited, kb.retriever)
    demo = launch(build_ui(knowledge, limited), limited, port=free_port(), block=False, kb=knowledge)
    yield demo
    demo.close()


def timed_ask(base: str) -> tuple[float, dict[str, Any]]:
    """One `ask` over Gradio's plain HTTP API; its seconds and its answer."""
    with httpx.Client(timeout=60) as http:
        started = time.perf_counter()
        event = http.post(f"{base}gradio_api/call/ask", json={"data": [ASK, "", [], ""]}).json()["event_id"]
        stream = http.get(f"{base}gradio_api/call/ask/{event}").text
        elapsed = time.perf_counter() - started
    kind, _, data = stream.partition("\ndata: ")
    assert kind.strip() == "event: complete", stream
    return elapsed, json.loads(data.strip())[0]


def upload(http: httpx.Client, base: str, name: str, data: bytes) -> httpx.Response:
    return http.post(f"{base}gradio_api/upload", files={"files": (name, data, "text/x-python")})


def call_upgrade(http: httpx.Client, base: str, code: str, files: Sequence[tuple[str, str]] = ()) -> str:
    """The Upgrade tab's private event through the queue, as any script can call it: the result's HTML.
    `files` are (server path from /gradio_api/upload, original name)."""
    config = http.get(f"{base}config").json()
    go = next(c["id"] for c in config["components"] if c.get("props", {}).get("elem_id") == "reldocs-upgrade-go")
    event = next(d["id"] for d in config["dependencies"] if any(t[0] == go for t in d["targets"]))
    session = uuid.uuid4().hex
    uploaded = [{"path": p, "orig_name": n, "meta": {"_type": "gradio.FileData"}} for p, n in files]
    body = {"data": ["PyTorch", "2.11", "2.12", code, uploaded or None], "fn_index": event, "trigger_id": go}
    joined = http.post(f"{base}gradio_api/queue/join", json=body | {"session_hash": session, "event_data": None})
    assert joined.status_code == 200, joined.text
    with http.stream("GET", f"{base}gradio_api/queue/data", params={"session_hash": session}) as stream:
        for line in stream.iter_lines():
            if not line.startswith("data: "):
                continue
            message = json.loads(line.removeprefix("data: "))
            if message.get("msg") == "process_completed":
                assert message.get("success"), message
                return message["output"]["data"][0]
    raise AssertionError("the event stream ended without a result")


def test_a_50_mb_upload_and_four_heavy_scans_leave_ask_answering_in_under_2_s(served: gr.Blocks) -> None:
    """What the report did: a 50 MB upload, and four heavy scans at once, each a paste and a dozen uploads (which
    used to take every slot of the queue the chat shares). The upload is refused, the scans run one at a time in
    the worker and stop at their budget, and `ask` answers in under 2 s all along (a pause of ~1 s is this
    process's own garbage collection of the index's objects, slower while the machine is busy)."""
    base = served.local_url

    def fifty_mb() -> httpx.Response:
        with httpx.Client(timeout=120) as http:
            return upload(http, base, "huge.py", b"import torch\n" + b"torch.load(x)\n" * (50 * MB // 14))

    with httpx.Client(timeout=60) as http:
        heavy_files = [
            (upload(http, base, f"h{i}.py", HEAVY.encode()).json()[0], f"h{i}.py") for i in range(HEAVY_FILES)
        ]

    def heavy_paste() -> str:
        with httpx.Client(timeout=120) as http:
            return call_upgrade(http, base, HEAVY, heavy_files)

    timed_ask(base)  # the page and the model warm, as on a server that has been answering
    with ThreadPoolExecutor(5) as pool:
        refused, scans = pool.submit(fifty_mb), [pool.submit(heavy_paste) for _ in range(4)]
        seconds = []
        deadline = time.monotonic() + 180
        while not all(f.done() for f in [refused, *scans]) and time.monotonic() < deadline:
            elapsed, answer = timed_ask(base)
            seconds.append(elapsed)
            assert "Adagrad" in answer["answer"]
        response, pages = refused.result(), [f.result() for f in scans]
    print(f"\n{len(seconds)} asks during the attack: max {max(seconds) * 1e3:.0f} ms")
    assert len(seconds) >= 5 and max(seconds) < ASK_LIMIT_S, seconds
    # Gradio's max_file_size refuses the upload on the server, in one line; nothing of it reaches a scan.
    assert response.status_code == 413 and "\n" not in response.text.strip(), response.text[:300]
    # Each heavy scan ran in the worker and stopped at its budget; the plan is still shown.
    for html in pages:
        files = HEAVY_FILES + 1
        assert f"<li><code>{files} files</code>: not scanned: the scan took longer than {SCAN_BUDGET_S:g} s" in html
        assert "PyTorch 2.11 → 2.12" in html
    # Still alive: the chat, the page, /mcp, and a new scan in a fresh worker.
    assert "Adagrad" in timed_ask(base)[1]["answer"]
    with httpx.Client(timeout=60) as http:
        assert http.get(base).status_code == 200
        assert http.post(f"{base.rstrip('/')}/mcp", json={}).status_code < 500
        assert "pasted.py:2:1" in call_upgrade(http, base, SMALL)


def test_a_200000_character_paste_gets_a_one_line_refusal(served: gr.Blocks) -> None:
    with httpx.Client(timeout=60) as http:
        html = call_upgrade(http, served.local_url, "x = 1\n" * 33_334)
    assert html == (
        '<p class="reldocs-plan-error">Pasted code may have up to 100,000 characters, not 200,004: '
        "upload it as a file instead.</p>"
    )


def test_an_upload_under_gradios_limit_but_over_the_scan_cap_is_named_and_skipped(served: gr.Blocks) -> None:
    """Gradio's limit is the notebooks' (their outputs weigh); a .py file over the scan's cap gets in, and is
    named and skipped in one line, its neighbour scanned. (A file given by public URL Gradio fetches with no
    limit at all: the scan's own check is what holds then.)"""
    base = served.local_url
    with httpx.Client(timeout=60) as http:
        big = upload(http, base, "big.py", SMALL.encode() + b"#" * 3 * MB)
        small = upload(http, base, "small.py", SMALL.encode())
        assert big.status_code == small.status_code == 200
        html = call_upgrade(http, base, "", [(big.json()[0], "big.py"), (small.json()[0], "small.py")])
    assert "<li><code>big.py</code>: not scanned: over the 1 MB limit per file</li>" in html
    assert "small.py:2:1" in html and "big.py:2" not in html


@pytest.mark.parametrize("length", [32, 64, 200])
def test_a_hostile_version_string_is_refused_while_the_page_stays_responsive(served: gr.Blocks, length: int) -> None:
    """`"1" + "a"*30 + "!"` as the `version` of `ask` used to hold the interpreter for a minute (an exponential
    backtrack in the version pattern) and `GET /` with it. Now the call is refused at once and the page answers
    under 1 s while it runs."""
    base = served.local_url
    version = "1" + "a" * (length - 2) + "!"

    def hostile_ask() -> tuple[float, str]:
        with httpx.Client(timeout=120) as http:
            started = time.perf_counter()
            event = http.post(f"{base}gradio_api/call/ask", json={"data": [ASK, version, [], ""]}).json()["event_id"]
            stream = http.get(f"{base}gradio_api/call/ask/{event}").text
            return time.perf_counter() - started, stream

    with ThreadPoolExecutor(2) as pool, httpx.Client(timeout=60) as http:
        asked = pool.submit(hostile_ask)
        started = time.perf_counter()
        assert http.get(base).status_code == 200
        page_s = time.perf_counter() - started
        elapsed, stream = asked.result()
    assert page_s < 1.0, page_s
    assert elapsed < 2.0, elapsed
    assert "event: error" in stream and "version must look like a release number" in stream, stream[:300]
