"""The releases' code for an interface's upgrade plan: `code_diff` fetches each release's source (unless offline)
and diffs their public API (`KnowledgeBase.api_diff`), saying in one line each why the diff is missing or partial.

The command line fetches and diffs as needed; the web page, Slack and MCP ask nothing of the network and load no
release (`cached_only`): they use a diff already kept, unpacking an archive already downloaded if its folder is
gone, so a request never waits on the registry or spends a minute loading two releases; the plan says when the
code diff is not there (run `python app.py upgrade --product P --from A --to B` once to fill the cache).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from assistant.knowledge_base import KnowledgeBase
    from assistant.model.api import ApiDiff, ReleaseTree

Say = Callable[[str], None]


def code_diff(
    kb: KnowledgeBase,
    product: str | None,
    a: str,
    b: str,
    *,
    offline: bool = False,
    cached_only: bool = False,
    say: Say | None = None,
    paths: Sequence[str | Path] = (),
    bounded: bool = False,
) -> tuple[ApiDiff | None, tuple[str, ...]]:
    """What the code of `product`'s releases from `a` to `b` says changed, and the notes for the plan; `product`
    None (several products indexed, none named): no diff. `say` gets progress and each problem, one line each.
    `paths`: the code to be scanned, whose names the newest release lacks are changes too (a note says so where
    the diff was kept without the releases' names); `bounded` (servers, which read only what is cached) reads that
    code in the knowledge base's worker process, and when that is too much work the diff stands without those
    names, and a note says so."""
    import griffe

    from assistant.runtime.bounded import Overrun
    from assistant.text.untrusted import one_line
    from assistant.upgrade.api import NotCached, UnsafeTree
    from assistant.upgrade.api.namespaces import names_known
    from ingest.dependencies import fetch_sources

    if bounded and not cached_only:
        raise ValueError("a bounded code diff reads only what is cached: releases load outside the worker")
    if not product:
        return None, ()
    report = fetch_sources(
        product, a, b, settings=kb.settings, offline=offline or cached_only, progress=say if not cached_only else None
    )
    notes = tuple(report.problems)
    for line in notes:
        if say:
            say(line)
    if len(report.trees) < 2:
        why = "run `upgrade` on the command line to fetch them" if cached_only else "fewer than two could be read"
        return None, (*notes, _said(say, f"no code diff of {product}: its releases' source is not at hand ({why})"))

    def loading(trees: list[ReleaseTree]) -> Iterator[ReleaseTree]:
        for tree in trees:
            if say:
                say(f"{product} {tree.version}: reading its public API")
            yield tree

    checked = bool(paths)  # the names the code takes are checked against the releases'
    try:
        if bounded and paths:
            try:
                diff = kb.api_diff(report.trees, cached_only=cached_only, paths=paths, bounded=True)
            except Overrun as e:
                checked = False
                notes = (
                    *notes,
                    _said(say, f"the names your code takes from {product} were not checked: reading it {e}"),
                )
                diff = kb.api_diff(report.trees, progress=loading, cached_only=cached_only)
        else:
            diff = kb.api_diff(report.trees, progress=loading, cached_only=cached_only, paths=paths)
    except NotCached:
        missing = f"no code diff of {product} {a} → {b} in the cache: run `upgrade` on the command line"
        return None, (*notes, _said(say, missing))
    except (UnsafeTree, ImportError, OSError, ValueError, RecursionError, griffe.GriffeError) as e:
        # a release the static load cannot read (Python 2 syntax, a module outside its tree): the docs' plan stands
        why = one_line(f"{type(e).__name__}: {e}")[:300]
        return None, (*notes, _said(say, f"no code diff of {product}: a release could not be read ({why})"))
    if checked and not names_known(diff):
        run = f"python app.py upgrade --product {product} --from {a} --to {b} PATH"
        unknown = f"the names your code takes from {product} were not checked: the diff was kept without them ({run})"
        notes = (*notes, _said(say, unknown))
    if say:
        say(f"{product}: {len(diff.changes)} changes in the code of {', '.join(diff.releases)}")
    return diff, notes


def product_to_diff(kb: KnowledgeBase, product: str | None) -> str | None:
    """Whose releases' code to compare: the product named, else the one product indexed, else none."""
    if product:
        return product
    indexed = kb.products()
    return next(iter(indexed)) if len(indexed) == 1 else None


def _said(say: Say | None, line: str) -> str:
    if say:
        say(line)
    return line
