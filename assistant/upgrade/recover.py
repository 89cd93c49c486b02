"""Reading the rest of a module some statements of which this Python does not parse: code written for an older
Python (`f(x for x in y, )`, accepted before 3.8; a stray Python 2 `print x`), a template's placeholder in one
line. Each statement the parser stops at is set aside (blanked, its lines kept so that every other hit keeps its
place) and the module parsed again, a few times at most; the scan reports the lines it could not read.

Written by hand: `ast` has no error recovery, and parsers that have one (parso, LibCST's) would mean a second
syntax tree for the scan's visitor to read. The statement's extent comes from Python's own tokenizer.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass

MAX_SKIPPED = 5  # statements set aside before the module counts as unreadable (a Python 2 module has hundreds)
_HEADER = re.compile(r":\s*(?:#.*)?$")  # a compound statement's header line (`except Error, e:`)
_SKIP = (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)


@dataclass(frozen=True)
class Skipped:
    """A statement set aside: its first and last line (1-based) and what the parser said of it."""

    first: int
    last: int
    error: str


def recovered(lines: list[str], error: SyntaxError) -> tuple[ast.Module, tuple[Skipped, ...]] | None:
    """The module parsed with the statements the parser stops at set aside, and those statements; None when that
    does not make it parse (more than `MAX_SKIPPED` of them, or a statement whose extent cannot be told)."""
    lines = list(lines)
    skipped: list[Skipped] = []
    while len(skipped) < MAX_SKIPPED:
        span = _statement(lines, error.lineno or 0)
        if span is None:
            return None
        first, last = span
        skipped.append(Skipped(first, last, error.msg))
        text = lines[first - 1]
        indent = text[: len(text) - len(text.lstrip())]
        # A compound statement's header keeps its block: `if True:` in place of `except Error, e:` reads its body.
        stand_in = "if True:" if _HEADER.search(lines[last - 1]) else "pass"
        lines[first - 1 : last] = [indent + stand_in] + [""] * (last - first)
        try:
            return ast.parse("\n".join(lines)), tuple(skipped)
        except SyntaxError as again:
            if again.lineno == error.lineno and again.msg == error.msg:
                return None  # setting the statement aside changed nothing
            error = again
        except (ValueError, RecursionError, MemoryError):
            return None
    return None


def _statement(lines: list[str], line: int) -> tuple[int, int] | None:
    """The first and last line of the logical line (statement) holding `line`, by the tokenizer; the line alone
    when the tokenizer stops before reaching it."""
    if not 1 <= line <= len(lines):
        return None
    start = None
    try:
        for token in tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline):
            if token.type in _SKIP:
                continue
            if start is None:
                start = token.start[0]
            if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                if start <= line <= token.start[0]:
                    return start, min(token.start[0], len(lines))  # the end marker is past the last line
                start = None
    except (tokenize.TokenError, SyntaxError):
        pass
    return line, line
