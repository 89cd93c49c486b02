"""reStructuredText (plain or Sphinx-flavoured) to the Markdown subset `ingest.chunking` reads.

Parsed by docutils, the reference implementation of reStructuredText: it knows nesting, tables and explicit
markup, which the regex this replaces never did. Sphinx is not used: it needs a project (conf.py, a build
folder) and runs extension code. Instead Sphinx's roles and directives get generic handlers, registered only
for one parse (`ingest.rst_roles`). This module holds the public entry points (`rst_to_markdown`,
`looks_like_rst`) and the doctree to Markdown writer, written here because no maintained package does it
without Sphinx or a pandoc binary.

Rendering rules:
- section titles become `#` headings by nesting depth; the first title is `#`, the document title;
- paragraphs are one line each; `*`/`-`/`+`, enumerated, definition and field lists become `- ` entries,
  nested entries and an entry's further paragraphs and code indented two spaces per level;
- ``literals``, code roles and the default role `x` become single-backtick code spans; emphasis is plain text;
- code roles (`:func:`, `:class:`, `:meth:`...) show the full target: Sphinx's `~` (show the last part only),
  a leading `.` and `!` are dropped, so `:class:`~numpy.ndarray`` is `numpy.ndarray`, `:func:`np.x`` is
  `np.x` (the role's text: the `()` Sphinx's HTML adds is a display setting), `:class:`_orm.Session`` (a module
  alias a project's Sphinx setup resolves) is `orm.Session`; an explicit title wins;
- `:ref:`text <label>`` (and `:doc:`, `:term:`, any other role) is its text; a bare `:ref:` label is the title
  of the section it labels when that is in the same document, else its words (`upgrade-guide`: upgrade guide);
- a list item holding only `:release:`3.2.3 <2026-04-05>`` (the Sphinx `releases` extension: Fabric, Invoke) is
  the heading "3.2.3 (2026-04-05)" over the items after it, one level under the list's section, in a list that
  ends its section and is no item's own (elsewhere the item stays, as its text);
- `:issue:`/`:gh:`/`:pr:` 123 read "GH 123", `:ticket:` "ticket 123", `:pep:`/`:rfc:` "PEP 8"/"RFC 2616"
  (links, from docutils itself), `:user:` the name;
- a `raw` role, or one derived from it (`.. role:: raw-html(raw)`), reads as its HTML's text, tags removed;
  another format's is dropped (`ingest.rst_roles`);
- `text <url>`_ and `__` become `[text](url)` when `assistant.text.untrusted.safe_url` accepts the URL, else text;
- `::` blocks and code directives (code-block, sourcecode, code, ipython, doctest, console...) are fences;
- admonitions and version notes are labelled text: "Note: ...", "Deprecated since 2.0: ...";
- table rows (list, simple, grid, csv) are entries, each cell with its header: "- Member: x — Use: y";
- toctree, contents, autosummary, currentmodule, contributors, include, raw, images and other generated or
  inserted content are dropped; unknown directives keep their body as text, arguments dropped;
- comments, targets, substitution definitions and `{{ template }}` lines are dropped.
"""

from __future__ import annotations

import io
import re

from docutils import nodes
from docutils.core import publish_doctree

from assistant.text.untrusted import safe_url, without_controls
from ingest.markdown_links import check_links
from ingest.markup import protect, restore
from ingest.rst_limits import BoundedReader
from ingest.rst_roles import CODE_ROLES, RELEASE_CLASS, labelled, resolve_refs, role_text, sphinx_names

__all__ = ["CODE_ROLES", "labelled", "looks_like_rst", "role_text", "rst_to_markdown"]

_SETTINGS = {
    "report_level": 5, "halt_level": 5,  # nothing printed, nothing stops the parse
    "traceback": True,  # an internal error is raised to the caller, never sys.exit()
    "file_insertion_enabled": False, "raw_enabled": False, "_disable_config": True,  # no docutils.conf read
    "doctitle_xform": False, "sectsubtitle_xform": False,  # the first title stays a section: depth is nesting
    "syntax_highlight": "none", "smart_quotes": False,
}  # fmt: skip
_TEMPLATE = re.compile(r"^(?:\{\{.*\}\}|\{%.*%\})[ \t]*$", re.MULTILINE)  # unindented: not in code


def rst_to_markdown(text: str) -> str:
    """A reStructuredText body as Markdown text: headings, entries, fences and checked links, no RST markup."""
    source = _TEMPLATE.sub("", text.replace("\ue000", "").replace("\ue001", ""))
    with sphinx_names(source):
        settings = {**_SETTINGS, "warning_stream": io.StringIO()}
        # Raises `ingest.rst_limits.SubstitutionOverflow` for substitutions that would expand too far.
        doctree = publish_doctree(source, reader=BoundedReader(), settings_overrides=settings)
    resolve_refs(doctree)
    markdown = "\n\n".join(_blocks(doctree, 0)) + "\n"
    held, saved = protect(markdown)  # code is verbatim; only the prose's links are checked again
    return without_controls(restore(check_links(held), saved))


def looks_like_rst(text: str) -> bool:
    """True for text written in reStructuredText: a directive or target line, a `:role:` or an overlined
    title, or two titles underlined like RST's (`Title` over a line of `=`, `-`, `~`... at least as long)."""
    if _DIRECTIVE_LINE.search(text) or _ROLE_USE.search(text) or _OVERLINED.search(text):
        return True
    return sum(len(m.group(2)) >= len(m.group(1).rstrip()) for m in _UNDERLINED.finditer(text)) >= 2


_DIRECTIVE_LINE = re.compile(r"^\.\.[ \t]+(?:[A-Za-z][\w+.:-]*[ \t]*::|_[^:\n]+:[ \t]*\S*$|\|[^|\n]+\|)", re.M)
_ROLE_USE = re.compile(r"(?<![\w`]):([A-Za-z][\w+.:-]*):`([^`\n]+)`")
_ROLE_BEFORE = re.compile(r"(?<![\w`]):([A-Za-z][\w+.:-]*):$")
_OVERLINED = re.compile(r"^([=\-~^\"'`#*+])\1{2,}[ \t]*\n[ \t]*\S[^\n]*\n\1{3,}[ \t]*$", re.MULTILINE)
_UNDERLINED = re.compile(r"^(\w[^\n]*)\n(([=\-~^\"'`#*+])\3{2,})[ \t]*$", re.MULTILINE)

# -- the writer -----------------------------------------------------------------------------------------------
_SKIP = (nodes.comment, nodes.target, nodes.substitution_definition, nodes.pending, nodes.raw, nodes.docinfo,
         nodes.decoration, nodes.system_message, nodes.meta, nodes.transition, nodes.image, nodes.label,
         nodes.title)  # fmt: skip  # a title is read by its section, table or topic


def _blocks(node: nodes.Element, depth: int) -> list[str]:
    """The Markdown blocks of `node`'s children; `depth` is the enclosing section's heading level."""
    out: list[str] = []
    for child in node.children:
        out += _block(child, depth)
    return [b for b in out if b.strip()]


def _block(node: nodes.Node, depth: int) -> list[str]:
    if isinstance(node, _SKIP) or not isinstance(node, nodes.Element):
        return [] if isinstance(node, _SKIP) else [_one_line(node.astext())]
    if isinstance(node, nodes.section):
        title = _one_line(_inline(node[0])) if node.children and isinstance(node[0], nodes.title) else ""
        return ["#" * min(depth + 1, 6) + " " + title if title else "", *_blocks(node, depth + 1)]
    if isinstance(node, nodes.paragraph) and _bold_only(node):
        return [f"**{_one_line(_inline(node))}**"]  # "**Synopsis**": a label for what follows (ingest.entries)
    if isinstance(node, (nodes.paragraph, nodes.rubric, nodes.caption)):
        # A paragraph that opens like a Markdown heading ("# add a tag", a comment in an example indented as a
        # block quote) is escaped, or it would cut the document there.
        return [re.sub(r"^(?=#{1,6}(?: |$))", r"\\", _one_line(_inline(node)))]
    if isinstance(node, (nodes.literal_block, nodes.doctest_block, nodes.math_block)):
        language = node.get("language") or next((c for c in node.get("classes", []) if c != "code"), "")
        language = "python" if isinstance(node, nodes.doctest_block) else language
        return [_fence(node.astext(), "math" if isinstance(node, nodes.math_block) else language)]
    if isinstance(node, (nodes.bullet_list, nodes.enumerated_list)):
        return _list(node, depth)
    if isinstance(node, (nodes.definition_list, nodes.field_list, nodes.option_list)):
        entries = [_entry(*_split_item(item), depth) for item in node.children if isinstance(item, nodes.Element)]
        return ["\n".join(e for e in entries if e)]
    if isinstance(node, nodes.table):
        return _table(node)
    if isinstance(node, nodes.line_block):
        return ["\n".join(_one_line(_inline(line)) for line in node.findall(nodes.line) if line.astext().strip())]
    if isinstance(node, (labelled, nodes.Admonition, nodes.topic, nodes.sidebar)):
        return _labelled(node, depth)
    if isinstance(node, (nodes.footnote, nodes.citation)):
        label = node.next_node(nodes.label)
        parts = _blocks(node, depth)
        return [f"[{label.astext()}] {parts[0]}" if label and parts else "", *parts[1:]] if parts else []
    if isinstance(node, nodes.attribution):
        return ["— " + _one_line(_inline(node))]
    return _blocks(node, depth)  # block quotes, containers, compounds, figures, legends, definitions


def _list(node: nodes.Element, depth: int) -> list[str]:
    """A list's entries; a `:release:` item (the Sphinx `releases` extension) is a release heading one level
    under the list's section, over the items after it, which are that release's entries. Only a list that ends
    its section and is no item's own, where a heading level is left: a release heading there would take over
    what follows it."""
    items = [item for item in node.children if isinstance(item, nodes.Element)]
    if not _releases_here(node, depth):
        return ["\n".join(e for e in (_entry([], item, depth) for item in items) if e)]
    out: list[str] = []
    entries: list[str] = []
    for item in items:
        release = _release_line(item)
        if release is None:
            entries.append(_entry([], item, depth))
            continue
        out.append("\n".join(e for e in entries if e))
        out.append("#" * (depth + 1) + " " + release)
        entries = []
    return [*out, "\n".join(e for e in entries if e)]


def _releases_here(node: nodes.Element, depth: int) -> bool:
    """Whether a list's `:release:` items may be headings: it is not inside an item, a heading level is left
    under its section, and nothing but skipped markup follows it in its section."""
    parent = node.parent
    if depth >= 6 or not isinstance(parent, (nodes.section, nodes.document)):
        return False
    after = parent.children[parent.index(node) + 1 :]
    return all(isinstance(c, (*_SKIP, nodes.section)) for c in after)


def _release_line(item: nodes.Element) -> str | None:
    """The release a list item names with a `:release:` role ("3.2.3 (2026-04-05)"), else None; the issue numbers
    a release may list after it ("`1.6.4 <2013-12-24>` 956, 957": fixes backported into it) are left out."""
    if len(item.children) != 1 or not isinstance(item[0], nodes.paragraph) or not item[0].children:
        return None
    first, rest = item[0].children[0], item[0].children[1:]
    if not isinstance(first, nodes.inline) or RELEASE_CLASS not in first.get("classes", []):
        return None
    return _one_line(first.astext()) if _NUMBERS.fullmatch("".join(c.astext() for c in rest)) else None


_NUMBERS = re.compile(r"[\d,\s]*")


def _bold_only(node: nodes.paragraph) -> bool:
    """A paragraph that is one run of bold text: a heading in all but name ("**Migration to 2.0**")."""
    parts = [c for c in node.children if not (isinstance(c, nodes.Text) and not c.astext().strip())]
    return len(parts) == 1 and isinstance(parts[0], nodes.strong)


def _labelled(node: nodes.Element, depth: int) -> list[str]:
    title = node.next_node(nodes.title) if not isinstance(node, labelled) else None
    label = node.get("label") or (_one_line(_inline(title)) if title else node.tagname.capitalize())
    parts = _blocks(node, depth)
    first = next((c for c in node.children if not isinstance(c, nodes.title)), None)
    if not parts:
        return [label + "."]
    if isinstance(first, nodes.paragraph):
        return [f"{label}: {parts[0]}", *parts[1:]]
    return [f"{label}:", *parts]


def _split_item(item: nodes.Element) -> tuple[list[str], nodes.Element]:
    """A definition, field or option list item as (its name, its body)."""
    kinds = (nodes.definition, nodes.field_body, nodes.description)
    names = [c for c in item.children if not isinstance(c, kinds)]
    body = next((c for c in item.children if isinstance(c, kinds)), nodes.container())
    spans = []
    for name in names:
        if isinstance(name, nodes.option_group):
            spans.append(_code(", ".join(o.astext() for o in name.children)))
        elif isinstance(name, nodes.classifier):
            spans.append(f"({_one_line(_inline(name))})")
        else:
            spans.append(_one_line(_inline(name)))
    # Plain-text changelogs read as RST mark items with a glyph RST has no list for (". `name` - do this").
    return [_GLYPH.sub("", " ".join(s for s in spans if s))], body


def _entry(name: list[str], body: nodes.Element, depth: int) -> str:
    """One `- ` entry: its first block after the marker (and a name, for definitions), the rest indented."""
    parts = _blocks(body, depth)
    lead = " ".join(name)
    if not parts and not lead:
        return ""
    # An item that holds only a list ("* Updates" over an indented list is a definition list inside a bullet) is
    # that list: an empty "- " above it would be an entry with no text.
    bare = not lead and parts[0].startswith("- ")
    if not bare and (not parts or _starts_block(parts[0])):
        parts.insert(0, lead)
    elif lead:  # "name: what it is", unless the name already ends in a dash or colon ("`x` synonym for `y` -")
        parts[0] = f"{lead} {parts[0]}" if lead.endswith(_JOINED) else f"{lead}: {parts[0]}"
    first, *rest = parts
    lines = [first if bare else "- " + first.replace("\n", "\n  ")]
    for part in rest:  # a nested list follows its lead line directly; other blocks after a blank line
        lines.append(("" if part.startswith("- ") else "\n") + _indent(part))
    return "\n".join(lines)


_GLYPH = re.compile(r"^[.·•]\s+")
_JOINED = ("-", "–", "—", ":")


def _starts_block(text: str) -> bool:
    return text.startswith(("- ", "```", "~~~")) or _HEADING.match(text) is not None


_HEADING = re.compile(r"#{1,6}(?: |$)")  # not "#3948: Removed …", an issue number leading an entry


def _indent(text: str, n: int = 2) -> str:
    return "\n".join((" " * n + line) if line.strip() else "" for line in text.split("\n"))


def _table(table: nodes.table) -> list[str]:
    """Each body row one entry, every cell named by its column's header ("Header: value" joined by " — ")."""
    out = [_one_line(_inline(c)) for c in table.children if isinstance(c, nodes.title)]
    for group in (c for c in table.children if isinstance(c, nodes.tgroup)):
        head = _grid([r for h in group.children if isinstance(h, nodes.thead) for r in h.children])
        headers = [" ".join(c for c in column if c) for column in zip(*head, strict=False)] if head else []
        rows = _grid([r for b in group.children if isinstance(b, nodes.tbody) for r in b.children])
        entries = []
        for row in rows:
            cells = [(headers[i] if i < len(headers) else "", v) for i, v in enumerate(row)]
            text = " — ".join(f"{h}: {v}" if h and h != v else v for h, v in cells if v)
            entries.append(f"- {text}" if text else "")
        out.append("\n".join(e for e in entries if e))
    return out


def _grid(rows: list[nodes.Element]) -> list[list[str]]:
    """Cell texts by column; a cell spanning columns or rows fills each of them."""
    grid: list[list[str]] = []
    spans: dict[tuple[int, int], str] = {}
    for r, row in enumerate(rows):
        cells: list[str] = []
        for entry in row.children:
            while (r, len(cells)) in spans:
                cells.append(spans.pop((r, len(cells))))
            text = _cell(entry)
            for extra_row in range(1, entry.get("morerows", 0) + 1):
                for c in range(len(cells), len(cells) + entry.get("morecols", 0) + 1):
                    spans[(r + extra_row, c)] = text
            cells += [text] * (entry.get("morecols", 0) + 1)
        while (r, len(cells)) in spans:
            cells.append(spans.pop((r, len(cells))))
        grid.append(cells)
    return grid


def _cell(entry: nodes.Element) -> str:
    """A table cell on one line: paragraphs joined, code as code spans, list items joined by "; "."""
    parts = []
    for child in entry.children:
        if isinstance(child, (nodes.literal_block, nodes.doctest_block)):
            parts.append(_code(child.astext()))
        elif isinstance(child, (nodes.bullet_list, nodes.enumerated_list)):
            parts.append("; ".join(_cell(item) for item in child.children if isinstance(item, nodes.Element)))
        elif isinstance(child, nodes.paragraph):
            parts.append(_one_line(_inline(child)))
        elif isinstance(child, nodes.Element) and not isinstance(child, _SKIP):
            parts.append(_cell(child))
    text = ""
    for part in filter(None, parts):  # "See also" cells hold several references: one per paragraph
        text += ((" " if text.endswith(":") else "; ") + part) if text else part
    return text


def _roles_in_text(text: str) -> str:
    """Role syntax docutils left as text (`a,:issue:`1`` lacks the space markup needs; Sphinx shows it raw)."""

    def shown(m: re.Match[str]) -> str:
        code, value = role_text(m.group(1), m.group(2))
        return _code(value) if code else value

    return _ROLE_USE.sub(shown, text) if ":`" in text else text


_NESTED_LITERAL = re.compile(r"``(\S(?:.*?\S)?)``")


def _inline(node: nodes.Element) -> str:
    """A text element's content as Markdown inline text."""
    out: list[str] = []
    for child in node.children:
        role = _ROLE_BEFORE.search(out[-1]) if out and isinstance(child, nodes.title_reference) else None
        if role:  # `a,:issue:`1``: no space before the role, so docutils read only the backticks as markup
            code, shown = role_text(role.group(1), child.astext())
            out[-1] = out[-1][: role.start()] + (_code(shown) if code else shown)
        elif isinstance(child, nodes.Text):
            text = child.astext()
            if "``" in text and isinstance(node, (nodes.strong, nodes.emphasis)):  # RST nests no markup: Sphinx
                text = _NESTED_LITERAL.sub(lambda m: _code(m.group(1)), text)  # shows it raw, readers mean code
            out.append(_roles_in_text(text))
        elif isinstance(child, (nodes.literal, nodes.title_reference, nodes.math)):
            out.append(_code(child.astext()))
        elif isinstance(child, nodes.reference):
            out.append(_link(child))
        elif isinstance(child, (nodes.footnote_reference, nodes.citation_reference)):
            out.append(f"[{child.astext()}]")
        elif isinstance(child, nodes.problematic):
            out.append(_unmarked(child.astext()))
        elif isinstance(child, nodes.image):
            out.append(child.get("alt", ""))
        elif isinstance(child, nodes.Element) and not isinstance(child, (*_SKIP, nodes.substitution_reference)):
            out.append(_inline(child))  # emphasis, strong, inline, sub/superscript, abbreviations
    return "".join(out)


def _link(ref: nodes.reference) -> str:
    text = _one_line(_inline(ref))
    url = safe_url(ref.get("refuri", "")) if ref.get("refuri") else None
    if not url or not text or text == ref.get("refuri") or "[" in text or "]" in text:
        return text
    return f"[{text}]({url})"


def _unmarked(text: str) -> str:
    """What a reader sees of inline markup docutils could not resolve (an unknown target or substitution)."""
    if re.fullmatch(r"\|[^|]+\|_{0,2}", text):
        return ""
    return re.sub(r"`+_{0,2}|^:[\w+.:-]+:(?=`)|^\*{1,2}|\*{1,2}$", "", text)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _code(text: str) -> str:
    """`text` as one single-backtick code span; backticks inside (``x=`big```) read as quotes."""
    text = _one_line(text)
    text = (text.strip("`") if text.count("`") % 2 else text).replace("`", "'")  # an odd one out is a typo
    return f"`{text}`" if text else ""


def _fence(code: str, language: str) -> str:
    code = code.strip("\n")
    ticks = "`" * max(3, max((len(r) for r in re.findall(r"`{3,}", code)), default=0) + 1)
    return f"{ticks}{language}\n{code}\n{ticks}" if code.strip() else ""
