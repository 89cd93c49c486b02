"""Renderers for the command line: readable terminal text and the `--json` contracts."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence

from assistant.models import Answer, Passage


def answer_json(answer: Answer) -> str:
    """One line of `ask --json`."""
    return json.dumps(answer.to_dict(), ensure_ascii=False)


def answer_text(answer: Answer, *, width: int = 100) -> str:
    """The answer, then its numbered sources with the quoted passage."""
    lines = [answer.text]
    if answer.notice:
        lines.append(f"({answer.notice})")
    if answer.citations:
        lines.append("")
        lines.append("Sources:")
        for c in answer.citations:
            where = " › ".join(p for p in (c.title, c.section) if p)
            lines.append(f"  [{c.n}] {where} (v{c.version}, {c.kind})")
            lines.append(f"      {c.source}" + (f"  {c.url}" if c.url else ""))
            quote = textwrap.shorten(c.quote, width=min(width * 3, 400), placeholder=" …")
            lines.extend(textwrap.wrap(f"“{quote}”", width=width, initial_indent="      ", subsequent_indent="      "))
    return "\n".join(lines)


def passages_text(passages: Sequence[Passage], *, width: int = 100) -> str:
    out = []
    for i, p in enumerate(passages, 1):
        c = p.chunk
        sim = f"{p.similarity:.3f}" if p.similarity is not None else "-"
        bm25 = f"{p.bm25:.2f}" if p.bm25 is not None else "-"
        out.append(f"{i:>2}. score {p.score:.4f} (cosine {sim}, bm25 {bm25})  {c.source} [v{c.version}]")
        out.append(f"    {c.section or c.title}")
        body = textwrap.shorten(" ".join(c.text.split()), width=width * 2, placeholder=" …")
        out.extend(textwrap.wrap(body, width=width, initial_indent="    ", subsequent_indent="    "))
    return "\n".join(out)


def passages_json(passages: Sequence[Passage]) -> str:
    return json.dumps([p.to_dict() for p in passages], ensure_ascii=False)
