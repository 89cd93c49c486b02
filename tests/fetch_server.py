"""A local stand-in for the package registry and GitHub, for the fetch tests: a stdlib HTTP server in a thread.

Each route answers a GET with a recorded reply (or a sequence of them, the last repeated: `429` then `200`);
`log` lists every path asked for. The registry JSON and the archives are built in the tests, small and made up:
no real release notes are copied here.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import threading
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    trickle_s: float = 0.0  # the body sent a byte at a time, this long apart (a server that never quite stalls)


class FakeHosts:
    """The server: `url`, `route(path, …)`, `log`."""

    def __init__(self) -> None:
        self.routes: dict[str, list[Reply]] = {}
        self.log: list[str] = []
        hosts = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                hosts.log.append(self.path)
                replies = hosts.routes.get(self.path) or hosts.routes.get(self.path.split("?", 1)[0])
                reply = (replies.pop(0) if len(replies) > 1 else replies[0]) if replies else Reply(b"no", 404)
                if reply.delay_s:
                    time.sleep(reply.delay_s)  # the server's thread, to make the client time out
                try:
                    self.send_response(reply.status)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    if not reply.trickle_s:
                        self.wfile.write(reply.body)
                    for i in range(len(reply.body) if reply.trickle_s else 0):
                        time.sleep(reply.trickle_s)
                        self.wfile.write(reply.body[i : i + 1])
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (the timeout tests)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    def route(self, path: str, *replies: Reply | bytes | str | dict) -> None:
        self.routes[path] = [_reply(r) for r in replies]

    def asked(self, suffix: str) -> int:
        """How many requests asked for a path ending in `suffix`."""
        return sum(1 for p in self.log if p.split("?", 1)[0].endswith(suffix))

    def __enter__(self) -> FakeHosts:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def _reply(r: Reply | bytes | str | dict) -> Reply:
    if isinstance(r, Reply):
        return r
    if isinstance(r, dict | list):
        return Reply(json.dumps(r).encode(), headers={"Content-Type": "application/json"})
    return Reply(r.encode() if isinstance(r, str) else r)


def serve() -> Iterator[FakeHosts]:
    with FakeHosts() as hosts:
        yield hosts


def tar_gz(files: dict[str, bytes], *, top: str = "acme-2.0") -> bytes:
    """A gzipped tar of regular files under `top/`."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(f"{top}/{name}" if top else name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def tar_with(members: list[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    """A gzipped tar of exactly these members (links, devices and bad names included)."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz", format=tarfile.PAX_FORMAT) as archive:
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return out.getvalue()


def member(
    name: str, data: bytes = b"", kind: bytes = tarfile.REGTYPE, link: str = ""
) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    info.linkname = link
    return info, data


def zip_of(files: dict[str, bytes], *, links: dict[str, str] | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.create_system = 3
            info.external_attr = 0o120777 << 16  # a symbolic link, as Info-ZIP records one
            archive.writestr(info, target)
    return out.getvalue()


def project_json(
    name: str,
    archives: dict[str, tuple[str, bytes] | None],
    *,
    project_urls: dict[str, str] | None = None,
    digest: str | None = None,
    size: int | None = None,
) -> dict:
    """The registry's per-project JSON for `name`: each version's sdist (its URL as the registry gives it, maybe
    relative, and its bytes) or none (a release with a wheel only)."""
    releases = {}
    for version, archive in archives.items():
        files = [
            {
                "filename": f"{name}-{version}-py3-none-any.whl",
                "packagetype": "bdist_wheel",
                "url": "w.whl",
                "digests": {"sha256": "0" * 64},
                "size": 1,
                "yanked": False,
            }
        ]
        if archive is not None:
            url, data = archive
            files.append(
                {
                    "filename": url.rsplit("/", 1)[-1],
                    "packagetype": "sdist",
                    "url": url,
                    "digests": {"sha256": digest or hashlib.sha256(data).hexdigest()},
                    "size": len(data) if size is None else size,
                    "yanked": False,
                }
            )
        releases[version] = files
    latest = list(archives)[-1]
    return {"info": {"name": name, "version": latest, "project_urls": project_urls or {}}, "releases": releases}
