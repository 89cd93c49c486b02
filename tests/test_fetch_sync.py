"""The sync indexes fetched docs with the corpus, each product from its folder, and without them changes nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import fake_embedder as fake
import pytest

from assistant.index.store import ChunkStore
from assistant.runtime.settings import Settings
from ingest import is_current, sync
from ingest.dependencies.store import StoredFile, write_product
from tests.test_fetch_docs import CHANGES


def tiny_corpus(tmp_path: Path) -> Path:
    """A corpus of one file: a sync of it is a sync, quickly."""
    notes = tmp_path / "corpus" / "widget" / "3.1" / "release-notes.md"
    notes.parent.mkdir(parents=True)
    notes.write_text("# Widget 3.1\n\n## Removed\n\n- `widget.spin()` is gone; use `widget.turn()`.\n")
    return tmp_path / "corpus"


@pytest.mark.slow  # two whole syncs: over a second, in CI's slow tier
def test_sync_picks_up_fetched_docs_and_drops_them_again(tmp_path: Path) -> None:
    settings = fake.settings_for(Settings(corpus_dir=tiny_corpus(tmp_path), data_dir=tmp_path / "data"))
    store = ChunkStore.open(settings)
    first = sync(settings, progress=False)
    before = store.manifest()
    ids = {c.id for c in store.load_chunks()}
    assert first.errors == [] and is_current(settings)

    doc = StoredFile("CHANGES.md", "CHANGES.md", "", CHANGES)
    write_product(settings.fetched_path, "acme", [doc], {"project": "acme", "version": "2.0"})
    assert not is_current(settings)
    fetched = sync(settings, progress=False)
    acme = [d for d in fetched.documents if d["product"] == "acme"]
    assert [(d["file"], d["releases"]) for d in acme] == [("acme/CHANGES.md", ["1.0", "1.1", "2.0"])]
    assert fetched.updated == fetched.removed == 0 and fetched.added > 0  # the corpus's chunks are kept as they were
    assert ids < {c.id for c in store.load_chunks()} and is_current(settings)
    assert "acme/provenance.json" not in store.manifest().files

    shutil.rmtree(settings.fetched_path / "acme")
    gone = sync(settings, progress=False)
    after = store.manifest()
    assert gone.removed == fetched.chunks - first.chunks
    assert (after.files, after.documents, after.warnings) == (before.files, before.documents, before.warnings)
    assert {c.id for c in store.load_chunks()} == ids


def test_a_corpus_file_wins_over_a_fetched_file_of_the_same_path(tmp_path: Path) -> None:
    corpus_copy = tiny_corpus(tmp_path)
    settings = fake.settings_for(Settings(corpus_dir=corpus_copy, data_dir=tmp_path / "data"))
    (corpus_copy / "acme").mkdir()
    (corpus_copy / "acme" / "CHANGES.md").write_text("# Changes\n\n## 3.0\n\n- Ours.\n\n## 2.9\n\n- Older.\n")
    write_product(settings.fetched_path, "acme", [StoredFile("CHANGES.md", "CHANGES.md", "", CHANGES)], {})
    report = sync(settings, progress=False)
    assert [d["releases"] for d in report.documents if d["product"] == "acme"] == [["2.9", "3.0"]]
    assert [(w["file"], w["field"]) for w in report.warnings] == [("acme/CHANGES.md", "fetched")]
    assert is_current(settings)
    (settings.fetched_path / "acme" / "CHANGES.md").unlink()  # the shadowed file gone: a change to report
    assert not is_current(settings)
