"""Dependencies' release docs: read what a project pins, then fetch each dependency's release notes from the
package registry into the fetched-docs folder that the sync indexes with the corpus.

`read_pins(path)` and `read_all(paths)` read requirements files, `pip freeze` output, `pyproject.toml`,
`uv.lock` and `poetry.lock` (`files`, `pins`, `requirements`, `tables`). `fetch_docs(wanted, settings=...,
client=...)` fetches (`fetch`): the registry's JSON (`registry`), the release's source distribution read as
data, never run (`archive`, under the caps of `limits`), or the project's changelog link (`links`), written
atomically with a provenance record (`store`), the releases each file names read from its headings
(`releases`), every request through one retrying client (`transport`). `moves(old, new)` says which pins moved
between two revisions of a project's dependency files, `docs_in_place` which release's docs are fetched already
(`moves`); `prepare_upgrade(settings, old, new)` does all of that for an upgrade in one call (`upgrades`).
`fetch_sources(product, since, to, settings=...)` unpacks the releases' own Python source (`.py`/`.pyi` only, never
run) for the API diff (`sources`, with `unpack` and `import_names`).
"""

from ingest.dependencies.fetch import (
    FetchedFile,
    FetchedPackage,
    FetchReport,
    Wanted,
    fetch_docs,
    wanted_from,
    wanted_from_names,
)
from ingest.dependencies.files import read_all, read_pins
from ingest.dependencies.moves import Move, at_least, docs_in_place, moves
from ingest.dependencies.pins import Pin, Pins, Problem
from ingest.dependencies.sources import SourcesReport, fetch_sources
from ingest.dependencies.upgrades import UpgradeInputs, doc_urls, prepare_upgrade

__all__ = [
    "FetchReport",
    "FetchedFile",
    "FetchedPackage",
    "Move",
    "Pin",
    "Pins",
    "Problem",
    "SourcesReport",
    "UpgradeInputs",
    "Wanted",
    "at_least",
    "doc_urls",
    "docs_in_place",
    "fetch_docs",
    "fetch_sources",
    "moves",
    "prepare_upgrade",
    "read_all",
    "read_pins",
    "wanted_from",
    "wanted_from_names",
]
