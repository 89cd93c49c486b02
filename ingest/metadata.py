"""Metadata of one document checked at ingest: what a file declares about itself is data, not markup.

A field that fails its check is replaced by what the path implies or dropped, with a warning naming the file,
the field and why; the document itself is always indexed. The rules (also in the README):
- url: an absolute http(s) URL to a host, re-serialised (`assistant.text.untrusted.safe_url`); anything else dropped;
- version: `assistant.text.untrusted.VERSION_PATTERN` (PEP 440 and semver both pass; a leading 'v' is removed);
- title, kind, section, product: one line of plain text (tags removed, entities decoded once, control
  characters removed, length capped);
- language: a language tag (`en`, `fr`, `pt-BR`), else the file-name suffix or 'en'.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlsplit

from assistant.text.untrusted import (
    URL_SCHEMES,
    field_limit,
    html_text,
    one_line,
    plain_text,
    safe_url,
    safe_version,
    without_controls,
)

IngestWarning = dict[str, str]  # {"file", "field", "problem"}, as `ingest --json` reports it
TEXT_FIELDS = ("title", "kind", "section", "product")
LANGUAGE = re.compile(r"[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})?")
_TAG = re.compile(r"<[A-Za-z!/?]")


def validate(
    source: str, front: Mapping[str, str], inferred: Mapping[str, str]
) -> tuple[dict[str, str], list[IngestWarning]]:
    """Checked metadata of `source`: `front` (its front matter) wins over `inferred` (what the path and body
    imply) where it passes; returns the fields and one warning per field that was changed or dropped."""
    warnings: list[IngestWarning] = []

    def warn(name: str, problem: str) -> None:
        warnings.append({"file": source, "field": name, "problem": problem})

    meta = {k: plain_text(v, limit=field_limit(k)) for k, v in front.items() if k not in inferred}  # unused keys
    for name in (*inferred, *(f for f in TEXT_FIELDS if f in front and f not in inferred)):
        given = front.get(name, "")
        fallback = inferred.get(name, "")
        if name == "url":
            meta[name] = (safe_url(given) or "") if given else ""
            if given and not meta[name]:
                warn(name, f"{url_problem(given)}; dropped")
        elif name == "version":
            meta[name], problem = _version(given, fallback)
            if problem:
                warn(name, problem)
        elif name == "language":
            primary, dash, rest = given.partition("-")
            tag = primary.lower() + dash + rest  # "FR" is "fr"
            meta[name] = tag if LANGUAGE.fullmatch(tag) else fallback
            if given and meta[name] != tag:
                warn(name, f"not a language tag such as en, fr or pt-BR; using {fallback!r}")
        else:
            fallback = plain_text(fallback, limit=field_limit(name), entities=False)  # from the extracted body
            cleaned = plain_text(given, limit=field_limit(name)) if given else ""
            meta[name] = cleaned or fallback
            problems = text_problems(given, name) if given else []
            if given and not cleaned:
                using = "the first heading or file name" if name == "title" else repr(fallback)
                problems.append(f"nothing left, using {using}" if fallback else "nothing left")
            if problems:
                warn(name, "; ".join(problems))
    return meta, warnings


def _version(given: str, folder: str) -> tuple[str, str]:
    """The checked version (front matter, else the folder name) and the problem to report ('' for none)."""
    checked = safe_version(given) if given else None
    from_folder = safe_version(folder) if folder else None
    if checked is not None:
        return checked, ""
    if given:
        using = f"; using {from_folder!r} from the folder name" if from_folder else "; dropped"
        return from_folder or "", f"not a version number (such as 2.1.0, 2.0.0rc1 or 1.2.3-beta.1){using}"
    if folder and from_folder is None:
        return "", "the folder name is not a version number (such as 2.1.0); left empty"
    return from_folder or "", ""


def url_problem(url: str) -> str:
    """Why `url` is no link reldocs will make, in a few words (the value itself is never repeated)."""
    url = url.strip()
    scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]{0,15}):", url)
    if scheme and scheme.group(1).lower() not in URL_SCHEMES:
        return f"a {scheme.group(1).lower()}: link, not http(s)"
    if re.search(r"[\s\"'<>`\\{}|^\x00-\x1f\x7f]", url):
        return "holds spaces, quotes or angle brackets, so it is not one http(s) URL"
    if not scheme:
        return "not an absolute http(s) URL"
    try:
        if "@" in urlsplit(url).netloc:
            return "names a user before the host (user@host), which hides where the link goes"
    except ValueError:
        pass
    return "not a valid http(s) URL"


def text_problems(value: str, name: str) -> list[str]:
    """What `plain_text` changes in `value` beyond decoding entities and spacing, one phrase each."""
    problems = []
    text = html_text(value) if "<" in value or "&" in value else value
    if _TAG.search(value) and text != value:
        problems.append("HTML tags removed")
    if without_controls(text) != text:
        problems.append("control characters removed")
    if len(one_line(text)) > field_limit(name):
        problems.append(f"cut to {field_limit(name)} characters")
    return problems
