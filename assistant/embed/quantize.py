"""The int8 copy of the ONNX export: about twice the encode speed, vectors at cosine ~0.99 to the fp32 ones.

Made once from the fp32 `model.onnx` by ONNX Runtime's dynamic quantization (weights int8 per output channel,
activations quantized on the fly), so it needs neither torch nor the packaged weights, and kept beside the fp32
export as `model-int8.onnx` with its own `meta-int8.json`. Like the export it is checked when made (against the
fp32 vectors on `CHECK_TEXTS`) and each time it is opened (a probe vector recorded when it was made).

Only matrix products and the fused attention are quantized: the embedding lookup's layer norm adds no speed
quantized and moves short texts' vectors most ("ok" from cosine 0.97 to 0.96), see docs/benchmarks.md.
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from assistant.embed.onnx import CHECK_TEXTS, PROBE_TEXT, OnnxEmbedder, OnnxUnavailable, write_atomic

logger = logging.getLogger(__name__)

INT8_FORMAT = 1  # bump when the quantization changes: older int8 models are then made again
INT8_MODEL = "model-int8.onnx"
INT8_META = "meta-int8.json"
INT8_SUFFIX = "+int8"  # the model name an int8 embedder gives, so the index records which precision built it
QUANTIZED_OPS = ("MatMul", "Attention")
# Against the fp32 vectors on CHECK_TEXTS. Measured 0.972 min (the two-character and blank texts; real chunks
# 0.99 mean); per-tensor weights measured 0.81 min on real chunks and must not pass.
MIN_INT8_COSINE = 0.95
# Its own probe when opened: int8 kernels may round differently on another CPU, far less than damage moves it.
MIN_PROBE_COSINE = 0.999


def int8_name(name: str) -> str:
    """The name an int8 embedder of model `name` gives (and an index built by it records)."""
    return f"{name}{INT8_SUFFIX}"


def open_int8(name: str, export_dir: Path) -> OnnxEmbedder:
    """Load and check the int8 model of an export; raises `OnnxUnavailable` when missing, stale or damaged."""
    try:
        meta = json.loads((export_dir / INT8_META).read_text(encoding="utf-8"))
        fp32 = json.loads((export_dir / "meta.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise OnnxUnavailable(f"no int8 model in {export_dir}") from None
    except (OSError, ValueError) as e:
        raise OnnxUnavailable(f"unreadable int8 model meta in {export_dir}: {e}") from None
    if not isinstance(meta, dict) or not isinstance(fp32, dict):  # a damaged file: made again, not a crash
        raise OnnxUnavailable(f"unreadable int8 model meta in {export_dir}: not an object")
    path = export_dir / INT8_MODEL
    if meta.get("format") != INT8_FORMAT or meta.get("from") != _stamp(fp32):
        raise OnnxUnavailable(f"{path} was made by another quantization or from another export")
    if not path.is_file() or path.stat().st_size != meta.get("size"):
        raise OnnxUnavailable(f"{path} is missing or truncated")
    try:
        embedder = OnnxEmbedder(int8_name(name), export_dir, model_file=INT8_MODEL)
        probe = embedder.encode([PROBE_TEXT])[0]
    except OnnxUnavailable:
        raise
    except Exception as e:  # onnxruntime raises its own exception types for a corrupt graph
        raise OnnxUnavailable(f"{path} does not load: {type(e).__name__}: {e}") from None
    try:
        cosine = float(probe @ np.asarray(meta["probe"], dtype=np.float32))
    except (KeyError, TypeError, ValueError) as e:
        raise OnnxUnavailable(f"{export_dir / INT8_META} holds no usable probe: {type(e).__name__}") from None
    if cosine < MIN_PROBE_COSINE:
        raise OnnxUnavailable(f"{path} gives other vectors than when it was made (cosine {cosine:.6f})")
    return embedder


def quantize(fp32: OnnxEmbedder) -> OnnxEmbedder:
    """Make the int8 model of `fp32`'s export beside it, atomically, check it and open it; raises
    `OnnxUnavailable` (one line) when it cannot be made or is too far from the fp32 vectors."""
    try:
        import onnx
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as e:
        raise OnnxUnavailable(f"quantizing needs {e.name}: pip install -r requirements.txt") from e
    started = time.perf_counter()
    folder = fp32.export_dir
    # Written under a name of this process's own and renamed in one step: a killed run leaves only that file,
    # and two processes quantizing at once each rename a complete (and identical) model.
    tmp = folder / f".{INT8_MODEL}.{os.getpid()}.tmp"
    try:
        with _quiet_root_logger():
            quantize_dynamic(
                folder / "model.onnx",
                tmp,
                per_channel=True,
                weight_type=QuantType.QInt8,
                op_types_to_quantize=list(QUANTIZED_OPS),
                # The fused graph's com.microsoft ops carry no type information the quantizer can read.
                extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
            )
        embedder = OnnxEmbedder(int8_name(fp32.name), folder, model_file=tmp.name)
        got = embedder.encode(list(CHECK_TEXTS), batch_size=len(CHECK_TEXTS))
        cosines = np.sum(got * fp32.encode(list(CHECK_TEXTS), batch_size=len(CHECK_TEXTS)), axis=1)
        if float(cosines.min()) < MIN_INT8_COSINE:
            raise OnnxUnavailable(
                f"the int8 model is too far from fp32 (min cosine {cosines.min():.4f} < {MIN_INT8_COSINE})"
            )
        meta: dict[str, Any] = {
            "format": INT8_FORMAT,
            "model": fp32.name,
            "from": _stamp(fp32.meta),
            "ops": list(QUANTIZED_OPS),
            "per_channel": True,
            # Alone, as `open_int8` encodes it: activations are quantized over the whole batch, so a text's int8
            # vector moves a little (cosine ~0.99) with the texts it is encoded with.
            "probe": embedder.encode([PROBE_TEXT])[0].tolist(),
            "min_cosine": round(float(cosines.min()), 5),
            "mean_cosine": round(float(cosines.mean()), 5),
            "size": tmp.stat().st_size,
            "quantize_s": round(time.perf_counter() - started, 2),
            "quantized_at": time.time(),
        }
        os.replace(tmp, folder / INT8_MODEL)
        write_atomic(folder / INT8_META, json.dumps(meta))
    except OnnxUnavailable:
        raise
    except Exception as e:  # the quantizer and the file system (a read-only shared folder) fail in many ways
        raise OnnxUnavailable(f"quantizing {fp32.name} to int8 failed: {type(e).__name__}: {e}") from e
    finally:
        tmp.unlink(missing_ok=True)
    logger.info("quantized %s to int8 in %.1fs (min cosine %.4f)", fp32.name, meta["quantize_s"], meta["min_cosine"])
    return open_int8(fp32.name, folder)


def _stamp(fp32_meta: dict[str, Any]) -> dict[str, Any]:
    """What identifies the fp32 export an int8 model was made from: a new export makes it stale."""
    return {"checksum": fp32_meta.get("checksum"), "exported_at": fp32_meta.get("exported_at")}


class _quiet_root_logger:  # noqa: N801  # used as a `with` block, like contextlib's lower-case ones
    """Drops what the quantizer logs on the root logger: a line per tensor, and advice to pre-process."""

    def filter(self, record: logging.LogRecord) -> bool:
        advice = record.getMessage().startswith("Please consider to run pre-processing")
        return record.levelno >= logging.WARNING and not advice

    def __enter__(self) -> None:
        logging.getLogger().addFilter(self)

    def __exit__(self, *_: object) -> None:
        logging.getLogger().removeFilter(self)
