"""`read_pins(path)`: the pins of any dependency file, read by the reader its name calls for; `read_all(paths)`:
those of several, a file that cannot be read at all one problem among the others."""

from __future__ import annotations

from pathlib import Path

from ingest.dependencies import requirements, tables
from ingest.dependencies.pins import Pin, Pins, PinsError, Problem, read_text


def read_pins(path: Path) -> Pins:
    """Every pin of the dependency file at `path`, by its name: `pyproject.toml`, `uv.lock`, `poetry.lock`, else
    a requirements file (or `pip freeze` output). Raises `PinsError` when the file itself cannot be read."""
    readers = {
        "pyproject.toml": tables.read_pyproject,
        "uv.lock": tables.read_uv_lock,
        "poetry.lock": tables.read_poetry_lock,
    }
    reader = readers.get(path.name.lower())
    return reader(path, read_text(path)) if reader is not None else requirements.read_requirements(path)


def read_all(paths: list[Path]) -> Pins:
    """The pins of every file of `paths`, in order; a file that cannot be read is a problem of its own (line 0)."""
    pins: list[Pin] = []
    problems: list[Problem] = []
    for path in paths:
        try:
            read = read_pins(path)
        except PinsError as e:
            problems.append(Problem(str(path), 0, str(e).removeprefix(f"{path}: ")))
            continue
        pins += read.pins
        problems += read.problems
    return Pins(tuple(pins), tuple(problems))
