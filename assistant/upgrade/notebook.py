"""A notebook's code cells as the scan reads them: Python only, IPython magics and shell lines made `pass` so
lines keep their numbers, the cells joined as one module (the kernel runs them in one namespace).

Read by hand: nbformat would add a dependency to read JSON.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

# Cell magics whose body is Python run as usual; any other (`%%bash`, `%%html`, `%%writefile`) holds no Python.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})
# A line IPython reads as a magic or a shell command: `%matplotlib inline`, `!pip install x`, `files = !ls`.
# `%` must be followed by a name and `!` not by `=`, so that a continued `!= b` or `% b` stays Python.
_MAGIC = re.compile(r"\s*(?:\w+(?:\s*,\s*\w+)*\s*=\s*)?(?:%%?[A-Za-z]|![^=])")


@dataclass(frozen=True)
class Cell:
    index: int  # among all the notebook's cells
    source: str  # magics made `pass`, newlines normalized
    lines: list[str]  # as written, for Finding.code


def code_cells(notebook: object) -> list[Cell]:
    """The code cells of a notebook's JSON, as Python; raises ValueError for JSON that is no notebook."""
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise ValueError("no list of cells")
    meta = notebook.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    info = meta.get("language_info") if isinstance(meta.get("language_info"), dict) else {}
    kernel = meta.get("kernelspec") if isinstance(meta.get("kernelspec"), dict) else {}
    language = info.get("name") or kernel.get("language") or "python"
    if str(language).lower() != "python":
        return []  # an R or Julia notebook holds no Python to scan
    cells = []
    for i, cell in enumerate(notebook["cells"]):
        if not isinstance(cell, dict):
            raise ValueError(f"cell {i} is not an object")
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(part, str) for part in source):
            source = "".join(source)
        if not isinstance(source, str):
            raise ValueError(f"cell {i} has no text for a source")
        source = re.sub(r"\r\n?", "\n", source)
        python = python_of(source)
        if python is not None:
            cells.append(Cell(i, python, source.split("\n")))
    return cells


def python_of(source: str) -> str | None:
    """A cell's source with each magic or shell line made a `pass` (so that lines keep their numbers and a
    block of only `!echo $i` stays a block), or None for a cell magic whose body is not Python."""
    first = source.lstrip().split("\n", 1)[0]
    if first.startswith("%%") and first[2:].split(" ", 1)[0] not in PYTHON_CELL_MAGICS:
        return None
    lines = source.split("\n")
    return "\n".join(line[: len(line) - len(line.lstrip())] + "pass" if _MAGIC.match(line) else line for line in lines)


def joined(cells: Sequence[Cell]) -> str:
    return "".join(cell.source if cell.source.endswith("\n") else cell.source + "\n" for cell in cells)
