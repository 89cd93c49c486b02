"""Shared fixtures: the real embedding model and real Chroma, in temp dirs, built once per session."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant.embeddings import Embedder, make_embedder
from assistant.knowledge_base import KnowledgeBase
from assistant.settings import Settings
from ingest import sync

ROOT = Path(__file__).resolve().parents[1]
SHIPPED_CORPUS = ROOT / "corpus"
SHARED_CORPUS = ROOT.parent / "shared" / "corpus"


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
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """Settings over the shipped corpus with a temp index and data folder."""
    data = tmp_path_factory.mktemp("data")
    return Settings(corpus_dir=SHIPPED_CORPUS, data_dir=data)


@pytest.fixture(scope="session")
def kb(settings: Settings, embedder: Embedder) -> KnowledgeBase:
    """A knowledge base over the shipped corpus, shared by every test that only reads."""
    sync(settings, progress=False, embedder=embedder)
    return KnowledgeBase.open(settings, embedder=embedder)


@pytest.fixture(scope="session")
def shared_kb(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> KnowledgeBase:
    """A knowledge base over ../shared/corpus (PyTorch 2.7–2.12); skipped where that folder is absent."""
    if not SHARED_CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present")
    s = Settings(corpus_dir=SHARED_CORPUS, data_dir=tmp_path_factory.mktemp("shared-data"))
    sync(s, progress=False, embedder=embedder)
    return KnowledgeBase.open(s, embedder=embedder)


@pytest.fixture
def corpus_copy(tmp_path: Path) -> Path:
    """A writable copy of the shipped corpus, for tests that edit or break files."""
    dest = tmp_path / "corpus"
    shutil.copytree(SHIPPED_CORPUS, dest)
    return dest
