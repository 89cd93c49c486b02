"""Shared fixtures: the real embedding model and real Chroma, in temp dirs, built once per session.

`pytest --chroma-server` runs the same tests against a real `chroma run` started for the session: the session
indexes live in databases of their own on it, and every test gets `RELDOCS_CHROMA_URL` and a fresh
`RELDOCS_CHROMA_DATABASE` in its environment, so the Settings it builds with a temp data folder (and the
subprocesses it starts) use the server too. Tests marked `folder_only` (they look at the index folder) skip.
"""

from __future__ import annotations

import itertools
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import regex_recorder  # noqa: F401  # first: records every pattern the project compiles (test_regex_fuzz.py)
from chroma_server import ChromaServer

from assistant.embeddings import Embedder, make_embedder
from assistant.knowledge_base import KnowledgeBase
from assistant.settings import Settings
from ingest import sync

ROOT = Path(__file__).resolve().parents[1]
SHIPPED_CORPUS = ROOT / "corpus"
SHARED_CORPUS = ROOT.parent / "shared" / "corpus"


_DATABASES = itertools.count(1)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--chroma-server", action="store_true", help="Run the knowledge-base tests against a Chroma server."
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # The regex fuzz test times every pattern the rest of the run compiled, so it runs after all of them.
    items.sort(key=lambda item: bool(getattr(getattr(item, "function", None), "runs_last", False)))
    if config.getoption("--chroma-server"):
        skip = pytest.mark.skip(reason="folder-only: looks at the index folder, which server mode does not have")
        for item in items:
            if "folder_only" in item.keywords:
                item.add_marker(skip)


@pytest.fixture(scope="session")
def chroma(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    """A real Chroma server for the session (used by the server-mode tests, and by all with --chroma-server)."""
    server = ChromaServer(tmp_path_factory.mktemp("chroma") / "db").start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def server_mode(request: pytest.FixtureRequest) -> ChromaServer | None:
    """The session's Chroma server under --chroma-server, else None (the index is a folder)."""
    return request.getfixturevalue("chroma") if request.config.getoption("--chroma-server") else None


@pytest.fixture(autouse=True)
def _index_on_server(server_mode: ChromaServer | None, monkeypatch: pytest.MonkeyPatch) -> None:
    if server_mode is not None:
        monkeypatch.setenv("RELDOCS_CHROMA_URL", server_mode.url)
        monkeypatch.setenv("RELDOCS_CHROMA_DATABASE", f"test-{next(_DATABASES)}")


def _index(server: ChromaServer | None, name: str) -> dict[str, str]:
    return {} if server is None else {"chroma_url": server.url, "chroma_database": name}


@pytest.fixture(scope="session")
def index_fields(server_mode: ChromaServer | None) -> Callable[[str], dict[str, str]]:
    """For Settings built by module-scoped fixtures (before a test's environment is set): `name`'s database
    on the session's server under --chroma-server, nothing in folder mode."""
    return lambda name: _index(server_mode, name)


@pytest.fixture(scope="session", autouse=True)
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One ONNX export for the whole run, shared through RELDOCS_MODEL_DIR by every Settings and subprocess.

    Exported here, before any test, so no test's stderr carries the one-off export message.
    """
    path = tmp_path_factory.mktemp("models")
    old = os.environ.get("RELDOCS_MODEL_DIR")
    os.environ["RELDOCS_MODEL_DIR"] = str(path)
    make_embedder(Settings(model_dir=path, embedding_backend="onnx"))
    yield path
    if old is None:
        os.environ.pop("RELDOCS_MODEL_DIR", None)
    else:
        os.environ["RELDOCS_MODEL_DIR"] = old


@pytest.fixture(scope="session")
def embedder(model_dir: Path) -> Embedder:
    """One real model for the whole run: the default ONNX one, as the app uses it."""
    return make_embedder(Settings(model_dir=model_dir, embedding_backend="onnx"))


@pytest.fixture(scope="session")
def settings(tmp_path_factory: pytest.TempPathFactory, server_mode: ChromaServer | None) -> Settings:
    """Settings over the shipped corpus with a temp index and data folder (or a database of the server)."""
    data = tmp_path_factory.mktemp("data")
    return Settings(corpus_dir=SHIPPED_CORPUS, data_dir=data, **_index(server_mode, "session"))  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def kb(settings: Settings, embedder: Embedder) -> KnowledgeBase:
    """A knowledge base over the shipped corpus, shared by every test that only reads."""
    sync(settings, progress=False, embedder=embedder)
    return KnowledgeBase.open(settings, embedder=embedder)


@pytest.fixture(scope="session")
def shared_kb(
    tmp_path_factory: pytest.TempPathFactory, embedder: Embedder, server_mode: ChromaServer | None
) -> KnowledgeBase:
    """A knowledge base over ../shared/corpus (PyTorch 2.7–2.12); skipped where that folder is absent."""
    if not SHARED_CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present")
    data = tmp_path_factory.mktemp("shared-data")
    s = Settings(corpus_dir=SHARED_CORPUS, data_dir=data, **_index(server_mode, "shared"))  # type: ignore[arg-type]
    sync(s, progress=False, embedder=embedder)
    return KnowledgeBase.open(s, embedder=embedder)


@pytest.fixture
def corpus_copy(tmp_path: Path) -> Path:
    """A writable copy of the shipped corpus, for tests that edit or break files."""
    dest = tmp_path / "corpus"
    shutil.copytree(SHIPPED_CORPUS, dest)
    return dest
