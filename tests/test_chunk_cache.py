"""A generation's chunks are saved by the writer and read at start without Chroma; a bad file costs a re-read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant.index.chunk_cache import cached_chunks
from assistant.index.generation_cache import cache_folder
from assistant.index.store import ChunkStore
from assistant.knowledge_base import KnowledgeBase
from assistant.runtime.settings import Settings
from ingest import sync
from tests.test_onnx_embedder import run_probe

QUESTION = "why does torchrun no longer use port 29500?"


def test_the_writer_saves_the_chunks_and_a_start_reads_them_without_chroma(
    fake_settings: Settings, fake_kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    # On the fake embedder: the chunk cache does not depend on the vectors.
    manifest = fake_kb.retriever.manifest
    assert (cache_folder(fake_settings, "chunks", manifest.collection) / "chunks.json").is_file()
    assert cached_chunks(fake_settings, manifest) == fake_kb.retriever.chunks  # every field, entries and changes

    def no_read(*_: object, **__: object) -> None:
        raise AssertionError("the chunks were read from Chroma at start")

    monkeypatch.setattr(ChunkStore, "load_chunks", no_read)
    again = KnowledgeBase.open(fake_settings)
    assert again.retriever.chunks == fake_kb.retriever.chunks
    assert again.ask(QUESTION).text == fake_kb.ask(QUESTION).text


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: "not json",
        lambda data: json.dumps({**data, "generation": "chunks-another"}),  # another generation's file
        lambda data: json.dumps({**data, "chunks": data["chunks"][1:]}),  # fewer chunks than the manifest says
        lambda data: json.dumps({**data, "chunks": [[1, 2, 3], *data["chunks"][1:]]}),  # a row of the wrong shape
        lambda data: json.dumps({**data, "format": 99}),
    ],
    ids=["garbage", "foreign", "short", "bad-row", "format"],
)
def test_a_damaged_or_foreign_chunk_file_is_read_from_chroma_again(
    corpus_copy: Path, tmp_path: Path, fake_embedder, damage
) -> None:
    settings = Settings(corpus_dir=corpus_copy, data_dir=tmp_path / "data")
    sync(settings, progress=False, embedder=fake_embedder)
    manifest = ChunkStore.open(settings).manifest()
    assert manifest is not None
    path = cache_folder(settings, "chunks", manifest.collection) / "chunks.json"
    good = cached_chunks(settings, manifest)
    assert good
    path.write_text(damage(json.loads(path.read_text(encoding="utf-8"))), encoding="utf-8")
    assert cached_chunks(settings, manifest) is None
    kb = KnowledgeBase.open(settings, embedder=fake_embedder)
    assert kb.retriever.chunks == good  # read from Chroma
    assert cached_chunks(settings, manifest) == good  # and saved again


def test_asking_a_folder_index_never_imports_chromadb(settings: Settings, kb: KnowledgeBase, server_mode) -> None:
    if server_mode is not None:
        pytest.skip("an index on a Chroma server is read through its client")
    result, lines = run_probe(settings, ["ask", "--json", QUESTION])
    answer = json.loads(lines[0])
    assert "OS-assigned free port" in answer["answer"] and answer["citations"]  # answered and cited
    assert (result["code"], result["chromadb"]) == (0, False)
