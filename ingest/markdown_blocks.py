"""Markdown block syntax read as plain structure: setext headings (`Title` over a `===` or `---` line) as `#`
headings, and beyond CommonMark, MkDocs (Material) admonitions and content tabs, MyST directives (Sphinx's
Markdown: `:::{warning}` … `:::`, as RST's are read: labelled text, images dropped) and GitHub pipe tables.

Setext headings are found by markdown-it-py, whose block parser knows when a `---` line is a heading's underline
and when it is a rule, a list's or a code block's. The rest are hand-written line rules: markdown-it-py would
parse tables, but its tokens would have to be turned back into the Markdown the chunker reads; these few
patterns do that directly. Code is set aside before they run.
"""

from __future__ import annotations

import re

# MkDocs (Material) block syntax, common in Python projects' Markdown docs: `!!! note "Title"` admonitions and
# `=== "Tab"` content tabs. Their markers become plain labels; the indented content under them stays.
# The indent is taken within the line: `^(\s*)` also ran on over blank lines from every line start (quadratic
# over a run of them); a blank line before the marker is now left in place instead of put back by the replacement.
_ADMONITION = re.compile(r'^([^\S\n]*+)(?:!!!|\?\?\?\+?)\s+([\w-]+)(?:\s+"([^"]*)")?\s*$', re.MULTILINE)
_TAB = re.compile(r'^([^\S\n]*+)===\+?\s+"([^"]+)"\s*$', re.MULTILINE)


def atx_headings(body: str) -> str:
    """`body` with its top-level setext headings written as `#`/`##` headings, the form the chunker and the
    changelog reader look for (changelogs kept as Markdown often underline their release lines)."""
    if not _UNDERLINE.search(body):
        return body
    from markdown_it import MarkdownIt  # imported only for a body that may hold a setext heading

    lines = body.split("\n")
    underlines = set()
    for token in MarkdownIt("commonmark").parse(body):
        if token.type == "heading_open" and token.level == 0 and token.markup in ("=", "-") and token.map:
            start, end = token.map  # the title's lines, then the underline
            title = " ".join(line.strip() for line in lines[start : end - 1])
            lines[start : end - 1] = [f"{'#' if token.markup == '=' else '##'} {title}"] + [""] * (end - start - 2)
            underlines.add(end - 1)
    return "\n".join(line for i, line in enumerate(lines) if i not in underlines)


_UNDERLINE = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$", re.MULTILINE)


# MyST's directives in colon fences (`:::{note}` … `:::`), and in backtick fences, which would otherwise read as
# code: an admonition or version note is labelled text; an image or figure leaves nothing.
_MYST = re.compile(r"^([ \t]*)(:{3,}|`{3,})\{([\w-]+)\}[ \t]*(.*)$")
_MYST_OPTION = re.compile(r"^\s*:[\w-]+:")  # `:alt: logo`, `:class: tip` under the directive line
_MYST_TEXT = frozenset("note warning tip hint important caution danger attention error seealso admonition".split())
_MYST_VERSIONS = {"deprecated": "Deprecated since", "versionadded": "New in", "versionchanged": "Changed in"}
_MYST_DROP = frozenset(["image", "figure", "toctree", "contents", "include", "raw"])
_MYST_NAMES = _MYST_TEXT | _MYST_VERSIONS.keys() | _MYST_DROP


def myst_directives(body: str) -> str:
    """`body` with MyST directives as plain structure: "Warning: …" or "Deprecated since 2.0: …" then the
    directive's text; images and other inserted content gone; any other directive (code, math) left alone. A
    directive left open keeps its lines: nothing is lost to a missing fence."""
    if "{" not in body:
        return body
    out: list[str] = []
    fence = ""  # the closing fence of the directive being read
    dropped: list[str] = []  # lines of a directive that shows nothing, until its fence closes
    for line in body.split("\n"):
        if fence:
            if line.strip() == fence:
                fence, dropped = "", []
            elif dropped:
                dropped.append(line)
            elif not _MYST_OPTION.match(line):
                out.append(line)
            continue
        m = _MYST.match(line)
        name = m.group(3).lower() if m else ""
        if not m or name not in _MYST_NAMES:
            out.append(line)
            continue
        fence = m.group(2)
        if name in _MYST_DROP:
            dropped = [line]
            continue
        label, argument = _MYST_VERSIONS.get(name, name.capitalize()), m.group(4).strip()
        out.append(f"{m.group(1)}{label} {argument}:" if argument else f"{m.group(1)}{label}:")
    return "\n".join(out + dropped)


def markdown_blocks(text: str) -> str:
    """`text` with MkDocs admonitions and tabs as plain labels and pipe tables as entries."""
    text = _ADMONITION.sub(lambda m: f"{m[1]}{m[3] or m[2].capitalize()}:", text)
    return _pipe_tables(_TAB.sub(lambda m: f"{m[1]}{m[2].strip('`')}:", text))


# Possessive: blanks on both sides of an optional '|' could be shared between two `\s*` in every way (quadratic).
_TABLE_RULE = re.compile(r"^\s*+\|?\s*+:?-{3,}+:?\s*+(?:\|\s*+:?-{3,}+:?\s*+)*+\|?\s*+$")


def _pipe_tables(text: str) -> str:
    """GitHub pipe tables as one `- ` entry per row that keeps the header's meaning, as RST tables are read:
    `- Pydantic V1: __fields__ — Pydantic V2: model_fields`."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        if "|" in lines[i] and i + 1 < len(lines) and _TABLE_RULE.match(lines[i + 1]):
            header = _cells(lines[i])
            i += 2
            while i < len(lines) and "|" in lines[i] and lines[i].strip():
                pairs = [f"{h}: {c}" if h else c for h, c in zip(header, _cells(lines[i]), strict=False) if c]
                out.append("- " + " — ".join(pairs))
                i += 1
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)


def _cells(row: str) -> list[str]:
    return [c.strip() for c in row.strip().strip("|").split("|")]


# MyST's inline roles, Sphinx's `:role:`text`` in Markdown: "{pr}`3805`", "{meth}`Option.get_help_spec`".
_MYST_ROLE = re.compile(r"(?<![\w`{])\{([A-Za-z][\w+.:-]*)\}`([^`\n]+)`")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def in_fences(lines: list[str]) -> list[bool]:
    """Whether each line is part of a fenced code block (its fences included)."""
    out = []
    fence = ""
    for line in lines:
        opening = _FENCE.match(line)
        if fence:
            out.append(True)
            fence = "" if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence) else fence
        else:
            out.append(bool(opening))
            fence = opening.group(1) if opening else ""
    return out


def myst_roles(body: str) -> str:
    """`body` with MyST roles outside fenced code shown as RST's are: code names as code, issue and pull
    request roles as "GH 3805", references as their title."""
    if "}`" not in body:
        return body
    from ingest.rst_roles import role_text  # docutils, imported only for a body with roles

    def shown(m: re.Match[str]) -> str:
        code, text = role_text(m.group(1), m.group(2))
        return f"`{text}`" if code else text

    lines = body.split("\n")
    fenced = in_fences(lines)
    return "\n".join(line if code else _MYST_ROLE.sub(shown, line) for line, code in zip(lines, fenced, strict=True))
