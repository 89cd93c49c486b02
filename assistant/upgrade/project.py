"""What the scanned project's own modules say of its classes: which product class each derives from, so that a class
imported from another module of the project (`from app.schemas.base import AppModel`, itself a `BaseModel`) types
its receivers, subclasses and annotations as a class defined in the same module does (`assistant.upgrade.receivers`).

A first pass over every Python file of the scan reads, with `ast` only, each module's top-level imports and classes;
a module is known by the packages above it (folders with an `__init__.py`: `app/schemas/base.py` is
`app.schemas.base` even when `app/` is the folder given), by its path under the folder given, and by each shorter
tail of those, since the folder given may be above the import root (`src/app/...`). A class derives from a
product's when a base, as its module imports it, is one (`is_class`: the targets name it, or it is written as a
class) or is another project class that does; re-exports (`from .base import AppModel` in a package's
`__init__.py`) name the same class. A name two modules of the project define differently is left out.

Written by hand: no library resolves a project's imports without importing it; the rules are the language's own.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from assistant.upgrade.names import dotted_name

ROUNDS = 6  # a class derived from a project class derived from one, …, re-exported: a few levels down


@dataclass(frozen=True)
class ProjectClasses:
    """The project's classes derived from a product's, by every qualified name its code may import them as; read
    from one file (`in_file`), its relative imports too."""

    derived: dict[str, str]  # "app.schemas.base.AppModel" -> "pydantic.BaseModel"
    packages: dict[str, str] = field(default_factory=dict)  # a file, as scanned -> its package ("app.schemas")
    package: str | None = None  # the package of the file read from, when known
    named: frozenset[str] = frozenset()  # the classes asked of (`project_classes`' `wanted`) some file names

    def in_file(self, file: str) -> ProjectClasses:
        return replace(self, package=self.packages.get(file))

    def get(self, qualified: str) -> str | None:
        """The product class the project class imported as `qualified` (`.base.AppModel` relative) derives from."""
        if qualified.startswith("."):
            if self.package is None:
                return None
            level = len(qualified) - len(qualified.lstrip("."))
            parts = self.package.split(".") if self.package else []
            if level - 1 > len(parts):
                return None
            qualified = ".".join([*parts[: len(parts) - (level - 1)], qualified.lstrip(".")])
        return self.derived.get(qualified)


NONE = ProjectClasses({})


@dataclass(frozen=True)
class _Module:
    file: str
    package: str  # the package its relative imports start from, by its longest name
    names: tuple[str, ...]  # the module's qualified names, longest first: "src.app.base", "app.base", "base"
    imports: dict[str, str]  # top-level name -> the qualified name its import binds
    classes: dict[str, tuple[str, ...]]  # top-level class -> its bases, dotted as written
    named: frozenset[str]  # the classes asked of that its text names, as a word


def project_classes(
    files: Iterable[tuple[Path, Path]], is_class: Callable[[str], bool], wanted: Iterable[str] = ()
) -> ProjectClasses:
    """The classes of the project's Python files (each with the folder it was found under) derived from a
    product's, and which of the `wanted` class names (bare: "BaseModel") any file writes. A file that cannot be
    read or parsed is skipped: the scan itself reports it."""
    packages: dict[Path, list[str]] = {}  # folder -> the packages it is in (`_packages`)
    words = sorted(set(wanted) - {""})
    pattern = re.compile(rb"\b(" + b"|".join(re.escape(w.encode()) for w in words) + rb")\b") if words else None
    modules = [
        m for path, root in files if path.suffix == ".py" and (m := _read(path, root, packages, pattern)) is not None
    ]
    # Every name a project module may be imported as -> the class definitions and re-exports under it.
    defined: dict[str, set[tuple[str, ...]]] = {}
    for module in modules:
        for name in module.names:
            for cls, bases in module.classes.items():
                defined.setdefault(f"{name}.{cls}", set()).add(tuple(_resolved(b, module) for b in bases))
    exported = {
        f"{name}.{alias}": target
        for module in modules
        for name in module.names
        for alias, target in module.imports.items()
    }
    derived: dict[str, str] = {}
    for _ in range(ROUNDS):
        before = len(derived)
        for qualified, definitions in defined.items():
            found = {_product_base(bases, derived, is_class) for bases in definitions}
            if len(found) == 1 and None not in found and qualified not in derived:
                derived[qualified] = found.pop()  # type: ignore[assignment]
        for qualified, target in exported.items():
            if target in derived and qualified not in derived:
                derived[qualified] = derived[target]
        if len(derived) == before:
            break
    named = frozenset(name for m in modules for name in m.named)
    return ProjectClasses(derived, {m.file: m.package for m in modules}, named=named)


def _product_base(bases: tuple[str, ...], derived: dict[str, str], is_class: Callable[[str], bool]) -> str | None:
    """The product class the first telling base stands for: a project class derived from one, or one itself."""
    for base in bases:
        if base in derived:
            return derived[base]
        if "." in base and is_class(base):
            return base
    return None


def _resolved(base: str, module: _Module) -> str:
    """A base as written (`base.AppModel`, `BaseModel`), qualified through the module's imports."""
    head, dot, rest = base.partition(".")
    if head in module.imports:
        return f"{module.imports[head]}{dot}{rest}"
    if head in module.classes:
        return f"{module.names[0]}.{base}"
    return base


def _packages(folder: Path, known: dict[Path, list[str]]) -> list[str]:
    """The names of the packages a folder is in, outermost first: the folders up from it with an `__init__.py`."""
    if folder in known:
        return known[folder]
    found: list[str] = []
    if (folder / "__init__.py").is_file() and folder.parent != folder:
        found = [*_packages(folder.parent, known), folder.name]
    known[folder] = found
    return found


def _read(
    path: Path, root: Path, packages: dict[Path, list[str]], wanted: re.Pattern[bytes] | None = None
) -> _Module | None:
    try:
        data = path.read_bytes()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(data)
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    # Its name as Python imports it: the packages above it (folders with an `__init__.py`), and its path under
    # the folder given, for a project whose import root is below it (`src/`) or that has no `__init__.py` files.
    climbed = [*_packages(path.parent, packages), path.stem]
    given = list(path.relative_to(root).with_suffix("").parts) if path.is_relative_to(root) else [path.stem]
    spellings = []
    for parts in (climbed, given):
        parts = parts[:-1] if parts[-1] == "__init__" else parts  # a package's own module
        if parts and all(p.isidentifier() for p in parts):
            spellings.append(parts)
    if not spellings:
        return None
    # the package its relative imports start from: a package's own module is its package
    package = spellings[0] if path.stem == "__init__" else spellings[0][:-1]
    names = tuple(dict.fromkeys(".".join(parts[i:]) for parts in spellings for i in range(len(parts))))
    imports: dict[str, str] = {}
    classes: dict[str, tuple[str, ...]] = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    imports[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            for alias in node.names:
                if alias.name != "*" and base is not None:
                    imports[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name
        elif isinstance(node, ast.ClassDef):
            classes[node.name] = tuple(d for b in node.bases if (d := dotted_name(b)))
    named = frozenset(m.decode() for m in wanted.findall(data)) if wanted else frozenset()
    return _Module(str(path), ".".join(package), names, imports, classes, named)


def _absolute(node: ast.ImportFrom, package: list[str]) -> str | None:
    """The module an import takes names from, a relative one made absolute by the importing module's package
    (None when it climbs above the folder given)."""
    if not node.level:
        return node.module or ""
    if node.level - 1 > len(package):
        return None
    parts = package[: len(package) - (node.level - 1)]
    return ".".join([*parts, *([node.module] if node.module else [])])
