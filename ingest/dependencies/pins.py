"""What a project pins: one `Pin` per requirement, one `Problem` per line that cannot be read (named with its
file and line, skipped; the rest is read all the same).

`ingest.dependencies.files.read_pins(path)` reads any dependency file: requirements files and `pip freeze`
output by `ingest.dependencies.requirements`, the TOML files (`pyproject.toml`, `uv.lock`, `poetry.lock`) by
`ingest.dependencies.tables`. Requirement strings and versions are read by `packaging`, the parser pip vendors.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

MAX_FILE_BYTES = 5_000_000  # a dependency file is small text; a larger one is not read (a lock of ~20k packages)


@dataclass(frozen=True)
class Pin:
    """One requirement: its canonical name, the version it pins (exact) or its lower bound, as written."""

    name: str  # canonical ("python-dateutil", "sqlalchemy")
    version: str | None  # the exact pin ("2.0.1"), else the lower bound ("~=1.4" -> "1.4"), else None
    exact: bool  # `==X`/`===X` or a lock's version
    spec: str  # the specifier as written (">=1.4,<2", "^1.2" for Poetry), '' for none
    file: str
    line: int
    marker: str = ""  # the environment marker, as written ('' for none)
    constraint: bool = False  # read from a `-c` constraints file: a version for a name, not a dependency


@dataclass(frozen=True)
class Problem:
    """A line that could not be read, and why, in one line."""

    file: str
    line: int
    problem: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.problem}" if where else self.problem


@dataclass(frozen=True)
class Pins:
    pins: tuple[Pin, ...]
    problems: tuple[Problem, ...]


class PinsError(Exception):
    """A dependency file that cannot be read at all (missing, too large, not text, not TOML): one line."""


def read_text(path: Path) -> str:
    """A dependency file's text; `PinsError` when it is missing, a folder, too large or not UTF-8."""
    try:
        if not path.is_file():
            raise PinsError(f"{path}: no such file")
        if path.stat().st_size > MAX_FILE_BYTES:
            raise PinsError(f"{path}: larger than {MAX_FILE_BYTES} bytes; not a dependency file")
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise PinsError(f"{path}: not UTF-8 text (byte {e.start})") from None
    except OSError as e:
        raise PinsError(f"{path}: cannot read: {e.strerror or e}") from None


def pin_of(requirement: Requirement, *, file: str, line: int, constraint: bool = False) -> Pin:
    """A `Pin` from a parsed requirement: its exact version or its lower bound."""
    version, exact = bounds(requirement.specifier)
    return Pin(
        name=canonicalize_name(requirement.name),
        version=version,
        exact=exact,
        spec=str(requirement.specifier)
        if requirement.specifier
        else (f"@ {requirement.url}" if requirement.url else ""),
        file=file,
        line=line,
        marker=str(requirement.marker) if requirement.marker else "",
        constraint=constraint,
    )


def bounds(specifier: SpecifierSet) -> tuple[str | None, bool]:
    """The exact version a specifier pins (`==2.0.1`, `===2.0.1`) and True, else its highest lower bound (`>=`,
    `>`, `~=`, a wildcard `==1.4.*`) and False, else (None, False)."""
    lower: list[Version] = []
    for spec in specifier:
        wildcard = spec.version.endswith(".*")
        raw = spec.version.removesuffix(".*")
        try:
            version = Version(raw)
        except InvalidVersion:
            continue  # `===` takes any string; one that is no version is no bound to compare
        if spec.operator in ("==", "===") and not wildcard:
            return str(version), True
        if spec.operator in ("==", ">=", ">", "~="):
            lower.append(version)
    return (str(max(lower)), False) if lower else (None, False)


def dependencies(pins: Iterable[Pin]) -> list[Pin]:
    """One pin per dependency, in the order first read: its first requirement, with a constraint's version where
    the requirement pins none; names only a constraints file gives are no dependencies."""
    first: dict[str, Pin] = {}
    constrained: dict[str, Pin] = {}
    for pin in pins:
        if pin.constraint:
            constrained.setdefault(pin.name, pin)
        elif pin.name not in first or (first[pin.name].version is None and pin.version is not None):
            first[pin.name] = pin
    out = []
    for name, pin in first.items():
        if pin.version is None and name in constrained and constrained[name].version is not None:
            c = constrained[name]
            pin = Pin(name, c.version, c.exact, c.spec, c.file, c.line, pin.marker)
        out.append(pin)
    return out
