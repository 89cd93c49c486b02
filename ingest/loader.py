"""Reads the corpus folder into documents: front matter, checked metadata, extracted text, readable errors."""

from __future__ import annotations

import functools
import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from assistant.model.errors import ReldocsError
from assistant.text.untrusted import field_limit, plain_text
from assistant.text.words import fold
from ingest.changelog import heading_version, is_changelog_name, news_to_markdown, release_lines, releases
from ingest.markdown_blocks import atx_headings, myst_directives, myst_roles
from ingest.markup import html_to_markdown, markdown_text
from ingest.metadata import IngestWarning, validate
from ingest.release import release_of

SUFFIXES = (".md", ".markdown", ".txt", ".rst", ".html", ".htm")
_KINDS = ("release-notes", "migration-guide", "release-news", "changelog", "upgrade-guide")
_LANG_SUFFIX = re.compile(r"\.([a-z]{2})$")
_MD_HEADING = re.compile(r"^#{1,6}[ \t]+\S", re.MULTILINE)


class DocumentError(ReldocsError):
    """A corpus file that cannot be indexed; the message says why in one line."""


@dataclass(frozen=True)
class Document:
    source: str  # path relative to the corpus root, forward slashes
    text: str  # body without front matter, Markdown where the format allows
    file_hash: str
    meta: dict[str, str] = field(default_factory=dict)
    warnings: tuple[IngestWarning, ...] = ()  # metadata that was cleaned or dropped, for the ingest report
    syntax: str = ""  # "markdown" or "text" as the loader extracted it; else implied by the suffix
    # The kind of each code name its roles write ("pivot": "func", "DataFrame.append": "meth"), which the rendered
    # code span no longer says (`ingest.rst_roles.role_kinds`)
    roles: dict[str, str] = field(default_factory=dict)

    @property
    def format(self) -> str:
        if self.syntax:
            return self.syntax
        return "markdown" if self.source.endswith((".md", ".markdown", ".rst", ".html", ".htm")) else "text"


def discover(root: Path) -> list[Path]:
    """Corpus files under `root` in a stable order (changelogs also without a suffix: `NEWS`, `CHANGES`),
    hidden files and folders skipped, symbolic links never followed (`corpus_files` names them)."""
    return corpus_files(root)[0]


def corpus_files(root: Path) -> tuple[list[Path], list[Path]]:
    """`discover`'s files, and apart the symbolic links it leaves out, each list in a stable order.

    A link is never followed, to a file or a folder, wherever it points: the corpus is what is in its folder,
    and `linked.txt -> /etc/secret` would otherwise be indexed and quoted to every user. Links that would have
    been corpus files or folders are listed so the ingest report can name them. `root` itself may be a link."""
    files: list[Path] = []
    links: list[Path] = []
    folders = [root]
    while folders:
        try:
            with os.scandir(folders.pop()) as scan:
                entries = list(scan)
        except OSError:  # an unreadable folder is left out, as `Path.rglob` did
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.is_symlink():
                if _corpus_name(entry.name) or entry.is_dir():
                    links.append(Path(entry.path))
            elif entry.is_dir(follow_symlinks=False):
                folders.append(Path(entry.path))
            elif entry.is_file(follow_symlinks=False) and _corpus_name(entry.name):  # no FIFO or device
                files.append(Path(entry.path))
    return sorted(files), sorted(links)


def _corpus_name(name: str) -> bool:
    suffix = Path(name).suffix
    return suffix.lower() in SUFFIXES or (not suffix and is_changelog_name(name))


def read_bytes(path: Path) -> bytes:
    """A corpus file's bytes; a file replaced by a symbolic link since `discover` fails (OSError) rather than
    being followed."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as f:
        return f.read()


def file_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def load_document(path: Path, root: Path) -> Document:
    """Read one file; raises DocumentError for binary, undecodable or badly fronted files."""
    source = path.relative_to(root).as_posix()
    try:
        data = read_bytes(path)
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
    roles = _role_kinds(body)
    body, syntax, problem = extract(source, body, front)
    if not body.strip():
        raise DocumentError("empty document")
    meta, warnings = read_metadata(source, body, front)
    if problem:
        warnings.append({"file": source, "field": "body", "problem": problem})
    return Document(source, body, file_hash(data), meta, tuple(warnings), syntax, roles)


def _role_kinds(body: str) -> dict[str, str]:
    if ":`" not in body and "}`" not in body:
        return {}
    from ingest.rst_roles import role_kinds  # docutils, imported only for a body with roles (as in `extract`)

    return role_kinds(body)


def extract(source: str, body: str, front: dict[str, str]) -> tuple[str, str, str]:
    """The body as Markdown ("markdown") or plain text ("text"), and a problem to report ('' for none).

    One extraction per format, so entities are decoded at most once: HTML by its parser; reStructuredText
    (`.rst`, and `.txt` or suffix-less files written in it) by docutils, whose output needs no HTML pass (RST has
    no inline HTML, and `&lt;` in RST is text); Markdown and plain text by `markdown_text`. A plain-text
    changelog's `Version 1.2.0` lines become headings."""
    # Imported here, not at the top: docutils costs 0.1 s, and every command's start imports this module
    # for `discover` and `file_hash` alone (`is_current`).
    from ingest.rst import looks_like_rst, rst_to_markdown
    from ingest.rst_limits import SubstitutionOverflow

    name = source.rsplit("/", 1)[-1]
    suffix = "." + name.rsplit(".", 1)[1].lower() if "." in name else ""
    if suffix in (".html", ".htm"):
        return html_to_markdown(body), "markdown", ""
    problem = ""
    named = is_changelog_name(name) or front.get("kind", "").strip().lower() == "changelog"
    parts = source.split("/")
    product = front.get("product") or (parts[0] if len(parts) > 1 else "")
    if suffix == ".rst" or (suffix in (".txt", "") and looks_like_rst(body)):
        try:
            markdown = rst_to_markdown(body)
        except SubstitutionOverflow as e:  # a crafted document, not a broken one: not indexed at all
            raise DocumentError(str(e)) from None
        except MemoryError:  # the reading worker's ceiling (ingest.reading), not a document docutils cannot read
            raise
        except Exception as e:  # docutils raises many kinds on pathological input: index the text anyway
            problem = f"not readable as reStructuredText ({type(e).__name__}); indexed as plain text"
        else:
            # Sphinx pages often only include another file (`.. include:: ../CHANGES.rst`): say it was not followed.
            included = ", ".join(_INCLUDE.findall(body))
            problem = f"`.. include::` not followed ({included}): index that file itself" if included else ""
            return (release_lines(markdown, product) if named else markdown), "markdown", problem
    if suffix in (".md", ".markdown") or ((not suffix or named) and _MD_HEADING.search(body)):
        # A `CHANGELOG.txt` may well be Markdown.
        markdown = markdown_text(atx_headings(myst_roles(myst_directives(body))))
        return (release_lines(markdown, product) if named else markdown), "markdown", problem
    text = markdown_text(body)
    news = news_to_markdown(text, product=product, named=named)
    return (news, "markdown", problem) if news is not None else (text, "text", problem)


_INCLUDE = re.compile(r"^[ \t]*\.\.[ \t]+include::[ \t]*(\S+)", re.MULTILINE)


def split_front_matter(text: str) -> tuple[dict[str, str], str]:
    """Split a leading `---` YAML block from the body; broken YAML is an error, not silently text."""
    if not text.startswith("---\n"):
        return {}, text
    end = text.find("\n---", 3)
    if end == -1:
        raise DocumentError("broken front matter: no closing '---' line")
    import yaml  # only when a document is read, as docutils above

    try:
        # Every value a string (`version: 2.10` stays 2.10), and no aliases (`_front_matter_loader`).
        data = yaml.load(text[4:end], Loader=_front_matter_loader())
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark else ""
        raise DocumentError(f"broken front matter: invalid YAML{where}") from e
    except RecursionError:  # `[[[[…` thousands deep: the composer recurses per level
        raise DocumentError("broken front matter: nested too deeply") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise DocumentError("broken front matter: expected 'key: value' lines")
    rest = text[end + 4 :]
    rest = rest.split("\n", 1)[1] if "\n" in rest else ""
    return {str(k): "" if v is None else str(v) for k, v in data.items()}, rest


@functools.cache
def _front_matter_loader() -> type:
    """yaml's BaseLoader (every scalar a string) that refuses aliases, built on first use (yaml is imported
    late). An alias repeats the node its anchor names without copying it, so nine lines of lists of aliases of
    lists hold a billion strings once `split_front_matter` turns the values into text: 425 bytes took 56 s and
    3.7 GB. Front matter has no use for them."""
    import yaml

    class FrontMatterLoader(yaml.BaseLoader):
        def compose_node(self, parent: yaml.Node | None, index: object) -> yaml.Node | None:
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()
                line = event.start_mark.line + 2  # the file's line: the block starts after `---`
                raise DocumentError(f"broken front matter: YAML aliases are not allowed (*{event.anchor}, line {line})")
            return super().compose_node(parent, index)

    return FrontMatterLoader


def infer_metadata(source: str, body: str, front: dict[str, str]) -> dict[str, str]:
    """`read_metadata` without its warnings."""
    return read_metadata(source, body, front)[0]


def read_metadata(source: str, body: str, front: dict[str, str]) -> tuple[dict[str, str], list[IngestWarning]]:
    """Front matter wins where it passes `ingest.metadata.validate`; otherwise product/version come from
    `<product>/<version>/...` folders (or, for one release in `<product>/`, from its file name or heading:
    `ingest.release`) and the title from the first heading, else the file name."""
    parts = source.split("/")
    name = parts[-1]
    stem = name.rsplit(".", 1)[0]
    lang_match = _LANG_SUFFIX.search(stem)
    named = is_changelog_name(name)
    # A changelog needs no version folder: `<product>/CHANGELOG.md`, or at the root with front matter.
    changelog = len(parts) == 2 and (
        named
        or front.get("kind", "").strip().lower() == "changelog"
        or releases(body, product=front.get("product", "") or parts[0]) is not None
    )
    inferred = {
        "product": parts[0] if len(parts) >= 3 or changelog else "",
        "version": parts[1] if len(parts) >= 3 else "",
        "title": plain_text(first_heading(body), limit=field_limit("title"), entities=False) or name,
        "kind": "changelog" if named else _kind_of_name(stem),
        "language": lang_match.group(1) if lang_match else "en",
        "url": "",
    }
    # A changelog's first heading is often its newest release ("Version 3.1.0"): no title for every release's
    # citations. It is called by its product and file then ("flask CHANGES"); a title that does not name the
    # product ("Changelog", "History") gets it in front ("idna History").
    given = front.get("version", "").strip()
    where = "folder" if len(parts) >= 3 else ""
    if len(parts) == 2 and not changelog:
        # One release in a product's folder, named by its front matter, file or heading (`acme/2.3.rst`).
        version, where = (
            ("", "")
            if given
            else release_of(name, parts[0], (front.get("title", "").strip(), inferred["title"]), lead_paragraph(body))
        )
        # The folder names the product, release or none: a product whose docs carry no release is one too.
        inferred["product"] = parts[0]
        if given or version:
            inferred["version"] = version
            if heading_version(inferred["title"], parts[0]) is not None:  # "2.3.0" alone: "acme 2.3.0"
                inferred["title"] = f"{parts[0]} {inferred['title']}"
    product = inferred["product"]
    if changelog and heading_version(inferred["title"], product) is not None:
        inferred["title"] = f"{product} {stem}"
    elif changelog and product and fold(product) not in fold(inferred["title"]):
        inferred["title"] = f"{product} {inferred['title']}"
    meta, warnings = validate(source, {k: v.strip() for k, v in front.items() if v.strip()}, inferred)
    if given and not any(w["field"] == "version" for w in warnings):
        where = "front matter"  # it won over the folder and the file
    meta["release_from"] = where if meta.get("version") else ""  # a changelog's releases: `chunk_document`
    return meta, warnings


def _kind_of_name(stem: str) -> str:
    """The kind a file's name says (`release-notes.rst`, `MIGRATION_GUIDE.md`, `UPGRADING.md`), else "document"."""
    words = re.sub(r"[\s_.]+", "-", stem.lower())
    found = next((k for k in _KINDS if k in words), None)
    if found is None and re.match(r"(?:migrat|upgrad)[a-z]*(?:-|$)", words):
        found = "migration-guide"  # `MIGRATING.md`, `UPGRADING.md`, `migration.md`
    return found or "document"


def lead_paragraph(body: str, limit: int = 200) -> str:
    """The first line of text after the first heading that is no heading, list item or table row, its
    quote and emphasis marks removed ("> **Migrating from Axios 0.x to 1.x**")."""
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    start = next((i + 1 for i, line in enumerate(lines) if re.match(r"#{1,6}\s", line)), 0)
    for line in lines[start : start + 5]:
        text = line.lstrip("> ").strip()
        if text and not re.match(r"(?:#{1,6}\s|[-*+|]\s|\d+\.\s)", text):
            return re.sub(r"[*_`]+", "", text)[:limit]
    return ""


def first_heading(body: str, limit: int = 90) -> str:
    """The first Markdown heading, else the first non-empty line, shortened at a word boundary."""
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    heading = next((line for line in lines if re.match(r"#{1,6}\s", line)), None)
    title = (heading.lstrip("#").strip() if heading else lines[0] if lines else "").strip()
    if len(title) > limit:
        title = title[:limit].rsplit(" ", 1)[0] + "…"
    return title
