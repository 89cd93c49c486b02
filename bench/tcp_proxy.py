"""A loopback TCP relay that can be cut and restored: one replica "loses its server" while others keep it.

Stopping the Chroma server would take it from every replica; cutting the link of one replica is the fault
the load test needs. Written by hand: a relay this small is a few dozen lines of sockets and threads, and no
installable package offers one that can be switched off mid-run.
"""

from __future__ import annotations

import contextlib
import socket
import threading


class TcpProxy:
    """Relays 127.0.0.1:`port` to `target`; `cut()` drops live connections and refuses new ones."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._open = threading.Event()
        self._open.set()
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._closed = False
        threading.Thread(target=self._accept, name="tcp-proxy", daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def cut(self) -> None:
        """The link goes down: every relayed connection is reset, new ones are closed at once."""
        self._open.clear()
        with self._lock:
            for s in self._sockets:
                _close(s)
            self._sockets.clear()

    def restore(self) -> None:
        self._open.set()

    def close(self) -> None:
        self._closed = True
        self.cut()
        _close(self._listener)

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if not self._open.is_set():
                _close(client)
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                _close(client)
                continue
            with self._lock:
                self._sockets |= {client, upstream}
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:  # reset by a cut, or by either end
            pass
        finally:
            with self._lock:
                self._sockets -= {source, sink}
            _close(source)
            _close(sink)


def _close(s: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed by the other side
        s.shutdown(socket.SHUT_RDWR)
    s.close()
