"""Markdown links checked in a document body: a link keeps an http(s) target or becomes its text, an image its
alt text, a table-of-contents entry goes.

Written by hand on CommonMark's bracket rules (nesting, escapes, the 1000-character label limit): markdown-it-py
parses links, but only by rendering the whole document, and the rest of the Markdown (lists, emphasis, escapes,
code) must reach the chunker exactly as written.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from assistant.text.untrusted import safe_url

# A table-of-contents entry points into the page itself and says nothing; the chunker used to drop these by
# their `(#anchor)` target, which the link check below removes.
_TOC_ENTRY = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+\[[^\]\n]+\]\(#[^)\n]*\)[ \t]*(?:\n|$)", re.MULTILINE)
# Blanks are taken whole (possessive: what follows them is no blank). A title glued to the target ("url(title)")
# is tried at the last '(' of a run of them only: the ones before it end at the same ')', and each read on to it.
_DEFINITION = re.compile(
    r"^ {0,3}\[([^\]\n]+)\]:[ \t]*+(<[^>\n]*>|\S+)[ \t]*+"
    r"(\"[^\"\n]*\"|'[^'\n]*'|\((?:(?<=[ \t]\()|(?![^()\s]*\())[^)\n]*\))?[ \t]*+$",
    re.M,
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
    brackets, parens = _closings(seen, "[]", "\n\n"), _closings(seen, "()", "\n")
    out: list[str] = []
    i = 0
    while (j := seen.find("[", i)) != -1:
        close = None if _escaped(text, j) else brackets.get(j)
        end = parens.get(close + 1) if close and seen.startswith("(", close + 1) else None
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


def _closings(text: str, pair: str, stop: str) -> dict[int, int]:
    """Index of the bracket closing each opening one of `pair` (nested pairs and escapes respected), for those
    closed before `stop` and within 1000 characters (CommonMark's limit for a link label).

    One pass with a stack for all of them: reading on from each opening bracket in turn took up to 1000 steps
    per bracket, minutes for a line of 100,000 '['."""
    opened: list[int] = []
    closing: dict[int, int] = {}
    stops: list[int] = []  # where `stop` starts, among the characters read (an escaped one is not)
    k = 0
    while k < len(text):
        ch = text[k]
        if ch == pair[0]:
            opened.append(k)
        elif ch == pair[1] and opened:
            closing[opened.pop()] = k
        elif text.startswith(stop, k):
            stops.append(k)
        k += 2 if ch == "\\" else 1
    return {
        start: end
        for start, end in closing.items()
        if end < start + 1000 and bisect_left(stops, start) == bisect_left(stops, end)
    }


def _destination(inner: str) -> tuple[str, bool]:
    """The target of `(target "title")` without angle brackets, and whether the rest is a valid title."""
    target, rest = re.fullmatch(r"\s*(<[^>\n]*>|\S*)(.*)", inner, re.DOTALL).groups()  # type: ignore[union-attr]
    title = not rest.strip() or bool(re.fullmatch(r"\s*(?:\"[^\"]*\"|'[^']*'|\([^()]*\))\s*", rest))
    return target.removeprefix("<").removesuffix(">"), title
