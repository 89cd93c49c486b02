"""`python app.py ask --json` in the test's own process with RELDOCS_LLM pointing at a chat server (no second
torch start-up), for the LLM tests."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from chroma_server import index_env

from assistant.runtime.settings import Settings


def ask_json(
    settings: Settings, base_url: str, question: str, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> tuple[dict[str, Any], float]:
    """The JSON `ask --json --no-sync QUESTION` prints over `settings`' index, and the seconds it took."""
    from app import main

    monkeypatch.setenv("RELDOCS_LLM", "openai:stub-model")
    monkeypatch.setenv("OPENAI_BASE_URL", base_url)
    monkeypatch.setenv("RELDOCS_CORPUS_DIR", str(settings.corpus_dir))
    monkeypatch.setenv("RELDOCS_DATA_DIR", str(settings.data_dir))
    for name, value in index_env(settings).items():
        monkeypatch.setenv(name, value)
    capsys.readouterr()
    started = time.monotonic()
    code = main(["ask", "--json", "--no-sync", question])
    elapsed = time.monotonic() - started
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out), elapsed
