"""Which releases a fetched file speaks of, read from its headings with ingest's own release parsing, and which
releases of an upgrade's span none of a package's files names.

A cheap reading for the fetch report, without the parsers the sync runs in its bounded worker: the lines that
look like headings (Markdown `#` lines, reStructuredText titles with their underline, a one-line paragraph such
as `6.0.4 (2026-11-20)` or a plain-text `Version 1.2.0` line) are tested with `ingest.changelog.heading_version`;
a file about one release (`docs/releases/4.2.1.txt`, "Django 4.2.1 release notes") by `ingest.release`. A
`.. changelog::` directive of Sphinx's changelog extension is a release whose title is its `:version:`, as
`ingest.rst_roles` makes it one.
"""

from __future__ import annotations

import re

from packaging.version import InvalidVersion, Version

from ingest.changelog import heading_version, is_changelog_name
from ingest.release import release_of

_ATX = re.compile(r"^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_RELEASE_DIRECTIVE = re.compile(r"^\.\.[ \t]+changelog::[ \t]*$")
_VERSION_OPTION = re.compile(r"^[ \t]+:version:[ \t]*(\S.{0,60})$")
_UNDERLINE = re.compile(r"^([=\-~^*+#\"'`:.])\1{2,}[ \t]*$")
MAX_HEADING = 200  # longer lines are prose, not headings (`ingest.changelog.RELEASE_CHARS`)


def named_releases(data: bytes, name: str, product: str) -> tuple[str, ...]:
    """The releases a file's headings name, oldest first (as `ingest` writes versions)."""
    lines = data.decode("utf-8", errors="replace").replace("\r\n", "\n").split("\n")
    found: dict[str, None] = {}
    first = ""
    for i in range(len(lines)):
        text = _directive_title(lines, i) or _heading(lines, i)
        if not text:
            continue
        first = first or text
        version = heading_version(text, product)
        if version:
            found[version] = None
    if len(found) < 2 and not is_changelog_name(name):
        version, _ = release_of(name, product, ("", first))  # a file about one release
        if version:
            found[version] = None
    return tuple(sorted(found, key=_key))


def _directive_title(lines: list[str], i: int) -> str:
    """The `:version:` of a `.. changelog::` directive at line `i` (its options follow it), else ''."""
    if not _RELEASE_DIRECTIVE.match(lines[i]):
        return ""
    for line in lines[i + 1 : i + 4]:
        option = _VERSION_OPTION.match(line)
        if option:
            return option.group(1).strip()
    return ""


def _heading(lines: list[str], i: int) -> str:
    """The text of line `i` when it looks like a heading, else ''."""
    line = lines[i]
    if not line.strip() or len(line) > MAX_HEADING or line[:1].isspace():
        return ""
    atx = _ATX.match(line)
    if atx:
        return atx.group(1)
    after = lines[i + 1] if i + 1 < len(lines) else ""
    before = lines[i - 1] if i else ""
    if _UNDERLINE.match(line):
        return ""
    if _UNDERLINE.match(after) or (not before.strip() and not after.strip()):
        return line.strip().strip("*_").strip()  # `**0.44.0 (2024-08-04)**` is a heading in bold
    if not before.strip() or _UNDERLINE.match(before) or after[:1].isspace():
        return line.strip()  # a plain-text NEWS file's `Version 1.2.0` line, its entries indented below it
    return ""


def _key(version: str) -> tuple[int, Version | str]:
    try:
        return (0, Version(version))
    except InvalidVersion:
        return (1, version)


def missing(span: tuple[str, ...], named: set[str]) -> tuple[str, ...]:
    """The releases of `span` that no name in `named` equals as a version (2.0 is 2.0.0)."""
    parsed = set()
    for version in named:
        try:
            parsed.add(Version(version))
        except InvalidVersion:
            continue
    return tuple(v for v in span if Version(v) not in parsed)


def span(releases: tuple[str, ...], since: str | None, to: str) -> tuple[str, ...]:
    """The releases after `since` up to `to` (all up to `to` when `since` is None), oldest first."""
    try:
        top = Version(to)
        low = Version(since) if since else None
    except InvalidVersion:
        return ()
    return tuple(v for v in releases if (low is None or Version(v) > low) and Version(v) <= top)
