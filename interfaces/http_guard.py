"""Bad requests to the web server answered in one line, never with a traceback in the server's log.

Two libraries log a traceback for input they refuse. The MCP SDK parses a POST body with `json.loads` and
catches only `JSONDecodeError`: deeply nested JSON (`RecursionError`) or bytes that are not UTF-8 reach its
catch-all, which logs a traceback and answers 500. Gradio prints a traceback (`traceback.print_exc()`,
straight to stderr, past logging) for every event call it refuses: a file path that was not uploaded, an
event that does not exist, a value that is not one of a menu's choices, event data of the wrong shape.

So: `read_json` reads and checks a JSON body once (size, UTF-8, nesting) for the middlewares in front of
each (`mcp_server.JsonGuard` for MCP, `GradioGuard` here for Gradio's API, which also refuses file paths
outside Gradio's upload folder and unknown events before they are queued, and turns an exception that
escapes Gradio's routes into one line), and `one_line_gradio_errors` turns Gradio's traceback prints into
one log line, unless reldocs' own code raised the error, whose traceback is then logged (at ERROR) for
whoever fixes it. The tracebacks of what is cut to one line stay available at DEBUG.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from assistant.text.untrusted import one_line

if TYPE_CHECKING:
    from gradio import Blocks

logger = logging.getLogger(__name__)

MAX_JSON_BYTES = 16 * 1024 * 1024  # far above any question, history or pasted code that is read at all
MAX_DEPTH = 64  # the deepest message reldocs is sent (a chat turn's parts) nests 6 levels
GRADIO_API = "/gradio_api/"
FILE_DATA = "gradio.FileData"
LOGGED_CHARS = 300  # of a refused value, in the log line
_OWN_CODE = tuple(
    f"{Path(__file__).resolve().parents[1] / name}{os.sep}" for name in ("assistant", "interfaces", "ingest")
)


class BadBody(ValueError):
    """A request body refused, with the HTTP status and the one line that says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def is_json_post(scope: Scope) -> bool:
    """A POST whose body a JSON endpoint parses: declared as JSON, or not declared (FastAPI parses those too)."""
    if scope["type"] != "http" or scope["method"] != "POST":
        return False
    headers = dict(scope.get("headers") or [])
    kind = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
    return not kind or kind == b"application/json" or kind.endswith(b"+json")


async def read_body(receive: Receive, limit: int = MAX_JSON_BYTES) -> bytes:
    """The whole request body; BadBody (413) as soon as it is longer than `limit`, before the rest is read."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":  # the client went away: what came is all there is
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise BadBody(413, f"the request body is larger than {limit} bytes")
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def parse_json(body: bytes, max_depth: int = MAX_DEPTH) -> Any:
    """`body` as JSON; BadBody (400) when it is not UTF-8 JSON or nests deeper than `max_depth`."""
    try:
        data = json.loads(body)
    except RecursionError:  # the decoder recurses once per level: a few thousand '[' exhaust the stack
        raise BadBody(400, f"the JSON nests deeper than {max_depth} levels") from None
    except ValueError as e:  # JSONDecodeError, and UnicodeDecodeError for bytes that are not UTF-8
        raise BadBody(400, f"the body is not JSON: {one_line(str(e))[:LOGGED_CHARS]}") from None
    if depth(data) > max_depth:  # what parses can still be too deep for the recursive code that reads it next
        raise BadBody(400, f"the JSON nests deeper than {max_depth} levels")
    return data


def depth(data: Any) -> int:
    """How many lists and objects deep `data` nests (0 for a scalar), counted without recursion."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        node, level = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children)
    return deepest


def replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that gives the app `body` (already read) in one message, then the client's own messages."""
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again


async def read_json(
    scope: Scope, receive: Receive, send: Send, refuse: Callable[[BadBody], ASGIApp]
) -> tuple[bytes, Any] | None:
    """The body and its JSON; None after `refuse(error)` (an ASGI response) was sent for a bad one."""
    try:
        body = await read_body(receive)
        return body, parse_json(body)
    except BadBody as e:
        logger.warning("refused %s: %s", where(scope), e.message)
        await refuse(e)(scope, receive, send)
        return None


class GradioGuard:
    """ASGI middleware around the Gradio app (and what it serves: the page, its API, /mcp).

    Before Gradio's JSON API (`/gradio_api/…`): a body that is too big, not JSON or too deep, a file that was
    not uploaded to this server, or an event that does not exist gets a 4xx and one log line. After any
    route: an exception Gradio lets out (an unknown API name or component, a stream for a session that does
    not exist) is one log line and a 500, or the end of a response already begun, where the server would
    log a traceback.
    """

    def __init__(self, app: ASGIApp, blocks: Blocks) -> None:
        self.app = app
        self.blocks = blocks

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if is_json_post(scope) and scope["path"].startswith(GRADIO_API):
            read = await read_json(scope, receive, send, _detail)
            if read is None:
                return
            body, data = read
            try:
                self.check(data)
            except BadBody as e:
                logger.warning("refused %s: %s", where(scope), e.message)
                await _detail(e)(scope, receive, send)
                return
            receive = replay(body, receive)
        await self.shielded(scope, receive, send)

    async def shielded(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the app; what escapes it is logged in one line (its traceback only at DEBUG) and answered."""
        started = finished = False

        async def watched(message: Message) -> None:
            nonlocal started, finished
            if message["type"] == "http.response.start":
                started = True
            elif message["type"] == "http.response.body" and not message.get("more_body", False):
                finished = True
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as error:
            # Starlette wraps a refusal raised after the response began: the refusal is what to report.
            cause = error.__cause__ or error
            what = one_line(f"{type(cause).__name__}: {cause}")[:LOGGED_CHARS]
            logger.warning("%s failed: %s", where(scope), what)
            logger.debug("%s failed", where(scope), exc_info=error)
            if not started:
                failed = JSONResponse({"detail": "the server could not handle this request"}, status_code=500)
                await failed(scope, receive, send)
            elif not finished:
                await send({"type": "http.response.body", "body": b"", "more_body": False})

    def check(self, data: Any) -> None:
        """BadBody for an unknown event (Gradio answers 500 with a traceback) or a file Gradio would refuse."""
        if isinstance(data, dict):
            fn = data.get("fn_index")
            if isinstance(fn, int) and not isinstance(fn, bool) and fn not in self.blocks.fns:
                raise BadBody(404, f"there is no event {fn}")
        for path in file_paths(data):
            if not uploaded(path):
                raise BadBody(403, f"file not allowed: {one_line(path)[:LOGGED_CHARS]}")


def file_paths(data: Any) -> list[str]:
    """The `path` of every Gradio file object (`{"path": …, "meta": {"_type": "gradio.FileData"}}`) in `data`."""
    found, stack = [], [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            meta = node.get("meta")
            if isinstance(meta, dict) and meta.get("_type") == FILE_DATA:
                path = node.get("path")
                found.append(path if isinstance(path, str) else repr(path))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def uploaded(path: str) -> bool:
    """True for a file in Gradio's upload folder: the only files reldocs' page sends are ones it uploaded
    (so neither a server path nor a URL for the server to fetch)."""
    from gradio.utils import get_upload_folder, is_in_or_equal

    try:
        return "://" not in path and is_in_or_equal(path, get_upload_folder())
    except (ValueError, OSError):  # a NUL byte, a path the OS cannot resolve
        return False


def where(scope: Scope) -> str:
    """'POST /mcp': the request, for a log line (its path decoded from the URL, so made one safe line)."""
    return one_line(f"{scope['method']} {scope['path']}")[:LOGGED_CHARS]


def _detail(error: BadBody) -> JSONResponse:
    return JSONResponse({"detail": error.message}, status_code=error.status)


class _OneLineTraceback:
    """Stands in for the `traceback` module inside Gradio's queue and routes, whose `print_exc()` calls are
    where an event call's failure is reported."""

    def __getattr__(self, name: str) -> Any:
        return getattr(traceback, name)

    @staticmethod
    def print_exc(*_args: Any, **_kwargs: Any) -> None:
        error = sys.exc_info()[1]
        if error is None:
            return
        if raised_by_own_code(error.__traceback__):  # a bug to fix: its traceback is what the fixer needs
            logger.error("a web event failed", exc_info=error)
        else:  # refused by Gradio itself, before or after reldocs' code ran: bad input, one line
            logger.warning("a web event failed: %s", one_line(f"{type(error).__name__}: {error}")[:LOGGED_CHARS])
            logger.debug("a web event failed", exc_info=error)


def raised_by_own_code(tb: TracebackType | None) -> bool:
    """True when a frame of reldocs' own packages is in `tb`: the failure is a bug to fix, not bad input."""
    return any(frame.f_code.co_filename.startswith(_OWN_CODE) for frame, _ in traceback.walk_tb(tb))


def one_line_gradio_errors() -> None:
    """Have Gradio report a failed event call in one log line (see the module's docstring); idempotent."""
    import gradio.queueing
    import gradio.routes

    for module in (gradio.queueing, gradio.routes):
        if getattr(module, "traceback", None) is traceback:
            module.traceback = _OneLineTraceback()  # type: ignore[assignment]  # duck-typed: what gradio calls
