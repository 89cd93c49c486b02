"""Which top-level import names an unpacked release provides, and the folder they sit in (`src/`, `lib/` or the
root).

In order, the first that names something present in the unpacked tree: the names the caller knows (the
fetched-docs provenance record's `packages`); the archive's own `top_level.txt` (an sdist's `*.egg-info/`, a
wheel's `*.dist-info/`); then the packages found by looking: folders with an `__init__.py` or `__init__.pyi` under
`src/`, `lib/` (SQLAlchemy's) or the root, without the folders every project has beside its code (tests, docs,
examples, benchmarks, build and CI tooling), the one named as the product first (attrs: `attrs`, then `attr`). A
wheel's root holds installed code only, so its modules count as well; an sdist's root modules are build and test
scripts, save one named as the product (`six.py`).
"""

from __future__ import annotations

from pathlib import Path

from packaging.utils import canonicalize_name

from ingest.dependencies.unpack import METADATA_FOLDERS

CODE_FOLDERS = ("src", "lib")  # where an sdist may keep its packages instead of its root
# Folders beside a project's code in its sdist (tests, docs, benchmarks, build and CI tooling), never its API
NOT_PACKAGES = frozenset(
    {
        "test",
        "tests",
        "testing",
        "doc",
        "docs",
        "example",
        "examples",
        "benchmark",
        "benchmarks",
        "bench",
        "asv_bench",
        "ci",
        "scripts",
        "tools",
        "tooling",
        "build",
        "dist",
        "setup",
        "conftest",
        "noxfile",
        "tasks",
        "versioneer",
        "typings",
        "web",
    }
)


def resolve(
    folder: Path, product: str, *, known: tuple[str, ...] = (), wheel: bool = False
) -> tuple[Path, tuple[str, ...]] | None:
    """The folder to load from and the top-level import names in it, or None when nothing resolves."""
    roots = [folder] if wheel else [*(folder / d for d in CODE_FOLDERS if (folder / d).is_dir()), folder]
    for names in (known, _top_level(folder, roots)):
        for root in roots:
            present = tuple(dict.fromkeys(n for n in names if n.isidentifier() and _importable(root, n)))
            if present:
                return root, present
    wanted = canonicalize_name(product)
    for root in roots:
        found = _found(root, wanted, wheel=wheel)
        if found:
            return root, found
    return None


def _top_level(folder: Path, roots: list[Path]) -> tuple[str, ...]:
    names: list[str] = []
    for where in dict.fromkeys([folder, *roots]):
        for meta in sorted(p for p in where.iterdir() if p.is_dir() and p.name.endswith(METADATA_FOLDERS)):
            try:
                text = (meta / "top_level.txt").read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            # A namespace package may be written `google/cloud`: its top name is the import name
            names += [line.strip().replace("\\", "/").split("/")[0] for line in text.splitlines() if line.strip()]
    return tuple(names)


def _importable(root: Path, name: str) -> bool:
    return (root / name).is_dir() or (root / f"{name}.py").is_file() or (root / f"{name}.pyi").is_file()


def _found(root: Path, wanted: str, *, wheel: bool) -> tuple[str, ...]:
    """The packages (and, in a wheel, modules) directly under `root`, any named as the product first."""
    candidates: list[str] = []
    for entry in sorted(root.iterdir(), key=lambda p: p.name):
        name, suffix = (entry.name, "") if entry.is_dir() else (entry.stem, entry.suffix)
        if not name.isidentifier() or name.lower() in NOT_PACKAGES:
            continue
        if entry.is_dir():
            if (entry / "__init__.py").is_file() or (entry / "__init__.pyi").is_file():
                candidates.append(name)
        elif suffix in (".py", ".pyi") and (wheel or _same(name, wanted)) and not name.startswith("test_"):
            candidates.append(name)
    candidates = list(dict.fromkeys(candidates))
    named = [c for c in candidates if _same(c, wanted)]
    return tuple(named + [c for c in candidates if c not in named])


def _same(name: str, product: str) -> bool:
    """An import name is the product's: `typing_extensions` for typing-extensions, `Django`'s `django`; a
    `python-` or `py` prefix of the distribution's name aside (python-dateutil's `dateutil`)."""
    canonical = canonicalize_name(name)
    return canonical in (product, product.removeprefix("python-"), product.removeprefix("py"))
