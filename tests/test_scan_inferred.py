"""Receivers typed from the product's installed source (`assistant.upgrade.inferred`): what a reader of the product
returns, which the code does not say, read by jedi from a package installed on the path, and kept on disk for the
next scan. Integration tier: jedi reads real source."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

import assistant.upgrade.inferred as inferred
from assistant.upgrade.scan import Target, scan

pytestmark = pytest.mark.slow

PACKAGE = """
class Frame:
    def append(self, other): ...
    def head(self): ...

class Reader:
    def close(self): ...

def read_frame(path) -> Frame:
    return Frame()

def read_table(path) -> "Frame | Reader":
    ...

def read_any(path) -> "Frame | Table":
    ...

class Table(Frame): ...
"""

CODE = """import {name} as fp

def load(path):
    old = fp.read_frame(path)
    return old.append(path)

def either(path):
    t = fp.read_table(path)
    return t.append(path)

def unsure(path):
    u = fp.read_any(path)
    return u.append(path)

def listed(items):
    old = list(items)
    return old.append(1)
"""


@pytest.fixture
def product(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """An installed product of its own name (an import cached under another test's name is no help)."""
    name = f"frameprod_{tmp_path.name.replace('-', '_')}"
    site = tmp_path / "site"
    (site / name).mkdir(parents=True)
    (site / name / "__init__.py").write_text(PACKAGE)
    (site / f"{name}-1.0.dist-info").mkdir()
    (site / f"{name}-1.0.dist-info" / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (site / f"{name}-1.0.dist-info" / "top_level.txt").write_text(f"{name}\n")
    monkeypatch.syspath_prepend(str(site))
    inferred._release.cache_clear()
    return name


def _targets(name: str) -> list[Target]:
    gone = [Target("c1", f"{name}.Frame.append", member_of="Frame", family=(name,), gone=True)]
    return [*gone, Target("c2", f"{name}.Table.head", member_of="Table", family=(name,), gone=True)]


def test_what_an_installed_reader_returns_types_its_receiver(tmp_path: Path, product: str) -> None:
    code = tmp_path / "code"
    code.mkdir()
    (code / "m.py").write_text(CODE.format(name=product))
    kept = tmp_path / "types"
    with_types = scan([code], _targets(product), infer=True, types_folder=kept)
    exact = [(f.line, f.symbol) for f in with_types.findings if f.exact]
    # `old` holds a `Frame`; `t` a `Frame` or a `Reader`, of which only `Frame` is a class the targets name; `u` a
    # `Frame` or a `Table`, two classes they name: unknown. A builtin list is never asked about.
    assert exact == [(5, f"{product}.Frame.append"), (9, f"{product}.Frame.append")]
    without = scan([code], _targets(product))
    assert [f for f in without.findings if f.exact] == []
    # what jedi said is kept, per release of the product, for the next scan's processes
    files = list(kept.glob(f"{product}-{product}-1.0-jedi-*.sqlite3"))
    assert len(files) == 1
    with sqlite3.connect(files[0]) as db:
        calls = {row[0] for row in db.execute("SELECT call FROM answers")}
    assert {f"{product}.read_frame", f"{product}.read_table", f"{product}.read_any"} <= calls
    inferred._ANSWERS.clear()
    assert scan([code], _targets(product), infer=True, types_folder=kept) == with_types


def test_a_product_not_installed_is_never_asked_about(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(CODE.format(name="no_such_product_here"))
    found = _targets("no_such_product_here")
    assert scan([tmp_path], found, infer=True, types_folder=tmp_path / "types") == scan([tmp_path], found)
    assert not (tmp_path / "types").exists()
    assert "no_such_product_here" not in sys.modules
