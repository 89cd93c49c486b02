"""The int8 model: made once beside the fp32 export, close to its vectors, damage caught, fp32 when it cannot be had.

Slow tier: the real export (the session's `model_dir`) is quantized; the fast tests of the same logic on fakes
are in test_precision.py.
"""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import numpy as np
import pytest

import app
from assistant.embed import quantize
from assistant.embed.embedder import make_embedder
from assistant.embed.onnx import CHECK_TEXTS, OnnxEmbedder, OnnxUnavailable
from assistant.index.store import ChunkStore
from assistant.knowledge_base import KnowledgeBase
from assistant.model.errors import IndexNotReady
from assistant.runtime.settings import Settings
from ingest import is_current, sync

FP32, INT8 = "all-MiniLM-L6-v2", "all-MiniLM-L6-v2+int8"


def _settings(tmp_path: Path, model_dir: Path, **kw: object) -> Settings:
    kw = {"embedding_precision": "int8", **kw}
    return Settings(data_dir=tmp_path / "data", model_dir=model_dir, **kw)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def int8_dir(model_dir: Path) -> Path:
    """The session's export folder with its int8 model made (the session's `embedder` is fp32, the default)."""
    made = make_embedder(Settings(model_dir=model_dir, embedding_backend="onnx", embedding_precision="int8"))
    assert made.name == INT8
    return model_dir


def _export_dir(models: Path) -> Path:
    [export_dir] = [p for p in models.iterdir() if p.is_dir() and not p.name.startswith(".")]
    return export_dir


def test_the_int8_model_is_made_once_beside_the_export_close_to_fp32(tmp_path, int8_dir, monkeypatch) -> None:
    model_dir = int8_dir
    int8 = make_embedder(_settings(tmp_path, model_dir))
    fp32 = make_embedder(_settings(tmp_path, model_dir, embedding_precision="fp32"))
    assert make_embedder(Settings(model_dir=model_dir)).name == FP32  # the default
    assert isinstance(int8, OnnxEmbedder) and isinstance(fp32, OnnxEmbedder)
    assert (int8.name, fp32.name) == (INT8, FP32) and int8.export_dir == fp32.export_dir
    folder = int8.export_dir
    assert (folder / quantize.INT8_MODEL).stat().st_size < (folder / "model.onnx").stat().st_size * 0.7
    cosines = np.sum(int8.encode(list(CHECK_TEXTS)) * fp32.encode(list(CHECK_TEXTS)), axis=1)
    assert cosines.min() >= quantize.MIN_INT8_COSINE and cosines.mean() >= 0.98
    meta = json.loads((folder / quantize.INT8_META).read_text(encoding="utf-8"))
    assert meta["min_cosine"] >= quantize.MIN_INT8_COSINE and meta["per_channel"] is True

    def no_quantize(*_: object) -> None:
        raise AssertionError("quantized again")

    monkeypatch.setattr(quantize, "quantize", no_quantize)
    before = (folder / quantize.INT8_MODEL).stat().st_mtime_ns
    again = make_embedder(_settings(tmp_path, model_dir, embedding_backend="onnx"))
    assert again.name == INT8 and (folder / quantize.INT8_MODEL).stat().st_mtime_ns == before


@pytest.mark.parametrize("damage", ["truncated", "no meta", "stale"])
def test_a_damaged_int8_model_is_made_again(tmp_path, int8_dir, damage, caplog) -> None:
    copy = tmp_path / "models"
    shutil.copytree(int8_dir, copy)
    folder = _export_dir(copy)
    model, meta = folder / quantize.INT8_MODEL, folder / quantize.INT8_META
    if damage == "truncated":
        with model.open("r+b") as f:
            f.truncate(model.stat().st_size // 2)
    elif damage == "no meta":  # killed between the model's rename and its meta's
        meta.unlink()
    else:  # made from an earlier export of the same weights
        meta.write_text(json.dumps({**json.loads(meta.read_text()), "from": {"exported_at": 0}}), encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        fresh = make_embedder(_settings(tmp_path, copy))
    assert fresh.name == INT8 and json.loads(meta.read_text())["from"]["exported_at"] > 0
    assert ("refused" in caplog.text) is (damage != "no meta")
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]  # no temp file left


def test_an_int8_model_that_cannot_be_made_falls_back_to_fp32(tmp_path, int8_dir, monkeypatch, caplog) -> None:
    copy = tmp_path / "models"
    shutil.copytree(int8_dir, copy)
    for name in (quantize.INT8_MODEL, quantize.INT8_META):
        (_export_dir(copy) / name).unlink()

    def cannot(*_: object) -> None:
        raise OnnxUnavailable("quantizing needs onnx: pip install -r requirements.txt")

    monkeypatch.setattr(quantize, "quantize", cannot)
    with caplog.at_level(logging.WARNING):
        fallback = make_embedder(_settings(tmp_path, copy, embedding_backend="onnx"))
    assert isinstance(fallback, OnnxEmbedder) and fallback.name == FP32
    [record] = [r for r in caplog.records if "int8" in r.getMessage()]
    assert record.getMessage() == (
        "int8 model unavailable (quantizing needs onnx: pip install -r requirements.txt); embedding at fp32"
    )


def test_an_index_built_at_fp32_is_re_embedded_when_opened_at_int8(corpus_copy, tmp_path, int8_dir) -> None:
    fp32 = Settings(corpus_dir=corpus_copy, data_dir=tmp_path / "data", embedding_precision="fp32")
    int8 = fp32.model_copy(update={"embedding_precision": "int8"})
    fp32_model = make_embedder(fp32)
    first = sync(fp32, progress=False, embedder=fp32_model)
    assert ChunkStore.open(fp32).manifest().model == FP32 and not is_current(int8)  # type: ignore[union-attr]
    with pytest.raises(IndexNotReady, match=r"run `python app\.py ingest`"):
        KnowledgeBase.open(int8, embedder=make_embedder(int8))
    kb = app.open_knowledge_base(int8, quiet=True)  # what every command does: a sync first, as on a model change
    assert kb.retriever.embedder.name == INT8 and kb.retriever.manifest.model == INT8
    assert len(kb.retriever.chunks) == first.chunks and is_current(int8)
    with pytest.raises(IndexNotReady, match=r"embedded by all-MiniLM-L6-v2\+int8 and questions would be by"):
        KnowledgeBase.open(fp32, embedder=fp32_model)
