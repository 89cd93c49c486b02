"""Changelog files that hold many releases: each release's section is attributed to its own version.

A file is a changelog by its name (CHANGELOG, CHANGES, HISTORY, NEWS, RELEASES, with or without a suffix), by
`kind: changelog` in its front matter, or because two or more of its headings at one level are releases. The
release headings recognised ("Keep a Changelog" and its relatives, after RST or plain text became Markdown):
`## [1.2.0] - 2024-05-01`, `## v1.2.0`, `## 1.2.0 (2024-05-01)`, `# Version 1.2.0`, `## Release 1.2.0`,
`## Changes in Version 1.2.0`, `## What's new in 1.2.0`, `## acme 1.2.0 (2024-05-01)` when `acme` is the
product (or `acme2`); `## [Unreleased]` starts a section with no version. A heading must be only that (a
version, an optional product word or "Version", dates, a short parenthesis): "2.0 Migration - ORM Usage" or
"Python 3.10 support" are topics, not releases. Plain-text NEWS files get their `Version 1.2.0` lines turned
into headings first.

Written by hand: changelog parsers on PyPI (keepachangelog, changelogs) read one dialect each and return
dictionaries of entries, where reldocs needs the sections' Markdown to chunk like any other document.
"""

from __future__ import annotations

import itertools
import re
import textwrap
from collections import Counter
from dataclasses import dataclass

from assistant.text.untrusted import safe_version
from assistant.text.words import fold, strip_markup
from ingest.markdown_blocks import in_fences

NAMES = frozenset({"changelog", "changes", "history", "news", "releases"})
# The title is the line less its closing sequence: the text up to its last character other than blank or '#', then
# up to the last '#' that a blank and a '#' follow. Found from the end in one pass; the shortest title that left a
# closing sequence (`(.*?)`) re-read the rest of the line at every character (quadratic in a run of '#').
_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]++((?:.*[^ \t#\n])?(?:[ \t#]*#(?=[ \t]+#))?)[ \t]*#*[ \t]*$")
_MONTH = r"[A-Za-z]{3,9}\.?"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"  # "6th December, 2024", "July 8th 2021"
# A month and year alone must name the month ("September, 2026", "October-November, 2003"): not any word and a year.
_MONTH_NAME = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
# "4.3.0 (20130812)": a date written without separators must be a plausible one.
_COMPACT_DATE = r"(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])"
_DATE = (
    rf"(?:\d{{4}}-\d{{2}}-\d{{2}}|\d{{4}}/\d{{2}}/\d{{2}}|{_DAY}\s+{_MONTH},?\s+\d{{4}}|{_MONTH}\s+{_DAY},?\s+\d{{4}}"
    rf"|{_MONTH_NAME}(?:[-/]{_MONTH_NAME})?,?\s+\d{{4}}|{_COMPACT_DATE})"
)
# What opens a release heading: "Version", "Release" or the product's name, then the version ("[1.2.0]", "v1.2.0").
# A pre-release may be spelled out after a space ("1.0 beta 1").
_LEAD = (
    # "Changes in Version 4.4.1", GNU's "Noteworthy changes in release 1.2", "What's new in psycopg 2.9.6", an
    # upgrading guide's "Upgrading to version 2.0.0+"
    # the span headings of PyTables, numexpr and Blosc ("Changes from 3.9.1 to 3.9.2": the release is the second)
    r"(?:(?:(?:noteworthy\s+)?changes|what['’]?s\s+new)\s+in\s+|(?:upgrad|migrat)[a-z]{0,6}\s+to\s+"
    r"|(?:important\s+)?changes\s+from\s+v?\d[\w.+-]{0,20}\s+to\s+)?"
    r"(?:(?:version|release|v(?=\d))\s*|(?P<name>[A-Za-z][\w.+-]*)\s+)?"
    r"\[?(?P<version>v?\d+(?:\.\d+)+[0-9A-Za-z.+-]*)(?:\s+(?P<pre>alpha|beta|rc)\s*(?P<n>\d+))?\]?"
)
_PRE = {"alpha": "a", "beta": "b", "rc": "rc"}
# ... then only dates and short notes in brackets,
# A release heading is short (the longest in the eval corpora is 55 characters): longer text is none, which keeps
# the version's and dates' backtracking small. A date in parentheses is the first branch's only ("(2020-01-01)"
# also fit the short note's), else each one doubled the ways a heading that is none could be read.
RELEASE_CHARS = 200
_RELEASE = re.compile(
    rf"(?=(?s:.){{0,{RELEASE_CHARS}}}\Z){_LEAD}"
    rf"(?:\s*(?:[-–—:/,]\s*)?(?:\(?{_DATE}\)?|\((?!{_DATE}\))[^()]{{0,40}}\)|\[[^\[\]]{{0,20}}\]))*",
    re.IGNORECASE,
)
# ... or a date somewhere after it, whatever else the heading says: "5.0.0 Penny - July 4, 2020", "4.3.21 - June
# 25, 2019 - hot fix release". Topics with numbers carry no date.
_DATED = re.compile(rf"{_LEAD}\s.*?(?<![\w.]){_DATE}(?![\w.])", re.IGNORECASE)
DATED_CHARS = 80  # a heading, not a sentence that starts with a version
# "Unreleased", "[Unreleased] - 2024-05-01", "Upcoming release (main)"; not a topic such as "Upcoming deprecation".
_UNRELEASED = re.compile(
    r"\[?(?:unreleased|upcoming|in development|not yet released)(?: changes| release| version)?\]?"
    r"(?:\s*[-–—:(\[,].{0,40})?",
    re.I,
)
# A heading marked as a wiki writes it: "= 4.3.0 (20130812) =".
_WIKI_HEADING = re.compile(r"^=+\s+|(?<!\s)\s+=+$")  # blanks taken from their first: not retried from each (quadratic)
_BULLET = re.compile(r"^([ \t]*)[*+•][ \t]+")
_UNDERLINE = re.compile(r"^([=\-~^*+#])\1{2,}[ \t]*$")


@dataclass(frozen=True)
class Release:
    """One part of a changelog: the Markdown below a release heading (or before the first one)."""

    version: str  # "" for an unreleased section, or the document's own version for text before any release
    text: str


def is_changelog_name(name: str) -> bool:
    """`CHANGELOG`, `CHANGES.rst`, `NEWS.md`, `History.txt`, `versionhistory.rst`, `RELEASE_HISTORY.md`: the name
    (before any suffix) says changelog, or ends saying it."""
    stem = re.sub(r"[\W_]", "", name.split(".", 1)[0].lower())
    return stem in NAMES or stem.endswith(("changelog", "history"))


def heading_version(heading: str, product: str = "") -> str | None:
    """The version a release heading names, '' for an unreleased section, None for any other heading."""
    text = _WIKI_HEADING.sub("", " ".join(strip_markup(heading, keep_code=False).replace("*", "").split()))
    if _UNRELEASED.fullmatch(text):
        return ""
    match = _RELEASE.fullmatch(text) or (_DATED.match(text) if len(text) <= DATED_CHARS else None)
    if not match or (match.group("name") and not _names_product(match.group("name"), product)):
        return None
    pre = f"{_PRE[match.group('pre').lower()]}{match.group('n')}" if match.group("pre") else ""
    return safe_version(match.group("version").rstrip(".+") + pre)  # "## 2.2.0. (2007-07-31)", "to version 2.0.0+"


# A file's own form of release line, learned from the file (`repeated_releases`): the first version in a short
# line, after at most two words ("Version 2026.12.2:", "CHANGES 5.1.0  22/10/2026", "[0.18.15, 2025-08-19]:"); a
# pre-release suffix after a hyphen starts with a letter ("2.0.0-beta.1"), so a range "0.10.6-0.10.9" is no version.
_VERSION_TOKEN = re.compile(
    r"(?<![\w.])v?(\d+(?:\.\d+)+[0-9A-Za-z]*(?:[-+][A-Za-z][0-9A-Za-z]*(?:\.[0-9A-Za-z]+)*)?)(?![\w.])"
)
# after the version: "01.04.2024", "01.04.24", "2024.04.01"
_DOTTED_DATE = re.compile(r"(?<![\w.])(?:\d{1,2}\.\d{1,2}\.(?:19|20)?\d{2}|(?:19|20)\d{2}\.\d{1,2}\.\d{1,2})(?![\w.])")
_LEARNED_CHARS = 60  # a release line; the longest of the forms above in the docs seen is 33 characters
_WORD = re.compile(r"\b[A-Za-z]{2,}\b")  # not "th" of "4th"
_MONTHS = frozenset(
    m
    for full in ("january february march april may june july august september october november december").split()
    for m in (full, full[:3], "sept")
)
# Three lines of one form, in order, are a pattern, not a coincidence: two topics can share a form, and a list of
# several packages' pins names versions in no order.
_LEARNED_MIN = 3
_IN_ORDER = 0.8  # of the adjacent pairs that differ: a changelog may place a backport after a later release


def repeated_releases(candidates: list[tuple[int, str]], lines: list[str]) -> dict[int, str]:
    """{index: version} of those `candidates` (index into `lines`, text) that share one form, naming three
    versions or more in order (newest first or oldest first), most of them over text of their own: the release
    lines of a changelog whose form the grammar of `heading_version` does not know, learned from the file itself.
    A form is the line with its first version read as one mark, every other number as another and a month's name
    as a third; at most two words may come before the version and two after it, months aside, and no second
    version after it (a span). Lines with nothing but blank lines between them are a list (pins, supported
    Pythons), not releases. The form that starts first is taken (a topic lies inside a release), then each other
    form whose lines all lie outside the stretches of the file the forms taken cover: a file may write its older
    releases another way ("Revision 0.4.8" below "Revision 0.6.5, released 26-10-2026"), while lines of a form
    among the releases are topics inside them ("Python 3.13 support", "Released 2024.04.01")."""
    forms: dict[str, list[tuple[int, str]]] = {}
    for i, line in candidates:
        if len(line) > 4 * _LEARNED_CHARS:  # markup aside, no release line is this long
            continue
        text = " ".join(strip_markup(line, keep_code=False).replace("*", "").split())
        match = _VERSION_TOKEN.search(text) if len(text) <= _LEARNED_CHARS else None
        if not match or len(_WORD.findall(text[: match.start()])) > 2:
            continue
        rest = _DOTTED_DATE.sub("9", text[match.end() :])
        words = [w for w in _WORD.findall(rest) if w.lower() not in _MONTHS]  # a date's month is no word
        version = safe_version(match.group(1))
        # A second version makes the line a span ("Changes from 2.0.3 to 2.0.4"), not one release's.
        if version and len(words) <= 2 and not _VERSION_TOKEN.search(rest):
            rest = _WORD.sub(lambda w: "M" if w.group().lower() in _MONTHS else w.group(), rest)
            form = re.sub(r"\d+", "9", text[: match.start()]) + "V" + re.sub(r"\d+", "9", rest)
            forms.setdefault(form, []).append((i, version))
    chosen = [
        g for g in forms.values() if len({v for _, v in g}) >= _LEARNED_MIN and _ordered(g) and _over_text(g, lines)
    ]
    found: dict[int, str] = {}
    spans: list[tuple[int, int]] = []
    for group in sorted(chosen, key=lambda g: g[0][0]):
        first, last = group[0][0], group[-1][0]
        if all(last < a or first > b for a, b in spans):
            spans.append((first, last))
            found.update(group)
    return found


def _over_text(group: list[tuple[int, str]], lines: list[str]) -> bool:
    """Whether at most half of the lines of `group` have only blank lines between them and the next."""
    bare = sum(all(not lines[k].strip() for k in range(a + 1, b)) for (a, _), (b, _) in itertools.pairwise(group))
    return 2 * bare <= len(group) - 1


def _ordered(group: list[tuple[int, str]]) -> bool:
    """Whether the versions run one way: most adjacent pairs that differ newer first, or most older first (a
    version named twice in a row counts neither way)."""
    from packaging.version import InvalidVersion, Version  # only for a file whose release lines are learned

    keys = []
    for _, version in group:
        try:
            keys.append(Version(version))
        except InvalidVersion:
            return False
    pairs = list(itertools.pairwise(keys))
    down, up = sum(a > b for a, b in pairs), sum(a < b for a, b in pairs)
    return down + up >= _LEARNED_MIN - 1 and max(down, up) >= _IN_ORDER * (down + up)


def _learned(
    headings: list[tuple[int, int, str | None]], lines: list[str], product: str
) -> list[tuple[int, int, str | None]]:
    """`headings` with those of a form that `repeated_releases` finds given their versions, when the grammar reads
    no release in the file ("Unreleased" aside)."""
    if _grammar_reads_a_release(lines, in_fences(lines), headings, product):
        return headings
    learned = repeated_releases([(i, _ATX.match(lines[i]).group(2)) for i, _, _ in headings], lines)  # type: ignore[union-attr]
    return [(i, lvl, learned.get(i, version)) for i, lvl, version in headings]


def _names_product(name: str, product: str) -> bool:
    """The word before a heading's version is the product's name, or it without the major version it ends with
    ("Jinja 3.1.2" in `jinja2`'s changelog)."""
    return bool(product) and fold(name) in {fold(product), re.sub(r"(?<!\d)\d+$", "", fold(product))}


def releases(text: str, *, product: str = "", named: bool = False, own_version: str = "") -> list[Release] | None:
    """A Markdown changelog cut at its release headings, or None when `text` is no multi-release document.

    Every release heading starts a release, at whatever level (an RST changelog whose older releases use
    another underline nests them one level deeper); the document needs two, or one when it is a changelog by
    name or kind and has no version of its own (a version folder or front matter). A heading that is no release,
    at the level of the outermost release headings or above, ends the release before it; what follows it is
    `own_version`'s. The release headings themselves are left out, so sections are named by the headings below
    them. In a changelog by name or kind with no version of its own where the grammar reads no release
    ("Unreleased" aside), headings of a form the file repeats are releases (`repeated_releases`); elsewhere
    "Django 4.2", "Django 5.0" headings may be another product's releases."""
    lines = text.split("\n")
    headings = list(_headings(lines, product))
    headings = _learned(headings, lines, product) if named and not own_version else headings
    counts = Counter(level for _, level, version in headings if version)
    if not counts:
        return None
    level = min(counts)
    if sum(counts.values()) < 2 and not (named and not own_version):
        return None
    parts: list[Release] = []
    start, version = 0, own_version
    for i, lvl, found in headings:
        if lvl > level and found is None:
            continue
        parts.append(Release(version, "\n".join(lines[start:i])))
        released = found is not None
        start, version = (i + 1, found or "") if released else (i, own_version)
    parts.append(Release(version, "\n".join(lines[start:])))
    return [p for p in parts if p.text.strip()]


def _headings(lines: list[str], product: str, inside: list[bool] | None = None) -> list[tuple[int, int, str | None]]:
    """(line index, level, release version or None) of each ATX heading outside fenced code (`inside`, when the
    caller has it already)."""
    inside = in_fences(lines) if inside is None else inside
    return [
        (i, len(heading.group(1)), heading_version(heading.group(2), product))
        for i, line in enumerate(lines)
        if not inside[i] and (heading := _ATX.match(line))
    ]


def release_lines(text: str, product: str = "") -> str:
    """Markdown with its one-line paragraphs that are release lines ("6.0.4 (2026-11-20)") made headings, at the
    level of the file's other release headings: a changelog may underline its older releases and not its newer.
    Where the grammar reads no release ("Unreleased" aside), the lines of a form the file repeats are releases
    (`repeated_releases`)."""
    lines = text.split("\n")
    inside = in_fences(lines)
    headings = _headings(lines, product, inside)
    alone = [i for i in range(len(lines)) if not inside[i] and _alone_line(lines, i)]
    found = [i for i in alone if heading_version(lines[i].strip(), product) is not None]
    if not _grammar_reads_a_release(lines, inside, headings, product):
        found = sorted({*found, *repeated_releases([(i, lines[i]) for i in alone], lines)})
    if not found:
        return text
    level = min((lvl for _, lvl, version in headings if version is not None), default=0)
    if not level:
        # No heading is a release: the release lines are the file's top level, and its headings ("# New
        # features") go one level below them, or they would end the release they are in.
        level = 1
        for i, lvl, _ in headings:
            lines[i] = "#" * min(lvl + 1, 6) + lines[i].lstrip()[lvl:]
    for i in found:
        lines[i] = f"{'#' * level} {lines[i].strip()}"
    return "\n".join(lines)


def _grammar_reads_a_release(
    lines: list[str], inside: list[bool], headings: list[tuple[int, int, str | None]], product: str
) -> bool:
    """Whether the grammar reads a release (not "Unreleased") in the file's headings or in its lines outside code
    that are not indented ("Version 2.0.0" over its list): then its releases are in a form the grammar knows, and
    lines of another form are topics inside them ("### Python 3.12" under "## 1.0.0")."""
    return any(version for _, _, version in headings) or any(
        not inside[i] and line[:1].isalnum() and heading_version(line.strip(), product) for i, line in enumerate(lines)
    )


def _alone_line(lines: list[str], i: int) -> bool:
    """A paragraph of one line that could be a release heading ("6.0.4 (2026-11-20)", "= 4.3.0 (20130812) =",
    "**0.44.0 (2024-08-04)**", "[0.18.15, 2025-08-19]:")."""
    line = lines[i]
    alone = (i == 0 or not lines[i - 1].strip()) and (i + 1 == len(lines) or not lines[i + 1].strip())
    bold = line.startswith("**") and line.rstrip().endswith("**")
    return alone and (line[:1].isalnum() or line[:1] == "[" or bold or bool(_WIKI_HEADING.match(line)))


def news_to_markdown(text: str, *, product: str = "", named: bool = False) -> str | None:
    """Plain text with `Version 1.2.0` (or `1.2.0 (2024-05-01)`) lines as Markdown: those lines become
    headings (an underline below them is dropped), `*`/`+`/`•` bullets `- ` entries, each release's lines
    dedented; None when it has no such lines (two are needed unless the file is a changelog by name). A changelog
    by name where the grammar reads no release ("Unreleased" aside) has its own form learned (`repeated_releases`)."""
    lines = text.split("\n")
    opening = [(i, line) for i, line in enumerate(lines) if line.strip() and not line[0].isspace()]
    read = {i: heading_version(line.strip(), product) for i, line in opening}
    marks = [i for i, version in read.items() if version is not None]
    if named and not any(read.values()):  # no release ("Unreleased" aside)
        starts = [(i, line) for i, line in opening if i == 0 or not lines[i - 1].strip()]
        marks = sorted({*marks, *repeated_releases(starts, lines)})
    if len(marks) < (1 if named else 2):
        return None
    out: list[str] = []
    for k, start in enumerate([0, *marks]):
        end = marks[k] if k < len(marks) else len(lines)
        body = lines[start + (k > 0) : end]
        if k and body and _UNDERLINE.match(body[0]):
            body = body[1:]
        if k:
            out.append("## " + lines[start].strip())
        out.append(textwrap.dedent("\n".join(_BULLET.sub(r"\1- ", line) for line in body)))
    return "\n".join(out)
