"""No quote carries markup: every unit the answerer can quote, from every shared document (PyTorch, pandas,
SQLAlchemy, Pydantic, Django; Markdown, RST, RST-in-.txt), reads as plain text plus `code` spans."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assistant.model.units import excerpt, units_of
from ingest.chunking import chunk_document
from ingest.loader import discover, load_document

SHARED = Path(__file__).resolve().parents[2] / "shared"
# the larger corpus (pandas, SQLAlchemy, Pydantic, Django) runs in the slow tier: the fast one stays under a minute
ROOTS = [SHARED / "corpus", pytest.param(SHARED / "corpus-more", marks=pytest.mark.slow)]
MARKUP = {
    "RST literal": re.compile(r"``"),
    "bullet": re.compile(r"^[*+•] "),
    "literal-block marker": re.compile(r"::$"),
    "role": re.compile(r"(?<![\w`]):[a-z][\w-]*:`"),
    "directive": re.compile(r"^\.\. [\w-]+::"),
    "MkDocs block": re.compile(r"^(?:!!!|===) "),
    "table rule": re.compile(r"\|\s*-{3,}"),
    "heading": re.compile(r"^#{1,6} "),
    "emphasis": re.compile(r"(?<![\w*])\*[^\s*`][^*`]*(?<=[^\s*`])\*(?![\w*])"),  # outside code: see below
}


_CODE = re.compile(r"`[^`]*`")  # code spans, where `*args` is code, not emphasis


def quotable(root: Path) -> list[tuple[str, str]]:
    out = []
    for path in discover(root):
        if path.name == "SOURCES.md":
            continue
        for chunk in chunk_document(load_document(path, root)):
            out += [(chunk.source, u.text) for u in units_of(chunk)]
            out.append((chunk.source, excerpt(chunk)))
    return out


@pytest.mark.parametrize("root", ROOTS, ids=lambda p: p.name)
def test_no_quote_holds_markup(root: Path) -> None:
    if not root.is_dir():
        pytest.skip(f"{root} is not present")
    units = quotable(root)
    assert len(units) > 500
    found = [
        (src, name, text[:120])
        for src, text in units
        for name, rx in MARKUP.items()
        if rx.search(text if name == "RST literal" else _CODE.sub("", text))
    ]
    assert not found, found[:10]
