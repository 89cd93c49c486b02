"""A real Chroma server in a child process: `chroma run` (installed with chromadb) on a free loopback port.

Used by the tests' server mode and by the load test; stopped and started again on the same port and path to
stage an outage.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

from assistant.runtime.settings import Settings


def free_port() -> int:
    """A loopback port nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ChromaServer:
    """`chroma run --path PATH --host 127.0.0.1 --port PORT`; stop and start again on the same port and path."""

    def __init__(self, path: Path, port: int | None = None) -> None:
        self.path = path
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60.0) -> ChromaServer:
        log = open(self.path.parent / f"chroma-{self.port}.log", "ab")  # noqa: SIM115 - the server's lifetime
        self._proc = subprocess.Popen(
            ["chroma", "run", "--path", str(self.path), "--host", "127.0.0.1", "--port", str(self.port)],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while not self.answers():
            if self._proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"chroma run did not come up on port {self.port}")
            time.sleep(0.1)
        return self

    def answers(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/api/v2/heartbeat", timeout=1) as r:
                return r.status == 200
        except OSError:
            return False

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            os.killpg(self._proc.pid, signal.SIGTERM)
            try:
                self._proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self._proc.pid, signal.SIGKILL)
                self._proc.wait()
        self._proc = None

    def settings(self, database: str, **fields: object) -> Settings:
        """Settings whose index is database `database` on this server."""
        return Settings(chroma_url=self.url, chroma_database=database, **fields)  # type: ignore[arg-type]
