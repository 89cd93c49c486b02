"""A cold start's two slow parts at once: the embedding model loads while the index generation is read.

Moved from the facade's `open`. A start then waits for the slower of the two only; a model that cannot load
is the error said first, since building a missing index would stop on it too.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from assistant.embed.embedder import Embedder, make_embedder, mixes_precisions
from assistant.index.generation import Generation, load_generation
from assistant.index.store import ChunkStore, Manifest
from assistant.model.errors import IndexNotReady, ReldocsError
from assistant.runtime.settings import Settings


def load_with_model(
    settings: Settings, store: ChunkStore, embedder: Embedder | None = None
) -> tuple[Generation, Embedder]:
    """The store's live generation and an embedder (`embedder`, or the settings' model, loaded meanwhile);
    raises `IndexNotReady` when the store holds no generation or one embedded at another precision, or the
    model's error when it cannot load."""
    manifest = store.manifest()
    with ThreadPoolExecutor(1, thread_name_prefix="embedder") as pool:
        loading = pool.submit(make_embedder, settings) if embedder is None else None
        try:
            generation = load_generation(settings, store, manifest)
        except ReldocsError:
            failed = loading.exception() if loading is not None else None
            if isinstance(failed, ReldocsError):
                raise failed from None
            raise
        embedder = embedder or loading.result()  # type: ignore[union-attr]
    check_precision(generation.manifest, embedder, settings.embedding_precision)
    return generation, embedder


def check_precision(manifest: Manifest, embedder: Embedder, asked: str = "") -> None:
    """Raise `IndexNotReady` when `embedder` is the index's model at another precision than built it (int8 and
    fp32), as a sync does on a model change: its queries would land near, not on, the passages' vectors. `asked`:
    the precision the settings ask for, which says whether the int8 model fell back here."""
    if not mixes_precisions(manifest.model, embedder.name):
        return
    from assistant.embed.quantize import INT8_SUFFIX

    if asked == "int8" and manifest.model.endswith(INT8_SUFFIX):  # recorded, but its model cannot be had here
        raise IndexNotReady(
            f"the index was embedded by {manifest.model}, whose int8 model cannot be made or loaded here (questions "
            f"would be embedded by {embedder.name}): set RELDOCS_EMBEDDING_PRECISION=fp32 and run "
            "`python app.py ingest --rebuild`"
        )
    raise IndexNotReady(
        f"the index was embedded by {manifest.model} and questions would be by {embedder.name}: "
        "run `python app.py ingest` to re-embed it, or set RELDOCS_EMBEDDING_PRECISION as it was"
    )
