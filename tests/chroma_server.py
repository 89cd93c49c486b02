"""The tests' Chroma server (`bench.chroma_process`), and the environment that points a subprocess at an index."""

from __future__ import annotations

from assistant.runtime.settings import Settings
from bench.chroma_process import ChromaServer

__all__ = ["ChromaServer", "index_env"]


def index_env(settings: Settings) -> dict[str, str]:
    """The environment that points a subprocess at the same index as `settings` (empty in folder mode)."""
    if not settings.chroma_url:
        return {}
    return {
        "RELDOCS_CHROMA_URL": settings.chroma_url,
        "RELDOCS_CHROMA_DATABASE": settings.chroma_database,
        "RELDOCS_CHROMA_TENANT": settings.chroma_tenant,
    }
