"""Idempotent sync of the corpus folder into the index: embed only what changed, drop what vanished."""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from assistant.embed.embedder import Embedder, make_embedder, mixes_precisions, model_identity
from assistant.index.catalog import indexed_files
from assistant.index.chunk_cache import save_chunks
from assistant.index.lexical import index_text, lexical_index
from assistant.index.store import ChunkStore, Manifest
from assistant.index.vectors import save_vectors
from assistant.index.writer_lock import writer_lock
from assistant.model.records import Chunk
from assistant.runtime.settings import Settings
from ingest.chunking import CHUNKER_VERSION
from ingest.loader import corpus_files, file_hash, read_bytes
from ingest.metadata import IngestWarning
from ingest.reading import read_files

logger = logging.getLogger(__name__)


@dataclass
class SyncReport:
    """What a sync did; `errors` name the files that were skipped and why, `warnings` the metadata that was
    cleaned or dropped in files indexed anyway (the `ingest --json` contract)."""

    files: int = 0
    chunks: int = 0
    added: int = 0
    updated: int = 0
    removed: int = 0
    errors: list[dict[str, str]] = field(default_factory=list)
    warnings: list[dict[str, str]] = field(default_factory=list)
    # Per indexed file: its product, its releases (oldest first) and where they were read (`Chunk.release_from`).
    documents: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    changed: bool = False

    def to_dict(self) -> dict[str, object]:
        keys = ("files", "chunks", "added", "updated", "removed", "errors", "warnings", "documents", "seconds")
        return {k: getattr(self, k) for k in keys}


def documents(chunks: list[Chunk]) -> list[dict[str, Any]]:
    """What each file was indexed as: {"file", "product", "releases", "release_from"}, by file name."""
    product = {c.source: c.product for c in chunks}
    return [{"file": f.source, "product": product[f.source], **f.to_dict()} for f in indexed_files(chunks)]


def _without_release(chunks: list[Chunk]) -> list[dict[str, str]]:
    """A warning for each file alone in a product's folder (`acme/notes.md`) that names no release, where other
    files of that folder do: its passages carry no version, so questions naming a release pass it by."""
    with_release = {c.source for c in chunks if c.version}  # a changelog's preamble has none, its releases do
    folders = {source.split("/", 1)[0] for source in with_release if "/" in source}
    bare = sorted({c.source for c in chunks if c.source.count("/") == 1} - with_release)
    return [
        {
            "file": source,
            "field": "version",
            "problem": f"no release in its file name, front matter or first heading, while other files of "
            f"{source.split('/')[0]}/ have one; its passages carry no version",
        }
        for source in bare
        if source.split("/", 1)[0] in folders  # a bare file is no file with a release: those are others
    ]


def is_current(settings: Settings, store: ChunkStore | None = None) -> bool:
    """True when the index matches the corpus byte for byte (no model load; in a folder, no Chroma either)."""
    store = store or ChunkStore.open(settings)
    manifest = store.manifest()
    return manifest is not None and _unchanged(manifest, *_hashes(settings)[:2], model_identity(settings))


_LINK = "link"  # the `field` of the warning that names a symbolic link left out of the corpus
_SHADOWED = "fetched"  # ... and of the one that names a fetched file a corpus file of the same path hides
_NOTED = (_LINK, _SHADOWED)  # warnings about which files are indexed: one added or removed is a change


def _hashes(settings: Settings) -> tuple[dict[str, str], list[IngestWarning], dict[str, Path]]:
    """Each file to index's hash by its source (its path below the corpus folder, or below the fetched-docs
    folder: `<product>/<file>` either way), a warning naming each symbolic link, which is not followed
    (`ingest.loader.corpus_files`), and each source's root folder."""
    root, fetched = settings.corpus_dir, settings.fetched_path
    out, warnings = _folder_hashes(root)
    roots = dict.fromkeys(out, root)
    if fetched.is_dir() and not fetched.resolve().is_relative_to(root.resolve()):  # inside it, it is corpus
        more, more_warnings = _folder_hashes(fetched)
        warnings += more_warnings
        for source, digest in more.items():
            if source in out:
                problem = f"a fetched file of the same path as a corpus file ({fetched}); the corpus's is indexed"
                warnings.append({"file": source, "field": _SHADOWED, "problem": problem})
                continue
            out[source], roots[source] = digest, fetched
    return out, warnings, roots


def _folder_hashes(root: Path) -> tuple[dict[str, str], list[IngestWarning]]:
    files, links = corpus_files(root) if root.is_dir() else ([], [])
    out = {}
    for path in files:
        try:
            out[path.relative_to(root).as_posix()] = file_hash(read_bytes(path))
        except OSError:
            out[path.relative_to(root).as_posix()] = "unreadable"
    problem = "a symbolic link, not followed: the corpus is what is inside its folder; copy the file in instead"
    return out, [{"file": p.relative_to(root).as_posix(), "field": _LINK, "problem": problem} for p in links]


def _unchanged(manifest: Manifest, hashes: dict[str, str], links: list[IngestWarning], model: str) -> bool:
    # `links`: the warnings `_hashes` gives, each about a file that is not indexed; `model`: the one embedding
    recorded = {**manifest.files, **{src: err["hash"] for src, err in manifest.errors.items()}}
    return (
        manifest.model == model
        and manifest.chunker == CHUNKER_VERSION
        and recorded == hashes
        and not any(h == "unreadable" for h in hashes.values())
        # A link added or removed is a change to report, though it changes no chunk.
        and {(w["file"], w["field"]) for w in manifest.warnings if w.get("field") in _NOTED}
        == {(w["file"], w["field"]) for w in links}
    )


def sync(
    settings: Settings,
    *,
    rebuild: bool = False,
    progress: bool = True,
    embedder: Embedder | None = None,
) -> SyncReport:
    """Bring the index in line with `settings.corpus_dir` and the fetched docs (`settings.fetched_path`); safe to
    run again at any time.

    Holds the writer lock throughout: a second sync of the same folder or server waits up to
    `settings.writer_wait_s`, then raises `WriterBusy`.
    """
    started = time.perf_counter()
    root = settings.corpus_dir
    if not root.is_dir():
        raise FileNotFoundError(f"corpus folder not found: {root}")
    store = ChunkStore.open(settings)
    with writer_lock(store, settings) as lock:
        return _sync(
            settings, store, lock.confirm, rebuild=rebuild, progress=progress, embedder=embedder, started=started
        )


def _sync(
    settings: Settings,
    store: ChunkStore,
    confirm: Callable[[], None],
    *,
    rebuild: bool,
    progress: bool,
    embedder: Embedder | None,
    started: float,
) -> SyncReport:
    old = None if rebuild else store.manifest()
    model, embedder = _recorded_model(settings, old, embedder)
    if old and (old.model != model or old.chunker != CHUNKER_VERSION):
        logger.info("embedding model or chunker changed; rebuilding the index")
        old = None
    hashes, links, roots = _hashes(settings)
    report = SyncReport(files=len(hashes))
    if old and _unchanged(old, hashes, links, model):
        report.errors = [{"file": s, "error": e["error"]} for s, e in sorted(old.errors.items())]
        report.warnings = list(old.warnings)
        report.documents = list(old.documents)
        report.files -= len(report.errors)
        report.chunks = old.chunks
        # A writer killed mid-write left a collection behind: the server's is dropped now; the folder's wait for
        # the next write, since opening Chroma there would cost an unchanged sync a second.
        if store.remote:
            store.drop_stale(keep=old.collection)
        report.seconds = time.perf_counter() - started
        return report

    chunks, errors, warnings = read_files([(roots[s], roots[s] / s) for s in hashes], settings)
    for link in links:
        logger.info("skipped %s: %s", link["file"], link["problem"])  # a warning of the report, as metadata's
    warnings = links + warnings + _without_release(chunks)
    old_chunks = {c.id: c for c in store.load_chunks(old)} if old else {}
    # A file that became unreadable keeps its last good chunks: nothing indexed is lost to a bad edit.
    kept_sources = {e["file"] for e in errors} & {c.source for c in old_chunks.values()}
    chunks += [c for c in old_chunks.values() if c.source in kept_sources]
    warnings += [w for w in old.warnings if w["file"] in kept_sources] if old else []  # those chunks' own
    ids = {c.id for c in chunks}
    reuse = store.embeddings([i for i in ids if i in old_chunks], old) if old else {}
    todo = [c for c in chunks if c.id not in reuse]
    if todo and embedder is None:
        embedder = make_embedder(settings)  # built only when there is something to embed
        if mixes_precisions(model, embedder.name):  # the int8 model could not be made: no fp32 vector beside int8
            model, reuse, todo = embedder.name, {}, chunks
    vectors = _embed(todo, embedder, settings, progress)
    fresh = dict(zip((c.id for c in todo), vectors, strict=True))

    old_sources = {c.source for c in old_chunks.values()}
    for c in todo:
        if c.source in old_sources:
            report.updated += 1
        else:
            report.added += 1
    report.removed = len(set(old_chunks) - ids)
    # Same ids but other metadata (a front-matter url fixed, a bad version dropped): the chunks are rewritten.
    relabelled = any(old_chunks[c.id] != c for c in chunks if c.id in old_chunks)
    report.changed = bool(todo) or bool(report.removed) or not old or relabelled
    report.files = len(hashes) - len(errors)
    report.chunks = len(chunks)
    report.errors = errors
    report.warnings = warnings
    report.documents = documents(chunks)

    manifest = Manifest(
        collection=old.collection if old else "",
        model=model,
        chunker=CHUNKER_VERSION,
        files={s: h for s, h in hashes.items() if s not in {e["file"] for e in errors}},
        errors={e["file"]: {"hash": hashes.get(e["file"], ""), "error": e["error"]} for e in errors},
        warnings=warnings,  # kept, so an unchanged re-sync reports them again without reading a file
        documents=report.documents,
    )
    if report.changed:
        # Written in the order `load_chunks` reads them back (by source, then as written), so the lexical
        # index saved below is the one every reader of this generation would build.
        chunks.sort(key=lambda c: c.source)
        matrix = (
            np.stack([fresh[c.id] if c.id in fresh else reuse[c.id] for c in chunks]) if chunks else np.zeros((0, 1))
        )
        store.write_generation(chunks, matrix, manifest, before_live=confirm)
        save_chunks(settings, manifest.collection, chunks)
        lexical_index(settings, manifest.collection, chunks)
        save_vectors(settings, manifest.collection, chunks, matrix)
    else:  # only the error or warning list or file hashes moved: no vectors to write
        manifest.chunks = old.chunks if old else 0
        manifest.built_at = time.time()
        confirm()
        store.write_manifest(manifest)
    report.seconds = time.perf_counter() - started
    return report


def _recorded_model(settings: Settings, old: Manifest | None, embedder: Embedder | None) -> tuple[str, Embedder | None]:
    """The model name this sync records (`model_identity`), unless the embedder is that model at another
    precision (an int8 model that could not be made gives the fp32 one): its own name then, so an index never
    holds vectors of two precisions. Built here only when the index records another precision than the settings
    ask for, where the index would be re-embedded anyway."""
    model = model_identity(settings)
    if embedder is None and old is not None and mixes_precisions(old.model, model):
        embedder = make_embedder(settings)
    if embedder is not None and mixes_precisions(model, embedder.name):
        model = embedder.name
    return model, embedder


def _embed(chunks: list[Chunk], embedder: Embedder | None, settings: Settings, progress: bool) -> np.ndarray:
    if not chunks:
        return np.zeros((0, 1), dtype=np.float32)
    assert embedder is not None  # built by `_sync` when there is something to embed
    from tqdm import tqdm

    batch = settings.embedding_batch_size
    texts = [index_text(c) for c in chunks]
    parts = []
    # Longest first keeps padding per batch low (texts of a batch are padded to its longest); order is
    # restored afterwards.
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    with tqdm(total=len(chunks), desc="Embedding", unit="chunk", file=sys.stderr, disable=not progress) as bar:
        for start in range(0, len(order), batch):
            idx = order[start : start + batch]
            parts.append(embedder.encode([texts[i] for i in idx], batch_size=batch))
            bar.update(len(idx))
    vectors = np.concatenate(parts)
    out = np.empty_like(vectors)
    out[order] = vectors
    return out
