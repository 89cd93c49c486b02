"""Which precision built the index: recorded as the model, so a switch re-embeds it and never mixes vectors.

Fakes named as the real int8 and fp32 models stand in for them (the real ones: test_quantize.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from fake_embedder import FakeEmbedder

from assistant.embed.embedder import mixes_precisions, model_identity
from assistant.embed.loading import check_precision
from assistant.index.store import ChunkStore, Manifest
from assistant.model.errors import IndexNotReady, ReldocsError
from assistant.runtime.settings import Settings, load_settings
from ingest import is_current, sync

FP32, INT8 = "all-MiniLM-L6-v2", "all-MiniLM-L6-v2+int8"


def test_the_recorded_model_names_the_precision(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert model_identity(Settings(data_dir=tmp_path)) == FP32  # the default: indexes built before int8 stay current
    base = Settings(data_dir=tmp_path, embedding_precision="int8")
    assert model_identity(base) == INT8
    assert model_identity(base.model_copy(update={"embedding_backend": "onnx"})) == INT8
    assert model_identity(base.model_copy(update={"embedding_backend": "torch"})) == FP32  # torch has no int8
    assert model_identity(base.model_copy(update={"embedding_model": "paraphrase-MiniLM-L3-v2"})) == (
        "paraphrase-MiniLM-L3-v2"  # only the default model has an ONNX export to quantize
    )
    monkeypatch.setenv("RELDOCS_EMBEDDING_PRECISION", "int8")
    assert model_identity(load_settings(data_dir=tmp_path)) == INT8
    monkeypatch.setenv("RELDOCS_EMBEDDING_PRECISION", "int4")
    with pytest.raises(ReldocsError, match=r"^RELDOCS_EMBEDDING_PRECISION: Input should be 'fp32' or 'int8'"):
        load_settings(data_dir=tmp_path)
    assert mixes_precisions(INT8, FP32) and mixes_precisions(FP32, INT8)
    assert not mixes_precisions(INT8, INT8) and not mixes_precisions(INT8, "fake-hashed-words")


def test_a_question_is_never_embedded_at_another_precision_than_its_index() -> None:
    # What `KnowledgeBase.open` and each reload check (opened for real in test_quantize.py): one line, what to do.
    index = Manifest(collection="chunks-1", model=INT8, chunker=1)
    with pytest.raises(
        IndexNotReady, match=r"^the index was embedded by all-MiniLM-L6-v2\+int8 and questions would be "
    ):
        check_precision(index, FakeEmbedder(FP32))
    check_precision(index, FakeEmbedder(INT8))
    check_precision(index, FakeEmbedder())  # another model's name says nothing of precision
    # int8 asked for and recorded, but its model fell back to fp32 here: re-ingesting as asked would change nothing
    with pytest.raises(IndexNotReady, match=r"int8 model cannot be made or loaded here .*PRECISION=fp32.*--rebuild"):
        check_precision(index, FakeEmbedder(FP32), "int8")


def test_switching_precision_re_embeds_and_a_query_never_mixes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    int8 = Settings(corpus_dir=_corpus(tmp_path), data_dir=tmp_path / "data", embedding_precision="int8")
    fp32 = int8.model_copy(update={"embedding_precision": "fp32"})
    first = sync(int8, progress=False, embedder=FakeEmbedder(INT8))
    assert _recorded(int8) == INT8 and first.chunks >= 2
    assert is_current(int8) and not is_current(fp32)

    # A sync at fp32 builds its model though nothing was edited, and embeds every chunk again.
    made = FakeEmbedder(FP32)
    monkeypatch.setattr(sys.modules["ingest.sync"], "make_embedder", lambda _settings: made)
    switched = sync(fp32, progress=False)
    assert (made.texts, switched.chunks, _recorded(fp32)) == (first.chunks, first.chunks, FP32) and is_current(fp32)

    # Back at int8 where the int8 model cannot be made: the fp32 model it falls back to finds the index its own,
    # so nothing is embedded, and the index still says fp32.
    made.texts = 0
    again = sync(int8, progress=False)
    assert (again.added, again.updated, made.texts, _recorded(int8)) == (0, 0, 0, FP32)


@pytest.mark.slow  # two more ingests, each starting its reading process: the fast tier keeps its minute
def test_an_edit_embedded_by_the_fallback_re_embeds_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    int8 = Settings(corpus_dir=_corpus(tmp_path), data_dir=tmp_path / "data", embedding_precision="int8")
    first = sync(int8, progress=False, embedder=FakeEmbedder(INT8))
    assert _recorded(int8) == INT8
    notes = next((tmp_path / "corpus").rglob("notes.md"))
    notes.write_text(NOTES + "\n- `torch.quokka` is removed.\n", encoding="utf-8")
    fallback = FakeEmbedder(FP32)  # the int8 model could not be made this time
    monkeypatch.setattr(sys.modules["ingest.sync"], "make_embedder", lambda _settings: fallback)
    edited = sync(int8, progress=False)
    # Every chunk, not only the edited one: int8 and fp32 vectors are never kept side by side.
    assert fallback.texts == edited.chunks >= first.chunks and _recorded(int8) == FP32


def _corpus(tmp_path: Path) -> Path:
    notes = tmp_path / "corpus" / "pytorch" / "2.12.0" / "notes.md"
    notes.parent.mkdir(parents=True)
    notes.write_text(NOTES, encoding="utf-8")
    return tmp_path / "corpus"


NOTES = """# PyTorch 2.12 release notes

## Backwards incompatible changes

- `torch.load` now defaults to `weights_only=True`.

## Deprecations

- `torch.cuda.amp.autocast` is deprecated; use `torch.amp.autocast("cuda")`.
"""


def _recorded(settings: Settings) -> str:
    manifest = ChunkStore.open(settings).manifest()
    assert manifest is not None
    return manifest.model
