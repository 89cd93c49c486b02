"""The ONNX embedder: same vectors as sentence-transformers, one export reused, damage caught, no torch."""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import app
from assistant.embed import onnx_export
from assistant.embed.embedder import SentenceTransformerEmbedder, make_embedder
from assistant.embed.onnx import OnnxEmbedder, OnnxUnavailable
from assistant.model.errors import ReldocsError
from assistant.runtime.settings import Settings
from ingest import is_current, sync

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "transformers", "sentence_transformers")

TEXTS = [
    "What replaces DataFrame.append in pandas 3.0?",
    "  torch.compile(mode='max-autotune')  ",
    "Quel optimiseur supporte fused=True ? Éléments dépréciés : torch.cuda.amp.autocast.",
    "数据加载器 DataLoader 的 pin_memory_device 参数已弃用 🤖",
    "",
    "a",
    "CUDA 12.6\tis\nthe minimum\r\nto build from source.",
    # Past the 256-token limit: both must cut it at the same place.
    " ".join(f"`torch.nn.functional.op_{i}(x, dim={i % 4})` replaces the removed alias." for i in range(80)),
]


@pytest.fixture(scope="module")
def torch_embedder() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder("all-MiniLM-L6-v2")


def _settings(tmp_path: Path, model_dir: Path, **kw: object) -> Settings:
    return Settings(data_dir=tmp_path / "data", model_dir=model_dir, **kw)  # type: ignore[arg-type]


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def test_vectors_match_sentence_transformers(embedder, torch_embedder) -> None:
    assert isinstance(embedder, OnnxEmbedder)
    assert len(embedder.tokenizer.encode(TEXTS[-1]).ids) == 256  # truncated where sentence-transformers cuts
    assert torch_embedder.model.max_seq_length == embedder.max_seq_length == 256
    alone = np.stack([embedder.encode([t])[0] for t in TEXTS])
    batched = embedder.encode(TEXTS, batch_size=3)  # padded batches, in another order than given
    reference = torch_embedder.encode(TEXTS)
    assert batched.shape == reference.shape == (len(TEXTS), 384) and batched.dtype == np.float32
    assert _cosines(alone, reference).min() >= 0.9999
    assert _cosines(batched, reference).min() >= 0.9999
    assert np.allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-5)
    assert embedder.encode([]).shape == (0, 384)
    assert embedder.name == torch_embedder.name == "all-MiniLM-L6-v2"


def test_the_export_is_reused_on_the_next_open(tmp_path, model_dir, monkeypatch) -> None:
    [export_dir] = [p for p in model_dir.iterdir() if p.is_dir()]
    before = (export_dir / "model.onnx").stat().st_mtime_ns

    def no_export(*_: object) -> None:
        raise AssertionError("exported again")

    monkeypatch.setattr(onnx_export, "export", no_export)
    again = make_embedder(_settings(tmp_path, model_dir))
    assert isinstance(again, OnnxEmbedder) and again.export_dir == export_dir
    assert (export_dir / "model.onnx").stat().st_mtime_ns == before
    assert json.loads((export_dir / "meta.json").read_text())["min_cosine"] >= 0.9999


@pytest.mark.parametrize("damage", ["truncated", "overwritten", "no meta"])
def test_a_damaged_export_is_refused_and_made_again(tmp_path, model_dir, embedder, damage, caplog) -> None:
    copy = tmp_path / "models"
    shutil.copytree(model_dir, copy)
    [export_dir] = [p for p in copy.iterdir() if p.is_dir()]
    model = export_dir / "model.onnx"
    if damage == "truncated":  # a killed copy, say
        with model.open("r+b") as f:
            f.truncate(model.stat().st_size // 2)
    elif damage == "overwritten":  # same size, other bytes: only the probe vector can tell
        with model.open("r+b") as f:
            f.seek(model.stat().st_size // 2)
            f.write(b"\x7f" * 4_000_000)
    else:
        (export_dir / "meta.json").unlink()
    with caplog.at_level(logging.WARNING):
        fresh = make_embedder(_settings(tmp_path, copy, embedding_backend="onnx"))
    assert isinstance(fresh, OnnxEmbedder)
    assert "exporting all-MiniLM-L6-v2 to ONNX" in caplog.text
    if damage != "no meta":
        assert "refused" in caplog.text
    assert _cosines(fresh.encode(TEXTS[:3]), embedder.encode(TEXTS[:3])).min() >= 0.9999
    assert not [p for p in copy.iterdir() if p.name.startswith(".export-")]  # no temp folder left


def test_torch_backend_never_touches_onnx(tmp_path, monkeypatch) -> None:
    def boom(*_: object, **__: object) -> None:
        raise AssertionError("ONNX used")

    monkeypatch.setattr("assistant.embed.onnx.open_export", boom)
    monkeypatch.setattr(onnx_export, "export", boom)
    settings = _settings(tmp_path, tmp_path / "models", embedding_backend="torch")
    assert isinstance(make_embedder(settings), SentenceTransformerEmbedder)
    assert not (tmp_path / "models").exists()


def test_onnx_backend_without_an_export_is_one_clear_error(tmp_path, monkeypatch, caplog) -> None:
    other = _settings(tmp_path, tmp_path / "models", embedding_backend="onnx", embedding_model="paraphrase-MiniLM")
    with pytest.raises(ReldocsError, match=r"^RELDOCS_EMBEDDING_BACKEND=onnx: only the default model") as e:
        make_embedder(other)
    assert "\n" not in str(e.value)

    def cannot(*_: object) -> None:
        raise OnnxUnavailable("exporting to ONNX needs torch: pip install -r requirements.txt")

    monkeypatch.setattr(onnx_export, "export", cannot)
    empty = tmp_path / "empty-models"
    with pytest.raises(ReldocsError, match="RELDOCS_EMBEDDING_BACKEND=onnx: exporting to ONNX needs torch"):
        make_embedder(_settings(tmp_path, empty, embedding_backend="onnx"))
    with caplog.at_level(logging.WARNING):  # auto falls back, and says so
        fallback = make_embedder(_settings(tmp_path, empty))
    assert isinstance(fallback, SentenceTransformerEmbedder)
    assert "ONNX embedder unavailable" in caplog.text and "using sentence-transformers" in caplog.text


def test_onnx_backend_error_on_the_command_line_is_one_line(tmp_path) -> None:
    env = {
        **os.environ,
        "RELDOCS_DATA_DIR": str(tmp_path / "data"),
        "RELDOCS_MODEL_DIR": str(tmp_path / "models"),
        "RELDOCS_EMBEDDING_BACKEND": "onnx",
        "RELDOCS_EMBEDDING_MODEL": "some-other-model",
    }
    out = subprocess.run(
        [sys.executable, "app.py", "ask", "--no-sync", "what changed?"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 1
    assert out.stderr.startswith("error: RELDOCS_EMBEDDING_BACKEND=onnx: only the default model")
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


def test_switching_backend_does_not_rebuild_the_index(settings, kb, model_dir, monkeypatch) -> None:
    torch_settings = settings.model_copy(update={"embedding_backend": "torch"})
    assert is_current(torch_settings)

    def no_model(*_: object, **__: object) -> None:
        raise AssertionError("an embedder was built: the index would be re-embedded")

    monkeypatch.setattr(sys.modules["ingest.sync"], "make_embedder", no_model)  # `ingest.sync` is the function
    report = sync(torch_settings, progress=False)
    assert (report.added, report.updated, report.removed, report.changed) == (0, 0, 0, False)


# Runs a command through app.main in a fresh interpreter, its server (if any) stubbed out, and prints the
# heavy modules it imported.
_PROBE = """
import json, sys
import app
HEAVY = {"torch", "transformers", "sentence_transformers"}
command = sys.argv[1]
if command == "web":
    import interfaces.web
    interfaces.web.serve = lambda *a, **k: None
elif command == "slack":
    import interfaces.slack
    interfaces.slack.preflight = lambda **k: None
    interfaces.slack.run = lambda *a, **k: None
elif command == "mcp":  # the stdio server closes stdout when its input ends: stubbed like the others
    import interfaces.mcp_server
    interfaces.mcp_server.serve_stdio = lambda *a, **k: None
code = app.main(sys.argv[1:])
loaded = {m.split(".")[0] for m in sys.modules}
print(json.dumps({"code": code, "heavy": sorted(loaded & HEAVY), "chromadb": "chromadb" in loaded}))
"""


def run_probe(settings, args: list[str]) -> tuple[dict, list[str]]:
    """`args` run through app.main in a fresh interpreter over `settings`' corpus and data folder: what the
    probe reports, and the command's own output lines before it."""
    env = {**os.environ, "RELDOCS_CORPUS_DIR": str(settings.corpus_dir), "RELDOCS_DATA_DIR": str(settings.data_dir)}
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    *lines, last = out.stdout.splitlines()
    return json.loads(last), lines


@pytest.mark.parametrize(
    "args",
    [
        ["ask", "--json", "Why does torchrun no longer use port 29500?"],
        ["search", "--json", "torchrun port"],
        ["web"],
        ["slack"],
        ["mcp"],
    ],
    ids=lambda a: a[0],
)
def test_answering_commands_never_import_torch(settings, kb, args) -> None:
    if args[0] not in app.cli.commands:
        pytest.skip(f"no {args[0]} command on this branch")
    result, _ = run_probe(settings, args)
    assert (result["code"], result["heavy"]) == (0, [])


def test_auto_keeps_other_models_on_sentence_transformers_without_a_warning(tmp_path, caplog) -> None:
    with caplog.at_level(logging.WARNING):
        other = make_embedder(_settings(tmp_path, tmp_path / "models", embedding_model="paraphrase-MiniLM-L3-v2"))
    assert isinstance(other, SentenceTransformerEmbedder) and not caplog.records
    assert not (tmp_path / "models").exists()
