"""A local OpenAI-compatible chat server for tests: streaming (SSE) and plain replies, written from the request.

It stands where a hosted model, vLLM or llama.cpp would, so the real langchain-openai client is exercised
end to end. Requests are recorded for tests to inspect the prompt.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

INVENTED = 9  # the stub also cites a passage it was never given: one more than the 8 the knowledge base sends
_PASSAGE = re.compile(r'<passage n="(\d+)"[^>]*>\n(.*?)\n</passage>', re.DOTALL)
_WORD = re.compile(r"[\w.+]+")


def prompt_text(request: dict[str, Any]) -> str:
    """All message contents of a chat request, joined."""
    return "\n".join(str(m.get("content", "")) for m in request.get("messages", []))


def grounded_reply(request: dict[str, Any]) -> str:
    """What a well-behaved model might say: the passage sentence sharing most words with the question, cited,
    plus a marker for a passage it was not given. Condense requests get the follow-up with the last question."""
    text = prompt_text(request)
    follow_up = re.search(r"Follow-up question: (.*)", text)
    if follow_up:
        earlier = re.findall(r"^- (.*)$", text, re.MULTILINE)
        return f"{follow_up.group(1).strip()} ({earlier[-1] if earlier else ''})"
    question = re.search(r"^Question: (.*)$", text, re.MULTILINE)
    asked = {w.lower() for w in _WORD.findall(question.group(1) if question else "") if len(w) > 3}
    best, best_n, best_score = "", 0, 0
    for n, body in _PASSAGE.findall(text):
        for sentence in re.split(r"(?<=[.!?])\s+", body):
            score = len(asked & {w.lower() for w in _WORD.findall(sentence)})
            if score > best_score:
                best, best_n, best_score = sentence.strip(), int(n), score
    if not best:
        return "NOT_IN_DOCS"
    return f"{best.rstrip('.')} [{best_n}][{INVENTED}]."


class OpenAIStub:
    """`with OpenAIStub() as stub:` serves POST {stub.base_url}/chat/completions on 127.0.0.1.

    `reply(request) -> str` writes the answer; `delay_s` holds the response back (a slow model);
    `status` other than 200 answers every request with that error (429: rate-limited).
    """

    def __init__(
        self,
        reply: Callable[[dict[str, Any]], str] = grounded_reply,
        *,
        delay_s: float = 0.0,
        status: int = 200,
        chunk_delay_s: float = 0.0,
    ) -> None:
        self.reply = reply
        self.delay_s = delay_s
        self.status = status
        self.chunk_delay_s = chunk_delay_s
        self.requests: list[dict[str, Any]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="openai-stub", daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> OpenAIStub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler(stub: OpenAIStub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

        def do_POST(self) -> None:
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up (timeout tests)
                self._respond()

        def _respond(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            stub.requests.append(body)
            if not self.path.endswith("/chat/completions"):
                return self._json(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request"}})
            if stub.delay_s:
                time.sleep(stub.delay_s)
            if stub.status != 200:
                error = {"message": "stub error", "type": "rate_limit_exceeded" if stub.status == 429 else "error"}
                return self._json(stub.status, {"error": error}, {"retry-after-ms": "10"})
            text = stub.reply(body)
            model = body.get("model", "stub")
            if body.get("stream"):
                return self._sse(
                    text, model, include_usage=bool((body.get("stream_options") or {}).get("include_usage"))
                )
            message = {"role": "assistant", "content": text}
            return self._json(
                200,
                {
                    "id": "chatcmpl-stub",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                },
            )

        def _json(self, status: int, data: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            payload = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(payload)

        def _sse(self, text: str, model: str, *, include_usage: bool) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()  # HTTP/1.0: the stream ends when the connection closes

            def event(delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> None:
                chunk = {
                    "id": "chatcmpl-stub",
                    "object": "chat.completion.chunk",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}] if delta is not None else [],
                    **extra,
                }
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()

            event({"role": "assistant", "content": ""})
            for piece in re.findall(r"\S+\s*|\s+", text):  # word by word, as tokens arrive
                event({"content": piece})
                if stub.chunk_delay_s:
                    time.sleep(stub.chunk_delay_s)
            event({}, "stop")
            if include_usage:
                event(None, usage={"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2})
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()

    return Handler
