"""A real Chroma server for tests: `chroma run` (installed with chromadb) on a free loopback port."""

from __future__ import annotations

import os
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

from netutil import free_port

from assistant.settings import Settings


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


def index_env(settings: Settings) -> dict[str, str]:
    """The environment that points a subprocess at the same index as `settings` (empty in folder mode)."""
    if not settings.chroma_url:
        return {}
    return {
        "RELDOCS_CHROMA_URL": settings.chroma_url,
        "RELDOCS_CHROMA_DATABASE": settings.chroma_database,
        "RELDOCS_CHROMA_TENANT": settings.chroma_tenant,
    }
