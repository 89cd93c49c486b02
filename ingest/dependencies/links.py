"""Release docs read from a project's changelog link (its `project_urls`), when its archive has none.

The link's key says what it is (`Changelog`, `Release notes`, `Changes`, `History`, any case and spacing); the
URL says how it is read:
- a file on GitHub (`https://github.com/o/r/blob/ref/path`, or `raw.githubusercontent.com`): its raw text;
- GitHub Releases (`https://github.com/o/r/releases`): the REST API's pages of releases, their bodies joined
  into one Markdown file, a `## <tag> (<date>)` heading per release and the body's own headings two levels below;
- any other page (https on a public host: `ingest.dependencies.addresses`): HTML turned into Markdown by
  `ingest.markup.html_to_markdown` (the standard library's `html.parser`, the same untrusted-markup path every
  `.html` corpus file takes: scripts, styles and frames are dropped with their content, links kept only when
  http(s), nothing is run); text and Markdown kept as they are.
The file is stored under a plain name from the URL's, with a suffix the sync indexes (`changelog.md` for HTML).
GitHub's hosts are settings (`github_api_url`, `github_raw_url`), so tests replay them locally.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import urljoin, urlsplit

from ingest.changelog import heading_version
from ingest.dependencies.limits import MAX_PAGE_BYTES, MAX_RELEASE_PAGES
from ingest.dependencies.transport import FetchError, Http, Response
from ingest.markdown_blocks import in_fences
from ingest.markup import html_to_markdown

# `project_urls` keys that name release docs, lower-cased with everything but letters removed, best first.
CHANGELOG_KEYS = ("changelog", "changes", "releasenotes", "whatsnew", "history", "changehistory", "news", "releases")
_GITHUB = frozenset({"github.com", "www.github.com"})
# The URL holds no "<": a run of them is passed over one by one, not read to its end from each.
_LINK_NEXT = re.compile(r'<([^<>]+)>\s*;\s*rel="?next"?')
_ATX = re.compile(r"^( {0,3})(#{1,6})(?=[ \t]|$)")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_MARKDOWN = frozenset({".md", ".markdown", ".mdown"})


@dataclass(frozen=True)
class Page:
    """Release docs read from a link: the file name to store them under, the text, where they were read."""

    name: str
    data: bytes
    url: str


def changelog_links(project_urls: dict[str, str]) -> list[str]:
    """The http(s) links of `project_urls` whose key names release docs, best key first."""
    keyed = {re.sub(r"[^a-z]", "", key.lower()): url for key, url in project_urls.items()}
    links = [keyed[k] for k in CHANGELOG_KEYS if k in keyed]
    return [u for u in dict.fromkeys(links) if urlsplit(u).scheme in ("http", "https")]


def read_link(http: Http, url: str, *, api: str, raw: str, product: str) -> Page:
    """The release docs at a changelog link; `FetchError` when they cannot be read."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    path = [p for p in parts.path.split("/") if p]
    if host in _GITHUB and len(path) >= 5 and path[2] == "blob":
        return _file(http, f"{raw}/{'/'.join(path[:2] + path[3:])}", product)
    if host in _GITHUB and len(path) >= 3 and path[2] == "releases":
        return _releases(http, f"{api}/repos/{path[0]}/{path[1]}/releases?per_page=100", api=api, product=product)
    if host == "raw.githubusercontent.com":
        return _file(http, f"{raw}/{'/'.join(path)}", product)
    return _file(http, url, product)


def _file(http: Http, url: str, product: str) -> Page:
    response = http.get(url, limit=MAX_PAGE_BYTES, link=True)
    text = _decode(response)
    content_type = response.headers.get("content-type", "").lower()
    suffix = PurePosixPath(urlsplit(response.url).path).suffix.lower()
    html = "html" in content_type or suffix in (".html", ".htm")
    if html:
        text = html_to_markdown(text)
    if not text.strip():
        raise FetchError(f"{response.url} holds no text")
    return Page(stored_name(response.url, content_type, html=html), text.encode("utf-8"), response.url)


def stored_name(url: str, content_type: str = "", *, html: bool = False) -> str:
    """The file name a page read from `url` is stored under: the URL's own name made plain (as
    `store.file_names` makes archive paths), never hidden, with the suffix of a doc the sync indexes: `.md` for
    Markdown and HTML turned into it, `.rst` kept, anything else `.txt` (`CHANGES` becomes `CHANGES.txt`)."""
    name = PurePosixPath(urlsplit(url).path).name
    stem, suffix = PurePosixPath(name).stem, PurePosixPath(name).suffix.lower()
    if name.startswith(".") and not PurePosixPath(stem).suffix:  # `.md`: a suffix only, no name
        stem, suffix = "", name.lower()
    if html:
        return "changelog.md"
    if suffix in _MARKDOWN or "markdown" in content_type:
        suffix = ".md"
    elif suffix not in (".rst", ".txt"):
        stem, suffix = stem + suffix, ".txt"  # `CHANGES`, `v1.2`, `notes.php`: kept whole, read as text
    stem = _UNSAFE.sub("-", stem).strip("-.")[:100].strip("-.")
    return (stem or "changelog") + suffix


def _decode(response: Response) -> str:
    charset = re.search(r"charset=([\w-]+)", response.headers.get("content-type", ""))
    try:
        return response.body.decode(charset.group(1) if charset else "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know
        return response.body.decode("utf-8", errors="replace")


def _releases(http: Http, url: str, *, api: str, product: str) -> Page:
    """GitHub Releases, newest first, as one Markdown changelog."""
    first = url
    sections: list[str] = []
    for _ in range(MAX_RELEASE_PAGES):
        response = http.get(url, limit=MAX_PAGE_BYTES, headers={"Accept": "application/vnd.github+json"}, link=True)
        try:
            releases = json.loads(response.body)
        except ValueError:
            raise FetchError(f"{response.url} is not the JSON of a Releases API") from None
        if not isinstance(releases, list):
            raise FetchError(f"{response.url} is not a list of releases")
        sections += [_section(r, product) for r in releases if isinstance(r, dict) and not r.get("draft")]
        following = _LINK_NEXT.search(response.headers.get("link", ""))
        if not following:
            break
        url = urljoin(response.url, following.group(1))
        if urlsplit(url)[:2] != urlsplit(api)[:2]:  # pages come from the API's own host, nowhere else
            break
    sections = [s for s in sections if s]
    if not sections:
        raise FetchError(f"{first} lists no releases")
    return Page("releases.md", ("# Releases\n\n" + "\n\n".join(sections) + "\n").encode("utf-8"), first)


def _section(release: dict, product: str) -> str:
    tag = " ".join(str(release.get("tag_name") or release.get("name") or "").split())[:100]
    if not tag:
        return ""
    if heading_version(tag, product) is None:
        # a tag such as `flask-2.0.1` or `release/2.0.1`: its version, when its last part is one
        last = re.split(r"[-_/@ ]", tag)[-1]
        tag = last if heading_version(last, product) is not None else tag
    date = str(release.get("published_at") or "")[:10]
    heading = f"## {tag} ({date})" if re.fullmatch(r"\d{4}-\d{2}-\d{2}", date) else f"## {tag}"
    return f"{heading}\n\n{demote(str(release.get('body') or '').strip())}".rstrip()


def demote(markdown: str, levels: int = 2) -> str:
    """Markdown with its headings `levels` deeper (at most 6), fenced code left alone: a release body's `## What's
    Changed` must not end the release it belongs to."""
    lines = markdown.replace("\r\n", "\n").split("\n")
    inside = in_fences(lines)
    for i, line in enumerate(lines):
        m = _ATX.match(line) if not inside[i] else None
        if m:
            lines[i] = m.group(1) + "#" * min(len(m.group(2)) + levels, 6) + line[m.end() :]
    return "\n".join(lines)
