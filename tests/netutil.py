"""Network helpers for tests: everything listens on, or points at, 127.0.0.1 only."""

from __future__ import annotations

from bench.chroma_process import free_port

__all__ = ["free_port"]  # a loopback port nothing listens on (also what tests use for "the endpoint is down")
