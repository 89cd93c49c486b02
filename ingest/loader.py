"""Reads the corpus folder into documents: front matter, inferred metadata, readable errors."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import yaml

from assistant.errors import ReldocsError

SUFFIXES = (".md", ".markdown", ".txt", ".rst", ".html", ".htm")
_KINDS = ("release-notes", "migration-guide", "release-news", "changelog", "upgrade-guide")
_LANG_SUFFIX = re.compile(r"\.([a-z]{2})$")


class DocumentError(ReldocsError):
    """A corpus file that cannot be indexed; the message says why in one line."""


@dataclass(frozen=True)
class Document:
    source: str  # path relative to the corpus root, forward slashes
    text: str  # body without front matter, Markdown where the format allows
    file_hash: str
    meta: dict[str, str] = field(default_factory=dict)

    @property
    def format(self) -> str:
        return "markdown" if self.source.endswith((".md", ".markdown", ".rst", ".html", ".htm")) else "text"


def discover(root: Path) -> list[Path]:
    """Corpus files under `root` in a stable order, hidden files and folders skipped."""
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file()
        and p.suffix.lower() in SUFFIXES
        and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )


def file_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def load_document(path: Path, root: Path) -> Document:
    """Read one file; raises DocumentError for binary, undecodable or badly fronted files."""
    source = path.relative_to(root).as_posix()
    try:
        data = path.read_bytes()
    except OSError as e:
        raise DocumentError(f"cannot read file: {e.strerror or e}") from e
    if b"\x00" in data[:8192]:
        raise DocumentError("binary file (contains NUL bytes), not text")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise DocumentError(f"not valid UTF-8 (byte 0x{data[e.start]:02x} at offset {e.start})") from e
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    front, body = split_front_matter(text)
    suffix = path.suffix.lower()
    if suffix in (".html", ".htm"):
        body = html_to_markdown(body)
    elif suffix == ".rst":
        body = rst_to_markdown(body)
    if not body.strip():
        raise DocumentError("empty document")
    return Document(source, body, file_hash(data), infer_metadata(source, body, front))


def split_front_matter(text: str) -> tuple[dict[str, str], str]:
    """Split a leading `---` YAML block from the body; broken YAML is an error, not silently text."""
    if not text.startswith("---\n"):
        return {}, text
    end = text.find("\n---", 3)
    if end == -1:
        raise DocumentError("broken front matter: no closing '---' line")
    try:
        data = yaml.safe_load(text[4:end])
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark else ""
        raise DocumentError(f"broken front matter: invalid YAML{where}") from e
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise DocumentError("broken front matter: expected 'key: value' lines")
    rest = text[end + 4 :]
    rest = rest.split("\n", 1)[1] if "\n" in rest else ""
    return {str(k): "" if v is None else str(v) for k, v in data.items()}, rest


def infer_metadata(source: str, body: str, front: dict[str, str]) -> dict[str, str]:
    """Front matter wins; otherwise product/version come from `<product>/<version>/...` folders."""
    parts = source.split("/")
    name = parts[-1]
    stem = name.rsplit(".", 1)[0]
    lang_match = _LANG_SUFFIX.search(stem)
    meta = {
        "product": parts[0] if len(parts) >= 3 else "",
        "version": parts[1].removeprefix("v") if len(parts) >= 3 else "",
        "title": first_heading(body),
        "kind": next((k for k in _KINDS if k in stem.lower()), "document"),
        "language": lang_match.group(1) if lang_match else "en",
        "url": "",
    }
    meta.update({k: v.strip() for k, v in front.items() if v.strip()})
    meta["version"] = meta["version"].removeprefix("v")
    return meta


def first_heading(body: str, limit: int = 90) -> str:
    """The first Markdown heading, else the first non-empty line, shortened at a word boundary."""
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    heading = next((line for line in lines if re.match(r"#{1,6}\s", line)), None)
    title = (heading.lstrip("#").strip() if heading else lines[0] if lines else "").strip()
    if len(title) > limit:
        title = title[:limit].rsplit(" ", 1)[0] + "…"
    return title


def rst_to_markdown(text: str) -> str:
    """Turn reStructuredText's underlined titles into Markdown headings (enough for chunking)."""
    lines = text.split("\n")
    levels: list[str] = []
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if (
            line.strip()
            and re.fullmatch(r"([=\-~^\"'`#*+])\1{2,}", nxt.strip())
            and len(nxt.strip()) >= len(line.strip())
        ):
            char = nxt.strip()[0]
            if char not in levels:
                levels.append(char)
            out.append("#" * min(levels.index(char) + 1, 6) + " " + line.strip())
            i += 2
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


class _HTMLToMarkdown(HTMLParser):
    _BLOCKS = frozenset({"p", "div", "section", "article", "br", "tr", "table", "ul", "ol"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip = 0
        self.pre = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "nav", "head"):
            self.skip += 1
        elif re.fullmatch(r"h[1-6]", tag):
            self.out.append("\n\n" + "#" * int(tag[1]) + " ")
        elif tag == "li":
            self.out.append("\n- ")
        elif tag == "pre":
            self.pre = True
            self.out.append("\n```\n")
        elif tag == "code" and not self.pre:
            self.out.append("`")
        elif tag in self._BLOCKS:
            self.out.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "nav", "head"):
            self.skip = max(0, self.skip - 1)
        elif tag == "pre":
            self.pre = False
            self.out.append("\n```\n")
        elif tag == "code" and not self.pre:
            self.out.append("`")
        elif re.fullmatch(r"h[1-6]", tag) or tag in self._BLOCKS:
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.out.append(data if self.pre else re.sub(r"\s+", " ", data))


def html_to_markdown(html: str) -> str:
    parser = _HTMLToMarkdown()
    parser.feed(html)
    text = "".join(parser.out)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(line.rstrip() for line in text.split("\n"))).strip() + "\n"
