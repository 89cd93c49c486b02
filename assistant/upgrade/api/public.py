"""What a user can reach in one release: every public path and the object it leads to.

Public means reachable (issue 44, item 2):
- what a package's `__init__` exports: its `__all__` when it has one, else its non-underscore names, imported
  ones included (that is how a package re-exports); aliases are followed to their target;
- the modules whose dotted name has no segment starting with an underscore, and their non-underscore members
  (a plain module's imports count only when its `__all__` lists them: `pandas.core.frame.np` is not API);
- the members of a public class through its MRO: an inherited member is a member of the class.
Test suites (`tests`, `conftest`) are not API even without an underscore. A path through an import of a module
(`pandas.core.frame.com` for `pandas.core.common`) is not followed: each module is walked at its own path.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

    import griffe

logger = logging.getLogger(__name__)

NOT_API = frozenset({"tests", "conftest"})  # non-underscore module names that are still not a user's API
CONSTRUCTORS = frozenset({"__init__", "__new__"})  # compared as the class's one signature, not as members
MAX_NESTING = 3  # classes inside classes, followed this deep


@dataclass
class PublicApi:
    """Every public path of one release and the object (an alias's final target) it leads to."""

    objects: dict[str, griffe.Object] = field(default_factory=dict)
    paths_of: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))  # canonical -> paths
    _members: dict[str, dict[str, griffe.Object | griffe.Alias]] = field(default_factory=dict)

    def members(self, cls: griffe.Object) -> dict[str, griffe.Object | griffe.Alias]:
        """A class's own and inherited members (through its MRO), computed once: griffe builds them per call."""
        if cls.path not in self._members:
            try:
                self._members[cls.path] = cls.all_members
            except ValueError:  # an MRO that cannot be linearised: keep the class's own members
                self._members[cls.path] = cls.members
        return self._members[cls.path]

    def add(self, path: str, obj: griffe.Object) -> bool:
        """Record `path`; False when it was already known."""
        if path in self.objects:
            return False
        self.objects[path] = obj
        self.paths_of[obj.path].append(path)
        return True

    def paths(self, obj: griffe.Object) -> list[str]:
        """The public paths of `obj`, shortest first (then alphabetical)."""
        return sorted(self.paths_of.get(obj.path, ()), key=lambda p: (p.count("."), len(p), p))


def public_api(packages: Iterable[griffe.Module]) -> PublicApi:
    """Walk each top-level package and record every public path (see the module's docstring)."""
    api = PublicApi()
    for package in packages:
        if not package.name.startswith("_"):
            _walk_module(api, package)
    return api


def final_target(member: griffe.Object | griffe.Alias) -> griffe.Object | None:
    """The object an alias leads to, or None when it leads outside what was loaded (another product)."""
    if not member.is_alias:
        return member  # type: ignore[return-value]
    import griffe

    try:
        return member.final_target  # type: ignore[union-attr,return-value]
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None


def _exports(module: griffe.Module) -> set[str] | None:
    if not module.exports:
        return None
    return {e if isinstance(e, str) else getattr(e, "name", str(e)) for e in module.exports}


def _walk_module(api: PublicApi, module: griffe.Module) -> None:
    api.add(module.path, module)
    exports = _exports(module)
    is_package = bool(module.filepath) and not isinstance(module.filepath, list) and module.filepath.stem == "__init__"
    for name, member in list(module.members.items()):
        if not member.is_alias and member.is_module:
            if not name.startswith("_") and name not in NOT_API:
                _walk_module(api, member)  # type: ignore[arg-type]
            continue
        if exports is not None:
            if name not in exports:
                continue
        elif name.startswith("_") or (member.is_alias and not is_package):
            continue
        target = final_target(member)
        if target is None or target.is_module:
            continue
        _walk_object(api, f"{module.path}.{name}", target, 0)


def _walk_object(api: PublicApi, path: str, obj: griffe.Object, depth: int) -> None:
    if not api.add(path, obj) or not obj.is_class or depth >= MAX_NESTING:
        return
    for name, member in list(api.members(obj).items()):
        if name.startswith("_") or name in CONSTRUCTORS:
            continue
        target = final_target(member)
        if target is not None and not target.is_module:
            _walk_object(api, f"{path}.{name}", target, depth + 1)
