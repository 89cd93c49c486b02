"""The MCP server: the knowledge base's ask, search, versions and upgrade plan as tools for coding agents.

`build_server` makes the tools over one knowledge base; `serve_stdio` is what `python app.py mcp` runs, and
`http_endpoint` is the streamable-HTTP route `interfaces.web` serves at /mcp beside the chat. Each tool checks
its arguments with `interfaces.inputs`, calls the knowledge base and renders with the command line's JSON
renderers, so an agent reads what `ask --json`, `search --json` and `upgrade --json` print.
"""

# No `from __future__ import annotations`: FastMCP reads the tools' type hints at runtime for their schemas.

import base64
import binascii
import functools
import inspect
import json
import logging
import secrets
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Annotated, Any

try:
    from mcp.server.fastmcp import FastMCP
    from mcp.server.fastmcp.exceptions import ToolError
    from mcp.server.fastmcp.server import StreamableHTTPASGIApp
    from mcp.types import PARSE_ERROR, CallToolResult, TextContent, ToolAnnotations
except ImportError as e:  # pragma: no cover - mcp is in requirements.txt
    raise ImportError("The MCP server needs the mcp package: pip install -r requirements.txt") from e

import anyio
from pydantic import Field, ValidationError
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from assistant.knowledge_base import KnowledgeBase
from assistant.model.errors import ReldocsError
from assistant.text.untrusted import one_line
from interfaces import inputs
from interfaces.http_guard import BadBody, is_json_post, read_json, replay
from interfaces.terminal import answer_json, passages_json
from interfaces.upgrade_render import plan_dict, plan_json

logger = logging.getLogger(__name__)

NAME = "reldocs"
PATH = "/mcp"  # where the web server answers MCP
INSTRUCTIONS = (
    "Answers questions about software releases (what changed, what breaks, what replaces what) from their "
    "release notes and migration guides. Answers quote the docs with [n] markers matching `citations`; "
    "`found: false` means the docs don't cover the question. Call `versions` to see what is indexed."
)
FAILED = "Sorry, something went wrong on the server; the log has the details."
CONCURRENCY = 4  # calls answered at once per server, as the web UI's queue does; more wait their turn
READ_ONLY = ToolAnnotations(readOnlyHint=True, idempotentHint=True, openWorldHint=False)

Question = Annotated[str, Field(description="The question, in English or French.")]
Query = Annotated[str, Field(description="Free text or a code symbol, e.g. 'max_autotune_defer_layout_freezing'.")]
Version = Annotated[
    str | None, Field(description="Only use docs of this version, e.g. '2.12' or '2.12.0'; omit for all.")
]
Product = Annotated[
    str | None,
    Field(description="Only use docs of this product, by name or import name ('pandas' or 'pd'); omit for all."),
]
History = Annotated[
    list[str] | None,
    Field(description="The user's earlier questions in this conversation, oldest first, for follow-ups."),
]
# The bounds are in the schema for agents; `inputs.count` enforces them with its own one-line message.
Count = Annotated[
    int, Field(description="How many passages to return.", json_schema_extra={"minimum": 1, "maximum": inputs.MAX_K})
]
FromVersion = Annotated[str, Field(description="The version you run now, e.g. '2.10' (need not be indexed).")]
ToVersion = Annotated[str, Field(description="The version you upgrade to, e.g. '2.12'.")]


class _Server(FastMCP):
    """FastMCP whose failed tool calls carry one line an agent can act on: what to send, never a traceback."""

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        try:
            return await super().call_tool(name, arguments)
        except ToolError as e:
            raise ToolError(error_message(e)) from None


def error_message(error: ToolError) -> str:
    """The one line a failed call returns: the argument's problem, or an apology with details in the log."""
    cause = error.__cause__
    if cause is None:  # raised by the SDK itself, such as "Unknown tool: x"
        return one_line(str(error))
    if isinstance(cause, ReldocsError):  # BadInput, PlanError: the message says what to send
        return one_line(str(cause))
    if isinstance(cause, ValidationError):  # a wrong type, caught by the SDK from the tool's schema
        return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in cause.errors())
    logger.error("MCP tool call failed", exc_info=cause)
    return FAILED


def _result(text: str, data: dict[str, Any]) -> CallToolResult:
    """`text` is the command line's JSON, byte for byte; `data` the same as structured content."""
    return CallToolResult(content=[TextContent(type="text", text=text)], structuredContent=data)


def _product(kb: KnowledgeBase, value: Any) -> str | None:
    return inputs.product(value, list(kb.products()), kb.has_product)


def ask_result(
    kb: KnowledgeBase, question: Any, version: Any = None, product: Any = None, history: Any = None
) -> CallToolResult:
    """The `ask` tool: the `ask --json` object."""
    text, earlier, only = inputs.question(question), inputs.history(history), inputs.version(version)
    answer = kb.ask(text, earlier, only, product=_product(kb, product))
    return _result(answer_json(answer), answer.to_dict())


def search_result(
    kb: KnowledgeBase, query: Any, k: Any = 5, version: Any = None, product: Any = None
) -> CallToolResult:
    """The `search` tool: `search --json`'s array, under `passages` in the structured content."""
    text, count, only = inputs.question(query, "query"), inputs.count(k), inputs.version(version)
    passages = kb.search(text, k=count, version=only, product=_product(kb, product))
    return _result(passages_json(passages), {"passages": [p.to_dict() for p in passages]})


def versions_result(kb: KnowledgeBase, product: Any = None) -> CallToolResult:
    """The `versions` tool: each indexed product with its versions, oldest first, and its files (each with its
    releases and where they were read: `products --json`'s)."""
    only = _product(kb, product)
    files = {name: [f.to_dict() for f in own] for name, own in kb.files(only).items()}
    data = {"products": kb.products(product=only), "files": files}
    return _result(json.dumps(data, ensure_ascii=False), data)


def plan_result(kb: KnowledgeBase, from_version: Any, to_version: Any, product: Any = None) -> CallToolResult:
    """The `upgrade_plan` tool: `upgrade --json` without a code scan; the releases' code diff from the cache only
    (`interfaces.code_diff`), its absence said in `notes`."""
    from interfaces.code_diff import code_diff, product_to_diff

    start, end = _required_version(from_version, "from_version"), _required_version(to_version, "to_version")
    named = _product(kb, product)
    diff, notes = code_diff(kb, product_to_diff(kb, named), start, end, cached_only=True)
    plan = kb.plan(start, end, product=named or (diff.product if diff else None), code=diff, notes=notes)
    return _result(plan_json(plan), plan_dict(plan))


def _required_version(value: Any, name: str) -> str:
    checked = inputs.version(value)
    if checked is None:
        raise inputs.BadInput(f"{name} is empty; give a version such as '2.12'")
    return checked


def build_server(kb: KnowledgeBase, *, host: str = "127.0.0.1") -> FastMCP:
    """The four tools over `kb`. `host` is where the HTTP endpoint listens: a loopback one keeps the SDK's
    DNS-rebinding protection (only loopback Host headers), any other accepts the names clients use for it."""
    server = _Server(
        NAME,
        instructions=INSTRUCTIONS,
        host=host,
        stateless_http=True,  # no session state: any replica can answer any request
        json_response=True,  # one JSON reply per call, nothing streamed: tools answer in one piece
        streamable_http_path=PATH,
        log_level="WARNING",
    )

    limiter = anyio.CapacityLimiter(CONCURRENCY)

    async def call(fn: Callable[..., CallToolResult], *args: Any) -> CallToolResult:
        # The knowledge base is CPU-bound and thread-safe: off the event loop, so the web UI keeps serving,
        # and a few at a time, so a burst of agent calls can't starve the chat's own queue of the CPU.
        return await anyio.to_thread.run_sync(functools.partial(fn, kb, *args), limiter=limiter)

    async def ask(
        question: Question, version: Version = None, product: Product = None, history: History = None
    ) -> CallToolResult:
        """Answer a question from the release docs, citing them.

        Returns the JSON of `reldocs ask --json`: `answer` with [n] markers, `found` (false when the docs
        don't cover it), and `citations` [{n, title, version, kind, section, source, url, quote}].
        """
        return await call(ask_result, question, version, product, history)

    async def search(query: Query, k: Count = 5, version: Version = None, product: Product = None) -> CallToolResult:
        """The k passages of the release docs hybrid search (embeddings and BM25) finds, best first, with scores."""
        return await call(search_result, query, k, version, product)

    async def versions(product: Product = None) -> CallToolResult:
        """The indexed products, each with its versions oldest first, and their files: {"products": {name:
        [versions]}, "files": {name: [{"file", "releases", "release_from"}]}} (a product may have no versions)."""
        return await call(versions_result, product)

    async def upgrade_plan(from_version: FromVersion, to_version: ToVersion, product: Product = None) -> CallToolResult:
        """Every change the docs announce after from_version up to to_version, by release, worst first, cited.

        Returns the JSON of `reldocs upgrade --json`: `changes` [{id, version, kind, summary, symbols,
        replacement, citation, also}]. `product` is needed when several products are indexed.
        """
        return await call(plan_result, from_version, to_version, product)

    for tool in (ask, search, versions, upgrade_plan):
        # The docstring is the description agents read: without its source indentation.
        description = inspect.cleandoc(tool.__doc__ or "")
        server.add_tool(tool, description=description, annotations=READ_ONLY, structured_output=False)
    return server


def serve_stdio(kb: KnowledgeBase) -> None:
    """Answer MCP over stdin/stdout until the client closes them (what `python app.py mcp` runs)."""
    build_server(kb).run(transport="stdio")


@dataclass(frozen=True)
class Endpoint:
    """The MCP route for a web server, and the lifespan that must run around it (the session manager's)."""

    routes: Sequence[BaseRoute]
    lifespan: Callable[[Any], AbstractAsyncContextManager[None]]


def http_endpoint(kb: KnowledgeBase, *, host: str, auth: tuple[str, str] | None = None) -> Endpoint:
    """Streamable HTTP at `PATH`; with `auth` (the web UI's user and password) it asks for HTTP basic auth,
    so the endpoint is no way around the web UI's password. Bodies are checked (`JsonGuard`) after the password."""
    server = build_server(kb, host=host)
    server.streamable_http_app()  # creates the session manager that the route and the lifespan share
    manager = server.session_manager
    app: ASGIApp = JsonGuard(StreamableHTTPASGIApp(manager))
    if auth is not None:
        app = BasicAuth(app, *auth)
    return Endpoint(routes=(Route(PATH, endpoint=app),), lifespan=lambda _app: manager.run())


class JsonGuard:
    """ASGI middleware in front of the SDK's endpoint: a POST body that is too big, not UTF-8, not JSON or nested
    deeper than any MCP message gets a JSON-RPC parse error and one log line. The SDK itself catches only
    `JSONDecodeError`: for deep nesting (`RecursionError`) or bad UTF-8 it logs a traceback and answers 500."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not is_json_post(scope):
            await self.app(scope, receive, send)
            return
        read = await read_json(scope, receive, send, _parse_error)
        if read is not None:
            await self.app(scope, replay(read[0], receive), send)  # parsed twice: C-speed, within MAX_JSON_BYTES


def _parse_error(error: BadBody) -> JSONResponse:
    body = {"jsonrpc": "2.0", "id": None, "error": {"code": PARSE_ERROR, "message": error.message}}
    return JSONResponse(body, status_code=error.status)


class BasicAuth:
    """ASGI middleware letting through only requests that carry `user` and `password` as HTTP basic auth."""

    def __init__(self, app: ASGIApp, user: str, password: str) -> None:
        self.app = app
        self._user = user.encode()
        self._password = password.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._allowed(dict(scope.get("headers") or [])):
            refused = PlainTextResponse(
                "reldocs: send the user and password of RELDOCS_WEB_AUTH (HTTP basic auth)",
                status_code=401,
                headers={"WWW-Authenticate": 'Basic realm="reldocs", charset="UTF-8"'},
            )
            await refused(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _allowed(self, headers: dict[bytes, bytes]) -> bool:
        scheme, _, token = headers.get(b"authorization", b"").partition(b" ")
        if scheme.lower() != b"basic":
            return False
        try:
            user, sep, password = base64.b64decode(token.strip(), validate=True).partition(b":")
        except (binascii.Error, ValueError):
            return False
        # Both compared in full, in constant time: neither the name nor the password leaks through timing.
        same_user = secrets.compare_digest(user, self._user)
        return bool(sep) and secrets.compare_digest(password, self._password) and same_user
