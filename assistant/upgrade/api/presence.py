"""Whether a public path is still there in a release: a removal is reported only where the release shows the
name is gone. What static analysis cannot follow (a star import of a compiled module, a base class in a namespace
package, a top-level package that became a namespace package, a module it cannot parse, a name a module's
`__all__` exports or its `__getattr__` gives) is not shown gone (`assistant.upgrade.api.compare`).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import TYPE_CHECKING

from assistant.upgrade.api.public import final_target

if TYPE_CHECKING:
    import griffe

    from assistant.upgrade.api.load import LoadedRelease


def resolves(release: LoadedRelease, path: str) -> bool:
    """Whether `path` may still lead to an object in `release`, through any member or import: False only where
    the release shows it does not. A name imported from what static analysis cannot read (`from ._core import
    concatenate`, where `_core` star-imports a compiled module) is still there: its absence is not shown."""
    head, *rest = path.split(".")
    node: griffe.Object | None = release.packages.get(head)
    if node is None and _on_disk(release, "", head):
        return True  # a top-level package the static load does not enter (a namespace one: no `__init__`)
    for part in rest:
        if node is None:
            return False
        member = node.members.get(part)
        if member is None:
            # a class of the product's whose base was not read may inherit it; a module whose `__all__` names it
            # exports it, though from what the static load did not follow (pydantic 2's `from .networks import *`)
            # or a module of the tree the static load could not parse (syntax newer than this Python): not shown gone
            exported = node.is_module and part in (node.exports or ())
            return _unseen_base(node, release) or exported or (node.is_module and _on_disk(release, node.path, part))
        node = final_target(member)
        if node is None:
            return True  # present, leading where the static model cannot follow
    return node is not None


def lazy(release: LoadedRelease, node: griffe.Object | None, name: str) -> bool:
    """Whether the module `node` of `release` (from its public API) still gives `name` through a module-level
    `__getattr__` (PEP 562): it has one, and a module-level mapping of it names where `name` lives (`{"EmailStr":
    (__spec__.parent, ".networks")}`, `{"EmailStr": "pydantic.networks"}`), not why it is gone (`{"float_": "Use
    np.float64 instead."}`)."""
    if node is None or not node.is_module or "__getattr__" not in node.members:
        return False
    cache: dict[str, frozenset[str]] = release.facts.setdefault("lazy", {})
    if node.path not in cache:
        path = node.filepath
        cache[node.path] = _lazily_given(path[0] if isinstance(path, list) else path)
    return name in cache[node.path]


def _lazily_given(path: Path | None) -> frozenset[str]:
    """The keys of a module's top-level dict displays whose value says where the name lives: a tuple, or a module
    path with no space in it."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8")) if path is not None else None
    except (OSError, SyntaxError, ValueError):
        return frozenset()
    found: set[str] = set()
    for node in tree.body if tree is not None else ():
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        if not isinstance(value, ast.Dict):
            continue
        for key, item in zip(value.keys, value.values, strict=False):
            where = isinstance(item, ast.Tuple) or (isinstance(item, ast.Constant) and _module_path(item.value))
            if isinstance(key, ast.Constant) and isinstance(key.value, str) and where:
                found.add(key.value)
    return frozenset(found)


def _module_path(value: object) -> bool:
    return isinstance(value, str) and bool(value) and " " not in value and "." in value


def _on_disk(release: LoadedRelease, module: str, name: str) -> bool:
    """Whether `name` is a submodule file of `module` in the release's tree (`.py`, `.pyi` or a package); with no
    `module`, a top-level module or package, a folder without `__init__` (a namespace package) included."""
    folder = release.tree.root.joinpath(*module.split(".")) if module else release.tree.root
    return any(
        (folder / f).exists() for f in (f"{name}.py", f"{name}.pyi", f"{name}/__init__.py", f"{name}/__init__.pyi")
    ) or (not module and (folder / name).is_dir())


def _unseen_base(node: griffe.Object, release: LoadedRelease) -> bool:
    """Whether `node` is a class one of whose bases is the product's own and could not be read (a namespace
    package the static load does not enter: Flask 3's `flask.sansio.app.App`): what it lacks may be inherited."""
    if not node.is_class:
        return False
    try:
        resolved = {b.path for b in node.resolved_bases}  # type: ignore[attr-defined]
    except Exception:  # griffe raises several kinds on a base it cannot follow
        resolved = set()
    own = [str(getattr(b, "canonical_path", b)) for b in node.bases]  # type: ignore[attr-defined]
    return any(path.split(".")[0] in release.packages and path not in resolved for path in own)
