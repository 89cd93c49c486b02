"""The API diff over a span of releases: each consecutive pair compared (or read from the cache), each change
kept at the first release that shows it."""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from assistant.model.api import ApiDiff, CodeChange, ReleaseTree
from assistant.upgrade.api.cache import (
    cache_path,
    names_path,
    read_names,
    read_pair,
    read_returns,
    returns_path,
    write_names,
    write_pair,
    write_returns,
)
from assistant.upgrade.api.compare import compare
from assistant.upgrade.api.load import LoadedRelease, load_release
from assistant.upgrade.api.namespaces import NAMES_VERSION, compiled_list, namespaces_of
from assistant.upgrade.api.public import PublicApi, public_api
from assistant.upgrade.api.returns import returns_of

logger = logging.getLogger(__name__)

# Part of every cache key: change it whenever what a diff says could change, so no stale diff is read.
ANALYSER_VERSION = "api-diff-16"

Progress = Callable[[list[ReleaseTree]], Iterable[ReleaseTree]]  # wraps the releases as they are loaded


def _analyser(*trees: ReleaseTree) -> str:
    """What besides the archives a kept answer depends on: the analyser, and which packages were read from where
    in each archive (the import names may be found otherwise by a later fetch)."""
    where = ";".join(f"{','.join(t.packages)}@{t.root.name if t.root.name != t.sha256 else ''}" for t in trees)
    return f"{ANALYSER_VERSION}|{where}"


class NotCached(LookupError):
    """A pair of releases the cache has no diff of, asked with `cached_only`."""


def diff_releases(
    trees: Sequence[ReleaseTree],
    *,
    cache_dir: Path | None = None,
    progress: Progress | None = None,
    cached_only: bool = False,
    names: bool = False,
) -> ApiDiff:
    """What changed in the public API from each release of `trees` (oldest first) to the next; with `names`, each
    release's module names too (`ApiDiff.names`, for `namespaces.with_gone`), kept beside the diff.

    Each change carries the first release that shows it (a change already seen is not repeated later). A pair
    found in `cache_dir` is read from it; otherwise both releases are loaded (each once, however many pairs it
    is in) and the pair's diff is kept there. `timings_ms` has "load", "diff" and "total"; a run answered
    from the cache alone loads nothing. With `cached_only` (a server's request, which must not spend a minute
    loading), `NotCached` when a pair is not in the cache.
    """
    start = time.perf_counter()
    if not trees:
        raise ValueError("diff_releases needs at least one release")
    timings = {"load": 0.0, "diff": 0.0}
    pairs = list(itertools.pairwise(trees))
    cached = {
        i: read_pair(cache_path(cache_dir, a.sha256, b.sha256, _analyser(a, b))) if cache_dir else None
        for i, (a, b) in enumerate(pairs)
    }
    needed = {t.version for i, (a, b) in enumerate(pairs) if cached[i] is None for t in (a, b)}
    if needed and cached_only:
        raise NotCached(f"no cached diff of {', '.join(sorted(needed))}")
    to_load = [t for t in trees if t.version in needed]
    loaded: dict[str, tuple[LoadedRelease, PublicApi]] = {}
    iterator = iter(progress(to_load) if progress else to_load)

    # what the first and the last release's functions return: the scan's receivers (A's first, then B's); and
    # each release's module names, which show a name the user's code takes gone, and from which release
    ends = {trees[0].version: trees[0], trees[-1].version: trees[-1]}
    returns: dict[str, dict[str, str]] = {}
    tables: dict[str, dict[str, tuple[str, ...] | None]] = {}
    for version, end in ends.items():
        kept = read_returns(returns_path(cache_dir, end.sha256, _analyser(end))) if cache_dir else None
        if kept is not None:
            returns[version] = kept
    for tree in trees if names and cache_dir else ():
        held = read_names(_names_path(cache_dir, tree))
        if held is not None:
            tables[tree.version] = held

    def facts_of(rel: LoadedRelease, api: PublicApi | None = None) -> None:
        """What a release names (and an end returns), worked out from it once loaded, and kept."""
        tree = rel.tree
        if tree.version in ends and tree.version not in returns:
            returns[tree.version] = returns_of(api or public_api(rel.packages.values()))
            if cache_dir is not None:
                write_returns(returns_path(cache_dir, tree.sha256, _analyser(tree)), returns[tree.version])
        if names and tree.version not in tables:
            tables[tree.version] = namespaces_of(rel)
            if cache_dir is not None:
                write_names(_names_path(cache_dir, tree), tables[tree.version])

    def release(tree: ReleaseTree) -> tuple[LoadedRelease, PublicApi]:
        while tree.version not in loaded:
            nxt = next(iterator)
            t0 = time.perf_counter()
            rel = load_release(nxt)
            timings["load"] += (time.perf_counter() - t0) * 1000
            t0 = time.perf_counter()
            loaded[nxt.version] = (rel, public_api(rel.packages.values()))
            facts_of(rel, loaded[nxt.version][1])
            timings["diff"] += (time.perf_counter() - t0) * 1000
        return loaded[tree.version]

    changes: list[CodeChange] = []
    seen: set[tuple[str, str, str | None]] = set()
    not_analysable: set[str] = set()
    for i, (a, b) in enumerate(pairs):
        result = cached[i]
        if result is None:
            (rel_a, api_a), (rel_b, api_b) = release(a), release(b)
            t0 = time.perf_counter()
            found = compare(rel_a, rel_b, api_a, api_b)
            timings["diff"] += (time.perf_counter() - t0) * 1000
            result = (found, list(rel_a.not_analysable), list(rel_b.not_analysable))
            if cache_dir is not None:
                write_pair(cache_path(cache_dir, a.sha256, b.sha256, _analyser(a, b)), *result)
            loaded.pop(a.version, None)  # each release is in two pairs at most: the older one is done
        found, not_a, not_b = result
        not_analysable.update(not_a, not_b)
        for change in found:
            key = (change.object, change.kind, change.parameter)
            if key not in seen:
                seen.add(key)
                changes.append(change)
    # a release whose pairs were all kept, but not what it names (or, an end, returns): loaded for that alone
    lacking = [
        t for t in trees if (names and t.version not in tables) or (t.version in ends and t.version not in returns)
    ]
    for tree in (progress(lacking) if progress else lacking) if not cached_only else ():
        t0 = time.perf_counter()
        facts_of(load_release(tree))
        timings["load"] += (time.perf_counter() - t0) * 1000
    timings["total"] = (time.perf_counter() - start) * 1000
    return ApiDiff(
        product=trees[0].product,
        packages=trees[-1].packages,
        releases=tuple(t.version for t in trees),
        archives={t.version: t.sha256 for t in trees},
        changes=tuple(changes),
        not_analysable=tuple(sorted(not_analysable)),
        timings_ms={k: round(v, 1) for k, v in timings.items()},
        returns={**returns.get(trees[-1].version, {}), **returns.get(trees[0].version, {})},
        names={t.version: tables[t.version] for t in trees if t.version in tables},
    )


def _names_path(cache_dir: Path, tree: ReleaseTree) -> Path:
    # a tree whose compiled modules are listed later has other names: its packages are no longer all open
    listed = compiled_list(tree.root) is not None
    return names_path(cache_dir, tree.sha256, f"{NAMES_VERSION}|{'listed' if listed else 'unlisted'}|{_analyser(tree)}")
