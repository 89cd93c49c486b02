"""Dependencies' release docs: read what a project pins.

`read_pins(path)` and `read_all(paths)` read requirements files, `pip freeze` output, `pyproject.toml`,
`uv.lock` and `poetry.lock` (`files`, `pins`, `requirements`, `tables`).
"""

from ingest.dependencies.files import read_all, read_pins
from ingest.dependencies.pins import Pin, Pins, Problem

__all__ = ["Pin", "Pins", "Problem", "read_all", "read_pins"]
