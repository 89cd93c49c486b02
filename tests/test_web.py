"""The web UI: its callbacks called directly, and the `ask`/`search` API through gradio_client, 20 clients at once."""

from __future__ import annotations

import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import gradio as gr
import httpx
import pytest
from chroma_server import index_env
from gradio_client import Client
from netutil import free_port

from assistant.feedback import FeedbackLog
from assistant.knowledge_base import KnowledgeBase
from assistant.model.errors import ReldocsError
from assistant.model.records import Answer, Citation
from assistant.runtime.settings import Settings
from interfaces.web import (
    ALL_VERSIONS,
    _is_loopback,
    add_example,
    add_question,
    answer_turns,
    api_ask,
    build_ui,
    indexed_note,
    launch,
    record_feedback,
    release_choice,
    release_choices,
    stopped,
    web_auth,
)
from interfaces.web_render import ERROR, SEARCHING, STOPPED, answer_message, message_text, user_message

ROOT = Path(__file__).resolve().parents[1]
CUDA_Q = "What is the minimum CUDA version to build PyTorch 2.12 from source?"
FUSED_Q = "And which optimizer gained fused=True?"
# (question, earlier questions, text the answer must contain, whether it is grounded)
CASES = [
    (CUDA_Q, [], "12.6", True),
    (FUSED_Q, [CUDA_Q], "Adagrad", True),
    ("Why does torchrun no longer use port 29500?", [], "free port", True),
    ("Quel optimiseur supporte fused=True ?", [], "Adagrad", True),
    ("How do I bake sourdough bread?", [], "don't cover", False),
]


def _own_data(settings: Settings, tmp_path_factory: pytest.TempPathFactory, name: str) -> Settings:
    """`settings` with a data folder of this module's own, so feedback starts empty."""
    return settings.model_copy(update={"data_dir": tmp_path_factory.mktemp(name)})


def _served(kb: KnowledgeBase, settings: Settings) -> Iterator[gr.Blocks]:
    """The page and its API over `kb`, closed when the module's tests are done."""
    demo = launch(build_ui(kb, settings), settings, port=free_port(), block=False)
    yield demo
    demo.close()


@pytest.fixture(scope="module")
def web_settings(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return _own_data(settings, tmp_path_factory, "web")


@pytest.fixture(scope="module")
def server(kb, web_settings: Settings):
    yield from _served(kb, web_settings)


@pytest.fixture(scope="module")
def client(server) -> Client:
    return Client(server.local_url, verbose=False)


@pytest.fixture(scope="module")
def plain_settings(fake_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """The fake embedder's settings, with a data folder of this module's own."""
    return _own_data(fake_settings, tmp_path_factory, "web-plain")


@pytest.fixture(scope="module")
def plain_server(fake_kb: KnowledgeBase, plain_settings: Settings):
    """The page and its API over the fake embedder's index: for the tests of the HTTP layer, whose assertions
    read no answer's words (those stay on `server`, the real model's)."""
    yield from _served(fake_kb, plain_settings)


@pytest.fixture(scope="module")
def plain_client(plain_server) -> Client:
    return Client(plain_server.local_url, verbose=False)


def _last(turns: list[dict]) -> str:
    return turns[-1]["content"]


# -- callbacks, called directly ----------------------------------------------------------------------


def test_answer_streams_with_citations(kb):
    steps = list(answer_turns(kb, [{"role": "user", "content": CUDA_Q}], ALL_VERSIONS, {}))
    assert _last(steps[0][0]) == SEARCHING  # something shows at once, before the search
    turns, answers = steps[-1]
    text = _last(turns)
    assert "12.6" in text and "[1]" in text
    assert "<strong>Sources</strong>" in text and "<details" in text and "github.com/pytorch" in text
    assert 'href="#reldocs-1-1">[1]</a>' in text and 'id="reldocs-1-1"' in text  # the marker links to its source
    plain = message_text(text)  # what the copy button copies: readable text, no HTML
    assert "12.6" in plain and "Sources:" in plain and "<" not in plain
    assert answers[1].found and answers[1].citations  # kept for 👍/👎, keyed by the message index


def test_follow_up_uses_earlier_questions_in_gradio_message_format(kb):
    turns = [
        {"role": "user", "content": [{"type": "text", "text": CUDA_Q}]},
        {"role": "assistant", "content": [{"type": "text", "text": "… 12.6 [1]"}]},
        {"role": "user", "content": [{"type": "text", "text": FUSED_Q}]},
    ]
    steps = list(answer_turns(kb, turns, ALL_VERSIONS, {}))
    turns, answers = steps[-1]
    assert "Adagrad" in _last(turns)
    assert answers[3].question == FUSED_Q
    drafts = [len(_last(t)) for t, _ in steps[1:]]
    assert len(drafts) >= 2 and drafts == sorted(drafts)  # streamed passage by passage, growing


def test_refusal_looks_different(kb):
    turns, answers = list(answer_turns(kb, [{"role": "user", "content": "How do I bake bread?"}], "", {}))[-1]
    text = _last(turns)
    assert 'class="reldocs-refusal"' in text and "Not in the release docs" in text
    assert "Sources" not in text
    assert not answers[1].found


def test_version_filter_is_passed_to_the_knowledge_base(kb):
    turns, _ = list(answer_turns(kb, [{"role": "user", "content": "Which optimizer gained fused=True?"}], "2.9", {}))[
        -1
    ]
    assert "reldocs-refusal" in _last(turns)  # 2.9 is not indexed, so nothing may be quoted


class BrokenKB:
    def stream(self, *args, **kwargs):
        raise RuntimeError("disk on fire")
        yield  # pragma: no cover


def test_errors_show_a_friendly_line_not_a_traceback():
    turns, answers = list(answer_turns(BrokenKB(), [{"role": "user", "content": "anything"}], "", {}))[-1]
    assert _last(turns) == ERROR
    assert "Traceback" not in ERROR and "disk on fire" not in ERROR
    assert answers == {}


def test_stop_says_so_unless_the_answer_had_begun():
    _, asked = add_question("What changed?", [])
    searching = [*asked, {"role": "assistant", "content": SEARCHING}]
    begun = [*asked, {"role": "assistant", "content": "<p>Partial answer</p>"}]
    assert stopped(asked) == [*asked, {"role": "assistant", "content": STOPPED}]  # before "Searching…" showed
    assert stopped(searching) == [*asked, {"role": "assistant", "content": STOPPED}]
    assert stopped(begun) == begun and stopped([]) == []


def test_empty_question_is_not_added():
    assert add_question("   ", []) == ("", [])
    assert add_question(" hi ", [])[1] == [{"role": "user", "content": user_message("hi")}]
    assert message_text(add_example([], {"text": "Which optimizer gained fused=True?"})[-1]["content"]) == (
        "Which optimizer gained fused=True?"
    )


def test_user_questions_are_shown_as_text_and_read_back_exactly():
    question = "Does <b>x</b> & `<img src=y>` change?"
    _, turns = add_question(question, [])
    shown = turns[0]["content"]
    assert "<b>" not in shown and "<img" not in shown.split("<!--")[0]
    assert message_text(shown) == question  # follow-ups see the question as typed


def test_feedback_is_stored_with_question_answer_and_citations(tmp_path: Path, kb):
    log = FeedbackLog(tmp_path / "feedback.jsonl")
    answer = kb.ask(CUDA_Q)
    assert record_feedback(log, {1: answer}, 1, True, voter="s1", user="ann")["vote"] == "up"
    assert record_feedback(log, {1: answer}, [1, None], False, voter="s2") is not None
    assert record_feedback(log, {1: answer}, 3, True, voter="s1") is None  # an error message: nothing to judge
    assert record_feedback(log, {1: answer}, 1, None, voter="s1") is None  # a vote taken back
    for index in ("1", [], ["x"], True, {"a": 1}):  # event data a script made up: nothing to judge, no error
        assert record_feedback(log, {1: answer}, index, True, voter="s1") is None
    assert record_feedback(log, {1: answer}, 1, False, voter="s1")["vote"] == "down"  # s1 changed its mind
    entries = list(log.entries())
    assert [(e["vote"], e["user"]) for e in entries] == [("down", "ann"), ("down", None)]
    assert entries[0]["channel"] == "web" and entries[0]["question"] == CUDA_Q and "12.6" in entries[0]["answer"]
    assert entries[0]["citations"][0]["url"].startswith("https://")


def test_render_escapes_tags_but_not_code():
    cite = Citation(1, "Notes [beta]", "2.12.0", "release-notes", "API", "a/b.md", "", "returns <Tensor> now")
    text = answer_message(Answer("q", "Use `x<y` and <script>", True, (cite,))).split("<!--")[0]
    assert "<code>x&lt;y</code>" in text and "&lt;script&gt;" in text and "<script>" not in text
    assert "&lt;Tensor&gt;" in text
    assert "Notes [beta]" in text and "reldocs-source-link" not in text  # no url: no link


def test_render_never_links_doc_text_and_checks_source_urls():
    bad = Citation(1, "t", "1.0", "k", "", "a.md", "javascript:alert(1)", "q")
    text = answer_message(Answer("q", "See [x](https://evil.example) <https://evil.example> [1] [7]", True, (bad,)))
    html = text.split("<!--")[0]
    assert "evil.example" not in html.replace("[x](https://evil.example) &lt;https://evil.example&gt;", "")
    assert "javascript" not in html and 'href="#reldocs-0-7"' not in html  # [7] names no source: no link
    assert html.count("<a ") == 1  # only the [1] marker


def test_version_choices_come_from_the_index(fake_kb: KnowledgeBase, plain_settings: Settings):
    demo = build_ui(fake_kb, plain_settings)
    dropdown = next(b for b in demo.blocks.values() if isinstance(b, gr.Dropdown))
    assert [value for _, value in dropdown.choices] == [ALL_VERSIONS, *reversed(fake_kb.versions())]


def test_french_refusal_is_labelled_in_french():
    text = answer_message(Answer("q", "Les notes de version ne couvrent pas cette question.", False, language="fr"))
    assert "Absent des notes de version" in text and "reldocs-refusal" in text


def test_loopback_hosts():
    assert all(_is_loopback(h) for h in ("127.0.0.1", "localhost", "::1"))
    assert not any(_is_loopback(h) for h in ("0.0.0.0", "192.168.1.10", "example.org"))


def test_web_auth_setting():
    assert web_auth(Settings(web_auth=None)) is None
    assert web_auth(Settings(web_auth="ann:s3:cret")) == ("ann", "s3:cret")
    with pytest.raises(ReldocsError):
        web_auth(Settings(web_auth="no-password"))


def test_api_ask_rejects_an_empty_question(fake_kb: KnowledgeBase):
    with pytest.raises(gr.Error):
        api_ask(fake_kb, "  ")


# -- the API through gradio_client -------------------------------------------------------------------


def test_api_lists_only_ask_and_search(plain_client: Client):
    endpoints = plain_client.view_api(print_info=False, return_format="dict")["named_endpoints"]
    assert set(endpoints) == {"/ask", "/search"}


def test_api_ask_returns_answer_and_citations(client: Client):
    data = client.predict(CUDA_Q, api_name="/ask")
    assert data["found"] is True and "12.6" in data["answer"]
    assert data["mode"] == "extractive"
    first = data["citations"][0]
    assert first["n"] == 1 and first["version"] == "2.12.0" and "12.6" in first["quote"]
    assert set(first) >= {"title", "section", "url", "source", "kind"}


def test_api_ask_follow_up_and_version(client: Client):
    assert "Adagrad" in client.predict(FUSED_Q, "", [CUDA_Q], api_name="/ask")["answer"]
    assert client.predict(CUDA_Q, "2.9", api_name="/ask")["found"] is False


def test_api_errors_are_one_friendly_line(plain_client: Client):
    with pytest.raises(Exception, match="The question is empty") as e:
        plain_client.predict("   ", api_name="/ask")
    assert "Traceback" not in str(e.value)


def test_api_search(client: Client):
    hits = client.predict("torchrun port 29500", 3, api_name="/search")
    assert 1 <= len(hits) <= 3
    assert any("29500" in h["text"] for h in hits)


def latency_report(how: str, seconds: list[float]) -> float:
    """Print p50/p95 (nearest rank) of one concurrent run; returns p95 in seconds."""
    ordered = sorted(seconds)
    p50, p95 = statistics.median(ordered), ordered[math.ceil(0.95 * len(ordered)) - 1]
    ms = [f"{x * 1e3:.0f} ms" for x in (p50, p95, ordered[-1])]
    print(f"\n{len(ordered)} concurrent {how} /ask: p50 {ms[0]}, p95 {ms[1]}, max {ms[2]}")
    return p95


def test_twenty_concurrent_clients(server):
    """20 clients at once, each its own connection; all must get correct answers (p50/p95 printed)."""
    clients = [Client(server.local_url, verbose=False) for _ in range(20)]

    def one(i: int) -> tuple[float, bool]:
        question, history, expected, found = CASES[i % len(CASES)]
        started = time.perf_counter()
        data = clients[i].predict(question, "", history, api_name="/ask")
        elapsed = time.perf_counter() - started
        return elapsed, expected in data["answer"] and data["found"] is found and bool(data["citations"]) is found

    with ThreadPoolExecutor(max_workers=20) as pool:
        results = list(pool.map(one, range(20)))
    assert all(ok for _, ok in results), results
    assert latency_report("gradio_client", [s for s, _ in results]) < 30  # catches a model loaded per request


def http_ask(http: httpx.Client, base: str, question: str, history: list[str]) -> dict:
    """The `ask` endpoint over Gradio's plain HTTP API (what curl uses): post, then read the event stream."""
    event = http.post(f"{base}gradio_api/call/ask", json={"data": [question, "", history, ""]}).json()["event_id"]
    stream = http.get(f"{base}gradio_api/call/ask/{event}").text
    kind, _, data = stream.partition("\ndata: ")
    assert kind.strip() == "event: complete", stream
    return json.loads(data.strip())[0]


def test_twenty_concurrent_http_clients(server):
    """The same load over plain HTTP: the server's own latency, without gradio_client's overhead."""

    def one(i: int) -> tuple[float, bool]:
        question, history, expected, found = CASES[i % len(CASES)]
        with httpx.Client(timeout=60) as http:
            started = time.perf_counter()
            data = http_ask(http, server.local_url, question, history)
            elapsed = time.perf_counter() - started
        return elapsed, expected in data["answer"] and data["found"] is found

    with ThreadPoolExecutor(max_workers=20) as pool:
        results = list(pool.map(one, range(20)))
    assert all(ok for _, ok in results), results
    assert latency_report("HTTP", [s for s, _ in results]) < 30


def test_basic_auth(kb, web_settings: Settings):
    locked = web_settings.model_copy(update={"web_auth": "ann:secret"})
    demo = launch(build_ui(kb, locked), locked, port=free_port(), block=False)
    try:
        with pytest.raises(Exception):  # noqa: B017 - gradio_client raises a bare ValueError/HTTP error here
            Client(demo.local_url, verbose=False)
        ok = Client(demo.local_url, auth=("ann", "secret"), verbose=False)
        assert "12.6" in ok.predict(CUDA_Q, api_name="/ask")["answer"]
    finally:
        demo.close()


def test_app_py_web_serves_the_chat(kb, settings: Settings, tmp_path: Path):
    """`python app.py web` end to end, over a copy of the session's index (so it does not re-ingest)."""
    if not settings.chroma_url:
        shutil.copytree(settings.index_path, tmp_path / "index")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELDOCS_")}  # no LLM, auth or index override
    env |= {"RELDOCS_CORPUS_DIR": str(settings.corpus_dir), "RELDOCS_DATA_DIR": str(tmp_path), **index_env(settings)}
    env["RELDOCS_MODEL_DIR"] = os.environ["RELDOCS_MODEL_DIR"]  # the session's ONNX export, not a second one
    proc = subprocess.Popen(
        [sys.executable, "app.py", "web", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 90
        while True:
            try:
                client = Client(url, verbose=False)
                break
            except Exception:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"app.py web did not start:\n{proc.communicate()[0] if proc.poll() else ''}")
                time.sleep(0.5)
        assert "12.6" in client.predict(CUDA_Q, api_name="/ask")["answer"]
    finally:
        proc.terminate()
        output = proc.communicate(timeout=30)[0]
    assert f"127.0.0.1:{port}" in output
    assert "Traceback" not in output


BAD_CALLS = [  # every argument sent, as gradio's HTTP API requires
    ("/ask", [123, "", [], ""], "question must be a string, not int"),
    ("/ask", ["Which optimizer gained fused=True?", "", "notalist", ""], "history must be a list"),
    ("/ask", ["Which optimizer gained fused=True?", "", [1, 2], ""], "history[0] must be a string"),
    ("/ask", ["Which optimizer gained fused=True?", "<img src=x>", [], ""], "version must look like a release number"),
    ("/search", ["torchrun", "abc", "", ""], "k must be a whole number from 1 to 50"),
    ("/search", ["torchrun", 500, "", ""], "k must be a whole number from 1 to 50"),
    ("/search", [None, 5, "", ""], "query must be a string, not null"),
    (
        "/ask",
        ["Which optimizer gained fused=True?", "", [], "numpy"],
        "no product 'numpy' is indexed; indexed: PyTorch",
    ),
    ("/ask", ["Which optimizer gained fused=True?", "", [], 7], "product must be a string"),
]


@pytest.mark.parametrize(("endpoint", "data", "message"), BAD_CALLS)
def test_api_bad_input_gets_one_line_error(plain_server, endpoint: str, data: list, message: str, caplog, capfd):
    """Over plain HTTP (what any script or agent sends): a clear error event, and no traceback in the server log."""
    base = plain_server.local_url
    with httpx.Client(timeout=30) as http:
        event = http.post(f"{base}gradio_api/call{endpoint}", json={"data": data}).json()["event_id"]
        stream = http.get(f"{base}gradio_api/call{endpoint}/{event}").text
    kind, _, payload = stream.partition("\ndata: ")
    assert kind.strip() == "event: error", stream
    error = json.loads(payload.strip())  # {"error": "…", …}: Gradio's error object, with our one line in it
    assert message in error["error"] and "\n" not in error["error"]
    logged = caplog.text + "".join(capfd.readouterr())
    assert "Traceback" not in logged and "AttributeError" not in logged


def test_version_menu_with_several_products():
    products = {"pandas": ["2.2.0", "3.0.0"], "PyTorch": ["2.12.0"]}
    choices = release_choices(products)
    assert choices[0] == ("All products and versions", ALL_VERSIONS)
    assert ("pandas 3.0.0", "pandas @ 3.0.0") in choices and ("pandas, all versions", "pandas @ ") in choices
    assert [release_choice(v) for _, v in choices[:3]] == [(None, None), ("pandas", None), ("pandas", "3.0.0")]
    assert release_choice("2.12.0") == (None, "2.12.0")  # one product: the menu holds bare versions
    assert indexed_note(products) == "Indexed: pandas 2.2.0–3.0.0 · PyTorch 2.12.0"
    assert indexed_note({"PyTorch": ["2.12.0"]}) == "Indexed version: 2.12.0"


# -- feedback and bad input through the running server, as a script would send them -------------------------


def page_events(http: httpx.Client, base: str) -> dict[str, int]:
    """The ids of the page's events a script can call by hand: answering, 👍/👎, the upgrade plan."""
    config = http.get(f"{base}config").json()
    kinds = {c["id"]: c["type"] for c in config["components"]}
    found = {}
    for dep in config["dependencies"]:
        inputs = [kinds[i] for i in dep["inputs"]]
        if inputs == ["chatbot", "dropdown", "state"]:
            found.setdefault("answer", dep["id"])
        elif any(kind == "like" for _, kind in dep["targets"]):
            found["like"] = dep["id"]
        elif inputs and inputs[-1] == "file":
            found["upgrade"] = dep["id"]
    return found


def run_events(http: httpx.Client, base: str, session: str, calls: list[tuple[int, list, dict | None]]) -> list[dict]:
    """Queue each (event, data, event data) for `session` as the page does, then read the session's stream
    until every one of them completed; returns their `process_completed` messages."""
    for fn, data, event_data in calls:
        joined = http.post(
            f"{base}gradio_api/queue/join",
            json={"data": data, "fn_index": fn, "session_hash": session, "event_data": event_data, "trigger_id": None},
        )
        assert joined.status_code == 200, joined.text
    completed = []
    with http.stream("GET", f"{base}gradio_api/queue/data", params={"session_hash": session}) as stream:
        for line in stream.iter_lines():
            message = json.loads(line.removeprefix("data: ")) if line.startswith("data: ") else {}
            if message.get("msg") == "process_completed":
                completed.append(message)
            if message.get("msg") == "close_stream" or len(completed) == len(calls):
                break
    assert len(completed) == len(calls), completed
    return completed


@pytest.mark.slow  # 300 requests through the real web server
def test_three_hundred_likes_from_one_session_leave_one_line(plain_server, plain_settings: Settings, caplog, capfd):
    """The report: 300 scripted 👍 on one answer. One session's votes are one line (its last vote); another
    session's vote on the same answer is a line of its own."""
    question = "Why does torchrun no longer use port 29500?"
    base = plain_server.local_url
    with httpx.Client(timeout=120) as http:
        events = page_events(http, base)
        for session in ("voter-a", "voter-b"):
            [answered] = run_events(http, base, session, [(events["answer"], [[user_turn(question)], "", None], None)])
            assert answered["success"], answered
        like = (events["like"], [None], {"index": 1, "value": "", "liked": True})
        assert all(done["success"] for done in run_events(http, base, "voter-a", [like] * 300))
        run_events(http, base, "voter-a", [(events["like"], [None], {"index": 1, "value": "", "liked": False})])
        run_events(http, base, "voter-b", [like])
    log = FeedbackLog.from_settings(plain_settings)
    written = [line for path in log.files() for line in path.read_text(encoding="utf-8").splitlines()]
    assert sum(question in line for line in written) == 2
    assert sorted(e["vote"] for e in log.entries() if e["question"] == question) == ["down", "up"]
    assert "Traceback" not in caplog.text + "".join(capfd.readouterr())


def user_turn(text: str) -> dict:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def refused_files() -> list[str]:
    from gradio.utils import get_upload_folder

    uploads = get_upload_folder()
    return ["/etc/passwd", "../../../../etc/passwd", f"{uploads}/../../etc/passwd", "http://127.0.0.1:9/x.py", "\x00"]


@pytest.mark.parametrize("path", refused_files())
def test_a_file_that_was_not_uploaded_is_refused_in_one_log_line(plain_server, path: str, caplog, capfd):
    """A server path or a URL where Gradio expects an upload, in the API and in the Upgrade tab's files, and
    the same path asked for directly: refused, with at most one log line each and no traceback."""
    base = plain_server.local_url
    file = {"path": path, "meta": {"_type": "gradio.FileData"}}
    with httpx.Client(timeout=30) as http:
        upgrade = page_events(http, base)["upgrade"]
        asked = http.post(f"{base}gradio_api/call/ask", json={"data": [file, "", [], ""]})
        planned = http.post(
            f"{base}gradio_api/queue/join",
            json={"data": ["PyTorch", "2.11", "2.12", "", [file]], "fn_index": upgrade, "session_hash": "files"},
        )
        fetched = http.get(f"{base}gradio_api/file={path.lstrip('/')}") if "\x00" not in path else None
    assert (asked.status_code, planned.status_code) == (403, 403), (asked.text, planned.text)
    assert "not allowed" in asked.json()["detail"] and "\n" not in asked.json()["detail"]
    assert fetched is None or fetched.status_code in (403, 404)
    refusals = [r for r in caplog.records if "file not allowed" in r.getMessage()]
    assert len(refusals) == 2 and all("\n" not in r.getMessage() and r.exc_info is None for r in refusals)
    assert "Traceback" not in caplog.text + "".join(capfd.readouterr())


def nested(levels: int) -> list:
    value: list = []
    for _ in range(levels - 1):
        value = [value]
    return value


MALFORMED = [  # (method, path, JSON body, status): what Gradio itself answers with a traceback in its log
    ("POST", "gradio_api/queue/join", {"data": [], "fn_index": 999, "session_hash": "m"}, 404),
    ("POST", "gradio_api/queue/join", "[" * 50_000 + "]" * 50_000, 400),
    ("POST", "gradio_api/call/ask", {"data": [nested(100), "", [], ""]}, 400),  # parses, too deep to read
    ("POST", "gradio_api/run/nosuch", {"data": []}, 500),
    ("POST", "gradio_api/call/nosuch", {"data": []}, 500),
    ("POST", "gradio_api/component_server", {"session_hash": "m", "component_id": 999, "fn_name": "x", "data": 1}, 500),
    ("GET", "gradio_api/queue/data?session_hash=nosuch", None, 200),
    ("GET", "gradio_api/call/ask/nosuch", None, 200),
]


@pytest.mark.parametrize(("method", "path", "body", "status"), MALFORMED)
def test_malformed_requests_are_one_log_line(plain_server, method: str, path: str, body, status: int, caplog, capfd):
    content = body if isinstance(body, str) else None if body is None else json.dumps(body)
    with httpx.Client(timeout=30) as http:
        headers = {"Content-Type": "application/json"} if content else {}
        reply = http.request(method, f"{plain_server.local_url}{path}", content=content, headers=headers)
    assert reply.status_code == status, reply.text
    ours = [r for r in caplog.records if r.name == "interfaces.http_guard"]
    assert len(ours) == 1 and ours[0].exc_info is None and "\n" not in ours[0].getMessage()
    assert "Traceback" not in caplog.text + "".join(capfd.readouterr())


@pytest.mark.parametrize(
    ("data", "failure"),
    [
        ([[user_turn("hi")], "9.99", None], "not in the list of choices"),  # a version the menu does not offer
        ([[user_turn("hi")]], "didn't receive enough input values"),
        (["not a chat", "", None], "validation error"),
    ],
)
def test_events_gradio_refuses_are_one_log_line(plain_server, data: list, failure: str, caplog, capfd):
    with httpx.Client(timeout=30) as http:
        answer = page_events(http, plain_server.local_url)["answer"]
        [done] = run_events(http, plain_server.local_url, f"bad-{len(data)}-{failure[:5]}", [(answer, data, None)])
    assert done["success"] is False
    [line] = [r for r in caplog.records if "a web event failed" in r.getMessage()]
    assert failure in line.getMessage() and line.exc_info is None
    assert "Traceback" not in caplog.text + "".join(capfd.readouterr())
