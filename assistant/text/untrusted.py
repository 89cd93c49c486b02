"""Checks for strings that come from the indexed docs, which other projects wrote: treat them as data.

Ingest validates metadata with these (bad fields are dropped with a warning), and every renderer re-checks
links with `safe_url` before it emits one, so a document can never choose where a reader's click goes.

Written by hand on top of `urllib.parse` and `html.parser` because what is checked is reldocs' own policy
(http(s) only, no credentials in links, a version pattern); the parsing itself is the standard library's.
"""

from __future__ import annotations

import re
import unicodedata
from html.parser import HTMLParser
from urllib.parse import quote, urlsplit, urlunsplit

URL_SCHEMES = frozenset({"http", "https"})
MAX_URL_CHARS = 2048
MAX_FIELD_CHARS = {"title": 200, "section": 300, "kind": 40, "product": 60, "language": 12}
DEFAULT_FIELD_CHARS = 200
# PEP 440 ("2.0.0rc1", "1!2.0.post1", "1.0+local.7") and semver ("1.2.3-alpha.1+build.5") both match:
# digits first, then dot-separated numbers, then letters and digits where each '.', '-', '_' or '+' is followed
# by one. Written one character at a time with possessive repeats, so a near-miss ("1" + "a" * 30 + "!") fails
# in linear time: the old `(?:[-_.+]?[0-9A-Za-z]+)*` could split a run of letters 2^n ways before failing.
VERSION_PATTERN = re.compile(r"(?:\d++!)?\d++(?:\.\d++)*+(?:[-_.+]?[0-9A-Za-z])*+")
MAX_VERSION_CHARS = 64
# Characters that never belong in a URL and are the tools of markup injection.
_URL_FORBIDDEN = re.compile(r"[\s\"'<>`\\{}|^\x00-\x1f\x7f]")
_HOST = re.compile(
    r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?|\[[0-9a-f:.]+\]"
)
# Elements whose content is not readable text (code, styles, embedded documents, form widgets, media).
DROP = frozenset(
    "script style iframe object noscript template svg math textarea select title noembed noframes xmp head applet "
    "frameset canvas audio video nav".split()
)
VOID = frozenset("area base br col embed frame hr img image input keygen link meta param source track wbr".split())
HEADINGS = frozenset(f"h{n}" for n in range(1, 7))
BLOCKS = frozenset(
    "p div section article header footer main aside blockquote figure figcaption details summary dl dt dd address "
    "hgroup fieldset legend form center caption table thead tbody tfoot ul ol menu dialog search".split()
)
INLINE = frozenset(
    "a abbr acronym b bdi bdo big blink button cite code data datalist del dfn em font i ins kbd label mark marquee "
    "meter nobr optgroup option output picture pre progress q rb rp rt rtc ruby s samp small span strike strong sub "
    "sup time tt u var li tr td th html body slot portal".split()
)
ELEMENTS = DROP | VOID | HEADINGS | BLOCKS | INLINE
_PATH_SAFE = "/%:@!$&*+,;=-._~"  # RFC 3986 pchar minus quote and parentheses, which Markdown reads as syntax
_QUERY_SAFE = _PATH_SAFE + "?"


def safe_url(url: str) -> str | None:
    """`url` parsed and re-serialised when it is an absolute http(s) link to a host; None for anything else.

    Spaces, quotes, angle brackets and control characters make it no URL at all (they are how markup is
    smuggled in), as do credentials (`https://docs.example@evil.example/` shows one host and opens another).
    """
    url = url.strip()
    if not url or len(url) > MAX_URL_CHARS or _URL_FORBIDDEN.search(url):
        return None
    try:
        parts = urlsplit(url)
        port = parts.port  # raises ValueError for a port that is not a number in range
    except ValueError:
        return None
    if parts.scheme.lower() not in URL_SCHEMES or not parts.hostname or "@" in parts.netloc:
        return None
    try:
        host = parts.hostname.encode("idna").decode("ascii") if not parts.hostname.isascii() else parts.hostname
    except UnicodeError:
        return None
    host = host.lower()
    if not _HOST.fullmatch(host):
        return None
    netloc = host + (f":{port}" if port is not None else "")
    return urlunsplit(
        (
            parts.scheme.lower(),
            netloc,
            quote(parts.path, safe=_PATH_SAFE) or "/",
            quote(parts.query, safe=_QUERY_SAFE),
            quote(parts.fragment, safe=_QUERY_SAFE),
        )
    )


def url_host(url: str) -> str:
    """The host a safe URL points at (`pytorch.org`), or '' for anything that is not one."""
    safe = safe_url(url)
    return urlsplit(safe).hostname or "" if safe else ""


def looks_like_url(text: str) -> bool:
    """Text a reader would take for a link target ("https://…", "www.…", "pytorch.org/docs")."""
    t = text.strip().lower()
    # A scheme, "www.", a host followed by a path or port, or a bare host with a short TLD ("evil.com"); a
    # code name like `torch.compile` is not one, `np.nan` may be taken for one, which only costs a plainer label.
    return bool(
        re.match(r"[a-z][a-z0-9+.-]*:\S|www\.", t)
        or re.match(r"[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}[/:]", t)
        or re.fullmatch(r"[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,3}\.?", t)
    )


def safe_version(version: str) -> str | None:
    """The version without a leading 'v' when it matches `VERSION_PATTERN`, else None."""
    v = version.strip().removeprefix("v").removeprefix("V")
    return v if len(v) <= MAX_VERSION_CHARS and VERSION_PATTERN.fullmatch(v) else None


class _TextOnly(HTMLParser):
    """Collects the text of an HTML fragment; elements that hold no readable text lose their content, and
    words in angle brackets that are no HTML element (`List<T>`, `<tensor>`) stay as written."""

    def __init__(self, *, entities: bool) -> None:
        super().__init__(convert_charrefs=entities)  # decoded here, once, or kept as written
        self.out: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in DROP:
            self.skip += 1
        elif not self.skip and is_word_in_brackets(tag, attrs):
            self.out.append(self.get_starttag_text() or "")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if not self.skip and is_word_in_brackets(tag, attrs):
            self.out.append(self.get_starttag_text() or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in DROP:
            self.skip = max(0, self.skip - 1)
        elif not self.skip and is_word_in_brackets(tag, []):
            self.out.append(f"</{tag}>")

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.out.append(data)

    def handle_entityref(self, name: str) -> None:
        if not self.skip:
            self.out.append(f"&{name};")

    def handle_charref(self, name: str) -> None:
        if not self.skip:
            self.out.append(f"&#{name};")


def is_word_in_brackets(tag: str, attrs: list[tuple[str, str | None]]) -> bool:
    """`<T>`, `<K, V>`, `<tensor>`: no HTML element, no attribute values, no custom-element dash: a word."""
    return tag not in ELEMENTS and "-" not in tag and not any(v for _, v in attrs)


def html_text(fragment: str, *, entities: bool = True) -> str:
    """The readable text of an HTML fragment: tags removed, script-like content dropped, entities decoded once
    (or, with `entities=False`, for text whose entities were decoded already, kept as they are)."""
    parser = _TextOnly(entities=entities)
    parser.feed(fragment)
    parser.close()
    return "".join(parser.out)


def without_controls(text: str) -> str:
    """`text` without control and format characters (ANSI escapes, bidi overrides); newlines and tabs stay."""
    text = re.sub(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]", "", text)
    return "".join(c for c in text if c in "\n\t" or unicodedata.category(c) not in ("Cc", "Cf", "Cs", "Co"))


def one_line(text: str) -> str:
    """`text` on one line, with nothing a terminal or chat client acts on (a newline in a title fakes no row)."""
    return " ".join(without_controls(text).split())


def plain_text(value: str, *, limit: int = DEFAULT_FIELD_CHARS, entities: bool = True) -> str:
    """A metadata field as one line of plain text: tags removed, entities decoded once, controls gone, capped.

    `entities=False` for text taken from an extracted body, whose entities were decoded already.
    """
    text = html_text(value, entities=entities) if "<" in value or "&" in value else value
    text = one_line(text)
    if len(text) > limit:
        text = text[: limit - 1].rsplit(" ", 1)[0].rstrip() + "…"
    return text


def field_limit(name: str) -> int:
    return MAX_FIELD_CHARS.get(name, DEFAULT_FIELD_CHARS)
