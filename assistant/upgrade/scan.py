"""The code scan: where a user's Python files and notebooks hit the symbols that changes in release docs name.

`scan(paths, targets)` walks files and directories, `scan_source` reads pasted code; both return a `ScanReport`
of findings, exact or not (a member of a class used on a receiver of unknown type: "possible"; a use under a
version check or an ImportError fallback: guarded; a line silenced by `# reldocs: ignore[ID]` has none:
`assistant.upgrade.guards`), and of the files that could not be read or parsed, which are skipped while
everything else is still scanned (a module a few statements of which do not parse is read without them:
`assistant.upgrade.recover`). Name resolution
and matching live in `assistant.upgrade.visitor` and `assistant.upgrade.lookup`; the pre-pass that skips a module
hitting nothing, in `assistant.upgrade.prepass`.

Notebooks are read by `assistant.upgrade.notebook`: IPython magics are left out, and a
notebook's code cells are parsed as one module, as the kernel runs them in one namespace: an import in one cell
resolves a name in the next.
"""

from __future__ import annotations

import ast
import io
import json
import multiprocessing
import os
import re
import tokenize
import warnings
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

from assistant.runtime.bounded import BoundedWorker
from assistant.runtime.settings import Settings
from assistant.text.untrusted import one_line
from assistant.upgrade.findings import Finding, ScanError, ScanReport
from assistant.upgrade.guards import guards
from assistant.upgrade.limits import read_at_most, size_text
from assistant.upgrade.lookup import TargetIndex
from assistant.upgrade.notebook import code_cells, joined
from assistant.upgrade.places import Hit
from assistant.upgrade.prepass import might_hit
from assistant.upgrade.project import NONE, ProjectClasses, project_classes
from assistant.upgrade.recover import Skipped, recovered
from assistant.upgrade.target import Target
from assistant.upgrade.visitor import HitVisitor

SUFFIXES = (".py", ".ipynb")
SKIP_DIRS = frozenset({"__pycache__", "venv", "node_modules", "site-packages"})  # and every hidden one (.venv)
ERROR_CHARS = 200  # a parser's "expected one of …" lists every token; an error stays one readable line
_TOO_DEEP = "nested too deeply to read"
_NO_MEMORY = "nested too deeply, or too large to read in the memory allowed"
_Scanned = tuple[list["Finding"], list["ScanError"], int]  # findings, errors, files scanned (0 or 1)
# Each pass: its targets and the project's classes they type. The docs' targets and the code's are two passes over
# one parse of each file: the diff's many members must not change what the docs' names tell.
Passes = tuple[tuple[TargetIndex, ProjectClasses], ...]
Progress = Callable[[list[Path]], Iterable[Path]]


def scan(
    paths: Sequence[str | Path],
    targets: Sequence[Target],
    *,
    progress: Progress | None = None,
    max_bytes: int | None = None,
    max_notebook_bytes: int | None = None,
    parallel: bool = False,
    infer: bool = False,
    types_folder: Path | None = None,
    returns: Mapping[str, str] | None = None,
) -> ScanReport:
    """Scan files and directories (recursively: `*.py` and `*.ipynb`) for the places they hit `targets`.
    `progress` wraps the list of files found (a tqdm bar on the command line). A Python file over `max_bytes`,
    a notebook over `max_notebook_bytes` or with code cells over `max_bytes`, is named and skipped. With
    `parallel`, many files are read by a process per core (the analysis, most of a scan's time, holds one
    core per file); the caller's script must then guard its entry point (`if __name__ == "__main__":`), as
    `multiprocessing` requires, so it is the command line's choice, not the library's default. With `infer`, a
    receiver a product's call returned is typed from the product's source where it is installed
    (`assistant.upgrade.inferred`), what it returns kept in `types_folder` for the workers and later scans.
    Targets made from the releases' code are matched in a second pass of their own over the same parse of each
    file (`Target.from_code`).
    `returns` (the releases' annotations: `ApiDiff.returns`) types what a product's call returned, installed or
    not."""
    indexes = [
        TargetIndex.of(part, infer=infer, types_folder=types_folder, returns=returns) for part in _parts(targets)
    ]
    errors: list[ScanError] = []
    roots: dict[Path, Path] = {}
    found_files = list(_files(paths, errors, roots))
    shown = progress(found_files) if progress else found_files  # the bar is up while the project is read
    # The project's own classes, from every file found: a class imported from another module still types.
    passes = tuple(
        (index, project_classes(((path, roots[path]) for path in found_files), index.is_class, index.telling))
        for index in indexes
    )
    limits = (max_bytes, max_notebook_bytes)
    workers = min(os.cpu_count() or 1, MAX_WORKERS)
    if not parallel or len(found_files) < PARALLEL_FILES or workers < 2:
        return _gathered(((path, _scan_path(path, passes, limits)) for path in shown), errors)
    context = multiprocessing.get_context("forkserver")  # no fork of a process that may run threads (a server)
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_set_passes, initargs=(passes,)) as pool:
        results = pool.map(_scan_indexed, found_files, [limits] * len(found_files), chunksize=4)
        return _gathered(zip(shown, results, strict=False), errors)


PARALLEL_FILES = 12  # fewer files are scanned in this process: starting the workers would cost more
MAX_WORKERS = 4
_PASSES: Passes | None = None  # a worker's targets and project, set when it starts


def _set_passes(passes: Passes) -> None:
    global _PASSES
    _PASSES = passes


def _scan_indexed(path: Path, limits: tuple[int | None, int | None]) -> _Scanned:
    assert _PASSES is not None, "the worker starts with its passes"
    return _scan_path(path, _PASSES, limits)


def _gathered(scanned: Iterable[tuple[Path, _Scanned]], errors: list[ScanError]) -> ScanReport:
    findings: list[Finding] = []
    files = 0
    for _, (found, failed, count) in scanned:
        findings += found
        errors += failed
        files += count
    return _report(findings, errors, files)


def _scan_path(path: Path, passes: Passes, limits: tuple[int | None, int | None]) -> _Scanned:
    """One file's findings and errors, as `scan` reads it under its size limits."""
    max_bytes, max_notebook_bytes = limits
    notebook = path.suffix == ".ipynb"
    limit = max_notebook_bytes if notebook else max_bytes
    try:
        data = read_at_most(path, limit)
    except OSError as e:
        return [], [ScanError(str(path), f"cannot read: {e.strerror or e}")], 0
    if data is None:  # only ever with a limit
        kind = "notebook" if notebook else "file"
        return [], [ScanError(str(path), f"not scanned: over the {size_text(limit or 0)} limit per {kind}")], 0
    own = tuple((index, project.in_file(str(path))) for index, project in passes)
    return _scan_data(data, str(path), own, notebook=notebook, max_code=max_bytes)


def scan_capped(
    paths: Sequence[str | Path],
    targets: Sequence[Target],
    settings: Settings,
    *,
    progress: Progress | None = None,
    worker: BoundedWorker | None = None,
    parallel: bool = False,
    returns: Mapping[str, str] | None = None,
) -> ScanReport:
    """`scan` within the settings' size caps; in `worker` (a bounded process, one scan at a time) when given,
    raising `Overrun` past `scan_timeout_s` or its memory ceiling; else `parallel` as `scan` says."""
    how = {
        "max_bytes": settings.scan_max_file_kb * 1024,
        "max_notebook_bytes": settings.scan_max_notebook_kb * 1024,
        "infer": settings.scan_infer_types,
        "types_folder": settings.types_path,
        "returns": returns,
    }
    if worker is None:
        return scan(paths, targets, progress=progress, parallel=parallel, **how)  # type: ignore[arg-type]
    return worker.run(scan, list(map(Path, paths)), targets, seconds=settings.scan_timeout_s, **how)


def scan_source(
    source: str, targets: Sequence[Target], *, filename: str = "<source>", returns: Mapping[str, str] | None = None
) -> ScanReport:
    """Scan code given as text (pasted in the web UI): Python, or a notebook's JSON if `filename` ends `.ipynb`."""
    passes = tuple((TargetIndex.of(part, returns=returns), NONE) for part in _parts(targets))
    if filename.endswith(".ipynb"):
        found, failed, scanned = _scan_notebook(source, filename, passes)
    else:
        found, failed, scanned = _scan_python(source, filename, passes)
    return _report(found, failed, scanned)


def _parts(targets: Sequence[Target]) -> list[list[Target]]:
    """The docs' targets and the code's, each matched in a pass of its own: one pass when only one kind is given,
    and one with no targets when none are (an empty index looks up nothing)."""
    parts = [[t for t in targets if not t.from_code], [t for t in targets if t.from_code]]
    return [part for part in parts if part] or [[]]


def files_to_scan(paths: Sequence[str | Path]) -> list[Path]:
    """The files a scan of `paths` reads, in its order (what cannot be read left out)."""
    return list(_files(paths, [], {}))


def _files(paths: Sequence[str | Path], errors: list[ScanError], roots: dict[Path, Path]) -> Iterator[Path]:
    """The files to scan, each once: a file as given (whatever its suffix), a directory's Python files and
    notebooks in sorted order, outside hidden directories, virtualenvs, caches and installed packages; `roots`
    gets the folder each was found under (a file given alone: its own folder)."""
    seen: set[Path] = set()

    def new(path: Path) -> bool:
        key = path.resolve()
        if key in seen:
            return False
        seen.add(key)
        return True

    def unreadable(error: OSError) -> None:
        errors.append(ScanError(str(error.filename), f"cannot read: {error.strerror or error}"))

    for given in map(Path, paths):
        if given.is_file():
            if new(given):
                roots[given] = given.parent
                yield given
        elif given.is_dir():
            for root, dirs, names in os.walk(given, onerror=unreadable):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS)
                for name in sorted(names):
                    path = Path(root, name)
                    if name.endswith(SUFFIXES) and new(path):
                        roots[path] = given
                        yield path
        else:
            errors.append(ScanError(str(given), "no such file or directory"))


def _scan_data(
    data: bytes,
    shown: str,
    passes: Passes,
    *,
    notebook: bool,
    max_code: int | None,
) -> _Scanned:
    if notebook:
        return _scan_notebook(data, shown, passes, max_code)
    try:
        # A BOM or a PEP 263 cookie says how the file is encoded, else it is UTF-8, as for Python itself.
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        source = data.decode(encoding)
    except (SyntaxError, UnicodeDecodeError) as e:
        return [], [ScanError(shown, f"cannot decode: {_one_line(str(e))}")], 0
    return _scan_python(source, shown, passes)


def _scan_python(source: str, shown: str, passes: Passes) -> _Scanned:
    lines = _lines(source)
    errors = []
    try:
        hits = _hits(source, passes)
    except _Unparsable as e:
        cause = e.__cause__
        syntax = isinstance(cause, SyntaxError) and str(e).startswith("syntax error")  # not nesting too deep
        found = recovered(lines, cause) if syntax else None  # type: ignore[arg-type]
        if found is None:
            return [], [ScanError(shown, str(e))], 0
        tree, skipped = found
        try:
            hits = _tree_hits(tree, source, passes)
        except _Unparsable as deep:  # what was read is too deep for the walk
            return [], [ScanError(shown, str(deep))], 0
        # The rest of the module was read: the lines that were not are reported, as a notebook's bad cells are.
        errors = [ScanError(shown, f"syntax error at {_span(s)}: {_one_line(s.error)}; {_REST}") for s in skipped]
    return [_finding(shown, hit, hit.line, lines) for hit in hits], errors, 1


def _scan_notebook(data: str | bytes, shown: str, passes: Passes, max_code: int | None = None) -> _Scanned:
    try:
        cells = code_cells(json.loads(data))
    except (ValueError, RecursionError) as e:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return [], [ScanError(shown, f"malformed notebook: {_one_line(str(e))}")], 0
    code = joined(cells)
    if max_code is not None and len(code.encode("utf-8", "surrogatepass")) > max_code:
        return [], [ScanError(shown, f"not scanned: its code is over the {size_text(max_code)} limit per file")], 0
    errors: list[ScanError] = []
    try:
        hits = _hits(code, passes)
    except _Unparsable:
        good = []
        for cell in cells:
            try:
                _check_syntax(cell.source)
                good.append(cell)
            except _Unparsable as e:
                errors.append(ScanError(shown, f"cell {cell.index}: {e}"))
        cells = good
        hits = _hits(joined(cells), passes)  # modules that parse alone parse one after the other
    starts = []  # the line of the joined source each cell starts at
    line = 1
    for cell in cells:
        starts.append(line)
        line += joined([cell]).count("\n")
    findings = []
    for hit in hits:
        at = bisect_right(starts, hit.line) - 1
        cell = cells[at]
        findings.append(_finding(shown, hit, hit.line - starts[at] + 1, cell.lines, cell=cell.index))
    return findings, errors, 1


class _Unparsable(Exception):
    """Source that does not parse; the message is the one line a `ScanError` shows."""


def _hits(source: str, passes: Passes) -> list[Hit]:
    """The hits of one module's source; raises `_Unparsable`."""
    return _tree_hits(_parsed(source), source, passes)


def _tree_hits(tree: ast.Module, source: str, passes: Passes) -> list[Hit]:
    """Every pass's hits in one parsed module, but those on a silenced line; guarded ones marked."""
    hits: list[Hit] = []
    try:
        for index, project in passes:
            if might_hit(tree, index):
                hits += HitVisitor(index, project).hits(tree, source)
    except RecursionError as e:
        raise _Unparsable(_TOO_DEEP) from e
    if not hits:
        return hits
    marks = guards(tree, source)
    return [replace(h, guarded=marks.why(h.line)) for h in hits if not marks.silenced(h.line, h.change)]


def _check_syntax(source: str) -> None:
    """Raise `_Unparsable` as `_hits` does if the source does not parse."""
    _parsed(source)


def _parsed(source: str) -> ast.Module:
    """The source as this Python parses it; raises `_Unparsable` saying where and why it does not."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escape sequences and the like are none of a scan's business
        try:
            return ast.parse(source)
        except SyntaxError as e:
            if e.msg == "too many nested parentheses" or not e.lineno:
                raise _Unparsable(_TOO_DEEP) from e
            raise _Unparsable(f"syntax error at line {e.lineno}: {_one_line(e.msg)}") from e
        except RecursionError as e:
            raise _Unparsable(_TOO_DEEP) from e
        except MemoryError as e:  # CPython's parser says so of deep nesting too (`-----…1`)
            raise _Unparsable(_NO_MEMORY) from e


_REST = "the rest of the file was scanned"


def _span(skipped: Skipped) -> str:
    if skipped.first == skipped.last:
        return f"line {skipped.first}"
    return f"lines {skipped.first}-{skipped.last}"


def _finding(shown: str, hit: Hit, line: int, lines: Sequence[str], cell: int | None = None) -> Finding:
    exact = hit.exact and not hit.guarded
    return Finding(shown, line, hit.col, lines[line - 1].strip(), hit.symbol, hit.change, exact, cell, hit.guarded)


def _lines(source: str) -> list[str]:
    # The line breaks Python's tokenizer knows; str.splitlines would also break at form feeds.
    return re.split(r"\r\n|\r|\n", source)


def _one_line(text: str) -> str:
    text = one_line(text)  # a parser's message quotes the user's code: nothing a terminal acts on, one line
    return text if len(text) <= ERROR_CHARS else text[: ERROR_CHARS - 1] + "…"


def _report(findings: list[Finding], errors: list[ScanError], files: int) -> ScanReport:
    """Findings in order, each place and change once (an exact hit before a possible one); errors by file."""
    ordered = sorted(
        findings,
        key=lambda f: (f.file, -1 if f.cell is None else f.cell, f.line, f.col, f.change, not f.exact, f.symbol),
    )
    seen = set()
    unique = []
    for finding in ordered:
        key = (finding.file, finding.cell, finding.line, finding.col, finding.change)
        if key not in seen:
            seen.add(key)
            unique.append(finding)
    return ScanReport(tuple(unique), tuple(sorted(errors, key=lambda e: e.file)), files)
