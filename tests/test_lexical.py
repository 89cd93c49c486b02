"""The lexical index is saved with each generation and loaded at start, never a different one than a rebuild."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from assistant.index import lexical
from assistant.index.generation_cache import cache_folder
from assistant.index.lexical import TOKENIZER_VERSION, LexicalIndex, index_text, lexical_index
from assistant.knowledge_base import KnowledgeBase
from assistant.model.records import Chunk
from assistant.runtime.settings import Settings
from assistant.text.words import tokens
from ingest import sync

QUERIES = ("torchrun port 29500", "minimum CUDA version", "fused=True optimiseur", "weights_only torch.load")


def saved_folder(settings: Settings, kb: KnowledgeBase) -> Path:
    return cache_folder(settings, "lexical", lexical.lexical_key(kb.retriever.manifest.collection))


# The fake embedder's knowledge base, where one is needed: the lexical index does not depend on the vectors.


def test_the_saved_index_scores_as_a_rebuilt_one(fake_settings: Settings, fake_kb: KnowledgeBase) -> None:
    chunks = fake_kb.retriever.chunks
    loaded = LexicalIndex.load(saved_folder(fake_settings, fake_kb), chunks)
    assert loaded is not None  # the sync that built the session's index saved it
    built = LexicalIndex.build(chunks)
    assert loaded.df == built.df and loaded.documents == built.documents == len(chunks)
    for q in QUERIES:
        assert np.allclose(loaded.scores(tokens(q)), built.scores(tokens(q)))
    # Document frequencies read back from the BM25 matrix are those of the chunks' own tokens.
    toks = [set(tokens(c.text + " " + c.title + " " + c.section)) for c in chunks[:50]]
    assert all(loaded.df.get(t, 0) >= 1 for seen in toks for t in seen if t in built.df)


def test_a_start_loads_the_saved_index_instead_of_building_it(
    fake_settings: Settings, fake_kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_build(*_: object) -> None:
        raise AssertionError("the lexical index was rebuilt at start")

    monkeypatch.setattr(LexicalIndex, "build", no_build)
    again = KnowledgeBase.open(fake_settings)
    question = "why does torchrun no longer use port 29500?"
    assert again.ask(question).text == fake_kb.ask(question).text


def test_a_damaged_or_foreign_save_is_rebuilt(corpus_copy: Path, tmp_path: Path, fake_embedder) -> None:
    settings = Settings(corpus_dir=corpus_copy, data_dir=tmp_path / "data")
    sync(settings, progress=False, embedder=fake_embedder)
    kb = KnowledgeBase.open(settings, embedder=fake_embedder)
    folder = saved_folder(settings, kb)
    chunks = kb.retriever.chunks
    assert LexicalIndex.load(folder, chunks) is not None
    assert LexicalIndex.load(folder, chunks[::-1]) is None  # BM25 knows documents by position: order counts
    assert LexicalIndex.load(folder, chunks[1:]) is None

    (next(folder.glob("*.npy"))).write_bytes(b"\x93NUMPY broken")
    assert LexicalIndex.load(folder, chunks) is None
    rebuilt = lexical_index(settings, kb.retriever.manifest.collection, chunks)  # ... and saved again
    assert LexicalIndex.load(folder, chunks) is not None
    assert np.allclose(rebuilt.scores(tokens(QUERIES[0])), LexicalIndex.build(chunks).scores(tokens(QUERIES[0])))


def test_a_new_generation_replaces_the_old_save(corpus_copy: Path, tmp_path: Path, fake_embedder) -> None:
    settings = Settings(corpus_dir=corpus_copy, data_dir=tmp_path / "data")
    sync(settings, progress=False, embedder=fake_embedder)
    first = KnowledgeBase.open(settings, embedder=fake_embedder).retriever.manifest.collection
    guide = next(corpus_copy.rglob("migration-guide.txt"))
    guide.write_text(guide.read_text(encoding="utf-8") + "\n\nA sentence about quokkas.\n", encoding="utf-8")
    sync(settings, progress=False, embedder=fake_embedder)
    kb = KnowledgeBase.open(settings, embedder=fake_embedder)
    assert kb.retriever.manifest.collection != first
    saved = [p.name for p in saved_folder(settings, kb).parent.iterdir()]
    assert saved == [saved_folder(settings, kb).name]  # the old generation's save is gone
    (quokka,) = tokens("quokkas")
    assert kb.retriever.idf(quokka) < kb.retriever.idf("never-seen-token")  # the new generation's index


# sha256 of what `tokens(index_text(chunk))` gives for the sample below, under TOKENIZER_VERSION 1.
TOKENIZED_SAMPLE = {1: "308ab9c0c4fe8d6119e8e6cb47ede0e506db4582a99596b2602c8b006a1759d4"}


def test_the_tokenizer_version_changes_with_what_it_tokenises() -> None:
    """Saved lexical indexes are keyed by TOKENIZER_VERSION, not by text.py's bytes: when the tokens of the same
    chunks change, this fails until the version is bumped (and its digest recorded here)."""
    import hashlib
    import json

    lines = []
    for path in sorted((Path(__file__).parents[1] / "corpus").rglob("*.txt")):
        lines += path.read_text(encoding="utf-8").splitlines()
    lines += ["`torch.load(weights_only=True)` HTTP/2 @validator **kwargs [#123](https://x.y/1) v2.12.0rc1 É"]
    chunks = [
        Chunk(str(i), line, "p/1.0/n.md", "T", "p", "1.0", "changelog" if i % 2 else "release-notes", "S")
        for i, line in enumerate(lines)
    ]
    tokenized = json.dumps([tokens(index_text(c)) for c in chunks], ensure_ascii=False)
    digest = hashlib.sha256(tokenized.encode()).hexdigest()
    assert len(chunks) > 50
    assert TOKENIZED_SAMPLE.get(TOKENIZER_VERSION) == digest, f"bump TOKENIZER_VERSION; record {digest}"
