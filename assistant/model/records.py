"""Data the core returns: frozen dataclasses that every interface renders in its own way."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from assistant.model.changes import Change
from assistant.model.document import Entry

Mode = Literal["extractive", "llm"]


@dataclass(frozen=True)
class Chunk:
    """One indexed piece of a document, with the metadata its citations need."""

    id: str
    text: str
    source: str  # path relative to the corpus root, always with forward slashes
    title: str
    product: str
    version: str
    kind: str
    section: str
    language: str = "en"
    url: str = ""
    # Where its release was read: "folder", "front matter", "file name", "title", "heading" (a one-release
    # document's first), "lead" (a guide's first paragraph), "headings" (a changelog's release headings); "" when
    # it has none.
    release_from: str = field(default="", kw_only=True)  # keyword only: callers pass `entries` by position
    entries: tuple[Entry, ...] = ()  # its paragraphs, list items and code as ingest parsed them
    changes: tuple[Change, ...] = ()  # the changes its entries announce (ingest.changes), for upgrade plans


@dataclass(frozen=True)
class Passage:
    """A chunk found for a query: fused score (higher is better) and the two signals behind it."""

    chunk: Chunk
    score: float
    similarity: float | None = None  # cosine similarity to the query, when dense search found it
    bm25: float | None = None  # BM25 score, when lexical search found it
    # Whether both searches rank it among their first few (of the product and release the question names);
    # None where no search said (a passage built by hand).
    both: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: scores first, then the chunk's fields (`search --json`, the web API); the entries
        and changes are left out, as they restate the text."""
        chunk = {k: v for k, v in asdict(self.chunk).items() if k not in ("entries", "changes")}
        return {"score": self.score, "similarity": self.similarity, "bm25": self.bm25, **chunk}


@dataclass(frozen=True)
class Citation:
    """A numbered source behind an answer; `n` matches the [n] markers in the answer text."""

    n: int
    title: str
    version: str
    kind: str
    section: str
    source: str
    url: str
    quote: str
    product: str = ""  # whose docs: said when the release the question names is several products'


@dataclass(frozen=True)
class Answer:
    """What `KnowledgeBase.ask` returns; `found` is False for honest refusals, which cite nothing."""

    question: str
    text: str
    found: bool
    citations: tuple[Citation, ...] = ()
    mode: Mode = "extractive"
    language: str = "en"
    notice: str | None = None
    final: bool = True
    timings_ms: dict[str, float] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: the `ask --json` contract, also returned by the web API."""
        return {
            "question": self.question,
            "answer": self.text,
            "found": self.found,
            "mode": self.mode,
            "language": self.language,
            "notice": self.notice,
            "citations": [asdict(c) for c in self.citations],
            "timings_ms": self.timings_ms,
        }
