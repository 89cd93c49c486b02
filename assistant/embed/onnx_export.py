"""One-off export of the default model to ONNX, checked against sentence-transformers before it is used.

Hand-written rather than through optimum: optimum is not installed here and would pull its own pinned
stack, while the model is one BERT encoder whose `last_hidden_state` is all that is needed (pooling and
normalisation are done in numpy by `assistant.embed.onnx`). Needs torch and sentence-transformers;
nothing that answers questions imports this module once the export exists.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from assistant.embed.onnx import (
    CHECK_TEXTS,
    EXPORT_FORMAT,
    MIN_COSINE,
    OnnxEmbedder,
    OnnxUnavailable,
)

logger = logging.getLogger(__name__)

OPSET = 17


def export(name: str, source: Path, dest: Path, checksum: str) -> None:
    """Export `source` (a sentence-transformers folder) into `dest`, atomically; raises `OnnxUnavailable`."""
    try:
        import torch
        from sentence_transformers import SentenceTransformer
    except ImportError as e:
        raise OnnxUnavailable(f"exporting to ONNX needs {e.name}: pip install -r requirements.txt") from e
    try:
        import onnx  # noqa: F401  # torch.onnx.export needs it; fail here with an install hint instead
    except ImportError as e:
        raise OnnxUnavailable("exporting to ONNX needs onnx: pip install -r requirements.txt") from e

    started = time.perf_counter()
    dest.parent.mkdir(parents=True, exist_ok=True)
    # Built beside its final place and renamed in one step: a killed export leaves only a temp folder.
    tmp = Path(tempfile.mkdtemp(prefix=f".export-{dest.name[:12]}-", dir=dest.parent))
    tmp.chmod(0o755)  # mkdtemp's 0700 would hide the export from other users of a shared data folder
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # weight loading is instant; its bar is noise on stderr
        # Eager attention traces to the MatMul/Softmax pattern ONNX Runtime fuses into one Attention op;
        # SDPA's traced form is left unfused, and batches then encode slower than with torch.
        model = SentenceTransformer(
            str(source), device="cpu", local_files_only=True, model_kwargs={"attn_implementation": "eager"}
        )
        with warnings.catch_warnings():
            # The tracer's warnings are about branches on shapes that are constant for this encoder
            # (no causal mask, no padding beyond the mask); the check below catches it if not.
            warnings.simplefilter("ignore")
            _export_graph(torch, model, tmp / "traced.onnx")
        fused = _fuse(tmp / "traced.onnx", tmp / "model.onnx", model[0].auto_model.config)
        shutil.copyfile(source / "tokenizer.json", tmp / "tokenizer.json")
        reference = np.asarray(
            model.encode(list(CHECK_TEXTS), normalize_embeddings=True, show_progress_bar=False), dtype=np.float32
        )
        meta: dict[str, Any] = {
            "format": EXPORT_FORMAT,
            "model": name,
            "source": str(source),
            "checksum": checksum,
            "max_seq_length": int(model.max_seq_length),
            "dim": int(reference.shape[1]),
            "probe": reference[0].tolist(),
            "opset": OPSET,
            "fused": fused,
            "torch": torch.__version__,
            "exported_at": time.time(),
        }
        (tmp / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
        got = OnnxEmbedder(name, tmp).encode(list(CHECK_TEXTS), batch_size=len(CHECK_TEXTS))
        cosine = float(np.min(np.sum(got * reference, axis=1)))
        if cosine < MIN_COSINE:
            raise OnnxUnavailable(f"the ONNX export differs from sentence-transformers (min cosine {cosine:.6f})")
        meta["min_cosine"] = round(cosine, 7)
        meta["sizes"] = {f: (tmp / f).stat().st_size for f in ("model.onnx", "tokenizer.json")}
        meta["export_s"] = round(time.perf_counter() - started, 2)
        (tmp / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
        if dest.exists():  # a damaged earlier export, already refused by the caller
            shutil.rmtree(dest)
        try:
            os.rename(tmp, dest)
        except OSError:
            if not (dest / "meta.json").is_file():  # not another process's finished export either
                raise
            logger.info("another process exported %s first; using its copy", name)
    except OnnxUnavailable:
        raise
    except Exception as e:  # torch's exporter and the file system fail in many ways; each means "no export"
        raise OnnxUnavailable(f"exporting {name} to ONNX failed: {type(e).__name__}: {e}") from e
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    logger.info("exported %s to %s in %.1fs (min cosine %.6f)", name, dest, time.perf_counter() - started, cosine)


def _fuse(traced: Path, dest: Path, config: Any) -> dict[str, int]:
    """ONNX Runtime's BERT fusions (attention, layer norms, GELU) saved into `dest`; the traced graph if they fail.

    Done once here rather than by the session at each start: the fusions take seconds, and the session
    would only do the generic ones.
    """
    try:
        from onnxruntime.transformers.optimizer import optimize_model

        optimized = optimize_model(
            str(traced),
            model_type="bert",
            num_heads=int(config.num_attention_heads),
            hidden_size=int(config.hidden_size),
            opt_level=0,  # graph fusions only; the session applies its own optimisations on load
        )
        optimized.save_model_to_file(str(dest))
        stats = {k: int(v) for k, v in optimized.get_fused_operator_statistics().items() if v}
    except Exception as e:  # the fusions are an optimisation: the traced graph gives the same vectors
        logger.info("ONNX Runtime's BERT fusions failed (%s: %s); keeping the traced graph", type(e).__name__, e)
        shutil.copyfile(traced, dest)
        stats = {}
    traced.unlink()
    return stats


def _export_graph(torch: Any, model: Any, path: Path) -> None:
    """The transformer alone, inputs to `last_hidden_state`, with batch and sequence left dynamic."""

    class LastHiddenState(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            out = self.inner(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
            return out.last_hidden_state

    wrapper = LastHiddenState(model[0].auto_model).eval()
    features = model.tokenizer(
        ["an example", "a longer example, so that the batch is padded"], padding=True, return_tensors="pt"
    )
    args = tuple(features[k] for k in ("input_ids", "attention_mask", "token_type_ids"))
    axes = {0: "batch", 1: "sequence"}
    with torch.no_grad():
        torch.onnx.export(
            wrapper,
            args,
            str(path),
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["last_hidden_state"],
            dynamic_axes={k: axes for k in ("input_ids", "attention_mask", "token_type_ids", "last_hidden_state")},
            opset_version=OPSET,
            do_constant_folding=True,
            dynamo=False,
        )
