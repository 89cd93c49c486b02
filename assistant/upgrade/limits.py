"""The edges of what the scan reads: files over a size cap, and valid Python that LibCST's parser refuses.

LibCST needs some 550 MB of memory and 15 s per MB of source (more for code dense with hits), so the scan
reads at most a capped number of bytes of each file: a larger one is named and skipped, as one that does not
parse is (`read_at_most`, `size_text` for the message).

CPython joins `"a" "b" "c"` into one constant however many parts there are; LibCST's native parser stops at
3,000 and reports a syntax error. `collapse_long_strings` gives the scan a copy of the source in which each
long string expression is one empty string on the same lines, so that every finding keeps its line and column.
What a string holds never hits a target; only a long f-string's `{expressions}` are lost with it.
"""

from __future__ import annotations

import ast
import io
from pathlib import Path

from assistant.runtime.bounded import MB

# A run LibCST refuses has more than 3,000 parts of at least two characters each (`""''""…`): some 6,000 in all.
# Shorter strings stay as written, so a collapsed copy differs from the source only where it has to.
LONG_STRING_CHARS = 6000


def read_at_most(path: Path, limit: int | None) -> bytes | None:
    """The file's bytes, or None when it holds more than `limit` (of which no more than that is read)."""
    with path.open("rb") as f:
        data = f.read() if limit is None else f.read(limit + 1)
    return None if limit is not None and len(data) > limit else data


def size_text(n: int) -> str:
    """'1 MB', '500 KB', '10 bytes'."""
    return f"{n / MB:.3g} MB" if n >= MB else f"{n / 1024:.3g} KB" if n >= 1024 else f"{n} bytes"


def collapse_long_strings(source: str, tree: ast.Module) -> str | None:
    """The source with every string expression (a literal or adjacent ones, f-strings too) spanning at least
    `LONG_STRING_CHARS` made `("")` padded to the same lines and end column; None when there is none."""
    lines = io.StringIO(source, newline="").readlines()  # the line breaks ast counts: \n, \r\n and \r
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(lineno: int, byte_col: int) -> int:
        # ast's columns count UTF-8 bytes of the line; the copy is cut by characters.
        line = lines[lineno - 1] if lineno <= len(lines) else ""
        return starts[lineno - 1] + len(line.encode("utf-8")[:byte_col].decode("utf-8", "ignore"))

    spans = []
    stack: list[ast.AST] = [tree]
    while stack:  # iterative: a tree CPython built can be deeper than Python's recursion limit
        node = stack.pop()
        if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str | bytes)):
            if node.end_lineno is not None and node.end_col_offset is not None:
                start, end = offset(node.lineno, node.col_offset), offset(node.end_lineno, node.end_col_offset)
                if end - start >= LONG_STRING_CHARS:
                    spans.append((start, end, node.end_lineno - node.lineno, end - starts[node.end_lineno - 1]))
            continue  # an f-string's parts lie inside its own span
        stack.extend(ast.iter_child_nodes(node))
    if not spans:
        return None
    out = []
    at = 0
    for start, end, breaks, end_col in sorted(spans):
        if breaks:  # the same line breaks, as continuations: LibCST takes seconds over 100,000 blank lines
            blank = '(""' + " \\\n" * breaks + " " * (end_col - 1) + ")"
        else:
            blank = '(""' + " " * (end - start - 4) + ")"
        out += [source[at:start], blank]
        at = end
    out.append(source[at:])
    return "".join(out)
