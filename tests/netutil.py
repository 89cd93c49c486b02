"""Network helpers for tests: everything listens on, or points at, 127.0.0.1 only."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A loopback port nothing listens on right now (also what tests use for "the endpoint is down")."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
