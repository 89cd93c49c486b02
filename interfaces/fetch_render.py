"""Renderers of `fetch`: one progress line per package, a summary, and the `--json` object.

File names, paths and URLs come from archives and registry records other people wrote: every line passes
through `one_line`, so nothing in them moves the cursor or starts a new line on the terminal.
"""

from __future__ import annotations

import json
from pathlib import Path

from assistant.text.untrusted import one_line
from ingest.dependencies import FetchedPackage, FetchReport

MAX_NAMED = 3  # files or missing releases a progress line names before "…"


def package_line(p: FetchedPackage) -> str:
    """What was found for one package, from where, which releases it covers; or why nothing was."""
    head = f"{p.product} {p.version}".strip()
    if not p.files:
        return one_line(f"{head}: no release docs: {p.problem}")
    names = ", ".join(f.file for f in p.files[:MAX_NAMED]) + (
        f" and {len(p.files) - MAX_NAMED} more" if len(p.files) > MAX_NAMED else ""
    )
    where = "the source distribution" if p.source == "sdist" else p.source
    how = " (in place already)" if p.cached else "" if p.downloaded or p.source != "sdist" else " (archive cached)"
    releases = p.releases
    span = f"releases {_oldest_newest(releases)}" if releases else "no release headings found"
    line = f"{head}: {names} from {where}{how}; {span}"
    if p.span:
        if not p.missing:
            line += f"; covers {p.since} → {p.version} ({len(p.span)} releases)"
        else:
            gone = ", ".join(p.missing[:MAX_NAMED]) + (" …" if len(p.missing) > MAX_NAMED else "")
            named = len(p.span) - len(p.missing)
            line += f"; names {named} of the {len(p.span)} releases after {p.since} (not {gone})"
    return one_line(line)


def _oldest_newest(releases: tuple[str, ...]) -> str:
    from packaging.version import InvalidVersion, Version

    ordered = []
    for release in releases:
        try:
            ordered.append((Version(release), release))
        except InvalidVersion:
            continue  # named in a heading, but no version to place
    ordered.sort()
    if not ordered:
        return f"{len(releases)}"
    return ordered[0][1] if len(ordered) == 1 else f"{ordered[0][1]}–{ordered[-1][1]} ({len(releases)})"


def fetch_summary(report: FetchReport, folder: Path) -> str:
    found = sum(1 for p in report.packages if p.files)
    return one_line(
        f"{found} of {len(report.packages)} packages have release docs in {folder}; the next `ingest` (or `ask`) "
        "indexes them"
    )


def fetch_json(report: FetchReport) -> str:
    """The `fetch --json` object."""
    return json.dumps(report.to_dict(), ensure_ascii=False)
