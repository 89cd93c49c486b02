"""Markdown links checked in a document body: a link keeps an http(s) target or becomes its text, an image its
alt text, a table-of-contents entry goes.

Written by hand on CommonMark's bracket rules (nesting, escapes, the 1000-character label limit): markdown-it-py
parses links, but only by rendering the whole document, and the rest of the Markdown (lists, emphasis, escapes,
code) must reach the chunker exactly as written.
"""

from __future__ import annotations

import re

from assistant.untrusted import safe_url

# A table-of-contents entry points into the page itself and says nothing; the chunker used to drop these by
# their `(#anchor)` target, which the link check below removes.
_TOC_ENTRY = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+\[[^\]\n]+\]\(#[^)\n]*\)[ \t]*(?:\n|$)", re.MULTILINE)
_DEFINITION = re.compile(
    r"^ {0,3}\[([^\]\n]+)\]:[ \t]*(<[^>\n]*>|\S+)[ \t]*(\"[^\"\n]*\"|'[^'\n]*'|\([^)\n]*\))?[ \t]*$", re.M
)


def check_links(text: str) -> str:
    """Markdown links keep an http(s) target (re-serialised) or become their text; images become alt text;
    reference definitions with another target are removed."""
    text = _TOC_ENTRY.sub("", text)
    text = _DEFINITION.sub(lambda m: f"[{m.group(1)}]: {u}" if (u := safe_url(m.group(2).strip("<>"))) else "", text)
    return _links(text)


# A code span binds tighter than a link: "`[`" opens none, and a "]" in one closes none.
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)((?:(?!\n[ \t]*\n).)+?)(?<!`)\1(?!`)", re.DOTALL)  # within a paragraph


def _links(text: str) -> str:
    # Brackets are looked for with code spans blanked out (same length, so positions hold in `text`).
    seen = _CODE_SPAN.sub(lambda m: m.group(1) + " " * len(m.group(2)) + m.group(1), text)
    out: list[str] = []
    i = 0
    while (j := seen.find("[", i)) != -1:
        close = None if _escaped(text, j) else _matching(seen, j, "[]", "\n\n")
        end = _matching(seen, close + 1, "()", "\n") if close and seen.startswith("(", close + 1) else None
        if end is None:
            out.append(text[i : j + 1])
            i = j + 1
            continue
        image = j > i and text[j - 1] == "!" and not _escaped(text, j - 1)
        out.append(text[i : j - 1 if image else j])
        target, link = _destination(text[close + 2 : end])
        url = None if image else safe_url(target)
        if url and not link:  # `[x](https://a/- b)` is no link in CommonMark, and this one goes nowhere bad
            out.append(text[j : end + 1])
        else:
            label = _links(text[j + 1 : close])  # `[![badge](…)](…)`: the image inside first
            out.append(f"[{label}]({url})" if url and label.strip() else label)
        i = end + 1
    out.append(text[i:])
    return "".join(out)


def _escaped(text: str, k: int) -> bool:
    n = k
    while n and text[n - 1] == "\\":
        n -= 1
    return (k - n) % 2 == 1


def _matching(text: str, start: int, pair: str, stop: str) -> int | None:
    """Index of the bracket closing the one at `start` (nested pairs and escapes respected); None past `stop`
    or after 1000 characters (CommonMark's limit for a link label), so unclosed brackets cost little."""
    depth, k, end = 0, start, min(len(text), start + 1000)
    while k < end:
        ch = text[k]
        depth += (ch == pair[0]) - (ch == pair[1])
        if ch == pair[1] and not depth:
            return k
        if text.startswith(stop, k):
            return None
        k += 2 if ch == "\\" else 1
    return None


def _destination(inner: str) -> tuple[str, bool]:
    """The target of `(target "title")` without angle brackets, and whether the rest is a valid title."""
    target, rest = re.fullmatch(r"\s*(<[^>\n]*>|\S*)(.*)", inner, re.DOTALL).groups()  # type: ignore[union-attr]
    title = not rest.strip() or bool(re.fullmatch(r"\s*(?:\"[^\"]*\"|'[^']*'|\([^()]*\))\s*", rest))
    return target.removeprefix("<").removesuffix(">"), title
