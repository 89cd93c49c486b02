"""Receiver types from the product's own source, where it is installed: what `pd.read_csv(p)` or `df.groupby(k)`
returns, which the code does not say and the release docs seldom do.

`assistant.upgrade.receivers` types a name only where the code says so plainly (`df = pd.DataFrame(…)`, an
annotation); a name bound from a product's reader or method (`old = pd.read_csv(p)`, `g = df.groupby("k")`) stays
unknown, and `old.append(df)` is then a possible hit at best. Where the product is installed in the environment the
scan runs in (a user's project environment holds the release the code was written for), jedi reads its source,
annotations and stubs statically and says what the call returns; the scanned code is never run, and the product
is not imported into this process (jedi reads a compiled module in a subprocess of its own). A call is asked
about once per process, by its qualified name (`pandas.read_csv`, `pandas.DataFrame().groupby`), whatever its
arguments: a call jedi types as more than one class the targets name (`pd.concat`: a `DataFrame` or a `Series`),
or as none, leaves the name unknown, as without this module, which only ever adds a type. Only names a target's
member is used on are asked about, so a module that needs no answer costs nothing; a first answer from a large
package takes jedi a second or two, later ones milliseconds (`bench/scan_speed.py --infer` measures it against
the floor).

Written by hand around jedi: jedi infers types; which calls to ask about and what an answer means for the targets
is this project's.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import json
import re
import sqlite3
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import ClassVar

_MODULE_PART = re.compile(r"[a-z_][a-z0-9_]*")  # a module's name, by PEP 8: what an import statement may name


@cache
def installed(module: str) -> bool:
    """Whether a top module can be found in the environment the scan runs in (it is not imported)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


_ANSWERS: dict[tuple[str, str], tuple[str, ...]] = {}  # (cache folder, call) -> full names of what it returns


def returned(call: str, folder: Path | None = None) -> tuple[str, ...]:
    """The full names of the classes whose instances a call returns (`pandas.read_csv` ->
    `pandas.core.frame.DataFrame`, `pandas.io.parsers.readers.TextFileReader`), as jedi infers them from the
    installed source; `call` is the callee's expression, its modules dotted from the top one
    (`pandas.DataFrame().groupby` for a method of an instance). Empty where jedi finds nothing or fails. With
    `folder`, answers are kept there per release of the product and of jedi, for other processes and later scans."""
    key = (str(folder or ""), call)
    if key not in _ANSWERS:
        kept = _Kept.of(folder, call.split(".", 1)[0]) if folder is not None else None
        found = kept.get(call) if kept is not None else None
        if found is None:
            found = _infer(call)
            if kept is not None:
                kept.put(call, found)
        _ANSWERS[key] = found
    return _ANSWERS[key]


class _Kept:
    """Answers kept on disk for one release of a product (and of jedi): an SQLite file the scan's worker
    processes share. A file that cannot be opened or written is left alone: jedi is then asked again."""

    _open: ClassVar[dict[Path, _Kept | None]] = {}  # each file's connection, once a process

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    @classmethod
    def of(cls, folder: Path, top: str) -> _Kept | None:
        release = _release(top)
        if release is None:
            return None
        path = folder / f"{top}-{release}.sqlite3"
        if path not in cls._open:
            try:
                folder.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(path, timeout=30, isolation_level=None)
                db.execute("CREATE TABLE IF NOT EXISTS answers (call TEXT PRIMARY KEY, names TEXT NOT NULL)")
                cls._open[path] = cls(db)
            except (OSError, sqlite3.Error):
                cls._open[path] = None
        return cls._open[path]

    def get(self, call: str) -> tuple[str, ...] | None:
        try:
            row = self.db.execute("SELECT names FROM answers WHERE call = ?", (call,)).fetchone()
        except sqlite3.Error:
            return None
        return tuple(json.loads(row[0])) if row else None

    def put(self, call: str, names: tuple[str, ...]) -> None:
        # another process holding the file too long: this answer is not kept, the scan goes on
        with contextlib.suppress(sqlite3.Error):
            self.db.execute("INSERT OR REPLACE INTO answers VALUES (?, ?)", (call, json.dumps(names)))


@cache
def _release(top: str) -> str | None:
    """ "pandas-3.1.1-jedi-0.20.0": the installed release of the distribution providing a top module, and
    jedi's; None where either is not installed."""
    try:
        dists = importlib.metadata.packages_distributions().get(top, [])
        product = f"{dists[0]}-{importlib.metadata.version(dists[0])}" if dists else None
        return f"{product}-jedi-{importlib.metadata.version('jedi')}" if product else None
    except importlib.metadata.PackageNotFoundError:
        return None


def returned_class(call: str, class_of: Callable[[str], str | None], folder: Path | None = None) -> str | None:
    """The one class the targets name (`class_of` maps a full name to it, or to None) whose instance `call`
    returns; None where it returns none of them, or more than one. `folder` keeps answers (`returned`)."""
    found = {c for name in returned(call, folder) if (c := class_of(name))}
    return found.pop() if len(found) == 1 else None


def _infer(call: str) -> tuple[str, ...]:
    parts = call.split(".")
    modules = parts[:1]  # the top module; then `import pandas.io.sql` for `pandas.io.sql.read_sql`
    for part in parts[1:-1]:
        if not _MODULE_PART.fullmatch(part):
            break  # a class's (`pandas.DataFrame().groupby`)
        modules.append(part)
    if not installed(modules[0]):
        return ()
    try:
        import jedi  # heavy, and needed only where a call is asked about
    except ImportError:
        return ()
    code = f"import {'.'.join(modules)}\n_returned = {call}()\n_returned\n"
    try:
        # the paths this process imports from, where `installed` found the product
        project = jedi.Project(Path.cwd(), added_sys_path=[p for p in sys.path if p])
        names = jedi.Script(code, project=project).infer(3, 0)
        return tuple(sorted({n.full_name for n in names if n.type == "instance" and n.full_name}))
    except Exception:  # jedi raises its own errors on code it cannot follow: the scan goes on without
        return ()
