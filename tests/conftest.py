"""Shared fixtures: the real embedding model or a fake one, and real Chroma, in temp dirs, built once per session.

Two tiers. A test whose fixtures load the real model (`model_dir`, `embedder`, `kb`, `shared_kb`, or one built on
them) is marked `slow` here; a test that loads it otherwise (its own `make_embedder`, an `app.py` subprocess that
asks or ingests, a browser, a Slack or MCP server over the real index), or takes too long for a one-minute tier, is
marked `slow` in its file. The rest is the fast tier, `pytest -m "not slow"`: it runs on the fake embedder
(`fake_embedder.py`, the backend "fake"; fixtures `fake_embedder`, `fake_settings`, `fake_kb`), and a run that
selects no slow test arms `no_model.py`, which makes loading the model fail loudly, here and in subprocesses
(`test_fast_tier.py` checks at the end).

`pytest --chroma-server` runs the same tests against a real `chroma run` started for the session: the session
indexes live in databases of their own on it, and every test gets `RELDOCS_CHROMA_URL` and a fresh
`RELDOCS_CHROMA_DATABASE` in its environment, so the Settings it builds with a temp data folder (and the
subprocesses it starts) use the server too. Tests marked `folder_only` (they look at the index folder) skip.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import regex_recorder  # noqa: F401  # first: records every pattern the project compiles (test_regex_fuzz.py)

# Kept apart from the recorder: the fake embedder imports project modules, whose patterns it must see.
# isort: split
import fake_embedder as fake
import no_model
import pytest
from chroma_server import ChromaServer

from assistant.embed.embedder import Embedder, make_embedder
from assistant.knowledge_base import KnowledgeBase
from assistant.runtime.settings import Settings
from ingest import sync

ROOT = Path(__file__).resolve().parents[1]
SHIPPED_CORPUS = ROOT / "corpus"
SHARED_CORPUS = ROOT.parent / "shared" / "corpus"
# Fixtures that load the real model: a test with any of them in its closure is slow.
MODEL_FIXTURES = frozenset({"model_dir", "embedder", "kb", "shared_kb"})

fake.register()  # `make_embedder` builds the fake for `embedding_backend="fake"`, as it builds the real ones

_DATABASES = itertools.count(1)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--chroma-server", action="store_true", help="Run the knowledge-base tests against a Chroma server."
    )


@pytest.hookimpl(tryfirst=True)  # before `-m` selects: the `slow` markers added here count
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    slow = pytest.mark.slow
    for item in items:
        # `fixturenames` is the whole closure: a module fixture built on `embedder` counts as `embedder`.
        if MODEL_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(slow)
    # `runs_last` tests look back at the whole run: the regex fuzz times every pattern it compiled, the fast tier's
    # check (test_fast_tier.py) that nothing loaded the model.
    items.sort(key=lambda item: bool(getattr(getattr(item, "function", None), "runs_last", False)))
    if config.getoption("--chroma-server"):
        skip = pytest.mark.skip(reason="folder-only: looks at the index folder, which server mode does not have")
        for item in items:
            if "folder_only" in item.keywords:
                item.add_marker(skip)


def pytest_collection_finish(session: pytest.Session) -> None:
    # A run that selected no slow test is the fast tier: from here on, loading the model fails loudly.
    if session.items and not any(item.get_closest_marker("slow") for item in session.items):
        fd, log = tempfile.mkstemp(prefix="reldocs-no-model-", suffix=".jsonl")
        os.close(fd)
        no_model.install(Path(log))
        session.config.add_cleanup(_restored(os.environ.copy(), Path(log)))
        os.environ.update(no_model.subprocess_env(Path(log)))


def _restored(environ: dict[str, str], log: Path) -> Callable[[], None]:
    def restore() -> None:
        for key in no_model.subprocess_env(log):
            if key in environ:
                os.environ[key] = environ[key]
            else:
                os.environ.pop(key, None)
        log.unlink(missing_ok=True)

    return restore


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


# Where the registry is for every test but the network-marked ones: an address nothing listens on, so that a
# command that would fetch (an `upgrade` reading its releases' code) fails at once, offline, as on a machine without
# the network. The network tests name the real registry themselves.
NO_REGISTRY = "http://127.0.0.1:9/pypi"
REAL_REGISTRY = Settings.model_fields["registry_url"].default


@pytest.fixture(scope="session", autouse=True)
def _no_registry() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RELDOCS_REGISTRY_URL", NO_REGISTRY)
        yield


@pytest.fixture(scope="session", autouse=True)
def model_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Where the session's one ONNX export goes, as RELDOCS_MODEL_DIR for every Settings and subprocess.

    Only the folder: nothing is exported or loaded unless a test asks for `model_dir` or `embedder`.
    """
    path = tmp_path_factory.mktemp("models")
    old = os.environ.get("RELDOCS_MODEL_DIR")
    os.environ["RELDOCS_MODEL_DIR"] = str(path)
    yield path
    if old is None:
        os.environ.pop("RELDOCS_MODEL_DIR", None)
    else:
        os.environ["RELDOCS_MODEL_DIR"] = old


@pytest.fixture(scope="session")
def embedder(model_home: Path) -> Embedder:
    """One real model for the whole run: the default ONNX one, as the app uses it (exported on first use)."""
    return make_embedder(Settings(model_dir=model_home, embedding_backend="onnx"))


@pytest.fixture(scope="session")
def model_dir(model_home: Path, embedder: Embedder) -> Path:
    """The session's ONNX export, made before the test that asks for it starts the subprocesses that load it,
    so no subprocess's stderr carries the one-off export message."""
    return model_home


@pytest.fixture(scope="session")
def fake_embedder() -> fake.FakeEmbedder:
    """The deterministic fake model (`fake_embedder.py`): vectors of hashed words, nothing to load."""
    return fake.FakeEmbedder()


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


@pytest.fixture(scope="session")
def fake_settings(tmp_path_factory: pytest.TempPathFactory, server_mode: ChromaServer | None) -> Settings:
    """Settings over the shipped corpus with the fake embedder as backend, and an index of their own."""
    data = tmp_path_factory.mktemp("fake-data")
    real = Settings(corpus_dir=SHIPPED_CORPUS, data_dir=data, **_index(server_mode, "fake"))  # type: ignore[arg-type]
    return fake.settings_for(real)


@pytest.fixture(scope="session")
def fake_kb(fake_settings: Settings) -> KnowledgeBase:
    """A knowledge base over the shipped corpus on the fake embedder, for fast tests that need an index.

    Built as the app builds one: `sync` and `KnowledgeBase.open` make their embedder from the settings' backend.
    """
    sync(fake_settings, progress=False)
    return KnowledgeBase.open(fake_settings)


@pytest.fixture
def corpus_copy(tmp_path: Path) -> Path:
    """A writable copy of the shipped corpus, for tests that edit or break files."""
    dest = tmp_path / "corpus"
    shutil.copytree(SHIPPED_CORPUS, dest)
    return dest
