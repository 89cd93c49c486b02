"""The asker's own code quoted in a question: what it passes to calls is theirs, not a name the docs must hold.

"Our endpoint is `GraphQLApp(schema=schema, executor=AsyncioExecutor())`", "`pytz.timezone('Europe/Paris')`",
"`on_startup=[connect_db]`": the values are the asker's variables, classes and data. The called names
(`GraphQLApp`) and their keywords are the API asked about and stay, as does a bare setting asked about
(`auto_camel_case=True`). Python's own parser (`ast`) reads each call or
assignment found in the question; a regex would have to match nested brackets and strings itself.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from assistant.tuning import DEFAULT, Tuning

# Where a call or a `name=value` starts: the parser reads on from there to the closing bracket or the space.
_START = re.compile(r"(?<![\w.])(?:[A-Za-z_][\w.]*\(|[A-Za-z_]\w*=(?!=))")
_CHAINED = re.compile(r"\.[A-Za-z_]\w*\(")  # a call on the call just closed: `TestClient(app).get(url, …)` reads on
_OPENERS, _CLOSERS = "([{", ")]}"


def asker_values(question: str, tuning: Tuning = DEFAULT) -> list[str]:
    """Names and words the question's code passes as values (arguments, keywords and their values, assigned values,
    string contents), lowercased for symbols as query terms are, and as written for proper names. A call's
    keywords are not: they are the API's, which the docs may name."""
    found: list[str] = []
    for span in _spans(question):
        tree = _parse(span)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                for value in [*node.args, *(k.value for k in node.keywords)]:
                    found += _names(value)
            elif isinstance(node, ast.Assign):
                found += _names(node.value)
        found += _single_quoted(tree, span)
    return list(dict.fromkeys(found))


def _spans(question: str) -> Iterator[str]:
    """Candidate code spans: from each start to its closing bracket (a call, with the calls chained on it) or to
    the next space at depth 0 (an assignment)."""
    for m in _START.finditer(question):
        depth, quote, end = 0, "", None
        for i in range(m.start(), len(question)):
            c = question[i]
            if quote:
                quote = "" if c == quote else quote
            elif c in "'\"":
                quote = c
            elif c in _OPENERS:
                depth += 1
            elif c in _CLOSERS:
                depth -= 1
                if depth < 0:
                    break
                if depth == 0 and m.group(0).endswith("("):
                    end = i + 1
                    if not _CHAINED.match(question, i + 1):
                        break
            elif c.isspace() and depth == 0:
                break
            end = i + 1
        if end is not None:
            yield question[m.start() : end].rstrip(".,;:?!")


def _parse(span: str) -> ast.AST | None:
    try:
        return ast.parse(span, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # prose, or brackets nested beyond the parser
        return None


def _names(node: ast.AST) -> list[str]:
    """The names and dotted names inside a value expression."""
    out: list[str] = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            out += [sub.id.lower(), sub.id]
        elif isinstance(sub, ast.Attribute):
            dotted = _dotted(sub)
            if dotted:
                out += [dotted.lower(), dotted]
    return out


def _single_quoted(tree: ast.AST, span: str) -> list[str]:
    """Words of the span's single-quoted strings (`'Europe/Paris'`): data. A double-quoted literal stays a
    name the docs must hold (`mode="hyperdrive"`), as one in prose does."""
    lines = span.splitlines() or [""]
    return [
        word
        for sub in ast.walk(tree)
        if isinstance(sub, ast.Constant)
        and isinstance(sub.value, str)
        and sub.lineno == 1
        and lines[0][sub.col_offset : sub.col_offset + 1] == "'"
        for word in re.findall(r"[^\W\d_][\w+-]*", sub.value)  # from a letter, any script's: not `f` of `éf`
    ]


def _dotted(node: ast.AST) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    return ".".join([node.id, *reversed(parts)])
