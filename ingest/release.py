"""Which release a one-release document is about when no folder says so: its file name, then its title or heading.

The forms, in the order they are tried; the first that names a release wins, so the more specific place wins:
1. the folder, `<product>/<version>/<file>`, and front matter's `version:` (`ingest.loader`, `ingest.metadata`;
   front matter wins over the folder), as before;
2. the file name, case and separators free: `2.3.rst`, `2.3.0.txt`, `v2.3.md`, `release-2.3.0.md`,
   `release_2.3.rst`, `2.3.0-notes.rst`, `acme2.3.md`, `Acme 2.3.md`, `acme-2.3.md` (`acme` the product, the
   folder the file is in), `migrate-to-9.0.0.md`;
3. front matter's `title:` naming a release, then the document's first heading: "What's New In Acme 2.3",
   "Acme 5.2 Release Notes", "Version 2.3", "2.3.0 (2024-01-05)", "Migrating to v9", "Migrate to v9.x",
   "Migrating from v7 to v8" (a heading naming two releases is about the one it migrates to), "V5 Migration
   Guide" (one release with a migration word), "Upgrading from v7" (from one release alone: to the next major, 8),
   "From v29 to v30" (a title that is only the span);
4. where none of those names one, the first paragraph of a guide that says what it migrates to ("> **Migrating
   from Axios 0.x to 1.x**" under "# Axios Migration Guide").
A year-like release (the first number 1900 or more: a `2024.1.md` or "Notes for 2024.1") is taken only where
nothing else names one. A file holding many releases is a changelog: each of its entries gets the release of its
own heading (`ingest.changelog`), not one for the file.
"""

from __future__ import annotations

import re
from typing import Literal

from assistant.text.untrusted import safe_version
from assistant.text.words import fold
from ingest.changelog import heading_version

Where = Literal["file name", "title", "heading", "lead", ""]

# A release number: possessive, so a long run of digits is read once whatever follows it.
_NUMBER = r"v?(?P<version>\d++(?:\.\d++){%s}(?:(?:a|b|rc|\.post|\.dev)\d++)?)"
# The file name's stem ends with the release, before "notes" at most; only the start of a number run is tried.
_NAME = re.compile(rf"(?<![\d.]){_NUMBER % '1,3'}(?:[ _-]*+(?:release[ _-]*+)?notes)?$", re.IGNORECASE)
_NAME_LEADS = ("v", "release", "releases", "releasenotes")  # ... after one of these words or the product's name
_MIGRATE_LEAD = re.compile(r"(?:migrat|upgrad)[a-z]{0,8}?tov?")  # ... or `migrate-to-`, `upgrading_to_v`
# One word of a title, with its punctuation stripped; a series is written `v9.x` ("Migrate to v9.x": 9).
_TOKEN = re.compile(rf"{_NUMBER % '0,3'}(?:\.[x*])?+", re.IGNORECASE)
_WORD_EDGES = "()[],:;!?\"'"


def release_from_name(name: str, product: str) -> str | None:
    """The release a file's name says it is about (`acme-2.3.0.md` in `acme/`), else None."""
    stem = name.rsplit(".", 1)[0] if re.search(r"\.[A-Za-z]\w*+$", name) else name
    m = _NAME.search(stem.strip())
    if m is None or "." not in m.group("version"):
        return None
    lead = _squashed(stem[: m.start()])
    if lead and lead not in _NAME_LEADS and lead != _squashed(product) and not _MIGRATE_LEAD.fullmatch(lead):
        return None
    return safe_version(m.group("version"))


def _squashed(name: str) -> str:
    """`name` folded, without separators: "Acme " and "acme-" alike."""
    return fold(re.sub(r"[\W_]", "", name))


def release_from_title(title: str, product: str) -> str | None:
    """The release a title or first heading names, else None: a release heading ("What's New In Acme 2.3",
    "Version 2.3"), "Acme 5.2 Release Notes", "Release notes for 2.3", "Migrating (from v7) to v8"."""
    found = heading_version(title, product)
    if found:
        return found
    words = [w.strip(_WORD_EDGES).rstrip(".") for w in title.split()]  # "… from Fastify v4 to v5."
    lower = [w.lower() for w in words]
    migrates = any(w.startswith(_MIGRATION_WORDS) for w in lower)
    tokens = [w for w in words if (m := _TOKEN.fullmatch(w)) and (w[:1] in "vV" or "." in m.group("version"))]
    if migrates and "to" not in lower and len(tokens) == 1:
        at = words.index(tokens[0])
        if lower[at - 1 : at] == ["from"]:  # "Upgrading from v7", "Migration from v7": to the next major, 8
            return _next_major(tokens[0])
        return _number(tokens)  # "V5 Migration Guide", "Upgrade guide for v2.0"
    for i, word in enumerate(lower):
        # "Migrating from v7 to v8", and a title that is only the span: "From v29 to v30"
        if word == "to" and (any(w.startswith(_MIGRATION_WORDS) for w in lower[:i]) or lower[:1] == ["from"]):
            return _number(words[i + 1 : i + 3])  # "to v9", "to Acme 3"
        if word in ("for", "of") and lower[i - 1 : i] == ["notes"]:
            return _number(words[i + 1 : i + 3])
        if lower[i : i + 2] == ["release", "notes"] and i:
            before = words[i - 2] if i >= 2 else ""
            named = not before or fold(before) == fold(product)
            return _number(words[i - 1 : i], dotted=True) if named else None
    return None


_MIGRATION_WORDS = ("migrat", "upgrad", "updat")  # "Migrating", "Upgrade guide", "Updating from v7"


def _next_major(word: str) -> str | None:
    """The major release after the one a word names ("v7", "v7.x", "7.2" -> "8")."""
    found = _number([word])
    return safe_version(str(int(found.split(".", 1)[0]) + 1)) if found else None


def _number(words: list[str], *, dotted: bool = False) -> str | None:
    """The first of `words` that is a release number (`dotted`: with a dot), else None."""
    for word in words:
        m = _TOKEN.fullmatch(word)
        if m and (not dotted or "." in m.group("version")):
            return safe_version(m.group("version"))
    return None


def release_of(name: str, product: str, titles: tuple[str, ...], lead: str = "") -> tuple[str, Where]:
    """The release of a one-release document in `product`'s folder named `name`, and where it was read; `titles`
    are its front matter's title (or '') and its first heading, in that order; `lead` its first paragraph, read
    only for what a guide migrates to ("> **Migrating from Axios 0.x to 1.x**" under "Axios Migration Guide").
    ('', '') when none says one."""
    found: list[tuple[str, Where]] = []
    if (version := release_from_name(name, product)) is not None:
        found.append((version, "file name"))
    for title, where in zip(titles, ("title", "heading"), strict=True):
        if title and (version := release_from_title(title, product)) is not None:
            found.append((version, where))  # type: ignore[arg-type]
    if not found and _MIGRATES.search(lead) and (version := release_from_title(lead, product)) is not None:
        found.append((version, "lead"))
    plain = [f for f in found if not _year_like(f[0])]
    return (plain or found or [("", "")])[0]


_MIGRATES = re.compile(r"\b(?:migrat|upgrad)\w*\b.{0,80}?\bto\b", re.IGNORECASE)


def _year_like(version: str) -> bool:
    return int(version.split(".", 1)[0]) >= 1900
