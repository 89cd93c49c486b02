"""A sync's reading of the corpus: every file loaded and chunked in a worker process, under a time budget that
grows with the file's size and a memory ceiling.

A few hundred crafted bytes can make a parser work for minutes or allocate gigabytes (chained reStructuredText
substitutions, a regular expression that backtracks on one long line); the sync holds the writer lock, and
`ask` and the web UI sync first, so one such file would stall the service. Read in `assistant.runtime.bounded`'s worker,
a file past its budget or ceiling costs its budget: it is named in the report's `errors` and skipped (keeping
its previous chunks, as any unreadable file does), and the sync goes on. The specific causes known fail fast
with a message of their own before that (`ingest.rst_limits`, YAML aliases in `ingest.loader`).

One worker reads all the files of a sync, so it starts once per sync that has something to read. Measured on
the PyTorch 2.7-2.12 release notes (7 files, 1,319 chunks) on a busy 2-core machine: reading them takes 0.25-0.4 s
in-process and 0.6-0.7 s in the worker (0.3 s of it the worker's start and imports), beside the minute or more
their embedding takes.
"""

from __future__ import annotations

import logging
from pathlib import Path

from assistant.model.errors import ReldocsError
from assistant.model.records import Chunk
from assistant.runtime.bounded import MB, BoundedWorker, Overrun
from assistant.runtime.settings import Settings
from ingest.chunking import chunk_document
from ingest.loader import DocumentError, load_document
from ingest.metadata import IngestWarning

logger = logging.getLogger(__name__)
_START_S = 120.0  # the worker's start and imports, on a machine as loaded as it may be


def read_chunks(path: Path, root: Path) -> tuple[list[Chunk], tuple[IngestWarning, ...]]:
    """One file's chunks and metadata warnings; raises `DocumentError` for a file that cannot be indexed, for
    whatever reason. Runs in the worker (a module-level function, so it pickles)."""
    try:
        doc = load_document(path, root)
        return chunk_document(doc), doc.warnings
    except (DocumentError, MemoryError):  # a MemoryError is the worker's ceiling: `Overrun` says so
        raise
    except Exception as e:  # a parser's crash on one file must not end the sync of the others
        logger.debug("reading %s failed", path, exc_info=True)
        raise DocumentError(f"could not be read ({type(e).__name__})") from None  # its message may quote the file


def _warm() -> None:
    """Worker side: the parsers' imports, done before the first file so its budget is spent on the file."""
    import yaml  # noqa: F401

    import ingest.rst  # noqa: F401


def budget_s(size: int, settings: Settings) -> float:
    """Seconds a file of `size` bytes may take to read and chunk, in tenths (never 0: pebble reads 0 as none)."""
    return max(0.1, round(settings.document_budget_s + settings.document_budget_s_per_mb * size / MB, 1))


def read_files(
    files: list[tuple[Path, Path]], settings: Settings
) -> tuple[list[Chunk], list[dict[str, str]], list[IngestWarning]]:
    """Chunks of every readable file of `files` ((root, path) pairs: the corpus's and the fetched docs', each
    file's source its path below its own root), the files skipped (with why) and the metadata warnings."""
    chunks: list[Chunk] = []
    errors: list[dict[str, str]] = []
    warnings: list[IngestWarning] = []
    if not files:
        return chunks, errors, warnings
    with BoundedWorker(memory_mb=settings.ingest_memory_mb) as worker:
        try:
            worker.run(_warm, seconds=_START_S)
        except Exception as e:  # not any file's doing: the sync cannot read its corpus
            raise ReldocsError(f"the process that reads corpus files did not start: {type(e).__name__}: {e}") from e
        for root, path in files:
            source = path.relative_to(root).as_posix()
            try:
                seconds = budget_s(path.lstat().st_size, settings)
            except OSError:  # gone since it was hashed: reading it says so
                seconds = settings.document_budget_s
            try:
                found, warned = worker.run(read_chunks, path, root, seconds=seconds)
            except DocumentError as e:
                problem = str(e)
            except Overrun as e:
                timed = "longer" in str(e)
                limit = "RELDOCS_DOCUMENT_BUDGET_S and _PER_MB set" if timed else "RELDOCS_INGEST_MEMORY_MB sets"
                problem = f"reading it {e}; not indexed ({limit} the limit; `ingest --rebuild` tries again)"
            except Exception as e:  # not the file's doing: the worker could not be started or reached
                raise ReldocsError(f"the process that reads corpus files failed: {type(e).__name__}: {e}") from e
            else:
                chunks.extend(found)
                warnings.extend(warned)
                for w in warned:
                    logger.info("%s: %s: %s", w["file"], w["field"], w["problem"])
                continue
            errors.append({"file": source, "error": problem})
            logger.warning("skipped %s: %s", source, problem)
    return chunks, errors, warnings
