"""The document model of one block: its paragraphs, list items, table rows and code as `Entry` values.

Every format reaches the chunker as the same Markdown subset (`ingest.rst`, `ingest.markup` and
`ingest.markdown_blocks` write it; plain text is read by `ingest.chunking.text_blocks`), so the entries are
read here, once, from the blocks the chunker makes; answering never parses a chunk's text again.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import replace

from assistant.model.document import Entry, Kind
from assistant.text.words import strip_markup

GLYPHS = "●•▪■◆◦►▶"  # bullets of pages flattened to plain text
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
# A list entry's marker, at any depth: Markdown's, or a glyph (no space needed: "●Issue #1").
_MARK = re.compile(rf"^([ \t]*)(?:(?:[-*+]|\d{{1,3}}[.)])[ \t]+|[{GLYPHS}][ \t]*)")
_GLUED_NUMBER = re.compile(r"^\d{1,2}(?=[A-Z][a-z])")  # "- 1If building…": a numbered list flattened from a page
# "✓Solution" on a line of its own heads the entries after it (plain-text pages flattened from HTML).
_LABEL = re.compile(r"^\s*[✓✔➜→]\s*(\w+(?: \w+)?):?\s*$")
# A line that is one run of bold text ("**Synopsis**", "**Migration to 2.0**") heads the entries after it too.
BOLD_LABEL = re.compile(r"^\s*\*\*([^*`\n]{1,60}?):?\*\*:?\s*$")
# "Version 2.11:" or "New behavior:" alone before a code block names that code.
_CODE_LABEL = re.compile(r"[^:`()\[\]=]{2,40}:")
# Table rows as the parsers write them: "Header: cell — Header: cell" (RST, pipe tables), "cell | cell" (HTML).
_KEYED_CELL = re.compile(r"([^:|]{1,40}): \S")
_CODE_SPAN = re.compile(r"`[^`]*`")


def entries_of(text: str, *, item: bool = False) -> list[Entry]:
    """The entries of one block's text (or of a piece of an oversize block): list items by their markers,
    nested by indentation; paragraphs (an indented one continues the entry before it); fenced code; label
    lines ("✓Solution") naming the entries after them. `item`: the parser already took the marker off the
    block's first line (a plain-text "●" entry)."""
    out: list[Entry] = []
    lines: list[str] = []
    indents: list[int] = []  # of the open list items, outermost first
    kind: Kind = "paragraph"
    depth, continues, label = 0, False, ""
    fence, code = "", []

    def flush() -> None:
        if lines:
            out.append(Entry(kind, strip_markup(" ".join(lines)), label, depth, continues))
            lines.clear()

    def close_code() -> None:
        out.append(Entry("code", textwrap.dedent("\n".join(code)).strip("\n"), label, depth))

    for line in text.split("\n"):
        if fence:
            if re.fullmatch(rf"\s*{re.escape(fence[0])}{{{len(fence)},}}\s*", line):
                close_code()
                fence, code = "", []
            else:
                code.append(line)
            continue
        indent = len(line) - len(line.lstrip())
        if opening := _FENCE.match(line):
            flush()
            fence = opening.group(1)
        elif not line.strip() or (named := _LABEL.match(line) or BOLD_LABEL.match(line)):
            flush()
            label = named.group(1) if line.strip() else label
        elif mark := _MARK.match(line):
            flush()
            while indents and indents[-1] >= indent:
                indents.pop()
            kind, depth, continues = "item", len(indents), False
            indents.append(indent)
            lines.append(_GLUED_NUMBER.sub("", line[mark.end() :].strip()))
        else:
            if not lines:
                while indents and indents[-1] >= indent:
                    indents.pop()
                continues = indent > 0  # an indented paragraph is more of the list entry above it
                kind = "item" if (continues and indents) or (item and not out) else "paragraph"
                depth = max(0, len(indents) - 1) if continues else 0
            lines.append(line.strip())
    flush()
    if fence:  # an unclosed fence runs to the end of the block
        close_code()
    return out


def link_blocks(blocks: list[list[Entry]]) -> list[list[Entry]]:
    """The entries of consecutive blocks, read together: list items shaped like the table rows the parsers
    write, next to an item of the same shape (same first header, or as many `|` cells), become kind "row";
    code right after a "Version 2.11:" or "New behavior:" line is labelled by it."""
    flat = [(b, i, e) for b, entries in enumerate(blocks) for i, e in enumerate(entries)]
    shapes = [_row_shape(e) for _, _, e in flat]
    out = [list(entries) for entries in blocks]
    for n, (b, i, entry) in enumerate(flat):
        shape, before = shapes[n], flat[n - 1][2] if n else None
        if shape and shape in (shapes[n - 1] if n else None, shapes[n + 1] if n + 1 < len(shapes) else None):
            out[b][i] = replace(entry, kind="row")
        elif entry.kind == "code" and before and before.kind != "code" and _CODE_LABEL.fullmatch(before.text):
            out[b][i] = replace(entry, label=before.text[:-1])
    return out


def _row_shape(entry: Entry) -> tuple[str, str | int] | None:
    if entry.kind != "item" or entry.continues:
        return None
    plain = _CODE_SPAN.sub("x", entry.text)  # a cell's code may hold "|" or ": "
    cells = plain.split(" — ")
    keys = [m.group(1) for c in cells if (m := _KEYED_CELL.match(c))]
    if len(cells) >= 2 and len(keys) == len(cells):
        return "keyed", keys[0]
    cells = plain.split(" | ")
    return ("cells", len(cells)) if len(cells) >= 2 else None
