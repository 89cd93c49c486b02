"""Ingest is an idempotent sync: nothing re-embedded when nothing changed, only edits re-embedded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from assistant.embed.embedder import Embedder
from assistant.index.store import ChunkStore
from assistant.knowledge_base import KnowledgeBase
from assistant.runtime.settings import Settings
from ingest import is_current, sync
from tests import hostile_corpus

ROOT = Path(__file__).resolve().parents[1]


class CountingEmbedder:
    """The real model, counting what it is asked to embed."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.texts = 0

    def encode(self, texts: list[str], *, batch_size: int = 32) -> np.ndarray:
        self.texts += len(texts)
        return self.inner.encode(texts, batch_size=batch_size)


def test_resync_embeds_only_what_changed(corpus_copy: Path, tmp_path: Path, embedder) -> None:
    settings = Settings(corpus_dir=corpus_copy, data_dir=tmp_path / "data")
    counter = CountingEmbedder(embedder)
    first = sync(settings, progress=False, embedder=counter)
    assert first.added == first.chunks > 10 and first.errors == []
    assert is_current(settings)
    live = KnowledgeBase.open(settings, embedder=embedder)  # stays open while later syncs run

    counter.texts = 0
    again = sync(settings, progress=False, embedder=counter)
    assert (again.added, again.updated, again.removed, counter.texts) == (0, 0, 0, 0)

    guide = corpus_copy / "pytorch/2.12.0/migration-guide.txt"
    guide.write_text(guide.read_text().replace("CUDA 12.6 or newer", "CUDA 12.8 or newer"))
    assert not is_current(settings)
    edited = sync(settings, progress=False, embedder=counter)
    # The phrase sits in two chunks (issue #2 and the migration steps): exactly those are re-embedded.
    assert edited.updated == counter.texts == edited.removed == 2 and edited.chunks == first.chunks

    (corpus_copy / "pytorch/2.12.0/release-news.fr.txt").unlink()
    removed = sync(settings, progress=False, embedder=counter)
    assert removed.removed > 0 and counter.texts == 2
    sources = {c.source for c in ChunkStore.open(settings).load_chunks()}
    assert sources == {"pytorch/2.12.0/migration-guide.txt"}

    assert "12.8" in live.ask("minimum CUDA version to build from source?").text  # picked up without reopening
    assert {p.chunk.source for p in live.search("Adagrad fused", k=20)} == {"pytorch/2.12.0/migration-guide.txt"}


@pytest.mark.folder_only  # on a server the manifest is read over Chroma's client
def test_unchanged_sync_does_not_load_the_model_or_chroma(fake_settings: Settings, fake_kb: KnowledgeBase) -> None:
    # The fake embedder's index, and its model name, so that the sync finds it current (a sync that had anything
    # to embed would build the real model, which the fast tier's guard fails).
    corpus, data, model = str(fake_settings.corpus_dir), str(fake_settings.data_dir), fake_settings.embedding_model
    code = (
        "import sys; from pathlib import Path; from assistant.runtime.settings import Settings; "
        "from ingest import sync; "
        f"r = sync(Settings(corpus_dir=Path({corpus!r}), data_dir=Path({data!r}), embedding_model={model!r}));"
        "print(r.added, r.updated, r.removed, 'torch' in sys.modules, 'chromadb' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "0", "0", "False", "False"]


def test_bad_files_are_named_skipped_and_old_chunks_kept(corpus_copy: Path, tmp_path: Path, embedder) -> None:
    settings = Settings(corpus_dir=corpus_copy, data_dir=tmp_path / "data")
    sync(settings, progress=False, embedder=embedder)
    (corpus_copy / "pytorch/2.12.0/bad-encoding.md").write_bytes(b"caf\xe9 \xff\xfe")
    (corpus_copy / "pytorch/2.12.0/image.txt").write_bytes(b"\x89PNG\x00\x00\x00")
    (corpus_copy / "pytorch/2.12.0/fronted.md").write_text("---\ntitle: [oops\n---\nText\n")
    guide = corpus_copy / "pytorch/2.12.0/migration-guide.txt"
    guide.write_bytes(guide.read_bytes() + b"\xff")  # a good file turned bad keeps its indexed chunks
    report = sync(settings, progress=False, embedder=embedder)
    assert {e["file"] for e in report.errors} == {
        "pytorch/2.12.0/bad-encoding.md",
        "pytorch/2.12.0/image.txt",
        "pytorch/2.12.0/fronted.md",
        "pytorch/2.12.0/migration-guide.txt",
    }
    sources = {c.source for c in ChunkStore.open(settings).load_chunks()}
    assert "pytorch/2.12.0/migration-guide.txt" in sources
    again = sync(settings, progress=False, embedder=embedder)  # errors are reported again, nothing re-done
    assert len(again.errors) == 4 and again.added == again.updated == 0


def test_interrupted_generation_leaves_previous_index_live(settings: Settings, kb: KnowledgeBase, tmp_path) -> None:
    store = ChunkStore.open(settings)
    live = store.manifest()
    assert live is not None
    # A writer killed after creating its collection but before the manifest swap leaves only an orphan.
    store.client.create_collection("chunks-99999999999999-1-1")
    reopened = KnowledgeBase.open(settings, embedder=kb.retriever.embedder)
    assert reopened.ask("What is the minimum CUDA version to build PyTorch 2.12 from source?").found
    store.drop_stale(keep=live.collection)
    generations = [c.name for c in store.client.list_collections() if c.name.startswith("chunks-")]
    assert generations == [live.collection]


def test_hostile_metadata_is_reported_and_every_document_indexed(tmp_path: Path, embedder) -> None:
    corpus = tmp_path / "corpus"
    hostile_corpus.write(corpus, "http://127.0.0.1:9/b")
    settings = Settings(corpus_dir=corpus, data_dir=tmp_path / "data")
    report = sync(settings, progress=False, embedder=embedder)
    fields = {(w["file"], w["field"]) for w in report.warnings}
    assert fields == {
        ("hostile/1.0/release-notes.md", "url"),
        ("hostile/1.0/release-notes.md", "kind"),
        ("hostile/1.0/release-notes.md", "version"),
        ("hostile/1.0/release-notes.md", "title"),
        ("hostile/2.0/release-notes.md", "url"),
    }
    assert report.errors == [] and report.to_dict()["warnings"] == report.warnings
    chunks = ChunkStore.open(settings).load_chunks()
    assert {c.source for c in chunks} == {f"hostile/{v}/release-notes.md" for v in ("1.0", "2.0", "3.0")}
    assert all(c.url in ("", "https://docs.example.com/hostile/3.0") and "<" not in c.version + c.kind for c in chunks)
    assert not any("PWNED" in c.text or "<img" in c.title + c.section for c in chunks)

    again = sync(settings, progress=False, embedder=embedder)  # nothing read again, warnings still reported
    assert again.warnings == report.warnings and again.added == again.updated == 0

    # Fixing only the front matter keeps every chunk id, yet the index must show the new url.
    notes = corpus / "hostile/2.0/release-notes.md"
    notes.write_text(notes.read_text().replace("javascript:alert(document.cookie)", "https://docs.example.com/2.0"))
    fixed = sync(settings, progress=False, embedder=embedder)
    assert fixed.added == fixed.updated == 0 and len(fixed.warnings) == 4
    urls = {c.url for c in ChunkStore.open(settings).load_chunks() if c.source == "hostile/2.0/release-notes.md"}
    assert urls == {"https://docs.example.com/2.0"}


@pytest.mark.slow  # `app.py ingest` embeds the hostile corpus: it loads the model
@pytest.mark.usefixtures("model_dir")
def test_ingest_cli_reports_warnings_and_exits_0(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    hostile_corpus.write(corpus, "http://127.0.0.1:9/b")
    env = {**os.environ, "RELDOCS_CORPUS_DIR": str(corpus), "RELDOCS_DATA_DIR": str(tmp_path / "data")}
    first = subprocess.run(
        [sys.executable, "app.py", "ingest", "--json"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert first.returncode == 0, first.stderr
    report = json.loads(first.stdout)
    assert report["errors"] == [] and report["files"] == 3
    assert {
        "file": "hostile/2.0/release-notes.md",
        "field": "url",
        "problem": "a javascript: link, not http(s); dropped",
    } in report["warnings"]
    again = subprocess.run([sys.executable, "app.py", "ingest"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert again.returncode == 0  # unchanged: no model load, the warnings come from the manifest
    lines = [line for line in again.stderr.splitlines() if line.startswith("warning: ")]
    assert len(lines) == 5 and "warning: hostile/2.0/release-notes.md: url: a javascript: link" in again.stderr


class FailingEmbedder(CountingEmbedder):
    """The real model for its first batch; the second fails, as a model running out of memory would."""

    def encode(self, texts: list[str], *, batch_size: int = 32) -> np.ndarray:
        if self.texts:
            raise RuntimeError("encoder failed")
        return super().encode(texts, batch_size=batch_size)


def test_an_encoder_failing_mid_rebuild_leaves_the_previous_generation_live(
    corpus_copy: Path, tmp_path: Path, embedder
) -> None:
    # The index is never half-written: an encoder failing half-way through a rebuild leaves the old generation
    # live and answering, and the next sync one generation. Batches of 8: the shipped corpus is a few dozen.
    settings = Settings(corpus_dir=corpus_copy, data_dir=tmp_path / "data", embedding_batch_size=8)
    sync(settings, progress=False, embedder=embedder)
    store = ChunkStore.open(settings)
    live = store.manifest()
    assert live is not None
    failing = FailingEmbedder(embedder)
    with pytest.raises(RuntimeError, match="encoder failed"):
        sync(settings, rebuild=True, progress=False, embedder=failing)
    assert failing.texts == 8  # it stopped at the failing batch
    after = ChunkStore.open(settings).manifest()
    assert after is not None and after.collection == live.collection
    assert KnowledgeBase.open(settings, embedder=embedder).ask("minimum CUDA version to build from source?").found
    sync(settings, rebuild=True, progress=False, embedder=embedder)
    store = ChunkStore.open(settings)
    generations = [c.name for c in store.client.list_collections() if c.name.startswith("chunks-")]
    assert generations == [store.manifest().collection] and generations != [live.collection]
