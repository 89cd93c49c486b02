"""The document model: every format yields the same entries at ingest, the store keeps them, units read them."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from assistant.index.store import ChunkStore, Manifest
from assistant.model.document import Entry, dumps, loads
from assistant.model.records import Chunk
from assistant.model.units import excerpt, units_of
from ingest.chunking import CHUNKER_VERSION, chunk_document
from ingest.loader import load_document

RST = """\
Release 1.0
===========

Breaking changes
----------------

* ``Frame.append`` was removed. Use :func:`lib.concat` instead.

  It had been deprecated since 0.9.

  * Nested detail about `append`.

* The default of ``copy`` is now ``False``.

.. note::

   Plugins must be rebuilt.

.. code-block:: python

   frame = lib.concat([a, b])

Dependencies
------------

=======  ===============
Package  Minimum Version
=======  ===============
numpy    1.26.0
arrow    15.0.0
=======  ===============
"""

MARKDOWN = """\
# Guide

## Upgrading

Read this first. It explains the **changes**.

- `Model.dict()` is now [`model_dump()`](https://example.com/dump).

  The old name still works for now.

- Validators changed:
  - `@validator` is deprecated.

Version 2.11:
```python
model.model_dump()
```

| Pydantic V1 | Pydantic V2 |
| --- | --- |
| `.dict()` | `.model_dump()` |
| `.json()` | `.model_dump_json()` |
"""

HTML = """\
<html><body><h1>Release 1.0</h1><h2>Changes</h2>
<p>The <b>fast</b> path is now the default.</p>
<ul><li>Removed <code>old_api()</code>.</li><li>Added <a href="https://example.com/new">new_api()</a>.</li></ul>
<pre>pip install lib==1.0</pre>
<table><tr><th>Option</th><th>Default</th></tr><tr><td>fast</td><td>True</td></tr></table>
</body></html>
"""

FLATTENED = """\
Breaking Changes
●Issue #1
The minimum CUDA version to build from source is now 12.6.
✓Solution
Install CUDA 12.6 or newer before building.
Migration Steps
- 1If building from source, ensure your compiler supports C++20.
"""


def _entries(tmp_path: Path, name: str, body: str) -> list[tuple[str, str, str, int, bool]]:
    chunks = chunk_document(load_document(_write(tmp_path, name, body), tmp_path))
    return [(e.kind, e.text, e.label, e.depth, e.continues) for c in chunks for e in c.entries]


def test_rst_entries(tmp_path: Path) -> None:
    assert _entries(tmp_path, "notes.rst", RST) == [
        ("item", "`Frame.append` was removed. Use `lib.concat` instead.", "", 0, False),
        ("item", "It had been deprecated since 0.9.", "", 0, True),
        ("item", "Nested detail about `append`.", "", 1, False),
        ("item", "The default of `copy` is now `False`.", "", 0, False),
        ("paragraph", "Note: Plugins must be rebuilt.", "", 0, False),
        ("code", "frame = lib.concat([a, b])", "", 0, False),
        ("row", "Package: numpy — Minimum Version: 1.26.0", "", 0, False),
        ("row", "Package: arrow — Minimum Version: 15.0.0", "", 0, False),
    ]


def test_markdown_entries(tmp_path: Path) -> None:
    assert _entries(tmp_path, "guide.md", MARKDOWN) == [
        ("paragraph", "Read this first. It explains the changes.", "", 0, False),
        ("item", "`Model.dict()` is now `model_dump()`.", "", 0, False),  # link target gone, code kept
        ("item", "The old name still works for now.", "", 0, True),
        ("item", "Validators changed:", "", 0, False),
        ("item", "`@validator` is deprecated.", "", 1, False),
        ("paragraph", "Version 2.11:", "", 0, False),
        ("code", "model.model_dump()", "Version 2.11", 0, False),  # the line introducing the code names it
        ("row", "Pydantic V1: `.dict()` — Pydantic V2: `.model_dump()`", "", 0, False),
        ("row", "Pydantic V1: `.json()` — Pydantic V2: `.model_dump_json()`", "", 0, False),
    ]


def test_html_entries(tmp_path: Path) -> None:
    assert _entries(tmp_path, "page.html", HTML) == [
        ("paragraph", "The fast path is now the default.", "", 0, False),
        ("item", "Removed `old_api()`.", "", 0, False),
        ("item", "Added new_api().", "", 0, False),
        ("code", "pip install lib==1.0", "", 0, False),
        ("row", "Option | Default", "", 0, False),
        ("row", "fast | True", "", 0, False),
    ]


def test_flattened_page_entries_carry_their_label(tmp_path: Path) -> None:
    assert _entries(tmp_path, "migration-guide.txt", FLATTENED) == [
        ("item", "The minimum CUDA version to build from source is now 12.6.", "", 0, False),
        ("paragraph", "Install CUDA 12.6 or newer before building.", "Solution", 0, False),
        ("item", "If building from source, ensure your compiler supports C++20.", "", 0, False),  # "1If" unglued
    ]


def test_units_and_excerpt_read_the_entries(tmp_path: Path) -> None:
    body = MARKDOWN.split("| Pydantic")[0]  # without the table: one chunk
    (chunk,) = chunk_document(load_document(_write(tmp_path, "guide.md", body), tmp_path))
    units = units_of(chunk)
    assert [(u.text, u.lead, u.entry) for u in units] == [
        ("Read this first.", True, 1),
        ("It explains the changes.", False, 1),
        ("`Model.dict()` is now `model_dump()`.", True, 2),
        ("The old name still works for now.", True, 2),  # a further paragraph of entry 2
        ("Validators changed:", True, 3),
        ("`@validator` is deprecated.", True, 4),
        ("Version 2.11:", True, 5),  # the code block after it is no sentence
    ]
    assert excerpt(chunk) == (
        "Read this first. It explains the changes. `Model.dict()` is now `model_dump()`. The old name still works"
        " for now. Validators changed: `@validator` is deprecated. Version 2.11:"
    )
    solution = next(c for c in chunk_document(load_document(_write(tmp_path, "m.txt", FLATTENED), tmp_path)))
    assert "Solution: Install CUDA 12.6" in excerpt(solution)


def test_units_come_from_entries_not_from_text() -> None:
    entries = (
        Entry("item", "Removed the legacy loader entirely."),
        Entry("code", "load(path)  # This sentence is code."),
        Entry("item", "Use the streaming loader instead.", continues=True),
    )
    chunk = Chunk(
        "id", "- anything at all", "lib/1.0/notes.md", "T", "lib", "1.0", "release-notes", "S", entries=entries
    )
    assert [(u.text, u.entry) for u in units_of(chunk)] == [
        ("Removed the legacy loader entirely.", 1),
        ("Use the streaming loader instead.", 1),
    ]
    bare = Chunk("id2", "Some text\nwithout entries, read as one paragraph.", "a.md", "T", "lib", "1.0", "k", "S")
    assert excerpt(bare) == "Some text without entries, read as one paragraph."


def test_entries_survive_json_and_the_store(tmp_path: Path) -> None:
    entries = (
        Entry("paragraph", "Ünïcode “quotes” and `code`."),
        Entry("item", "Nested.", "Solution", 2, True),
        Entry("row", "A: 1 — B: 2"),
        Entry("code", "x = 1\ny = 2", "Version 2.11"),
    )
    assert loads(dumps(entries)) == entries
    assert loads("") == () and loads("not json") == () and loads('[["x"]]') == ()
    chunks = [
        Chunk("a", "text a", "lib/1.0/a.md", "T", "lib", "1.0", "release-notes", "S", entries=entries),
        Chunk("b", "text b", "lib/1.0/b.md", "T", "lib", "1.0", "release-notes", "S"),
    ]
    store = ChunkStore(tmp_path / "index")
    store.write_generation(chunks, np.ones((2, 4), dtype=np.float32), Manifest("", "model", CHUNKER_VERSION))
    assert store.load_chunks() == chunks
    # A generation written before the text moved into metadata held it as Chroma documents: still read.
    col = store.collection()
    old = {**col.get(ids=["a"])["metadatas"][0], "text": ""}
    col.update(ids=["a"], documents=["text a"], metadatas=[old], embeddings=np.ones((1, 4), dtype=np.float32))
    assert store.load_chunks() == chunks


def _write(root: Path, name: str, body: str) -> Path:
    path = root / "lib" / "1.0" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body, encoding="utf-8")
    return path
