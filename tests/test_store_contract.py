"""The index store's contract, one suite that every store passes: a folder and a real `chroma run` server.

Like Haystack's document-store test mixins: `StoreContract` holds the tests, written against what
`assistant.index.store.ChunkStore` exposes and what ingest and the knowledge base rely on (generations made live
by a manifest swap, chunks read back in order, nearest-neighbour queries within versions and products, stored
vectors carried over, stale generations dropped, one writer at a time, first claim wins); each subclass only
says where its store is. On the fake embedder, so both run in seconds.
"""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import fake_embedder as fake
import numpy as np
import pytest
from chroma_server import ChromaServer

from assistant.index import store as store_module
from assistant.index.claims import shared_claims
from assistant.index.store import GENERATION_PREFIX, ChunkStore, Manifest
from assistant.index.writer_lock import writer_lock
from assistant.knowledge_base import KnowledgeBase
from assistant.model.changes import Change
from assistant.model.document import Entry
from assistant.model.errors import IndexNotReady, WriterBusy
from assistant.model.records import Chunk
from assistant.runtime.settings import Settings
from ingest import sync

pytestmark = pytest.mark.store_contract

SHIPPED = Path(__file__).resolve().parents[1] / "corpus"
GUIDE = "pytorch/2.12.0/migration-guide.txt"
FRENCH = "pytorch/2.12.0/release-news.fr.txt"
_DATABASES = itertools.count(1)


def chunk(n: int, text: str, *, product: str = "acme", version: str = "1.0", source: str = "") -> Chunk:
    """A chunk as ingest writes one, with entries and changes so that both are seen to round-trip."""
    entries = (Entry("item", text, label="Removed"), Entry("code", f"acme.f{n}()", depth=1))
    changes = (Change("removed", text, symbols=(f"acme.f{n}",), replacement="acme.g", entry=0),)
    return Chunk(
        id=f"c{n:03d}",
        text=text,
        source=source or f"{product}/{version}/notes.md",
        title=f"{product} {version}",
        product=product,
        version=version,
        kind="release-notes",
        section=f"Section {n}",
        language="en",
        url=f"https://docs.example.com/{product}/{version}",
        entries=entries,
        changes=changes,
    )


CHUNKS = [
    chunk(1, "acme.f1 was removed; use acme.g instead", version="1.0"),
    chunk(2, "the cache now defaults to 64 MB", version="1.0"),
    chunk(3, "acme.f3 is deprecated", version="2.0"),
    chunk(4, "tokens expire after one hour", version="2.0"),
    chunk(5, "widgets render twice as fast", product="widget", version="2.0"),
    chunk(6, "widgets drop Python 3.9", product="widget", version="3.0"),
]


def in_document_order(chunks: list[Chunk]) -> list[Chunk]:
    """How a store reads chunks back: by source, each source's in the order they were written."""
    return sorted(chunks, key=lambda c: c.source)


def vectors(chunks: list[Chunk]) -> np.ndarray:
    return fake.FakeEmbedder().encode([c.text for c in chunks])


def manifest(**fields: object) -> Manifest:
    """A manifest as a sync starts one: `write_generation` fills in the collection, count and time."""
    return Manifest(collection="", model=fake.MODEL, chunker=1, **fields)  # type: ignore[arg-type]


def generations(store: ChunkStore) -> list[str]:
    names = (c if isinstance(c, str) else c.name for c in store.client.list_collections())
    return sorted(n for n in names if n.startswith(GENERATION_PREFIX))


class StoreContract:
    """What every index store does; a subclass gives `where`, the settings naming a fresh, empty store."""

    @pytest.fixture
    def where(self, tmp_path: Path) -> Settings:
        raise NotImplementedError

    @pytest.fixture
    def store(self, where: Settings) -> ChunkStore:
        return ChunkStore.open(where)

    @pytest.fixture
    def live(self, store: ChunkStore) -> Manifest:
        """`CHUNKS` written as the live generation."""
        written = manifest(files={"acme/1.0/notes.md": "h1"})
        store.write_generation(CHUNKS, vectors(CHUNKS), written)
        return written

    # -- an empty store -------------------------------------------------------------------------

    def test_an_empty_store_has_no_manifest_and_is_not_ready(self, store: ChunkStore) -> None:
        assert store.manifest() is None and store.stamp() == ""
        with pytest.raises(IndexNotReady, match="ingest"):
            store.load_chunks()
        with pytest.raises(IndexNotReady):
            store.query(vectors(CHUNKS[:1])[0], 3)

    # -- writing a generation, reading it back --------------------------------------------------

    def test_a_written_generation_is_live_with_every_chunk_in_order(self, store: ChunkStore, live: Manifest) -> None:
        read = store.manifest()
        assert read is not None and read.collection == live.collection
        assert read.collection.startswith(GENERATION_PREFIX) and read.chunks == len(CHUNKS) and read.built_at > 0
        assert store.collection(read).count() == len(CHUNKS)
        assert store.load_chunks() == CHUNKS  # every field, entries and changes included, in document order
        assert store.stamp() != ""

    def test_the_manifest_round_trips_every_field(self, store: ChunkStore) -> None:
        written = manifest(
            files={"acme/1.0/notes.md": "h1", "acme/2.0/notes.md": "h2"},
            errors={"acme/bad.md": {"hash": "h3", "error": "not UTF-8"}},
            warnings=[{"file": "acme/1.0/notes.md", "field": "url", "problem": "dropped"}],
        )
        store.write_generation(CHUNKS, vectors(CHUNKS), written)
        assert store.manifest() == written

    def test_another_store_on_the_same_index_sees_the_same_generation(
        self, where: Settings, store: ChunkStore, live: Manifest
    ) -> None:
        replica = ChunkStore.open(where)  # another process, or another machine sharing the server
        assert replica.manifest() == store.manifest() and replica.stamp() == store.stamp()
        assert replica.load_chunks() == CHUNKS

    def test_chunks_are_read_back_whole_past_a_page_and_a_write_batch(
        self, store: ChunkStore, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(store_module, "_PAGE", 4)
        monkeypatch.setattr(store_module, "_ADD_BATCH", 3)
        many = [chunk(n, f"entry number {n} of many", version=f"{n % 3}.0") for n in range(11)]
        store.write_generation(many, vectors(many), manifest())
        assert store.load_chunks() == in_document_order(many)
        assert set(store.embeddings([c.id for c in many], store.manifest())) == {c.id for c in many}  # type: ignore[arg-type]

    # -- querying -------------------------------------------------------------------------------

    def test_query_ranks_by_cosine_similarity(self, store: ChunkStore, live: Manifest) -> None:
        probe = vectors([CHUNKS[3]])[0]
        hits = store.query(probe, 3)
        assert len(hits) == 3 and hits[0][0] == CHUNKS[3].id and hits[0][1] == pytest.approx(1.0, abs=1e-5)
        scores = [s for _, s in hits]
        assert scores == sorted(scores, reverse=True)
        expected = vectors(CHUNKS) @ probe  # the fake's vectors are unit length: cosine is the dot product
        by_id = dict(zip((c.id for c in CHUNKS), expected, strict=True))
        assert all(s == pytest.approx(by_id[i], abs=1e-5) for i, s in hits)

    def test_query_stays_within_the_versions_and_products_asked_for(self, store: ChunkStore, live: Manifest) -> None:
        probe = vectors([CHUNKS[0]])[0]

        def found(**only: list[str]) -> set[str]:
            return {i for i, _ in store.query(probe, len(CHUNKS), **only)}  # type: ignore[arg-type]

        assert found() == {c.id for c in CHUNKS}
        assert found(versions=["2.0"]) == {"c003", "c004", "c005"}
        assert found(versions=["1.0", "3.0"]) == {"c001", "c002", "c006"}
        assert found(products=["widget"]) == {"c005", "c006"}
        assert found(versions=["2.0"], products=["acme"]) == {"c003", "c004"}
        assert found(versions=["9.9"]) == set()

    def test_stored_vectors_come_back_for_carrying_chunks_over(self, store: ChunkStore, live: Manifest) -> None:
        ids = [CHUNKS[1].id, CHUNKS[4].id, "no-such-chunk"]
        stored = store.embeddings(ids, live)
        assert set(stored) == {CHUNKS[1].id, CHUNKS[4].id}
        expected = vectors(CHUNKS)
        assert np.allclose(stored[CHUNKS[1].id], expected[1], atol=1e-6)
        assert np.allclose(stored[CHUNKS[4].id], expected[4], atol=1e-6)
        assert store.embeddings([], live) == {}

    # -- generations ----------------------------------------------------------------------------

    def test_a_new_generation_replaces_the_old_one(self, store: ChunkStore, live: Manifest) -> None:
        """Added, updated and removed chunks: the new generation is all that is live, and the stamp moves."""
        stamp = store.stamp()
        updated = chunk(2, "the cache now defaults to 128 MB", version="1.0")
        newer = [CHUNKS[0], updated, *CHUNKS[3:], chunk(7, "acme.h was added", version="3.0")]
        store.write_generation(newer, vectors(newer), manifest())
        read = store.manifest()
        assert read is not None and read.collection != live.collection and read.chunks == len(newer)
        assert store.stamp() != stamp
        assert store.load_chunks() == in_document_order(newer)
        assert generations(store) == [read.collection]  # the old generation was dropped
        assert store.query(vectors([updated])[0], 1)[0][0] == updated.id

    def test_a_writer_stopping_before_the_swap_leaves_the_old_generation_live(
        self, store: ChunkStore, live: Manifest
    ) -> None:
        def lost_the_lock() -> None:
            raise WriterBusy("another ingest took over")

        newer = CHUNKS[:2]
        with pytest.raises(WriterBusy):
            store.write_generation(newer, vectors(newer), manifest(), before_live=lost_the_lock)
        assert store.manifest() == live and store.load_chunks() == CHUNKS
        [orphan] = [g for g in generations(store) if g != live.collection]  # complete, never made live
        store.write_generation(newer, vectors(newer), manifest())
        assert orphan not in generations(store) and live.collection not in generations(store)
        assert store.load_chunks() == newer

    def test_drop_stale_keeps_the_live_generation_and_what_is_not_a_generation(
        self, store: ChunkStore, live: Manifest
    ) -> None:
        store.client.create_collection(f"{GENERATION_PREFIX}99999999999999-1-1")  # a killed writer's
        shared_claims(store).claim(["event:E1"])  # claims live beside the generations on a server
        store.drop_stale(keep=live.collection)
        assert generations(store) == [live.collection]
        assert not shared_claims(store).claim(["event:E1"])  # still claimed: not dropped with the stale
        assert store.load_chunks() == CHUNKS

    # -- one writer at a time, first claim wins --------------------------------------------------

    def test_one_writer_at_a_time(self, where: Settings, store: ChunkStore) -> None:
        with writer_lock(store, where) as held:
            held.confirm()
            with pytest.raises(WriterBusy, match=r"another ingest \(pid \d+ on "):
                writer_lock(ChunkStore.open(where), where).__enter__()
        with writer_lock(ChunkStore.open(where), where) as again:  # released: the next writer takes it
            again.confirm()

    def test_the_first_claim_of_a_key_wins_across_replicas(self, where: Settings, store: ChunkStore) -> None:
        first, replica = shared_claims(store), shared_claims(ChunkStore.open(where))
        assert first.claim(["event:E1", "message:C1:1.0"])
        assert not replica.claim(["event:E2", "message:C1:1.0"])  # the same message, delivered again
        assert not first.claim(["event:E1"])
        assert replica.claim(["event:E3"])

    # -- through ingest and the knowledge base ---------------------------------------------------

    def test_sync_adds_updates_and_removes_and_a_knowledge_base_follows(
        self, where: Settings, store: ChunkStore, tmp_path: Path
    ) -> None:
        corpus = Path(where.corpus_dir)
        first = sync(where, progress=False)  # the fake, built by `make_embedder` from the settings' backend
        assert first.added == first.chunks > 0 and (first.updated, first.removed) == (0, 0)
        kb = KnowledgeBase.open(where)
        assert kb.retriever.embedder.name == fake.MODEL

        guide = corpus / GUIDE
        guide.write_text(guide.read_text().replace("CUDA 12.6 or newer", "CUDA 12.8 or newer"))
        (corpus / FRENCH).unlink()
        counting = fake.FakeEmbedder()
        edited = sync(where, progress=False, embedder=counting)
        # The phrase sits in two chunks: only those are embedded again, the rest carried over from the store.
        assert edited.updated == counting.texts == 2 and edited.removed > 0 and edited.added == 0
        after = store.load_chunks()
        assert {c.source for c in after} == {GUIDE} and len(after) == store.collection().count()

        assert kb.refresh()  # the open knowledge base picks the new generation up
        assert {p.chunk.source for p in kb.search("CUDA 12.8 build from source", k=20)} == {GUIDE}
        assert any("12.8" in p.chunk.text for p in kb.search("minimum CUDA version", k=5))


class TestFolderStore(StoreContract):
    """The index as a folder of this machine (`PersistentClient`, `manifest.json`, flock, SQLite claims)."""

    @pytest.fixture
    def where(self, tmp_path: Path) -> Settings:
        corpus = tmp_path / "corpus"
        shutil.copytree(SHIPPED, corpus)
        # chroma_url=None: a folder, also under --chroma-server
        return fake.settings_for(Settings(corpus_dir=corpus, data_dir=tmp_path / "data", chroma_url=None))


# Slow: starting the server and a database per test cost ~8 s, too much of the fast tier's minute. CI runs these in
# its server-mode pass, with the other server end-to-end tests.
@pytest.mark.slow
@pytest.mark.server_e2e
class TestServerStore(StoreContract):
    """The index on a real `chroma run` (the session's), in a database of its own for each test."""

    @pytest.fixture
    def where(self, chroma: ChromaServer, tmp_path: Path) -> Settings:
        corpus = tmp_path / "corpus"
        shutil.copytree(SHIPPED, corpus)
        database = f"contract-{next(_DATABASES)}"
        return fake.settings_for(chroma.settings(database, corpus_dir=corpus, data_dir=tmp_path / "data"))
