"""One release's code as griffe objects, loaded by static analysis from its unpacked tree and nowhere else."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assistant.model.api import ReleaseTree
from assistant.model.errors import ReldocsError
from assistant.upgrade.api.public import NOT_API

if TYPE_CHECKING:
    from collections.abc import Iterator

    import griffe

logger = logging.getLogger(__name__)


class UnsafeTree(ReldocsError):
    """A release's code would have been read from outside its unpacked tree; nothing of it was used."""


@dataclass
class LoadedRelease:
    """A release's top-level packages as griffe modules, with what could not be analysed.

    `facts` holds what the diff computes once per release and reuses for both pairs the release is in
    (deprecations by object, the public index).
    """

    tree: ReleaseTree
    packages: dict[str, griffe.Module]
    not_analysable: tuple[str, ...]
    facts: dict[str, Any] = field(default_factory=dict)

    def relative(self, path: Path | None, line: int | None) -> str | None:
        """ "pkg/mod.py:LINE" relative to the tree's root, or None when the object has no file."""
        if path is None:
            return None
        root = self.facts.get("root") or self.facts.setdefault("root", self.tree.root.resolve())
        try:
            rel = path.relative_to(root)  # loaded paths are under the resolved root already
        except ValueError:
            try:
                rel = path.resolve().relative_to(root)
            except ValueError:
                return None
        return f"{rel.as_posix()}:{line or 0}"


def load_release(tree: ReleaseTree) -> LoadedRelease:
    """Load each of `tree.packages` from `tree.root` by static analysis only.

    Nothing is imported or run: inspection is off, so a compiled module is skipped rather than imported; the
    search path is the tree's root alone (a `.pth` file in the tree cannot add another), stub-only packages
    are not looked up, and a package missing from the tree raises `ModuleNotFoundError` instead of falling back
    to an installed copy. Every loaded module's file must lie inside the root, or `UnsafeTree` is raised.
    """
    try:
        import griffe
    except ImportError as e:  # pragma: no cover - griffe is in requirements.txt
        raise ImportError("the API diff needs griffe: pip install 'griffe>=2.4'") from e

    class TreeFinder(griffe.ModuleFinder):
        """Submodules from the module's own folder only, test suites left out (not API, most of the files)."""

        def submodules(self, module: griffe.Module) -> list[tuple[tuple[str, ...], Path]]:
            found = self.iter_submodules(module.filepath)
            return sorted((s for s in found if not NOT_API.intersection(s[0])), key=lambda s: len(s[0]))

    root = tree.root.resolve()
    finder = TreeFinder([root])
    # The finder adds the folders `.pth` files in a search path name; an archive's must not widen the search.
    finder.search_paths[:] = [root]
    loader = griffe.GriffeLoader(search_paths=[root], allow_inspection=False, force_inspection=False)
    loader.__dict__["finder"] = finder  # `finder` is a cached property: set it before the first load reads it
    packages: dict[str, griffe.Module] = {}
    for name in tree.packages:
        module = loader.load(name, try_relative_path=False, find_stubs_package=False)
        if not isinstance(module, griffe.Module):  # pragma: no cover - loading a top-level name gives a module
            raise UnsafeTree(f"{tree.product} {tree.version}: {name} did not load as a module")
        for mod in modules_of(module):
            for path in _filepaths(mod):
                if not path.resolve().is_relative_to(root):
                    raise UnsafeTree(f"{tree.product} {tree.version}: {mod.path} was read from {path}, outside {root}")
        packages[name] = module
    return LoadedRelease(tree, packages, tuple(sorted(_compiled_only(packages))))


def modules_of(module: griffe.Module) -> Iterator[griffe.Module]:
    yield module
    for member in module.members.values():
        if not member.is_alias and member.is_module:
            yield from modules_of(member)  # type: ignore[arg-type]


def _filepaths(module: griffe.Module) -> list[Path]:
    path = module.filepath
    return list(path) if isinstance(path, list) else [path] if path else []


def is_package(module: griffe.Module) -> bool:
    return any(p.name.startswith("__init__.") or p.is_dir() for p in _filepaths(module))


def _compiled_only(packages: dict[str, griffe.Module]) -> set[str]:
    """Modules the package's own imports name that have no `.py`/`.pyi` in the tree.

    The fetch unpacks only `.py`/`.pyi`, so a compiled module (`.so`, `.pyd`, a Cython `.pyx`) shows as an import
    of the package's own code that resolves to nothing: the longest loaded prefix of the import's target is a
    package (a folder with an `__init__`) and the next name, a module's name (lower case), is not in it. A missing
    name in a plain module, or a CapWords one, is a name set at run time (a module `__getattr__`), not a module.
    """
    missing: set[str] = set()
    for top in packages.values():
        for module in modules_of(top):
            for member in module.members.values():
                if not member.is_alias:
                    continue
                target = member.target_path  # type: ignore[union-attr]
                head, _, rest = target.partition(".")
                if head not in packages or not rest:
                    continue
                node: griffe.Object | griffe.Alias = packages[head]
                parts = rest.split(".")
                for i, part in enumerate(parts):
                    if part in node.members:
                        node = node.members[part]
                        if node.is_alias or not node.is_module:
                            break
                        continue
                    if part == part.lower() and node.is_module and is_package(node):  # type: ignore[arg-type]
                        missing.add(".".join([head, *parts[: i + 1]]))
                    break
    return missing
