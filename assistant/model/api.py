"""The releases' own code, as the upgrade stage reads it: where one release's source lies unpacked (written by the
fetch, `ingest.dependencies.sources`) and what changed in the public API between releases (made by
`assistant.upgrade.api`, read by the plan and the scan beside the changes the docs state).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

# What a code change is, as the JSON's `code.kind` names it.
CodeKind = Literal[
    "removed",  # a public object is gone
    "parameter_removed",
    "parameter_renamed",
    "parameter_moved",  # a positional parameter's place changed
    "parameter_keyword_only",  # could be passed by position, now only by keyword
    "parameter_required",  # had a default, now has none
    "parameter_added_required",
    "default_changed",
    "base_removed",
    "abstract_added",  # a new abstract method: subclasses break
    "return_changed",
    "deprecated",  # a `deprecated` decorator, a `*deprecat*` helper or a deprecation warning in the body
]
CODE_KINDS: tuple[CodeKind, ...] = (
    "removed",
    "parameter_removed",
    "parameter_renamed",
    "parameter_moved",
    "parameter_keyword_only",
    "parameter_required",
    "parameter_added_required",
    "default_changed",
    "base_removed",
    "abstract_added",
    "return_changed",
    "deprecated",
)

# Beside an unpacked release's `.py` files: its archive's compiled-module files (`.pyx`, `.so`, …), one path a
# line, of which nothing else is written; a release tree without it was unpacked before it was kept.
COMPILED_LIST = ".compiled-modules"
COMPILED_LIST_CUT = "..."  # its last line when it holds fewer paths than the archive has


@dataclass(frozen=True)
class ReleaseTree:
    """One release's Python source, unpacked from its archive (never run)."""

    product: str  # the distribution's canonical name ("pandas")
    version: str  # the exact release ("1.5.3")
    sha256: str  # the archive's, as the registry names it
    root: Path  # the folder to load from: its children are the top-level packages or modules (`src/` resolved)
    packages: tuple[str, ...]  # top-level import names found for the product ("pandas",)
    archive: Literal["sdist", "wheel"] = "sdist"


@dataclass(frozen=True)
class CodeChange:
    """One change of the public API that the releases' code shows."""

    object: str  # the public path ("pandas.DataFrame.append"); other paths to the same object in `paths`
    kind: CodeKind
    parameter: str | None  # the parameter it is about, for the parameter kinds and a parameter's deprecation
    release: str  # the first release loaded in which it is so
    source_a: str | None  # where it was in the older release: "pandas/core/frame.py:3210"
    source_b: str | None  # where it is in the newer one, if it still is
    fix: str  # what to do: B's signature, the deprecation message, the replacement a message names
    paths: tuple[str, ...] = ()  # every public path of the object, `object` first
    # what else the change names: for a parameter moved, the earlier ones whose leaving the positional order
    # (removed, or keyword-only now) alone moved it; for a base removed, every public path of the bases gone
    related: tuple[str, ...] = ()


@dataclass(frozen=True)
class ApiDiff:
    """What changed in a product's public API over a span of releases."""

    product: str
    packages: tuple[str, ...]
    releases: tuple[str, ...]  # the exact releases loaded, oldest first
    archives: dict[str, str]  # release -> archive sha256
    changes: tuple[CodeChange, ...]
    not_analysable: tuple[str, ...] = ()  # modules with compiled code only (no .py, no .pyi)
    timings_ms: dict[str, float] = field(default_factory=dict)  # "load", "diff", "total"; 0 for a cache hit
    # What public functions return, from the first and the last release's annotations (the first's where both
    # say): "pandas.read_parquet" -> "pandas.DataFrame". The scan's receivers where the code does not say.
    returns: dict[str, str] = field(default_factory=dict)
    # By release (those of `releases` it was worked out for, oldest first): each module with its names, None where
    # static analysis cannot see them all (`assistant.upgrade.api.namespaces`): which names the user's code
    # takes are gone, and since which release.
    names: dict[str, dict[str, tuple[str, ...] | None]] = field(default_factory=dict)
