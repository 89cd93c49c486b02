"""Markup in a document body turned into text: inline HTML parsed, links checked, code left alone.

HTML is read by the standard library's `html.parser.HTMLParser`, a real tokenizer (tags, attributes, comments,
entities) with no dependency. nh3 does not fit: it is a sanitizer that keeps safe HTML instead of turning it
into text, and it cannot tell `<tensor>` (a word in release notes) from a tag to remove.

The policy (`markdown_text`, for Markdown, plain-text and RST bodies): fenced code and code spans are kept byte
for byte (CommonMark's rule: a backtick run closed by an equal run in the same block, an escaped backtick opens
nothing, a tag that starts first wins over a backtick inside it); `<script>`, `<style>`, `<iframe>` and the like
lose their content, other elements keep their text, words in angle brackets that are no element stay; comments
go; entities are decoded once; `<a href>` and Markdown links keep only an http(s) target (re-serialised), images
become alt text; `<li>`/`<tr>` become `- ` entries, `<br>`/`<p>`/`<div>` line breaks. `html_to_markdown` (for
`.html` files) parses once and then only checks links, so nothing is decoded twice.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

from assistant.text.untrusted import BLOCKS, DROP, ELEMENTS, HEADINGS, is_word_in_brackets, safe_url, without_controls
from ingest.markdown_blocks import markdown_blocks
from ingest.markdown_links import check_links


def markdown_text(body: str) -> str:
    """A Markdown, plain-text or RST body with its inline HTML turned into text and its links checked."""
    text, saved = protect(body)
    text = check_links(_convert(markdown_blocks(text), html=False))
    return without_controls(restore(text, saved))


def html_to_markdown(html: str) -> str:
    """An HTML page as Markdown: headings, lists, rows, code and safe links kept, everything else as text."""
    text = _convert(html.replace("\ue000", "").replace("\ue001", ""), html=True)
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(line.rstrip() for line in text.split("\n"))).strip() + "\n"
    text, saved = protect(text)  # only to keep code out of the link checks: the HTML was parsed once, above
    return without_controls(restore(check_links(text), saved))


# -- code and autolinks, set aside before anything else reads the text ---------------------------------
_GONE = "\ue002"  # where the converter removed markup
_HOLD = re.compile("\ue000(\\d+)\ue001")  # a placeholder; the private-use marks are removed from input first
_OPEN_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$")
# A line that starts a new block: no code span reaches past it (CommonMark parses inlines per block).
_BLOCK_START = re.compile(r"\n[ \t]*(?:\n|$|[-*+][ \t]|\d{1,9}[.)][ \t]|#{1,6}(?:[ \t]|$)|>|\|)")
_SPECIAL = re.compile(r"[\\`<]")
_RUN = re.compile("`+")
_PARAGRAPH_END = re.compile(r"\n[ \t]*\n")
# Elements whose text the converter reads in a frame of their own, up to their end tag, which HTML requires
# (`<li>`, `<tr>` and `<td>` end where the next begins).
_FRAMED = frozenset({"a", "code", "pre", "ul", "ol", "menu", "table", *HEADINGS})
_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_TAG_NAME = re.compile(r"</?([A-Za-z][A-Za-z0-9-]*)")
_TAG_OPEN = re.compile(r"<[A-Za-z/!?]")
_DESTINATION = re.compile(r"<[^<>\n]*>")
_DEFINITION_LEAD = re.compile(r"^ {0,3}\[[^\]\n]+\]:", re.M)
_LABEL_CHARS = 1003  # CommonMark's link label: at most 999 characters, and its brackets, indent and colon
_AUTOLINK = re.compile(r"<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>")
# CommonMark's raw HTML; possessive quantifiers, so a long unclosed tag costs linear time.
_ATTR = r"""(?:\s++[A-Za-z_:][A-Za-z0-9_.:-]*+(?:\s*+=\s*+(?:[^\s"'=<>`]++|'[^']*+'|"[^"]*+"))?+)"""
_RAW_HTML = re.compile(
    rf"<[A-Za-z][A-Za-z0-9-]*+{_ATTR}*+\s*+/?>|</[A-Za-z][A-Za-z0-9-]*+\s*+>|<!--.*?-->|<\?.*?\?>"
    r"|<![A-Za-z][^>]*+>|<!\[CDATA\[.*?\]\]>",
    re.DOTALL,
)


def protect(text: str) -> tuple[str, list[str]]:
    """`text` with fenced code blocks, code spans and autolinks replaced by placeholders; `restore` puts
    back their saved form (code verbatim, autolinks only when safe)."""
    saved: list[str] = []
    pieces: list[str] = []
    block: list[str] = []  # the prose lines, or the fence lines when `marker` is set
    marker = ""
    for line in text.replace("\ue000", "").replace("\ue001", "").split("\n"):
        opening = None if marker else _OPEN_FENCE.match(line)
        if opening and not (opening.group(1)[0] == "`" and "`" in opening.group(2)):
            pieces += [_inline("\n".join(block), saved)] if block else []
            block, marker = [line], opening.group(1)
        elif marker and re.fullmatch(rf"[ \t]*{re.escape(marker[0])}{{{len(marker)},}}[ \t]*", line):
            pieces.append(_hold(saved, "\n".join([*block, line])))
            block, marker = [], ""
        else:
            block.append(line)
    if block:  # an unclosed fence runs to the end of the document
        pieces.append(_hold(saved, "\n".join(block)) if marker else _inline("\n".join(block), saved))
    return "\n".join(pieces), saved


def restore(text: str, saved: list[str]) -> str:
    return _HOLD.sub(lambda m: saved[int(m.group(1))], text)


def _destination(text: str, j: int) -> bool:
    """Whether the `<` at `j` opens a link's destination in angle brackets, closed on its line: `](<a b>)`, or a
    definition's `[id]: <a b>`. Looks back over blanks only, and at most a label's length for a definition, so a
    line of many `<` costs linear time."""
    if not _DESTINATION.match(text, j):
        return False
    k = j
    while k and text[k - 1] in " \t":
        k -= 1
    if text[max(0, k - 2) : k] == "](":
        return True
    if not k or text[k - 1] != ":":
        return False
    start = text.rfind("\n", max(0, k - _LABEL_CHARS), k) + 1
    return (start > 0 or k <= _LABEL_CHARS) and bool(_DEFINITION_LEAD.fullmatch(text, start, k))


class _Ahead:
    """Where the next `>` and the next line break are, from a position that only grows: each found once."""

    def __init__(self, text: str) -> None:
        self.text, self.gt, self.nl = text, -1, -1

    def closes_on_its_line(self, j: int) -> bool:
        """Whether a `>` comes after `j` before the line ends."""
        if self.gt < j:
            self.gt = self._find(">", j)
        if self.nl < j:
            self.nl = self._find("\n", j)
        return self.gt < self.nl

    def _find(self, char: str, j: int) -> int:
        found = self.text.find(char, j)
        return len(self.text) if found < 0 else found  # none: the end, which no later position passes


def _hold(saved: list[str], text: str) -> str:
    saved.append(text)
    return f"\ue000{len(saved) - 1}\ue001"


def _inline(text: str, saved: list[str]) -> str:
    """Code spans and autolinks of one run of prose lines set aside; raw HTML tags are skipped over whole, so
    a backtick inside an attribute opens nothing (a tag that starts first wins, as in CommonMark)."""
    out: list[str] = []
    ahead = _Ahead(text)
    i = 0
    while found := _SPECIAL.search(text, i):
        j = found.start()
        out.append(text[i:j])
        if text[j] == "\\":
            step = 2 if text[j + 1 : j + 2] in _PUNCT else 1  # `\`` is a literal backtick and opens no code span
            out.append(text[j : j + step])
            i = j + step
        elif text[j] == "`":
            run = _RUN.match(text, j).end() - j  # type: ignore[union-attr]
            block_end = _BLOCK_START.search(text, j)
            closing = re.compile(rf"(?<!`)`{{{run}}}(?!`)").search(
                text, j + run, block_end.start() if block_end else len(text)
            )
            i = closing.end() if closing else j + run
            span = text[j:i]
            if closing and run > 1 and "`" not in span[run:-run]:  # ``x`` (RST's literal) reads as `x`
                span = f"`{span[run:-run].strip()}`"
            out.append(_hold(saved, span) if closing else span)
        elif auto := _AUTOLINK.match(text, j):
            url = safe_url(auto.group(1))
            out.append(_hold(saved, f"<{url}>") if url else "")  # `<javascript:…>` is dropped whole
            i = auto.end()
        elif tag := _RAW_HTML.match(text, j):
            out.append(tag.group())
            i = tag.end()
        else:
            # No raw HTML by CommonMark's grammar, so text: set aside where the HTML parser would read a tag up to
            # the next `>`, however far ("<Stackoverflow" over a line break and a link ate 17 KB up to a later
            # "X > y"). A known element's malformed tag closed on its line (`<script/src=x>`) stays the parser's,
            # which drops what it must; so does a link's destination in angle brackets (`](<a b>)`, `[id]: <a b>`),
            # which the link checks read.
            name = _TAG_NAME.match(text, j)
            if name and name.group(1).lower() in ELEMENTS:
                hold = not ahead.closes_on_its_line(j)
            else:
                hold = bool(_TAG_OPEN.match(text, j))
            out.append(_hold(saved, "<") if hold and not _destination(text, j) else "<")
            i = j + 1
    out.append(text[i:])
    return "".join(out)


# -- HTML ----------------------------------------------------------------------------------------------
class _Frame:
    """Output collected for one element whose text is finished at its end tag (a link, a cell, code)."""

    def __init__(self, tag: str, *, inline: bool = True, href: str | None = None) -> None:
        self.tag, self.inline, self.href = tag, inline, href  # inline: line breaks inside become spaces
        self.parts: list[str] = []


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _fenced(code: str, least: int, sep: str) -> str:
    """`code` between backtick fences longer than any run inside it (at least `least` long)."""
    fence = "`" * max(least, max((len(r) for r in re.findall(r"`+", code)), default=0) + 1)
    return f"{fence}{sep}{code}{sep}{fence}"


class _Converter(HTMLParser):
    """HTML (a page, or the inline HTML of a Markdown body) to Markdown-flavoured text."""

    def __init__(self, source: str, *, html: bool) -> None:
        super().__init__(convert_charrefs=True)  # entities are decoded here, once
        self.source = source
        self.html = html  # a whole page: whitespace collapsed, blocks separated by blank lines
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", source)]
        self.frames = [_Frame("", inline=False)]
        self.dropping: list[str] = []  # open elements whose content is being discarded
        self.prose_tag = False  # a <script> or <style> never closed: its tag goes, the text after it stays
        self.unknown: list[str] = []  # unknown names opened as elements (they had attribute values)
        self.row: list[str] | None = None
        self.lists = 0
        self.fresh_line = True  # right after a break: the source's own line break and indent are dropped

    @property
    def top(self) -> _Frame:
        return self.frames[-1]

    def emit(self, text: str) -> None:
        if text:
            self.top.parts.append(text)
            self.fresh_line = False

    def line_break(self, *, blank: bool = False) -> None:
        """End the current line (and leave a blank one when `blank`), unless the output already did."""
        if self.top.inline:
            return self.emit(" ")
        parts = self.top.parts
        while parts and not parts[-1].rstrip(" \t"):
            parts.pop()
        if parts:
            parts[-1] = parts[-1].rstrip(" \t")
            tail = "".join(parts[-3:])
            parts.append("\n" * max(0, 1 + blank - (len(tail) - len(tail.rstrip("\n")))))
        self.fresh_line = True

    def mark(self) -> None:
        """Note that markup was removed here: a line left holding only such marks is deleted at the end."""
        if not self.top.inline:
            self.top.parts.append(_GONE)

    def set_cdata_mode(self, *args: Any, **kwargs: Any) -> None:
        """Called after `handle_starttag` for `<script>` and `<style>`; skipped when they are never closed."""
        if self.prose_tag:
            self.prose_tag = False
            return
        super().set_cdata_mode(*args, **kwargs)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if is_word_in_brackets(tag, attrs) and not self.dropping:
            return self.emit(self.get_starttag_text() or "")
        self.mark()
        if self.dropping:
            self.dropping += [tag] if tag in DROP and (self.html or tag not in self.dropping) else []
        elif tag in DROP:
            # Never closed (`List<object>` in prose): only the tag goes, not the rest of the document.
            # In a text an element ends with its paragraph, as CommonMark reads raw HTML, but for `<script>` and
            # `<style>`, which run to their end tag.
            if self._closed(tag, paragraph=not self.html and tag not in ("script", "style")):
                self.dropping.append(tag)
            elif tag in ("script", "style"):  # "tags like <script>, <style>" in prose: the parser would read the
                self.prose_tag = True  # rest of the document as the script's content (see `set_cdata_mode`)
        elif tag not in ELEMENTS:
            self.unknown.append(tag)
        elif not self.html and tag in _FRAMED and not self._closed(tag, paragraph=True):
            pass  # a tag shown in a text's prose (`<a href="url1">` in a changelog) opens nothing: its text stays
        else:
            self._open(tag, dict(attrs))

    def _closed(self, tag: str, *, paragraph: bool = False) -> bool:
        """Whether the source closes `tag` after the tag being read (before the paragraph ends, if asked)."""
        line, col = self.getpos()
        start = self._line_starts[line - 1] + col
        end = _PARAGRAPH_END.search(self.source, start) if paragraph else None
        closing = re.compile(rf"</{tag}\s*>", re.IGNORECASE)
        return bool(closing.search(self.source, start, end.start() if end else len(self.source)))

    def _open(self, tag: str, attrs: dict[str, str | None]) -> None:
        if tag in ("img", "image"):
            self.emit(_one_line(attrs.get("alt") or ""))  # no image ever survives, only its description
        elif tag in ("br", "hr"):
            self.line_break()
        elif tag == "a" and not any(f.tag == "a" for f in self.frames):
            self.frames.append(_Frame("a", href=safe_url(attrs.get("href") or "")))
        elif tag in HEADINGS or (tag == "code" and not any(f.tag == "pre" for f in self.frames)):
            self.frames.append(_Frame(tag))
        elif tag == "pre":
            self.line_break(blank=self.html)
            self.frames.append(_Frame("pre", inline=False))
        elif tag in ("tr", "td", "th") and (tag == "tr" or self.row is None):
            self._end_row()
            if self.top.inline:  # a table inside a link or code is just more text
                return self.emit(" ")
            self.row = []
            if tag != "tr":
                self._open(tag, attrs)
        elif tag in ("td", "th"):
            self._close("td")
            self.frames.append(_Frame("td"))
        elif tag == "li":
            self.line_break()
            self.emit(" " if self.top.inline else "  " * max(0, self.lists - 1) + "- ")
            self.fresh_line = True
        elif tag in ("ul", "ol", "menu"):
            self.lists += 1
            self.line_break(blank=self.html and self.lists == 1)
        elif tag in BLOCKS:
            if tag == "table":
                self._end_row()
            self.line_break(blank=self.html)

    def handle_endtag(self, tag: str) -> None:
        self.mark()
        if self.dropping:
            if tag in self.dropping:
                del self.dropping[len(self.dropping) - 1 - self.dropping[::-1].index(tag) :]
        elif tag in self.unknown:
            self.unknown.remove(tag)
        elif tag not in ELEMENTS and "-" not in tag:
            line, col = self.getpos()
            start = self._line_starts[line - 1] + col
            if self.source.startswith("</", start):  # not the end HTMLParser makes up for `<foo/>`
                self.emit(self.source[start : self.source.find(">", start) + 1] or f"</{tag}>")  # `</T>` as written
        elif tag in ("a", "code", "pre", "td", "th") or tag in HEADINGS:
            self._close("td" if tag == "th" else tag)
        elif tag in ("tr", "table"):
            self._end_row()
            self.line_break(blank=self.html and tag == "table")
        elif tag in ("ul", "ol", "menu"):
            self.lists = max(0, self.lists - 1)
            self.line_break(blank=self.html and not self.lists)
        elif tag in ("li", "br") or tag in BLOCKS:
            self.line_break(blank=self.html and tag in BLOCKS)

    def handle_data(self, data: str) -> None:
        if self.dropping:
            return
        if self.top.tag == "pre":
            return self.emit(data)
        if self.html or self.top.tag == "td":
            data = re.sub(r"\s+", " ", data)
        if self.row is not None and not self.top.inline:
            if not data.strip():
                return  # the indentation between cells
            self._open("td", {})
        if self.fresh_line and not self.top.inline:
            data = re.sub(r"^[ \t]*\n?[ \t]*", "", data)
        self.emit(data)

    # Comments, declarations (`<!DOCTYPE>`, Slack's `<!channel>`) and processing instructions are no text.
    def handle_comment(self, data: str) -> None:
        self.mark()

    handle_decl = handle_pi = unknown_decl = handle_comment

    def _close(self, tag: str) -> None:
        """Finish the innermost open `tag` element and any element left open inside it."""
        if any(f.tag == tag for f in self.frames[1:]):
            while self.top.tag != tag:
                self._finish(self.frames.pop())
            self._finish(self.frames.pop())

    def _finish(self, frame: _Frame) -> None:
        text = "".join(frame.parts)
        if frame.tag == "a":
            label = _one_line(text)
            plain = not frame.href or not label or "[" in label or "]" in label
            self.emit(label if plain else f"[{label}]({frame.href})")
        elif frame.tag == "code":
            pad = " " if text.strip("\n").startswith("`") or text.strip("\n").endswith("`") else ""
            self.emit(_fenced(pad + text.strip("\n") + pad, 1, "") if text.strip() else text)
        elif frame.tag == "pre":
            self.emit(_fenced(text.strip("\n"), 3, "\n") if text.strip() else "")
            self.line_break(blank=self.html)
        elif frame.tag == "td" and self.row is not None:
            self.row.append(_one_line(text))
        elif frame.tag in HEADINGS:
            self.line_break(blank=self.html)
            self.emit("#" * int(frame.tag[1]) + " " + _one_line(text) if text.strip() else "")
            self.line_break(blank=self.html)
        else:
            self.emit(text)

    def _end_row(self) -> None:
        """The open table row as one list entry, its cells joined by ' | '; a row with no text is dropped."""
        self._close("td")
        cells, self.row = [c for c in self.row or [] if c], None
        if cells:
            self.line_break()
            self.emit("- " + " | ".join(cells))
            self.line_break()

    def result(self) -> str:
        self.close()
        self._end_row()
        while len(self.frames) > 1:
            self._finish(self.frames.pop())
        text = re.sub(rf"^[ \t]*{_GONE}[ \t{_GONE}]*(?:\n|\Z)", "", "".join(self.top.parts), flags=re.MULTILINE)
        return text.replace(_GONE, "")


def _convert(text: str, *, html: bool) -> str:
    text = text.replace(_GONE, "")
    converter = _Converter(text, html=html)
    converter.feed(text)
    return converter.result()
