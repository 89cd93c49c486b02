"""What kind of name a role says a code name is survives ingest (issue #38): the change keeps "func", "meth",
"class" for each name it is about, and the plan reads it: a bare `:func:` name is the product's function, a
dotted `:func:` name no class's member. Through the real loader and chunker, a neutral product (acme)."""

from __future__ import annotations

from pathlib import Path

from assistant.index.catalog import Catalog
from assistant.model.changes import dumps, loads
from assistant.upgrade.plan import make_plan
from ingest.chunking import chunk_document
from ingest.loader import load_document
from ingest.rst_roles import role_kinds

NOTES = """Acme 2.0.0
==========

Removals
--------

- Removed the ``truediv`` keyword from :func:`evaluate` (:issue:`4`)
- Removed :meth:`~acme.Frame.iteritems`, use :meth:`.Frame.items` instead
- Removed :func:`linalg.old_norm`, use :func:`linalg.norm` instead
"""


def test_role_kinds_are_read_from_rst_and_myst_the_first_role_of_a_name_winning() -> None:
    text = ":func:`pivot` :py:meth:`~acme.Frame.append()` :class:`_orm.Session` {func}`acme.trapz` :meth:`pivot`"
    assert role_kinds(text + " :issue:`12` :ref:`label`") == {
        "pivot": "func",
        "acme.Frame.append": "meth",
        "orm.Session": "class",
        "acme.trapz": "func",
    }


def test_the_plan_reads_what_the_roles_say_of_each_name(tmp_path: Path) -> None:
    path = tmp_path / "acme" / "2.0.0" / "notes.rst"
    path.parent.mkdir(parents=True)
    path.write_text(NOTES)
    chunks = chunk_document(load_document(path, tmp_path))
    changes = [c for chunk in chunks for c in chunk.changes]
    kinds = {s: k for c in changes for s, k in zip(c.symbols, c.kinds, strict=True)}
    assert kinds.items() >= {("evaluate", "func"), ("acme.Frame.iteritems", "meth"), ("linalg.old_norm", "func")}
    assert loads(dumps(tuple(changes))) == tuple(changes)  # stored with the chunk, read back the same
    plan = make_plan(chunks, Catalog.learn(chunks), "1.0", "2.0", "acme")
    by_name = {line.symbols[0]: line for line in plan.changes}
    assert "acme.evaluate" in by_name  # a bare name the docs mark as a function is the product's
    assert by_name["linalg.old_norm"].members == ()  # a module's function, no member of a class `linalg`
