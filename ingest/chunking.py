"""Structure-aware chunking: heading paths as sections, fences and list entries kept whole; each chunk carries
its entries (`ingest.entries`), the document model answering reads.

Written by hand because langchain's MarkdownHeaderTextSplitter strips indentation (breaking code and
nested list text) and knows no list entries; its RecursiveCharacterTextSplitter still cuts the rare
block that is too long on its own.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from assistant.model.document import Entry
from assistant.model.records import Chunk
from assistant.text.untrusted import field_limit, plain_text
from assistant.text.words import sentences, strip_markup
from ingest.changelog import releases
from ingest.changes import list_intro, settled, with_changes
from ingest.entries import BOLD_LABEL, GLYPHS, entries_of, link_blocks
from ingest.loader import Document

if TYPE_CHECKING:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

# 3: bodies extracted by ingest.markup (HTML rows are "- " entries, links checked)
# 4: RST parsed by docutils (ingest.rst); changelog releases attributed to their own versions (ingest.changelog)
# 6: chunks carry their entries (assistant.model.document); labelled sections named by `sentences`
# 7: indented code blocks are code (fence_indented_code)
# 8: chunks carry the changes their entries announce (ingest.changes)
# 9: an entry's further paragraphs and code labels announce no change of their own
# 10: a paragraph of bold text alone ("**Synopsis**") labels the entries after it
# 11: Markdown's setext headings are headings; a bold paragraph over a list names the list's section
# 12: every release heading of a changelog starts a release, at any level; a version then a date is one
# 13: `*emphasis*` is plain text in entries; MyST directives are labelled text; RST literals nested in bold
# 14: a changelog's chunks are indexed with their product and release; its title is no release heading
# 15: RST known by its underlines alone; bare release lines in RST and Markdown changelogs; MyST roles; ``x``
# 16: a changelog's title names its product
# 17: wiki-marked release lines (`= 4.13.0 (20250202)`); tags named in a text's prose end with their paragraph
# 18: bold release lines (`**0.44.0 (2024-08-04)**`); a file named as it ends (`versionhistory.rst`) is a changelog
# 19: Sphinx `changelog` extension directives (`.. changelog:: :version:`, `.. change::`) are releases and entries
# 20: function and method roles are their text (`:func:`np.x`` is `np.x`, no "()" added)
# 21: a "[" inside a Markdown code span opens no link ("`*`, `?` or `[`" kept its "[")
# 22: ... nor in an entry's text (`strip_markup`)
# 23: an RST definition term ending in a dash runs on into its definition; a ". " glyph before a term is dropped
# 24: "Changes in Version 4.8.0" is a release heading; so is "Jinja 3.1.2" in the changelog of `jinja2`
# 25: ... and "What's new in 2.9.6" (a NEWS file's, or whatsnew pages gathered in one file)
# 26: one release in a product's folder gets its release and product from its file name or heading (`acme/2.3.rst`)
# 27: every chunk says where its release was read (`Chunk.release_from`)
# 28: a deprecated parameter's default is changed only where the entry says so ("the default of `x`")
# 29: "non-keyword arguments to `x` except `a`" is a call form (`Change.positional`); `dict()` rows of a class
# 30: "the `a` and `b` keywords of `x`" is about `a` of `x`
# 31: "opt in via `x = True`" names the fix
# 32: the old call forms under a "no longer accepts" heading (`ingest.call_forms`)
# 33: a heading change keeps the instruction its entries give (`Change.fix`)
# 34: an item ending with ":" introduces the items under it; "`a` → `b`" names what replaces `a`
# 35: a migration guide's topics are changes ("To address:" their fix); "Migrate to v9.x", `migrate-to-9.0.0.md`
# 36: an item under "The following … have been renamed:" is read with it however long it is
# 37: an old example's comment that names a parameter ("# whereclause parameter no longer supported") is a form
# 38: a paragraph stating a removal or deprecation that shows it in code ("`x` will be removed::") is a change
# 39: a change keeps the role kind of each name it is about (`Change.kinds`: "func", "meth", "class", ...)
# 40: a doctest statement that prints a warning shows an old form; a notable subsection showing one is a change
# 41: a subsection of a telling section whose heading names code is a change (as a guide's topic is)
# 42: a heading stating a change of code is the change when its entries are code-less prose; "the default of `x`
#     in `f`"; "# … must be passed to get the old behavior" is a fix
# 43: a guide's topic under a grouping section ("Breaking Changes › 2. JSON Parsing Changes › 0.x Behavior")
# 44: "V5 Migration Guide", "Upgrading to version 2.0.0+" name releases; "Non-Breaking Changes" is not breaking
# 45: an old example's list first (not of pairs) gives the tuple form too
# 46: a list cut between chunks is read with the line that introduced it
# 47: a method an old example calls on a call's result has that chain as its form ("get:on=query()")
# 48: "the `x` argument of the <words> functions `f`" is a parameter of `f`
# 49: an old example's string first argument is a form ("execute:str")
# 50: "# **kwargs no longer accepted" over an old call makes any keyword its form ("execute:kw=**")
# 51: "Upgrading from v7" is about 8; "From v29 to v30" about 30
# 52: "`x` should be replaced with `y`" is a deprecation; "`x` becomes `y`" a rename
# 53: "Parameter `x` has been removed from `f`" is a parameter of `f`; changelog lines that mark no code name it
# 54: a keyword in an example expression (`f(x, k=v) + g(y)`) or in the call to use instead names no parameter;
#     "`f` deprecated the `x` parameter", "In `f`, deprecate the `x` parameter" name one; "in favor of" a replacement
# 55: the Sphinx `releases` extension's `:release:` list items are release headings over the items after them
# 56: ... only in a list that ends its section and is no item's own
CHUNKER_VERSION = 56
TARGET_CHARS = 350  # short entries are packed together up to this size; most entries stand alone
MAX_CHARS = 1600  # a single block longer than this is cut

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
# The title is the line less its closing sequence, found from the end in one pass (see changelog._ATX): the
# shortest title that left one (`(.*?)`) re-read the rest of the line at every character (quadratic).
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s++((?:.*[^\s#])?(?:(?:[^\S\n]|#)*#(?=\s+#))?)\s*#*\s*$")
_INDENTED = re.compile(r"^(?: {4}|\t)")
_ITEM = re.compile(r"^ {0,3}(?:[-*+]|\d{1,3}[.)])\s+")
# Extraction already drops table-of-contents entries; documents built by hand (bench, tests) still have them.
_TOC_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[[^\]]+\]\(#[^)]*\)\s*$")
_GLYPH = re.compile(rf"^\s*[{GLYPHS}]\s*")
# Only link reference definitions (`[1.2.0]: https://…/compare/v1.2.0 "title"`), as Keep a Changelog ends with.
# One definition per line, each read once (atomic): "<url>" fits both target branches, so a block that was none
# could be read 2^lines ways.
_DEFINITIONS = re.compile(
    r"""(?>[ ]{0,3}\[[^\]\n]+\]:[ \t]*(?:<[^>\n]*>|\S+)(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*(?:\n|$))+"""
)
_SYMBOLS = re.compile(r"^[\W_]+", re.UNICODE)
# A heading glued to the end of the previous line when a web page was flattened ("…freezingBreaking Changes").
_GLUED_HEADING = re.compile(r"(?<=[a-z0-9`)])([A-Z][a-z]+(?: [A-Z][a-z]+){0,4})$")


@dataclass
class Block:
    """A unit never split by packing: a paragraph, a list entry (with its nested code), a fence."""

    section: tuple[str, ...]
    lines: list[str] = field(default_factory=list)
    kind: str = "para"
    label: str = ""  # plain-text entries ("●Issue #2") name their own section

    @property
    def text(self) -> str:
        return "\n".join(self.lines).strip("\n")


def clean_heading(text: str) -> str:
    """A heading as a section name: plain text, without links, code marks, emphasis or leading symbols."""
    text = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)  # Markdown escapes (`\``) are the plain character
    # plain_text after the code marks are gone: a heading's code span may hold `<img …>`, kept verbatim so far.
    text = plain_text(strip_markup(text, keep_code=False), limit=field_limit("section"), entities=False)
    return _SYMBOLS.sub("", text).strip()


def _closes(fence: str, line: str) -> bool:
    """`line` closes a fence opened with `fence` (the same character, at least as many, nothing after)."""
    return re.fullmatch(rf"\s*{re.escape(fence[0])}{{{len(fence)},}}\s*", line) is not None


def fence_indented_code(text: str) -> str:
    """CommonMark's indented code blocks (four spaces, after a blank line, outside a list) as fences, so they
    are code like any other: a `    * repo_folder` tree or `    cd path` is not a list entry or a sentence."""
    out: list[str] = []
    lines = text.split("\n")
    fence: str | None = None
    in_list = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if fence or (opened := _FENCE.match(line)):
            fence = None if fence and _closes(fence, line) else (fence or opened.group(1))
            out.append(line)
            i += 1
            continue
        blank_before = not out or not out[-1].strip()
        if line.strip() and not in_list and blank_before and _INDENTED.match(line):
            code = []
            while i < len(lines) and (not lines[i].strip() or _INDENTED.match(lines[i])):
                code.append(lines[i][4:] if not lines[i].startswith("\t") else lines[i][1:])
                i += 1
            while code and not code[-1].strip():
                code.pop()
            out += ["```", *code, "```", ""]
            continue
        if line.strip():
            in_list = bool(_ITEM.match(line)) or (in_list and line[:1] in " \t")
        out.append(line)
        i += 1
    return "\n".join(out)


def markdown_blocks(text: str) -> Iterator[Block]:
    """Blocks of a Markdown body; `#` lines inside fences are code, not headings."""
    text = fence_indented_code(text)
    path: list[tuple[int, str]] = []
    block: Block | None = None
    fence: str | None = None
    blank_before = True

    def section() -> tuple[str, ...]:
        return tuple(name for _, name in path)

    for line in text.split("\n"):
        if fence:
            assert block is not None
            block.lines.append(line)
            if _closes(fence, line):
                fence = None
            continue
        fence_match = _FENCE.match(line)
        if fence_match:
            previous = block.text.rstrip() if block else ""
            attach = block is not None and (
                (block.kind == "item" and line.startswith("  ")) or not blank_before or previous.endswith(":")
            )
            if not attach:
                if block:
                    yield block
                block = Block(section(), kind="code")
            assert block is not None
            block.lines.append(line)
            fence = fence_match.group(1)
            blank_before = False
            continue
        heading = _HEADING.match(line)
        if heading:
            if block:
                yield block
            block = None
            level = len(heading.group(1))
            path = [(lvl, name) for lvl, name in path if lvl < level] + [(level, clean_heading(heading.group(2)))]
            blank_before = True
            continue
        if not line.strip():
            if block and block.kind != "item":
                yield block
                block = None
            elif block:
                block.lines.append("")
            blank_before = True
            continue
        if _ITEM.match(line) and not (block and block.kind == "item" and line.startswith("  ")):
            if block:
                yield block
            block = None if _TOC_ITEM.match(line) else Block(section(), [line], "item")
        elif block and block.kind == "item" and (line.startswith("  ") or not blank_before):
            block.lines.append(line)
        else:
            if block and (block.kind != "para" or blank_before):
                yield block
                block = None
            block = block or Block(section(), kind="para")
            block.lines.append(line)
        blank_before = False
    if block:
        yield block


def _is_plain_heading(line: str) -> bool:
    words = line.split()
    return (
        0 < len(words) <= 8
        and len(line) <= 60
        and ":" not in line
        and not line.rstrip().endswith((".", ",", ";", "!"))
        and not _ITEM.match(line)
        and not _GLYPH.match(line)
        and (not line[0].isalnum() or line[0].isupper())
    )


def text_blocks(text: str) -> Iterator[Block]:
    """Blocks of plain text, including pages flattened from HTML ("●Issue #1 … ✓Solution …")."""
    heading = ""
    block: Block | None = None
    lines = []
    raw = [line.strip() for line in text.split("\n")]
    for i, line in enumerate(raw):
        glued = _GLUED_HEADING.search(line)
        if glued and i + 1 < len(raw) and _GLYPH.match(raw[i + 1]):
            lines += [line[: glued.start()], glued.group(1)]
        else:
            lines.append(line)
    for i, line in enumerate(lines):
        following = next((nxt for nxt in lines[i + 1 :] if nxt), "")
        if not line:
            if block and block.kind == "para":
                yield block
                block = None
            continue
        glyph = _GLYPH.match(line)
        if glyph:
            if block:
                yield block
            rest = line[glyph.end() :]
            short = len(rest) <= 40 and bool(following)
            block = Block((heading,) if heading else (), [] if short else [rest], "item", rest if short else "")
        elif _ITEM.match(line) and not (block and block.label):
            if not (block and block.kind == "list"):
                if block:
                    yield block
                block = Block((heading,) if heading else (), kind="list")
            block.lines.append(line)
        elif block and block.label and not line[0].isalnum():
            block.lines.append(line)  # "✓Solution" and similar sub-labels stay with their entry
        elif _is_plain_heading(line) and following and not _is_plain_heading(following):
            if block:
                yield block
            block = None
            heading = clean_heading(line)
        elif block and block.kind == "item":
            block.lines.append(line)
        else:
            if block and block.kind != "para":
                yield block
                block = None
            block = block or Block((heading,) if heading else (), kind="para")
            block.lines.append(line)
    if block:
        yield block


def _first_sentence(text: str, limit: int = 90) -> str:
    sentence = next(iter(sentences(" ".join(text.replace("`", "").split()))), "").rstrip(".")
    return sentence if len(sentence) <= limit else sentence[:limit].rsplit(" ", 1)[0] + "…"


def _section_name(block: Block, title: str, entries: list[Entry]) -> str:
    parts = [p for p in block.section if p and p != title]
    if block.label:
        first = next((e.text for e in entries if e.kind != "code"), "")
        parts.append(f"{block.label}: {_first_sentence(first)}")
    return " › ".join(parts)


@functools.cache
def _splitter() -> RecursiveCharacterTextSplitter:
    # Imported on first cut: it loads langchain_core (0.25 s), which a command that only answers never needs.
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    return RecursiveCharacterTextSplitter(chunk_size=1200, chunk_overlap=100)


def _cut(text: str) -> Iterator[str]:
    """An oversize block in pieces; a fence cut in two is closed and reopened, so code stays code."""
    pos = 0
    for piece in _splitter().split_text(text):
        start = text.find(piece, pos)
        start, pos = (pos, pos) if start < 0 else (start, start + 1)
        opener, closer = _open_fence(text[:start]), _open_fence(text[: start + len(piece)])
        tail = re.match(r"\s*(`{3,}|~{3,})", closer)
        yield (opener + "\n" if opener else "") + piece + (f"\n{closer[: tail.end()]}" if tail else "")


def _open_fence(text: str) -> str:
    """The opening line of the fence still open at the end of `text`, or ''."""
    opener, marker = "", ""
    for line in text.split("\n"):
        if marker and _closes(marker, line):
            opener, marker = "", ""
        elif not marker and (match := _FENCE.match(line)):
            opener, marker = line, match.group(1)
    return opener


def _labels_joined(blocks: list[Block]) -> list[Block]:
    """A paragraph of bold text alone ("**Synopsis**", "**Migration to 2.0**") heads the block after it in its
    section: joined to it, it is that block's label line (`ingest.entries`), not a sentence of its own. Before a
    list ("**Deprecations**" over a release's entries, as changelogs write) it names the list's section."""
    out: list[Block] = []
    heads: tuple[tuple[str, ...], str] | None = None  # the section a bold label opened, and that label
    for block in blocks:
        before = out[-1] if out else None
        bold = (
            before is not None
            and before.kind == "para"
            and block.section == before.section
            and BOLD_LABEL.fullmatch(before.text.strip())
        )
        if bold and block.kind == "item":
            out.pop()
            heads = (block.section, clean_heading(bold.group(1)))
        if heads and block.kind == "item" and block.section == heads[0]:
            out.append(Block((*block.section, heads[1]), block.lines, block.kind, block.label))
            continue
        heads = None
        if bold and not block.label:
            out[-1] = Block(block.section, [*before.lines, *block.lines], block.kind)
        else:
            out.append(block)
    return out


def _pack(blocks: list[Block], title: str) -> Iterator[tuple[str, str, list[Entry]]]:
    """Join neighbouring blocks of one section up to TARGET_CHARS; cut only oversize blocks. Each chunk comes
    with its entries, read from its blocks (and pieces) as the parser left them."""
    pending: list[str] = []
    pending_entries: list[Entry] = []
    pending_section: str | None = None
    # Nothing readable (a lone `**`, link targets) is left out.
    blocks = _labels_joined([b for b in blocks if strip_markup(b.text) and not _DEFINITIONS.fullmatch(b.text)])
    # A table's rows are blocks of their own, so is code after its "Version 2.11:" line: read together.
    parsed = link_blocks([entries_of(b.text, item=b.kind == "item") for b in blocks])
    for block, entries in zip(blocks, parsed, strict=True):
        text = block.text
        name = _section_name(block, title, entries)
        if pending and (name != pending_section or block.label or len("\n\n".join([*pending, text])) > TARGET_CHARS):
            yield pending_section or "", "\n\n".join(pending), pending_entries
            pending, pending_entries = [], []
        if len(text) > MAX_CHARS:
            for i, piece in enumerate(_cut(text)):
                yield name, piece, link_blocks([entries_of(piece, item=block.kind == "item" and i == 0)])[0]
            continue
        pending.append(text)
        pending_entries += entries
        pending_section = name
        if block.label:
            yield name, "\n\n".join(pending), pending_entries
            pending, pending_entries = [], []
    if pending:
        yield pending_section or "", "\n\n".join(pending), pending_entries


def chunk_document(doc: Document) -> list[Chunk]:
    """Split one document into chunks with stable, content-derived ids; a changelog's chunks carry the
    version of the release they are under (and that version is part of their id)."""
    meta = doc.meta
    title = meta.get("title", "")
    parts: list[tuple[str | None, Iterator[Block]]]
    found = None
    if doc.format == "markdown":
        named = meta.get("kind") == "changelog"
        found = releases(doc.text, product=meta.get("product", ""), named=named, own_version=meta.get("version", ""))
    if found is None:
        parts = [(None, markdown_blocks(doc.text) if doc.format == "markdown" else text_blocks(doc.text))]
    else:
        parts = [(release.version, markdown_blocks(release.text)) for release in found]
    source_key = hashlib.sha1(doc.source.encode()).hexdigest()[:10]
    seen: dict[str, int] = {}
    chunks = []
    for version, blocks in parts:
        before: tuple[str, list[Entry], str] = ("", [], "")  # the section, entries and intro of the chunk before
        for section, text, entries in _pack(list(blocks), title):
            # a list cut between chunks: its items here are read with the line that introduced them there (or
            # further back, when the chunk before holds nothing but items of the same list)
            opens = bool(entries) and entries[0].kind == "item" and section == before[0]
            only_items = all(e.kind == "item" for e in before[1])
            intro = (list_intro(before[1]) or (before[2] if only_items else "")) if opens else ""
            before = (section, entries, intro)
            key = f"{section}\n{text}" if version is None else f"{version}\n{section}\n{text}"
            digest = hashlib.sha1(key.encode()).hexdigest()[:16]
            seen[digest] = seen.get(digest, 0) + 1
            suffix = f"-{seen[digest]}" if seen[digest] > 1 else ""
            chunks.append(
                with_changes(
                    Chunk(
                        id=f"{source_key}-{digest}{suffix}",
                        text=text,
                        source=doc.source,
                        title=title,
                        product=meta.get("product", ""),
                        version=meta.get("version", "") if version is None else version,
                        kind=meta.get("kind", "document"),
                        section=section,
                        language=meta.get("language", "en"),
                        url=meta.get("url", ""),
                        release_from=meta.get("release_from", "") if version is None else "headings",
                        entries=tuple(entries),
                    ),
                    doc.roles,
                    intro,
                )
            )
    return settled(chunks)
