"""Where the scan places a hit: `Hit`, and lines and 1-based character columns of `ast` nodes (`ast` counts UTF-8
bytes), as the editor shows them."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

DEF = re.compile(r"(?:async\s+)?def\s+")  # before a function's name
FROM = re.compile(r"from(?:\s|\\\n)+")  # before an import's module
CLASS = re.compile(r"class\s+")  # before a class's name


@dataclass(frozen=True)
class Hit:
    """One place a module hits a target; `line` and `col` are 1-based."""

    line: int
    col: int
    symbol: str
    change: str
    exact: bool
    guarded: str = ""  # why the line is guarded ("version check", "import fallback": `assistant.upgrade.guards`)


class Places:
    """Where nodes start, in lines and 1-based character columns (`ast` counts UTF-8 bytes of the line)."""

    def __init__(self, source: str) -> None:
        self.lines = re.split(r"\r\n|\r|\n", source)  # the line breaks Python's tokenizer knows

    def char(self, line: int, byte_col: int) -> int:
        text = self.lines[line - 1] if line <= len(self.lines) else ""
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", "ignore")) + 1

    def start(self, node: ast.AST) -> tuple[int, int]:
        return node.lineno, self.char(node.lineno, node.col_offset)  # type: ignore[attr-defined]

    def attr(self, node: ast.Attribute) -> tuple[int, int]:
        """Where an attribute's own name starts: it ends the node."""
        line, end = node.end_lineno or node.lineno, node.end_col_offset or 0
        return line, self.char(line, end - len(node.attr.encode("utf-8")))

    def after(self, node: ast.AST, keyword: re.Pattern[str]) -> tuple[int, int]:
        """Where what follows a statement's opening keyword starts (`def name`, `from module`)."""
        line, col = node.lineno, self.char(node.lineno, node.col_offset) - 1  # type: ignore[attr-defined]
        text = "\n".join(self.lines[line - 1 : line + 2])[col:]
        m = keyword.match(text)
        skipped = text[: m.end()] if m else ""
        breaks = skipped.count("\n")
        if breaks:
            return line + breaks, len(skipped) - skipped.rfind("\n")
        return line, col + len(skipped) + 1
