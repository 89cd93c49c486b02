"""The MCP server through the real `mcp` client: `python app.py mcp` over stdio, and /mcp beside the web UI."""

from __future__ import annotations

import base64
import json
import logging
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from chroma_server import index_env
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.fastmcp.exceptions import ToolError
from mcp.types import CallToolResult
from netutil import free_port

from assistant.knowledge_base import KnowledgeBase
from assistant.runtime.settings import Settings
from interfaces.http_guard import MAX_JSON_BYTES
from interfaces.mcp_server import FAILED, ask_result, error_message, plan_result
from interfaces.terminal import answer_json
from interfaces.web import build_ui, launch

ROOT = Path(__file__).resolve().parents[1]
TOOLS = {"ask", "search", "versions", "upgrade_plan"}
TORCHRUN_Q = "why does torchrun no longer use port 29500?"
CITATION_FIELDS = {"n", "title", "version", "kind", "section", "source", "url", "quote", "product"}
Session = Callable[[ClientSession], Awaitable[None]]


@pytest.fixture(scope="module")
def data_dir(kb, settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder holding a copy of the session's index, so `app.py` subprocesses start without ingesting
    (on a Chroma server, `_env` points them at the session's database instead)."""
    data = tmp_path_factory.mktemp("mcp-data")
    if not settings.chroma_url:
        shutil.copytree(settings.index_path, data / "index")
    return data


def _env(corpus: Path, data: Path, index: Settings | None = None) -> dict[str, str]:
    """The subprocess's environment: no LLM, auth or index override, except the index of `index` if given."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELDOCS_")}
    env["RELDOCS_MODEL_DIR"] = os.environ["RELDOCS_MODEL_DIR"]  # the session's ONNX export, not a second one
    env |= {"RELDOCS_CORPUS_DIR": str(corpus), "RELDOCS_DATA_DIR": str(data)}
    return env | (index_env(index) if index else {})


def over_stdio(settings: Settings, data: Path, errlog: Path, body: Session) -> None:
    """Run `body` in a session with `python app.py mcp`, the server's stderr going to `errlog`."""
    params = StdioServerParameters(
        command=sys.executable, args=["app.py", "mcp"], env=_env(settings.corpus_dir, data, settings), cwd=ROOT
    )

    async def main() -> None:
        with errlog.open("w") as err:
            async with stdio_client(params, errlog=err) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                await body(session)

    anyio.run(main)


def over_http(url: str, body: Session, auth: tuple[str, str] | None = None) -> None:
    async def main() -> None:
        async with (
            httpx.AsyncClient(auth=auth, timeout=120) as client,
            streamable_http_client(url, http_client=client) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await body(session)

    anyio.run(main)


def data(result: CallToolResult) -> Any:
    """The tool's JSON text, checked to be the same object as its structured content."""
    assert not result.isError, result.content
    assert len(result.content) == 1 and result.content[0].type == "text"
    parsed = json.loads(result.content[0].text)
    assert isinstance(result.structuredContent, dict)
    assert result.structuredContent == (parsed if isinstance(parsed, dict) else {"passages": parsed})
    return parsed


def error(result: CallToolResult) -> str:
    assert result.isError, result.content
    (content,) = result.content
    assert content.type == "text" and "\n" not in content.text and "Traceback" not in content.text
    return content.text


def check_torchrun_answer(answer: dict) -> None:
    assert answer["found"] and answer["mode"] == "extractive"
    assert "[1]" in answer["answer"] and "free port" in answer["answer"]
    assert answer["citations"], answer
    for c in answer["citations"]:
        assert set(c) == CITATION_FIELDS
        assert c["title"] and c["version"] == "2.12.0" and c["url"].startswith("https://") and c["quote"]
    assert any("29500" in c["quote"] for c in answer["citations"])


async def list_and_call_every_tool(session: ClientSession) -> None:
    """The four tools with their schemas, each called once with good arguments, checked."""
    tools = {t.name: t for t in (await session.list_tools()).tools}
    assert set(tools) == TOOLS
    assert all(t.annotations and t.annotations.readOnlyHint for t in tools.values())
    assert all(t.description and "\n    " not in t.description for t in tools.values())
    ask, search = tools["ask"].inputSchema, tools["search"].inputSchema
    assert ask["required"] == ["question"] and set(ask["properties"]) == {"question", "version", "product", "history"}
    assert {"type": "array", "items": {"type": "string"}} in ask["properties"]["history"]["anyOf"]
    assert search["required"] == ["query"] and set(search["properties"]) == {"query", "k", "version", "product"}
    assert search["properties"]["k"].items() >= {"type": "integer", "minimum": 1, "maximum": 50, "default": 5}.items()
    assert set(tools["versions"].inputSchema["properties"]) == {"product"}
    assert "required" not in tools["versions"].inputSchema
    assert tools["upgrade_plan"].inputSchema["required"] == ["from_version", "to_version"]

    check_torchrun_answer(data(await session.call_tool("ask", {"question": TORCHRUN_Q})))
    follow = data(
        await session.call_tool(
            "ask",
            {
                "question": "And which optimizer gained fused=True?",
                "version": "2.12",
                "product": "torch",
                "history": [],
            },
        )
    )
    assert follow["found"] and "Adagrad" in follow["answer"]

    passages = data(await session.call_tool("search", {"query": "max_autotune_defer_layout_freezing", "k": 2}))
    assert len(passages) == 2 and "max_autotune_defer_layout_freezing" in passages[0]["text"]
    assert {"score", "similarity", "bm25", "source", "version"} <= set(passages[0])

    listed = data(await session.call_tool("versions", {}))
    assert listed["products"] == {"PyTorch": ["2.12.0"]}
    assert {f["file"]: f["releases"] for f in listed["files"]["PyTorch"]} == {
        "pytorch/2.12.0/migration-guide.txt": ["2.12.0"],
        "pytorch/2.12.0/release-news.fr.txt": ["2.12.0"],
    }
    assert data(await session.call_tool("versions", {"product": "torch"}))["products"] == {"PyTorch": ["2.12.0"]}

    plan = data(await session.call_tool("upgrade_plan", {"from_version": "2.11", "to_version": "2.12"}))
    assert plan["product"] == "PyTorch" and plan["versions"] == ["2.12.0"] and plan["changes"]
    assert {"id", "version", "kind", "summary", "citation", "also"} <= set(plan["changes"][0])
    assert plan["changes"][0]["citation"]["url"].startswith("https://") and plan["findings"] == []


BAD_CALLS = [  # (tool, arguments, what the one-line error says)
    ("ask", {"question": ""}, "The question is empty."),
    ("ask", {"question": "   "}, "The question is empty."),
    ("ask", {"question": "Which optimizer gained fused=True?", "product": "numpy"}, "no product 'numpy' is indexed"),
    ("ask", {"question": 42}, "question: Input should be a valid string"),
    ("ask", {"question": "torchrun port?", "history": "not a list"}, "history: Input should be a valid list"),
    ("ask", {"question": "torchrun port?", "version": "<img src=x>"}, "version must look like a release number"),
    ("search", {"query": "torchrun", "k": 500}, "k must be a whole number from 1 to 50, not 500"),
    ("search", {"query": "torchrun", "k": 0}, "k must be a whole number from 1 to 50, not 0"),
    ("search", {"query": "torchrun", "k": "many"}, "k: Input should be a valid integer"),
    ("search", {}, "query: Field required"),
    ("versions", {"product": "django"}, "no product 'django' is indexed; indexed: PyTorch"),
    ("upgrade_plan", {"from_version": "2.12", "to_version": "2.10"}, "2.12 is not before --to 2.10"),
    ("upgrade_plan", {"from_version": "2.12", "to_version": "2.12"}, "is not before"),
    ("upgrade_plan", {"from_version": "", "to_version": "2.12"}, "from_version is empty"),
    ("upgrade_plan", {"from_version": "2.10", "to_version": "2.12", "product": "pandas"}, "no product 'pandas'"),
    ("no_such_tool", {}, "Unknown tool: no_such_tool"),
]


async def bad_calls_then_an_answer(session: ClientSession) -> None:
    """Every invalid call is an error result saying what to send, and the session answers afterwards."""
    for tool, arguments, message in BAD_CALLS:
        assert message in error(await session.call_tool(tool, arguments)), (tool, arguments)
    check_torchrun_answer(data(await session.call_tool("ask", {"question": TORCHRUN_Q})))


# -- the tools' bodies, called directly -------------------------------------------------------------


def test_ask_text_is_the_ask_json_line(fake_kb: KnowledgeBase) -> None:
    result = ask_result(fake_kb, TORCHRUN_Q)
    answer = json.loads(result.content[0].text)
    expected = json.loads(answer_json(fake_kb.ask(TORCHRUN_Q)))
    assert {k: v for k, v in answer.items() if k != "timings_ms"} == {
        k: v for k, v in expected.items() if k != "timings_ms"
    }
    assert result.structuredContent == answer


def test_plan_is_upgrade_json(fake_kb: KnowledgeBase) -> None:
    from interfaces.upgrade_render import plan_json

    result = plan_result(fake_kb, "2.11", "2.12")
    got = json.loads(result.content[0].text)
    # a server reads the releases' code from the cache only: none here, and the plan says so
    assert got["code_releases"] == [] and any("no code diff" in n for n in got["notes"])
    assert {**got, "notes": []} == json.loads(plan_json(fake_kb.plan("2.11", "2.12")))


def test_an_unexpected_failure_is_one_apologetic_line_with_the_details_logged(caplog) -> None:
    try:
        try:
            raise RuntimeError("boom in /srv/reldocs/index\nsecond line")
        except RuntimeError as e:
            raise ToolError("Error executing tool ask: boom") from e
    except ToolError as e:
        message = error_message(e)
    assert message == FAILED and "boom" not in message
    assert "boom in /srv/reldocs/index" in caplog.text  # the operator's log has the cause


# -- stdio: `python app.py mcp` -------------------------------------------------------------------


def test_stdio_lists_and_calls_every_tool(settings: Settings, data_dir: Path, tmp_path: Path) -> None:
    started = time.monotonic()
    over_stdio(settings, data_dir, tmp_path / "stderr.log", list_and_call_every_tool)
    log = (tmp_path / "stderr.log").read_text()
    assert "Traceback" not in log and "Indexing" not in log  # the copied index was current
    print(f"stdio session, start to close: {time.monotonic() - started:.1f}s")


def test_stdio_bad_arguments_are_errors_and_the_server_keeps_serving(
    settings: Settings, data_dir: Path, tmp_path: Path
) -> None:
    over_stdio(settings, data_dir, tmp_path / "stderr.log", bad_calls_then_an_answer)
    assert "Traceback" not in (tmp_path / "stderr.log").read_text()


@pytest.mark.slow  # `app.py mcp` on a fresh data folder indexes the corpus: it loads the model
@pytest.mark.usefixtures("model_dir")
def test_stdio_stdout_carries_only_the_protocol(settings: Settings, tmp_path: Path) -> None:
    """On a fresh data folder the server indexes first: the progress goes to stderr, stdout stays JSON-RPC,
    and the server exits 0 when the client closes stdin."""
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ask", "arguments": {"question": ""}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "versions", "arguments": {}}},
    ]
    proc = subprocess.Popen(
        [sys.executable, "app.py", "mcp"],
        cwd=ROOT,
        env=_env(settings.corpus_dir, tmp_path / "data"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(messages[0]) + "\n")
        proc.stdin.flush()
        replies = [json.loads(proc.stdout.readline())]  # wait for the reply: calls sent earlier could race it
        for m in messages[1:]:
            proc.stdin.write(json.dumps(m) + "\n")
        proc.stdin.flush()
        replies += [json.loads(proc.stdout.readline()), json.loads(proc.stdout.readline())]
        out, err = proc.communicate(timeout=60)  # closes stdin: the client went away
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert out == ""  # nothing after the replies
    assert all(r["jsonrpc"] == "2.0" for r in replies)
    assert replies[0]["result"]["serverInfo"]["name"] == "reldocs"
    by_id = {r["id"]: r["result"] for r in replies}
    assert by_id[2]["isError"] and by_id[2]["content"][0]["text"] == "The question is empty."
    assert json.loads(by_id[3]["content"][0]["text"])["products"] == {"PyTorch": ["2.12.0"]}
    assert "Indexing" in err and "Embedding" in err and "Traceback" not in err


# -- streamable HTTP beside the web UI ------------------------------------------------------------


@pytest.fixture(scope="module")
def web_settings(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return settings.model_copy(update={"data_dir": tmp_path_factory.mktemp("mcp-web")})


@pytest.fixture(scope="module")
def server(kb, web_settings: Settings):
    demo = launch(build_ui(kb, web_settings), web_settings, port=free_port(), block=False, kb=kb)
    yield demo
    demo.close()


@pytest.fixture(scope="module")
def plain_server(fake_kb: KnowledgeBase, fake_settings: Settings, tmp_path_factory: pytest.TempPathFactory):
    """/mcp beside the page over the fake embedder's index: for the tests of the HTTP layer, whose assertions
    read no answer's words (those stay on `server`, the real model's)."""
    settings = fake_settings.model_copy(update={"data_dir": tmp_path_factory.mktemp("mcp-plain")})
    demo = launch(build_ui(fake_kb, settings), settings, port=free_port(), block=False, kb=fake_kb)
    yield demo
    demo.close()


def mcp_url(demo) -> str:
    return demo.local_url.rstrip("/") + "/mcp"


def test_http_lists_and_calls_every_tool(server) -> None:
    over_http(mcp_url(server), list_and_call_every_tool)


def test_http_bad_arguments_are_errors_and_the_server_keeps_serving(server) -> None:
    over_http(mcp_url(server), bad_calls_then_an_answer)
    page = httpx.get(server.local_url, timeout=30)  # the chat is still served beside it
    assert page.status_code == 200 and "gradio" in page.text.lower()


def test_http_answers_calls_at_once(server) -> None:
    """Eight agents' calls in flight together each get their own answer (the tools run off the event loop)."""
    questions = [TORCHRUN_Q, "Which optimizer gained fused=True?"] * 4
    answers: dict[int, dict] = {}

    async def body(session: ClientSession) -> None:
        async def one(i: int) -> None:
            answers[i] = data(await session.call_tool("ask", {"question": questions[i]}))

        async with anyio.create_task_group() as group:
            for i in range(len(questions)):
                group.start_soon(one, i)

    over_http(mcp_url(server), body)
    assert [answers[i]["question"] for i in range(len(questions))] == questions
    assert all(a["found"] for a in answers.values())
    assert all("Adagrad" in answers[i]["answer"] for i in range(1, len(questions), 2))


def test_http_is_plain_json_rpc(plain_server) -> None:
    """Stateless, JSON replies: one POST with no session is answered, as a load balancer's replicas need."""
    reply = httpx.post(
        mcp_url(plain_server),
        json={"jsonrpc": "2.0", "id": 7, "method": "tools/list"},
        headers={"Accept": "application/json, text/event-stream"},
        timeout=30,
    )
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("application/json")
    assert {t["name"] for t in reply.json()["result"]["tools"]} == TOOLS


def _deep_call(levels: int) -> bytes:
    """A well-formed `ask` call whose `history` nests `levels` lists deep."""
    history = "[" * levels + "]" * levels
    return (
        b'{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "ask", "arguments": '
        + f'{{"question": "q", "history": {history}}}}}}}'.encode()
    )


BAD_BODIES = {
    "nested arrays": b"[" * 100_000 + b"]" * 100_000,
    "nested objects": b'{"a": ' * 100_000 + b"1" + b"}" * 100_000,
    "a call nested too deep to read": _deep_call(500),
    "bytes that are not UTF-8": b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "x": "\xff\xfe"}',
    "not JSON": b"{jsonrpc: 2.0",
}


@pytest.mark.parametrize("body", BAD_BODIES.values(), ids=BAD_BODIES.keys())
def test_http_bad_json_is_a_parse_error_in_one_log_line(plain_server, body: bytes, caplog, capfd) -> None:
    """The SDK logs a traceback and answers 500 for the first four (RecursionError, UnicodeDecodeError)."""
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    reply = httpx.post(mcp_url(plain_server), content=body, headers=headers, timeout=30)
    assert reply.status_code == 400, reply.text
    assert reply.json()["error"]["code"] == -32700 and "\n" not in reply.json()["error"]["message"]
    [line] = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert "refused POST /mcp" in line.getMessage() and line.exc_info is None
    assert "Traceback" not in caplog.text + "".join(capfd.readouterr())
    after = httpx.post(mcp_url(plain_server), json={"jsonrpc": "2.0", "id": 7, "method": "tools/list"}, headers=headers)
    assert {t["name"] for t in after.json()["result"]["tools"]} == TOOLS  # and the server keeps serving


def test_http_body_larger_than_any_call_is_refused(plain_server, caplog) -> None:
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "pad": "' + b"x" * MAX_JSON_BYTES + b'"}'
    reply = httpx.post(mcp_url(plain_server), content=body, headers=headers, timeout=60)
    assert reply.status_code == 413 and reply.json()["error"]["code"] == -32700
    assert "Traceback" not in caplog.text


def test_http_refuses_a_foreign_host_header(plain_server) -> None:
    """A loopback server keeps the SDK's DNS-rebinding protection: a page on evil.example can't reach it."""
    reply = httpx.post(
        mcp_url(plain_server),
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"Accept": "application/json, text/event-stream", "Host": "evil.example"},
        timeout=30,
    )
    assert reply.status_code in (403, 421) and "tools" not in reply.text


def _basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


@pytest.mark.parametrize(
    "authorization",
    [None, _basic("ann", "wrong"), _basic("bob", "secret"), _basic("ann", ""), "Basic !!!", "Bearer secret", "ann"],
)
def test_http_with_web_auth_needs_the_same_credentials(plain_locked, authorization: str | None) -> None:
    headers = {"Accept": "application/json, text/event-stream"}
    if authorization:
        headers["Authorization"] = authorization
    reply = httpx.post(mcp_url(plain_locked), json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=headers)
    assert reply.status_code == 401 and reply.headers["www-authenticate"].startswith("Basic")
    assert "tools" not in reply.text


@pytest.fixture(scope="module")
def locked(kb, web_settings: Settings):
    settings = web_settings.model_copy(update={"web_auth": "ann:secret"})
    demo = launch(build_ui(kb, settings), settings, port=free_port(), block=False, kb=kb)
    yield demo
    demo.close()


@pytest.fixture(scope="module")
def plain_locked(fake_kb: KnowledgeBase, fake_settings: Settings, tmp_path_factory: pytest.TempPathFactory):
    """`locked` over the fake embedder's index, for the tests that are refused before any answer."""
    settings = fake_settings.model_copy(
        update={"data_dir": tmp_path_factory.mktemp("mcp-plain-locked"), "web_auth": "ann:secret"}
    )
    demo = launch(build_ui(fake_kb, settings), settings, port=free_port(), block=False, kb=fake_kb)
    yield demo
    demo.close()


def test_http_with_web_auth_answers_with_credentials(locked) -> None:
    async def body(session: ClientSession) -> None:
        assert {t.name for t in (await session.list_tools()).tools} == TOOLS
        check_torchrun_answer(data(await session.call_tool("ask", {"question": TORCHRUN_Q})))

    over_http(mcp_url(locked), body, auth=("ann", "secret"))
    with pytest.raises(BaseException) as refused:  # anyio task groups wrap httpx.HTTPStatusError
        over_http(mcp_url(locked), body)
    assert any(
        isinstance(e, httpx.HTTPStatusError) and e.response.status_code == 401 for e in _leaves(refused.value)
    ), refused.value


def _leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for e in error.exceptions for leaf in _leaves(e)]
    return [error]


def test_app_py_web_serves_mcp(settings: Settings, data_dir: Path) -> None:
    """`python app.py web` end to end: the page and /mcp on one port, and the start line names both."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "app.py", "web", "--port", str(port)],
        cwd=ROOT,
        env=_env(settings.corpus_dir, data_dir, settings),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/", timeout=5)
                break
            except httpx.HTTPError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"app.py web did not start:\n{proc.communicate()[0] if proc.poll() else ''}")
                time.sleep(0.5)

        async def body(session: ClientSession) -> None:
            check_torchrun_answer(data(await session.call_tool("ask", {"question": TORCHRUN_Q})))

        over_http(url, body)
    finally:
        proc.terminate()
        output = proc.communicate(timeout=30)[0]
    assert f"MCP on http://127.0.0.1:{port}/mcp" in output
    assert "Traceback" not in output
