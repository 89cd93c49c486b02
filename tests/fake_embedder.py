"""A deterministic stand-in for the embedding model, registered as the backend "fake" (`register()`).

Each word is hashed (BLAKE2b, the same in every process, unlike the salted `hash()`) to a signed slot of a
384-number vector, like the real model's, and the sum is L2-normalised: texts sharing words are near, others
far, with no model to load. Fast tests build a knowledge base on it (conftest's `fake_kb`); what depends on
real semantic similarity stays with the real model, in the slow tier.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache

import numpy as np

from assistant.embed.embedder import Embedder, register_backend
from assistant.runtime.settings import Settings

BACKEND = "fake"
MODEL = "fake-hashed-words"  # recorded in the index: one built on the fake never passes for the real model's
DIM = 384
_WORD = re.compile(r"\w+")


class FakeEmbedder:
    """Bag of hashed words, L2-normalised; `calls` and `texts` count what it was asked to embed."""

    def __init__(self, name: str = MODEL, dim: int = DIM) -> None:
        self.name = name
        self.dim = dim
        self.calls = 0
        self.texts = 0

    def encode(self, texts: list[str], *, batch_size: int = 32) -> np.ndarray:
        self.calls += 1
        self.texts += len(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                slot, sign = _slot(word, self.dim)
                out[row, slot] += sign
            norm = float(np.linalg.norm(out[row]))
            if norm:
                out[row] /= norm
            else:  # no words: a fixed unit vector still, as Chroma's cosine distance needs a non-zero one
                out[row, 0] = 1.0
        return out


@lru_cache(maxsize=65536)
def _slot(word: str, dim: int) -> tuple[int, float]:
    digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "big")
    return value % dim, 1.0 if (value >> 63) & 1 else -1.0


def settings_for(settings: Settings) -> Settings:
    """`settings` with the fake as backend and model name. Copied, not validated: `Settings` reads only the
    built-in backend names, and "fake" is one registered in code."""
    return settings.model_copy(update={"embedding_backend": BACKEND, "embedding_model": MODEL})


def register() -> None:
    """Make `make_embedder` build a `FakeEmbedder` for `embedding_backend="fake"`, as it builds the real ones."""
    register_backend(BACKEND, _factory)


def _factory(settings: Settings) -> Embedder:
    return FakeEmbedder()
