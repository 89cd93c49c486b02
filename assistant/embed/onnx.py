"""The default model run by ONNX Runtime and `tokenizers`, so answering never imports torch.

sentence-transformers costs about 8 s of imports before the first vector; onnxruntime and tokenizers
about 0.5 s, with the same vectors. The pieces sentence-transformers does around the transformer are
redone here in numpy (mean pooling over the attention mask, then L2 normalisation) because they are a
few lines, and pulling them from sentence-transformers would import torch again.

An export lives in `<model_dir>/<checksum>/` (`model.onnx`, `tokenizer.json`, `meta.json`), keyed by a
hash of the packaged weights and configs, and is checked each time it is opened: sizes, a session that
loads, and a probe text whose vector must match the one recorded at export. `assistant.embed.onnx_export`
writes it (that module needs torch; this one must not). `assistant.embed.quantize` derives an int8 copy from it,
kept beside it in the same folder.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

logger = logging.getLogger(__name__)

EXPORT_FORMAT = 2  # bump when the export changes: older exports are then made again
MIN_COSINE = 0.9999
PROBE_TEXT = "torch.compile now defaults to mode='max-autotune' on CUDA 12.6; see the 2.12 migration guide."
# What an export (and its int8 copy, `assistant.embed.quantize`) is checked on. Varied on purpose: code, accents,
# a non-Latin script, blank and very short texts, and one well past the 256-token limit, encoded together so the
# batch is padded.
CHECK_TEXTS = (
    PROBE_TEXT,
    "What replaces DataFrame.append in pandas 3.0?",
    "Quel optimiseur supporte fused=True ? Éléments déjà dépréciés : torch.cuda.amp.autocast.",
    "`torch.distributed.run --nproc-per-node=2 train.py` no longer picks port 29500 by default.",
    "数据加载器 DataLoader 的 pin_memory_device 参数已弃用",
    "ok",
    "   ",
    " ".join(f"torch.nn.functional.op_{i}(x, dim={i % 4}) replaces the removed alias." for i in range(60)),
)
# What decides the vectors: the weights, the architecture, the tokenizer and sentence-transformers' own
# config (max_seq_length, pooling, normalisation).
_SOURCE_FILES = (
    "model.safetensors",
    "config.json",
    "tokenizer.json",
    "sentence_bert_config.json",
    "modules.json",
    "1_Pooling/config.json",
)
_CHECKSUMS = "checksums.json"


class OnnxUnavailable(Exception):
    """The ONNX embedder cannot be used here; the message says why in one line."""


class OnnxEmbedder:
    """Same vectors as `SentenceTransformerEmbedder` for the exported model; safe to share across threads."""

    def __init__(
        self, name: str, export_dir: Path, *, model_file: str = "model.onnx", threads: int | None = None
    ) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as e:  # pragma: no cover - depends on the install
            raise OnnxUnavailable(f"{e.name} is not installed: pip install -r requirements.txt") from e
        self.name = name
        self.export_dir = Path(export_dir)
        self.meta: dict[str, Any] = json.loads((self.export_dir / "meta.json").read_text(encoding="utf-8"))
        self.max_seq_length = int(self.meta["max_seq_length"])
        self.tokenizer = Tokenizer.from_file(str(self.export_dir / "tokenizer.json"))
        # tokenizer.json ships with its own truncation (128) and fixed padding; sentence-transformers
        # truncates at max_seq_length and pads each batch to its longest text, so the same here.
        self.tokenizer.enable_truncation(max_length=self.max_seq_length)
        pad_id = self.tokenizer.token_to_id("[PAD]") or 0
        self.tokenizer.enable_padding(pad_id=pad_id, pad_token="[PAD]")
        options = ort.SessionOptions()
        # One request at a time per process is the norm here, so every core goes to that one.
        options.intra_op_num_threads = threads or _cores()
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3  # its warnings about unused initialisers are noise on stderr
        self.session = ort.InferenceSession(
            str(self.export_dir / model_file), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self.session.get_inputs()}

    def encode(self, texts: Sequence[str], *, batch_size: int = 32) -> np.ndarray:
        """L2-normalised float32 vectors, one row per text, in the order given."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, int(self.meta["dim"])), dtype=np.float32)
        # Longest first, as sentence-transformers does: each batch is padded to its longest text.
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out = np.empty((len(texts), int(self.meta["dim"])), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            out[idx] = self._batch([texts[i] for i in idx])
        return out

    def _batch(self, texts: list[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.array([e.type_ids for e in encodings], dtype=np.int64)
        (hidden,) = self.session.run(["last_hidden_state"], feeds)
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def model_checksum(source: Path, cache_root: Path) -> str:
    """sha256 over the files that decide the model's vectors, memoised by their sizes and mtimes."""
    files = [source / rel for rel in _SOURCE_FILES if (source / rel).is_file()]
    if not any(f.name == "model.safetensors" for f in files):
        raise OnnxUnavailable(f"no model.safetensors in {source}")
    stamp = ";".join(f"{f.relative_to(source)}:{f.stat().st_size}:{f.stat().st_mtime_ns}" for f in files)
    memo_path = cache_root / _CHECKSUMS
    try:
        memo = json.loads(memo_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        memo = {}
    key = str(source.resolve())
    if isinstance(memo.get(key), dict) and memo[key].get("stamp") == stamp:
        return str(memo[key]["sha256"])
    digest = hashlib.sha256()
    for f in files:
        with f.open("rb") as fh:
            digest.update(f"{f.relative_to(source).as_posix()}\0".encode())
            digest.update(hashlib.file_digest(fh, "sha256").digest())
    checksum = digest.hexdigest()
    memo[key] = {"stamp": stamp, "sha256": checksum}
    # A lost memo only costs one more hash, so a failed write is not an error.
    try:
        write_atomic(memo_path, json.dumps(memo, indent=1))
    except OSError as e:
        logger.debug("could not save %s: %s", memo_path, e)
    return checksum


def write_atomic(path: Path, text: str) -> None:
    """Write a file through a temp file and a rename, so a reader never sees half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def open_export(name: str, export_dir: Path) -> OnnxEmbedder:
    """Load and check an export; raises `OnnxUnavailable` when it is missing or damaged."""
    meta_path = export_dir / "meta.json"
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise OnnxUnavailable(f"no export in {export_dir}") from None
    except (OSError, ValueError) as e:
        raise OnnxUnavailable(f"unreadable {meta_path}: {e}") from None
    if meta.get("format") != EXPORT_FORMAT:
        raise OnnxUnavailable(f"export format {meta.get('format')} in {export_dir}, expected {EXPORT_FORMAT}")
    for file, size in meta.get("sizes", {}).items():
        path = export_dir / file
        if not path.is_file() or path.stat().st_size != size:
            raise OnnxUnavailable(f"{path} is missing or truncated")
    try:
        embedder = OnnxEmbedder(name, export_dir)
        probe = embedder.encode([PROBE_TEXT])[0]
    except OnnxUnavailable:
        raise
    except Exception as e:  # onnxruntime raises its own exception types for a corrupt graph
        raise OnnxUnavailable(f"{export_dir / 'model.onnx'} does not load: {type(e).__name__}: {e}") from None
    cosine = float(probe @ np.asarray(meta["probe"], dtype=np.float32))
    if cosine < MIN_COSINE:
        raise OnnxUnavailable(f"{export_dir / 'model.onnx'} gives other vectors than at export (cosine {cosine:.6f})")
    return embedder
