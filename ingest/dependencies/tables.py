"""Pins of the TOML dependency files: `pyproject.toml` (PEP 621 `[project]`, PEP 735 `[dependency-groups]`,
Poetry's `[tool.poetry]` tables), `uv.lock` and `poetry.lock`, read by `tomllib`.

`tomllib` gives no line numbers: a pin's line is the first line at or after its table's header that holds the
value as written (quoted), which is where a reader of the file looks for it.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from ingest.dependencies.pins import Pin, Pins, PinsError, Problem, pin_of

# Poetry writes constraints its own way (`^1.2`, `~1.2`, `1.2.*`, `>=1,<2 || >=3`): the lower bound is the
# version after the operator, which `packaging` then reads.
_POETRY_PART = re.compile(r"^(\^|~=|~|>=|>|==|=|<=|<|!=)?\s*(\S+)$")


def _toml(path: Path, text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise PinsError(f"{path}: not TOML ({e})") from None


class _Lines:
    """Finds the line of a value in the file, searching on from its table's header."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()

    def header(self, *starts: str, at: int = 1) -> int:
        """The 1-based line of the first header (or key) that begins with one of `starts`, blanks aside (TOML allows
        `[ project ]` and `key = …`), at or after line `at`; else `at`."""
        found = (
            i + 1 for i in range(max(at - 1, 0), len(self.lines)) if "".join(self.lines[i].split()).startswith(starts)
        )
        return next(found, at)

    def value(self, value: str, start: int) -> int:
        """The 1-based line at or after line `start` that holds `value` quoted, else `start`."""
        quoted = (f'"{value}"', f"'{value}'", f"{value} =", f'"{value}" =')
        for i in range(max(start - 1, 0), len(self.lines)):
            if any(q in self.lines[i] for q in quoted):
                return i + 1
        return start


def read_pyproject(path: Path, text: str) -> Pins:
    """`[project].dependencies`, `[project.optional-dependencies]`, `[dependency-groups]`, and Poetry's
    `[tool.poetry.dependencies]`, `[tool.poetry.dev-dependencies]` and `[tool.poetry.group.*.dependencies]`."""
    data, lines, file = _toml(path, text), _Lines(text), str(path)
    pins: list[Pin] = []
    problems: list[Problem] = []
    project = data.get("project", {})
    if isinstance(project, dict):
        at = lines.header("[project]")
        _strings(project.get("dependencies", []), file, lines, at, pins, problems, "[project].dependencies")
        extras = project.get("optional-dependencies", {})
        at = lines.header("[project.optional-dependencies]", "optional-dependencies=", at=at)
        for group, values in extras.items() if isinstance(extras, dict) else ():
            _strings(values, file, lines, at, pins, problems, f"optional-dependencies.{group}")
    groups = data.get("dependency-groups", {})
    at = lines.header("[dependency-groups]")
    for group, values in groups.items() if isinstance(groups, dict) else ():
        # `{include-group = "test"}` entries name another group, which is read in its own right
        strings = [v for v in values if not isinstance(v, dict)] if isinstance(values, list) else values
        _strings(strings, file, lines, at, pins, problems, f"dependency-groups.{group}")
    poetry = data.get("tool", {}).get("poetry", {})
    if isinstance(poetry, dict):
        tables = [("dependencies", poetry.get("dependencies")), ("dev-dependencies", poetry.get("dev-dependencies"))]
        for name, group in (poetry.get("group") or {}).items():
            tables.append((f"group.{name}.dependencies", (group or {}).get("dependencies")))
        for name, table in tables:
            if isinstance(table, dict):
                at = lines.header(f"[tool.poetry.{name}]")
                _poetry(table, file, lines, at, pins, problems)
    return Pins(tuple(pins), tuple(problems))


def _strings(
    values: object, file: str, lines: _Lines, at: int, pins: list[Pin], problems: list[Problem], where: str
) -> None:
    if not isinstance(values, list):
        problems.append(Problem(file, at, f"{where} is not a list of requirements"))
        return
    for value in values:
        line = lines.value(str(value), at) if isinstance(value, str) else at
        if not isinstance(value, str):
            problems.append(Problem(file, line, f"{where}: not a requirement string: {str(value)[:60]}"))
            continue
        try:
            pins.append(pin_of(Requirement(value), file=file, line=line))
        except InvalidRequirement as e:
            problems.append(Problem(file, line, f"not a requirement ({str(e).splitlines()[0]}): {value[:80]}"))


def _poetry(table: dict[str, Any], file: str, lines: _Lines, at: int, pins: list[Pin], problems: list[Problem]):
    for name, value in table.items():
        if name.lower() == "python":
            continue  # the interpreter the project supports, no package
        line = lines.value(name, at)
        entries = value if isinstance(value, list) else [value]  # a list: one constraint per Python/platform
        constraints = []
        for entry in entries:
            if isinstance(entry, dict) and not any(k in entry for k in ("git", "path", "url", "file")):
                constraints.append(str(entry.get("version", "*")))
            elif isinstance(entry, str):
                constraints.append(entry)
        if not constraints:
            continue  # a git, path or URL dependency: not a release of the registry's
        try:
            version, exact = _poetry_bound(constraints)
        except InvalidVersion as e:
            problems.append(Problem(file, line, f"{name}: not a version constraint ({e})"))
            continue
        spec = " || ".join(c for c in constraints if c.strip() != "*")
        pins.append(Pin(canonicalize_name(name), version, exact, spec, file, line))


def _poetry_bound(constraints: list[str]) -> tuple[str | None, bool]:
    """The exact version (`1.2.3`, `==1.2.3`) of Poetry constraints, else their lowest lower bound."""
    lows: list[Version] = []
    exact: list[Version] = []
    for constraint in constraints:
        for alternative in constraint.split("||"):
            joined = re.sub(r"([\^~<>=!]=?)\s+", r"\1", alternative.strip())  # ">= 1.0" is ">=1.0"
            # split where a run of separators starts, the run whole (tried inside it, quadratic in its length)
            for part in re.split(r"(?<![,\s])[,\s]++(?=[\^~<>=!\d])", joined):
                m = _POETRY_PART.match(part.strip())
                if not part.strip() or part.strip() == "*" or m is None:
                    continue
                operator, raw = m.group(1) or "", m.group(2)
                if operator in ("<", "<=", "!="):
                    continue
                wildcard = raw.endswith((".*", ".x"))
                version = Version(raw.removesuffix(".*").removesuffix(".x"))
                (exact if operator in ("", "==", "=") and not wildcard else lows).append(version)
    if len(constraints) == 1 and len(exact) == 1 and not lows:
        return str(exact[0]), True
    found = lows + exact
    return (str(min(found)), False) if found else (None, False)


def read_uv_lock(path: Path, text: str) -> Pins:
    """Each locked package of a `uv.lock` from the registry (the project itself, editable or virtual, is left out)."""
    return _lock(path, text, local=("editable", "virtual", "directory", "path"))


def read_poetry_lock(path: Path, text: str) -> Pins:
    """Each locked package of a `poetry.lock` (those from git, a folder or a file are left out)."""
    return _lock(path, text, local=("git", "directory", "file", "url"))


def _lock(path: Path, text: str, *, local: tuple[str, ...]) -> Pins:
    data, lines, file = _toml(path, text), _Lines(text), str(path)
    pins: list[Pin] = []
    problems: list[Problem] = []
    packages = data.get("package", [])
    at = 1
    for package in packages if isinstance(packages, list) else ():
        at = lines.header("[[package]]", at=at)
        name, version = package.get("name"), package.get("version")
        line = lines.value(str(name), at) if name else at
        at = line + 1
        source = package.get("source") or {}
        kind = source.get("type") if isinstance(source, dict) else None  # poetry.lock's `type = "git"`
        if isinstance(source, dict) and (kind in local or any(k in source for k in local)):
            continue
        if not isinstance(name, str) or not isinstance(version, str):
            problems.append(Problem(file, line, "a [[package]] without a name and a version"))
            continue
        try:
            pins.append(Pin(canonicalize_name(name), str(Version(version)), True, f"=={version}", file, line))
        except InvalidVersion:
            problems.append(Problem(file, line, f"{name}: {version!r} is not a version"))
    return Pins(tuple(pins), tuple(problems))
