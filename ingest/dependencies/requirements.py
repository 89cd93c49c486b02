"""Requirements files and `pip freeze` output: `-r`/`-c` includes (relative to the file naming them, and only
inside its project: the nearest folder up holding `.git`, `pyproject.toml`, `setup.py` or `setup.cfg`, else the
first file's own folder), extras, markers, pins, comments, `\\` continuations and `--hash` options; index and
install options are skipped. A line that cannot be read is named by its number and a short reason, its text not
repeated (a dependency file may be anyone's).

The requirement on each line is read by `packaging`; only the file format around it is read here, as pip's own
`req_file.py` reads it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

from ingest.dependencies.pins import Pin, Pins, PinsError, Problem, pin_of, read_text

MAX_INCLUDES = 50  # `-r`/`-c` files read from one file, however deep: a cycle or a fan-out stops here
_PROJECT_MARKERS = (".git", "pyproject.toml", "setup.py", "setup.cfg")
_REASON_CHARS = 80  # of packaging's own words on why a line is no requirement


def read_requirements(path: Path) -> Pins:
    """The pins of a requirements file and of the files it includes; `PinsError` when `path` cannot be read."""
    pins: list[Pin] = []
    problems: list[Problem] = []
    first = path.resolve()
    _read_requirements(path, pins, problems, seen=[first], root=project_folder(first.parent), constraint=False)
    return Pins(tuple(pins), tuple(problems))


def project_folder(folder: Path) -> Path:
    """The project `folder` belongs to: the nearest folder up from it with a project marker, else `folder`."""
    for candidate in (folder, *folder.parents):
        if any((candidate / marker).exists() for marker in _PROJECT_MARKERS):
            return candidate
    return folder


# Options a requirements line may start with: `-r`/`-c` are followed, the rest say where or how to install.
_INCLUDES = ("--requirement", "--constraint", "-r", "-c")
# A comment starts at a `#` at the line's start or after blanks (pip's rule: `name @ url#egg=x` keeps its `#`).
# It starts only where a run of blanks starts, and takes the run whole: tried inside a long run, it would read the
# rest of it again from each blank (time quadratic in the run).
_COMMENT = re.compile(r"(?:^|(?<!\s)\s++)#.*$")
# Per-requirement options after it (`--hash=sha256:…`, `--config-settings …`): cut at the first ` --`/` -x`.
_TRAILING_OPTIONS = re.compile(r"(?<!\s)\s++--?[A-Za-z]")  # from a run's start only, as `_COMMENT`


def _read_requirements(
    path: Path, pins: list[Pin], problems: list[Problem], *, seen: list[Path], root: Path, constraint: bool
) -> None:
    try:
        text = read_text(path)
    except PinsError as e:
        if len(seen) == 1:
            raise
        problems.append(Problem(str(path), 0, str(e).removeprefix(f"{path}: ")))
        return
    for number, line in _logical_lines(text):
        include = _include(line)
        if include is not None:
            option, name = include
            target = (path.parent / name).resolve()  # relative to the file that names it, as pip reads it
            why = _not_read(name, target, root, seen)
            if why:
                problems.append(Problem(str(path), number, f"{option} include not read: {why}"))
                continue
            seen.append(target)
            nested = constraint or option in ("-c", "--constraint")
            _read_requirements(target, pins, problems, seen=seen, root=root, constraint=nested)
            continue
        if line.startswith("-"):
            # `-e` (a local checkout or VCS URL, built from source: no registry release), `-i`/`--index-url`,
            # `--find-links`, `--pre`, `--require-hashes`: where and how to install, not what
            continue
        pin = _pin(line, str(path), number, problems, constraint=constraint)
        if pin is not None:
            pins.append(pin)


def _not_read(name: str, target: Path, root: Path, seen: list[Path]) -> str:
    """Why an include is not read ('' when it is): an absolute path, or one leading out of the project (a
    dependency file from elsewhere must not have other files of the machine read), a cycle, too many."""
    if Path(name).is_absolute() or re.match(r"^[A-Za-z]:[\\/]", name) or name.startswith("\\\\"):
        return "an absolute path"
    if not target.is_relative_to(root):
        return f"it leads outside the project folder {root}"
    if target in seen:
        return "already read"
    if len(seen) > MAX_INCLUDES:
        return f"more than {MAX_INCLUDES} included files"
    return ""


def _include(line: str) -> tuple[str, str] | None:
    """(option, file) of a `-r file`, `-rfile`, `--requirement=file` or `-c …` line, else None."""
    for option in _INCLUDES:
        rest = line[len(option) :] if line.startswith(option) else None
        if rest is None or (option.startswith("--") and rest[:1] not in ("=", " ", "\t")):
            continue
        name = rest.lstrip("= \t").strip()
        return (option, name) if name else None
    return None


def _logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """(first line number, text) of each non-empty line, comments removed and `\\` continuations joined."""
    pending, start = "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        if not pending:
            start = number
        line = _COMMENT.sub("", raw)
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line, pending = (pending + line).strip(), ""
        if line:
            yield start, line
    if pending.strip():
        yield start, pending.strip()


def _pin(line: str, file: str, number: int, problems: list[Problem], *, constraint: bool = False) -> Pin | None:
    options = _TRAILING_OPTIONS.search(line)
    text = line[: options.start()] if options else line
    try:
        requirement = Requirement(text)
    except InvalidRequirement as e:
        problems.append(Problem(file, number, f"not a requirement ({_first_line(str(e))})"))
        return None
    return pin_of(requirement, file=file, line=number, constraint=constraint)


def _first_line(text: str) -> str:
    first = text.strip().splitlines()[0] if text.strip() else "invalid"
    return first if len(first) <= _REASON_CHARS else first[: _REASON_CHARS - 1] + "…"
