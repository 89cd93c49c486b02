"""Which names of a product the code under some paths takes from it: what it imports (`import scipy.signal`,
`from flask import Markup`), and the attributes it reads on a module so imported (`scipy.zeros(...)`, `sp.misc.x`),
as dotted paths. The API diff checks them against a release's module namespaces
(`assistant.upgrade.api.namespaces.with_gone`): a name the newest release shows gone breaks the code at once,
whether the docs list it or not. `diff_reached` is the releases' diff with those names in it, as the knowledge base
and the scan bench ask it.

Only what names a module binds is followed: a name rebound later, a module passed around, `getattr` with a
string, are not; relative imports are the project's own. Notebooks are left out (their code is cells, read by
the scan).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from assistant.upgrade.scan import files_to_scan

if TYPE_CHECKING:
    from assistant.model.api import ApiDiff, ReleaseTree
    from assistant.upgrade.api.diff import Progress

MAX_FILE_BYTES = 2_000_000  # a larger file is a generated one, not what imports a product by hand


def diff_reached(
    trees: Sequence[ReleaseTree],
    paths: Sequence[str | Path],
    *,
    cache_dir: Path | None,
    progress: Progress | None = None,
    cached_only: bool = False,
    max_bytes: int = MAX_FILE_BYTES,
    keep_parses: bool = True,
) -> ApiDiff:
    """The releases' API diff (`assistant.upgrade.api.diff_releases`), with each name the code under `paths` takes
    that the newest release shows gone and the oldest did not (`namespaces.with_gone`); no `paths`, the diff
    alone, and no release's names are worked out. The code is read only where both ends' names are at hand (a
    cached diff kept without them has none: `names_known`); a Python file over `max_bytes` is not read.
    `keep_parses` False (a long-lived worker process, whose requests' files are never the same) keeps no file's
    names for the next call."""
    from assistant.upgrade.api import diff_releases
    from assistant.upgrade.api.namespaces import names_known, with_gone

    diff = diff_releases(trees, cache_dir=cache_dir, progress=progress, cached_only=cached_only, names=bool(paths))
    if not paths or not names_known(diff):
        return diff
    return with_gone(diff, reached(paths, diff.packages, max_bytes=max_bytes, keep_parses=keep_parses))


def reached(
    paths: Sequence[str | Path], packages: Iterable[str], *, max_bytes: int = MAX_FILE_BYTES, keep_parses: bool = True
) -> frozenset[str]:
    """The dotted names under `packages` (top-level import names) that the Python files under `paths` take; a
    file over `max_bytes` is not read. With `keep_parses`, each file's names are kept for the next call."""
    tops = frozenset(packages)
    found: set[str] = set()
    for path in files_to_scan(paths):
        if path.suffix != ".py":
            continue
        try:
            stat = path.stat()
        except OSError:
            continue
        if stat.st_size <= max_bytes:
            read = _taken_from if keep_parses else _taken_from.__wrapped__
            found.update(n for n in read(str(path), stat.st_mtime_ns, stat.st_size) if n.partition(".")[0] in tops)
    return frozenset(found)


@functools.lru_cache(maxsize=4096)
def _taken_from(path: str, mtime_ns: int, size: int) -> frozenset[str]:
    """Every absolute dotted name one file takes, whatever its package: read once per version of the file, however
    many products' releases are checked against it (`upgrade --requirements`)."""
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()  # the scan names what it cannot read
    return frozenset(taken(tree, None))


def taken(tree: ast.Module, tops: frozenset[str] | None) -> Iterator[str]:
    """The dotted names under `tops` (None: any) that one module's code imports or reads on what it imported."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.partition(".")[0]
                if tops is None or top in tops:
                    yield alias.name
                    bound[alias.asname or top] = alias.name if alias.asname else top
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and not node.level
            and (tops is None or node.module.partition(".")[0] in tops)
        ):
            for alias in node.names:
                if alias.name != "*":
                    yield f"{node.module}.{alias.name}"
                    bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    if not bound:
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            parts = []
            base: ast.expr = node
            while isinstance(base, ast.Attribute):
                parts.append(base.attr)
                base = base.value
            if isinstance(base, ast.Name) and base.id in bound:
                yield ".".join([bound[base.id], *reversed(parts)])
