"""Which names each module of a release has, where static analysis can tell all of them; and which of the names
a user's code takes from a product a release shows gone (`gone`, `with_gone`).

The API diff compares what two releases define; a name the older release made at run time (SciPy 1.9 copied
NumPy's functions into `scipy` in a loop over `np.__all__`) is in neither side's static API, so its removal shows
in no diff. What the user's code imports or reads on a product module (`scipy.zeros`, `from flask import
_request_ctx_stack`) can still be checked against the newer release: the name is gone when the module's names
are all known (`assistant.upgrade.api.module_names`) and lack it, and no module file of that name is in the
release (a compiled one included: the archive's list of them, `COMPILED_LIST`); and the older release does not
show it gone too (then the code already did without it: a guarded import, a fallback).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from assistant.model.api import COMPILED_LIST, COMPILED_LIST_CUT, ApiDiff, CodeChange
from assistant.upgrade.api.load import is_package, modules_of
from assistant.upgrade.api.module_names import ModuleNames
from assistant.upgrade.api.public import NOT_API

if TYPE_CHECKING:
    from assistant.upgrade.api.load import LoadedRelease

# A module's names, or None where it may have names static analysis cannot see; by dotted module path.
Namespaces = Mapping[str, tuple[str, ...] | None]

# Part of the kept namespaces' cache key, beside the diff's analyser: change it whenever what they say could.
NAMES_VERSION = "names-5"
# What every module has without defining it: never shown gone.
_IMPLICIT = frozenset(
    {"__name__", "__file__", "__doc__", "__path__", "__spec__", "__loader__", "__package__", "__dict__"}
    | {"__builtins__", "__cached__", "__annotations__", "__all__"}
)
_MODULE_SUFFIXES = (".py", ".pyi")


def namespaces_of(release: LoadedRelease) -> dict[str, tuple[str, ...] | None]:
    """Every module of the release, with its names (sorted), or None where they are open: the modules griffe
    loaded; a module file or folder it did not (one it could not parse, a folder without `__init__`) and a
    compiled module (its own code imports it, or the archive's list names its source or binary), all open. A
    tree without that list, or whose list was cut, may hold a compiled module anywhere: its packages are open."""
    modules = {m.path: m for package in release.packages.values() for m in modules_of(package)}
    reader = ModuleNames(modules, frozenset(release.packages))
    compiled = compiled_modules(release.tree.root, release.packages)
    table: dict[str, tuple[str, ...] | None] = {}
    for path, module in modules.items():
        names = reader.names(path)
        unlisted = compiled is None and is_package(module)
        table[path] = tuple(sorted(names)) if names is not None and not unlisted else None
    for path in _on_disk(release.tree.root, release.packages):  # there, but not loaded: its names unknown
        table.setdefault(path, None)
    for path in (*release.not_analysable, *(compiled or ())):  # a compiled module, whatever a `.py` beside it says
        table[path] = None
        parts = path.split(".")
        for i in range(2, len(parts)):  # its folders, which may hold nothing else the unpacking wrote
            table.setdefault(".".join(parts[:i]), None)
    return table


def gone(table: Namespaces, path: str) -> str | None:
    """The part of `path` (`scipy.zeros.foo`) that a module of `table` shows it does not have (`scipy.zeros`), or
    None: every part is there, a part is not a module (a class's members are not judged here), or a module on the
    way is open."""
    head, *rest = path.split(".")
    if head not in table:
        return None
    current = head
    for part in rest:
        names = table.get(current)
        following = f"{current}.{part}"
        if following in table:  # a submodule, whether or not its package imports it
            current = following
            continue
        if names is None or part in names or part in _IMPLICIT or part in NOT_API:
            return None  # a test suite is not loaded: not shown gone
        return following
    return None


def _lacks(table: Namespaces, path: str) -> bool:
    """Whether a release shows it has no `path`: gone from its modules, or its top-level package is not there."""
    return path.partition(".")[0] not in table or gone(table, path) is not None


def names_known(diff: ApiDiff) -> bool:
    """Whether the diff has the module names of its oldest and its newest release, which `with_gone` needs (a diff
    read from a cache kept without them has none)."""
    return len(diff.releases) >= 2 and diff.releases[0] in diff.names and diff.releases[-1] in diff.names


def with_gone(diff: ApiDiff, reached: Iterable[str]) -> ApiDiff:
    """`diff` with a removal for each name `reached` (dotted paths the user's code takes from the product) that the
    newest release shows gone and the oldest does not, at the first release from which every release shows it gone
    (the newest, where a release between cannot tell); a name the diff already has removed is left to it."""
    if not names_known(diff):
        return diff
    tables = [(r, diff.names[r]) for r in diff.releases if r in diff.names]
    known = {p for c in diff.changes if c.kind == "removed" and not c.parameter for p in (c.paths or (c.object,))}
    added: dict[str, CodeChange] = {}
    for path in sorted(set(reached)):
        lost = gone(tables[-1][1], path)
        if lost is None or lost in known or lost in added or _lacks(tables[0][1], lost):
            continue
        since = len(tables) - 1
        while since > 1 and gone(tables[since - 1][1], lost) == lost:
            since -= 1
        release = tables[since][0]
        module, _, name = lost.rpartition(".")
        fix = f"`{module}` has no `{name}` from {diff.product} {release} on"
        added[lost] = CodeChange(lost, "removed", None, release, None, None, fix, (lost,))
    return replace(diff, changes=(*diff.changes, *added.values())) if added else diff


def compiled_list(root: Path) -> Path | None:
    """The release's list of compiled modules (`COMPILED_LIST`), in the archive's top folder: `root` or, for a
    `src/` layout, its parent; None for a tree unpacked before the list was kept."""
    return next((f / COMPILED_LIST for f in (root, root.parent) if (f / COMPILED_LIST).is_file()), None)


def compiled_modules(root: Path, packages: Iterable[str]) -> set[str] | None:
    """The dotted names of the compiled modules whose sources or binaries the release's archive holds under `root`
    (its list, `COMPILED_LIST`, is written by the unpacking in the archive's top folder, `root` or its parent): a
    module (`lxml.etree` from `etree.pyx`) the package's own code need not import. None when the tree has no list
    or the list was cut: then where a compiled module is cannot be told. (A compiled module built from a source
    named otherwise, which the package's own code never imports, is not seen.)"""
    listed = compiled_list(root)
    if listed is None:
        return None
    folder = listed.parent
    try:
        lines = listed.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    below = root.relative_to(folder).parts  # () or ("src",)
    tops = frozenset(packages)
    found: set[str] = set()
    for line in lines:
        if line == COMPILED_LIST_CUT:
            return None
        parts = PurePosixPath(line.strip()).parts
        if not parts or parts[: len(below)] != below:
            continue  # beside the source root: build scripts, docs, benchmarks
        parts = parts[len(below) :]
        stem = parts[-1].split(".", 1)[0] if parts else ""
        dotted = (*parts[:-1], stem)
        if not stem or not all(p.isidentifier() for p in dotted):
            continue
        if dotted[0] in tops:  # beside the packages: a build's sources (`tools/`, `subprojects/`), not a module
            found.add(".".join(dotted))
    return found


def _on_disk(root: Path, packages: Iterable[str]) -> Iterator[str]:
    """Every module file and folder under the release's packages, as dotted paths."""
    for top in packages:
        base = root / top
        if not base.is_dir():
            continue
        for path in base.rglob("*"):
            rel = path.relative_to(root).parts
            name = rel[-1].removesuffix(".pyi").removesuffix(".py") if path.suffix in _MODULE_SUFFIXES else rel[-1]
            if (path.is_dir() or path.suffix in _MODULE_SUFFIXES) and name != "__init__":
                dotted = (*rel[:-1], name)
                if all(p.isidentifier() for p in dotted):
                    yield ".".join(dotted)
