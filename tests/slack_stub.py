"""A stand-in for the Slack Web API on 127.0.0.1: answers the methods the bot uses and records every call.

It keeps the messages of each channel, so chat.update edits what chat.postMessage posted and
conversations.replies returns a thread as Slack would: the bot's messages and those a test adds with
`add_message`. Response URLs (slash commands, buttons) are served under /response/. Files go through
Slack's three upload steps (files.getUploadURLExternal, a POST of the bytes to /upload/, then
files.completeUploadExternal) and are kept in `files`.
`SocketModeStub` stands for the WebSocket that Socket Mode apps receive their events on.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import re
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

BOT_USER_ID = "UBOT"
BOT_ID = "BBOT"
TEAM_ID = "T0001"


@dataclass
class Call:
    method: str  # Web API method, or "response_url"
    args: dict[str, Any]
    token: str | None
    path: str = ""
    at: float = field(default_factory=time.monotonic)  # when the stub received it


@dataclass
class Message:
    channel: str
    ts: str
    text: str
    user: str | None = None
    bot_id: str | None = None
    thread_ts: str | None = None
    blocks: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": "message", "ts": self.ts, "text": self.text}
        if self.user:
            data["user"] = self.user
        if self.bot_id:
            data["bot_id"] = self.bot_id
        if self.thread_ts:
            data["thread_ts"] = self.thread_ts
        if self.blocks:
            data["blocks"] = self.blocks
        return data


class SlackStub:
    """`with SlackStub(bot_token=...) as slack:` serves {slack.api_url}<method> and {slack.response_url(id)}.

    `errors[method] = "some_error"` makes that method answer `{"ok": false, "error": ...}`.
    """

    def __init__(self, *, bot_token: str, app_token: str | None = None) -> None:
        self.bot_token = bot_token
        self.app_token = app_token
        self.errors: dict[str, str] = {}
        self.socket_url: str | None = None  # what apps.connections.open hands out
        self.calls: list[Call] = []
        self.messages: dict[tuple[str, str], Message] = {}
        self.files: dict[str, dict[str, Any]] = {}  # file id -> filename, length, data, title, channel
        self._counter = itertools.count(1)
        self._lock = threading.Condition(threading.RLock())
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="slack-stub", daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def api_url(self) -> str:
        return f"{self.base_url}/api/"

    def response_url(self, name: str) -> str:
        return f"{self.base_url}/response/{name}"

    def __enter__(self) -> SlackStub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # --- what tests use

    def new_ts(self) -> str:
        return f"{1_700_000_000 + next(self._counter)}.000100"

    def add_message(self, channel: str, text: str, *, user: str = "U1", thread_ts: str | None = None) -> str:
        """A person's message, as Slack would store it before sending its event; returns its ts."""
        ts = self.new_ts()
        with self._lock:
            self.messages[(channel, ts)] = Message(channel, ts, text, user=user, thread_ts=thread_ts)
        return ts

    def calls_to(self, method: str) -> list[Call]:
        with self._lock:
            return [c for c in self.calls if c.method == method]

    def wait_for(self, method: str, count: int = 1, *, timeout: float = 30.0) -> list[Call]:
        """The calls to `method` once there are `count` of them; AssertionError after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                found = [c for c in self.calls if c.method == method]
                if len(found) >= count:
                    return found
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{method} called {len(found)} times, expected {count}: {self.calls}")
                self._lock.wait(left)

    def thread(self, channel: str, thread_ts: str) -> list[Message]:
        with self._lock:
            found = [
                m
                for m in self.messages.values()
                if m.channel == channel and (m.ts == thread_ts or m.thread_ts == thread_ts)
            ]
        return sorted(found, key=lambda m: float(m.ts))

    def reset(self) -> None:
        with self._lock:
            self.calls.clear()
            self.messages.clear()
            self.errors.clear()
            self.files.clear()

    # --- the Web API

    def handle(self, method: str, args: dict[str, Any], token: str | None) -> dict[str, Any]:
        if method in self.errors:
            return {"ok": False, "error": self.errors[method]}
        expected = self.app_token if method == "apps.connections.open" else self.bot_token
        if token != expected:
            return {"ok": False, "error": "invalid_auth"}
        with self._lock:
            if method == "auth.test":
                return {
                    "ok": True,
                    "url": "https://example.slack.com/",
                    "team": "Example",
                    "user": "reldocs",
                    "team_id": TEAM_ID,
                    "user_id": BOT_USER_ID,
                    "bot_id": BOT_ID,
                }
            if method == "chat.postMessage":
                ts = self.new_ts()
                m = Message(
                    args["channel"],
                    ts,
                    args.get("text", ""),
                    user=BOT_USER_ID,
                    bot_id=BOT_ID,
                    thread_ts=args.get("thread_ts"),
                    blocks=_blocks(args),
                )
                self.messages[(m.channel, ts)] = m
                return {"ok": True, "channel": m.channel, "ts": ts, "message": m.to_dict()}
            if method == "chat.update":
                m = self.messages.get((args.get("channel", ""), args.get("ts", "")))
                if m is None:
                    return {"ok": False, "error": "message_not_found"}
                m.text, m.blocks = args.get("text", ""), _blocks(args)
                return {"ok": True, "channel": m.channel, "ts": m.ts, "text": m.text}
            if method == "chat.postEphemeral":
                return {"ok": True, "message_ts": self.new_ts()}
            if method == "conversations.replies":
                messages = self.thread(args.get("channel", ""), args.get("ts", ""))
                if not messages:
                    return {"ok": False, "error": "thread_not_found"}
                return {"ok": True, "messages": [m.to_dict() for m in messages], "has_more": False}
            if method == "conversations.open":
                return {"ok": True, "channel": {"id": "D" + args.get("users", "").split(",")[0]}}
            if method == "files.getUploadURLExternal":
                file_id = f"F{next(self._counter):04d}"
                self.files[file_id] = {"filename": args.get("filename"), "length": int(args.get("length", -1))}
                return {"ok": True, "upload_url": f"{self.base_url}/upload/{file_id}", "file_id": file_id}
            if method == "files.completeUploadExternal":
                done = []
                for f in json.loads(args.get("files") or "[]"):
                    stored = self.files.get(f.get("id", ""))
                    if stored is None or "data" not in stored:
                        return {"ok": False, "error": "file_not_found"}
                    stored.update(title=f.get("title"), channel=args.get("channel_id"))
                    permalink = f"https://example.slack.com/files/{BOT_USER_ID}/{f['id']}/{stored['filename']}"
                    done.append(
                        {"id": f["id"], "name": stored["filename"], "title": f.get("title"), "permalink": permalink}
                    )
                return {"ok": True, "files": done}
            if method == "apps.connections.open":
                if self.socket_url is None:
                    return {"ok": False, "error": "invalid_auth"}
                return {"ok": True, "url": self.socket_url}
            return {"ok": False, "error": "unknown_method"}

    def record(self, call: Call) -> None:
        with self._lock:
            self.calls.append(call)
            self._lock.notify_all()


def _blocks(args: dict[str, Any]) -> list[dict[str, Any]]:
    blocks = args.get("blocks") or []
    return json.loads(blocks) if isinstance(blocks, str) else list(blocks)


def _handler(stub: SlackStub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            self._serve()

        def do_POST(self) -> None:
            self._serve()

        def _serve(self) -> None:
            url = urlsplit(self.path)
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if url.path.startswith("/upload/"):  # step 2 of an upload: the file's bytes, as they are
                with stub._lock:
                    stored = stub.files.get(url.path.removeprefix("/upload/"))
                    if stored is not None:
                        stored["data"] = raw
                stub.record(Call("upload", {"path": url.path, "length": len(raw)}, None, url.path))
                self._reply(200 if stored is not None else 404, b"OK", "text/plain")
                return
            body = raw.decode()
            args: dict[str, Any] = dict(parse_qsl(url.query))
            if body:
                if "json" in (self.headers.get("Content-Type") or ""):
                    args.update(json.loads(body))
                else:
                    args.update(parse_qsl(body))
            auth = self.headers.get("Authorization") or ""
            token = auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else args.pop("token", None)
            if url.path.startswith("/response/"):
                stub.record(Call("response_url", args, token, url.path))
                self._reply(200, b"ok", "text/plain")
            elif url.path.startswith("/api/"):
                method = url.path.removeprefix("/api/")
                stub.record(Call(method, args, token, url.path))
                self._reply(200, json.dumps(stub.handle(method, args, token)).encode(), "application/json")
            else:
                self._reply(404, b"not found", "text/plain")

        def _reply(self, status: int, data: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


class SocketModeStub:
    """Slack's Socket Mode WebSocket on 127.0.0.1: `deliver(envelope)` pushes an envelope to the connected
    bot; the bot's acks (`{"envelope_id": ...}`) are collected in `acks`. Pings are answered."""

    _GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # fixed by RFC 6455

    def __init__(self) -> None:
        self.acks: list[dict[str, Any]] = []
        self._sessions: list[socket.socket] = []
        self._cond = threading.Condition()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._thread = threading.Thread(target=self._accept, name="socket-mode-stub", daemon=True)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self._listener.getsockname()[1]}/link/?ticket=stub"

    def __enter__(self) -> SocketModeStub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._listener.close()
        with self._cond:
            for conn in self._sessions:
                conn.close()

    def deliver(self, envelope: dict[str, Any], *, timeout: float = 10.0) -> None:
        with self._cond:
            if not self._cond.wait_for(lambda: self._sessions, timeout):
                raise AssertionError("no Socket Mode session is open")
            _send_frame(self._sessions[-1], 0x1, json.dumps(envelope).encode())

    def wait_for_ack(self, envelope_id: str, *, timeout: float = 10.0) -> dict[str, Any]:
        def acked() -> list[dict[str, Any]]:
            return [a for a in self.acks if a.get("envelope_id") == envelope_id]

        with self._cond:
            if not self._cond.wait_for(acked, timeout):
                raise AssertionError(f"envelope {envelope_id} was not acknowledged: {self.acks}")
            return acked()[0]

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._session, args=(conn,), daemon=True).start()

    def _session(self, conn: socket.socket) -> None:
        reader = _Reader(conn)
        try:
            head = reader.until(b"\r\n\r\n")
            key = re.search(rb"Sec-WebSocket-Key:\s*(\S+)", head, re.IGNORECASE)
            assert key is not None, head
            accept = base64.b64encode(hashlib.sha1(key.group(1) + self._GUID).digest())
            conn.sendall(
                b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n"
            )
            with self._cond:
                self._sessions.append(conn)
                self._cond.notify_all()
            while True:
                opcode, payload = _read_frame(reader)
                if opcode == 0x9:  # ping
                    with self._cond:
                        _send_frame(conn, 0xA, payload)
                elif opcode == 0x1:
                    with self._cond:
                        self.acks.append(json.loads(payload))
                        self._cond.notify_all()
                elif opcode == 0x8:
                    return
        except (OSError, EOFError):
            return
        finally:
            with self._cond:
                if conn in self._sessions:
                    self._sessions.remove(conn)
            conn.close()


class _Reader:
    def __init__(self, conn: socket.socket) -> None:
        self.conn = conn
        self.buffer = b""

    def _fill(self) -> None:
        chunk = self.conn.recv(65536)
        if not chunk:
            raise EOFError
        self.buffer += chunk

    def exactly(self, n: int) -> bytes:
        while len(self.buffer) < n:
            self._fill()
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def until(self, marker: bytes) -> bytes:
        while marker not in self.buffer:
            self._fill()
        data, _, self.buffer = self.buffer.partition(marker)
        return data


def _read_frame(reader: _Reader) -> tuple[int, bytes]:
    """One client frame (clients always mask), unmasked."""
    first, second = reader.exactly(2)
    length = second & 0x7F
    if length == 126:
        length = struct.unpack("!H", reader.exactly(2))[0]
    elif length == 127:
        length = struct.unpack("!Q", reader.exactly(8))[0]
    mask = reader.exactly(4) if second & 0x80 else b"\0\0\0\0"
    payload = bytes(b ^ mask[i % 4] for i, b in enumerate(reader.exactly(length)))
    return first & 0x0F, payload


def _send_frame(conn: socket.socket, opcode: int, payload: bytes) -> None:
    """One unmasked, final server frame."""
    n = len(payload)
    if n < 126:
        header = struct.pack("!BB", 0x80 | opcode, n)
    elif n < 65536:
        header = struct.pack("!BBH", 0x80 | opcode, 126, n)
    else:
        header = struct.pack("!BBQ", 0x80 | opcode, 127, n)
    conn.sendall(header + payload)
