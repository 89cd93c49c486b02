"""Renderers for the command line: readable terminal text and the `--json` contracts.

Every string in an answer or passage came from the docs, which other projects wrote: the text renderers pass
each through `without_controls`, so no escape sequence (colours, OSC 8 hyperlinks, window titles), C0/C1
control or bidi override reaches the terminal, and show a URL only as `safe_url` re-serialises it.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence

from assistant.index.catalog import IndexedFile
from assistant.model.messages import say
from assistant.model.records import Answer, Passage
from assistant.text.untrusted import one_line, safe_url, without_controls


def answer_json(answer: Answer) -> str:
    """One line of `ask --json`."""
    return json.dumps(answer.to_dict(), ensure_ascii=False)


def answer_text(answer: Answer, *, width: int = 100) -> str:
    """The answer, then its numbered sources with the quoted passage."""
    lines = [without_controls(answer.text)]
    if answer.notice:
        lines.append(f"({without_controls(answer.notice)})")
    if answer.citations:
        lines.append("")
        lines.append("Sources:")
        for c in answer.citations:
            where = " › ".join(p for p in (one_line(c.title), one_line(c.section)) if p)
            meta = ", ".join(p for p in (f"v{one_line(c.version)}" if c.version else "", one_line(c.kind)) if p)
            lines.append(f"  [{c.n}] {where}" + (f" ({meta})" if meta else ""))
            url = safe_url(c.url)
            lines.append(f"      {one_line(c.source)}" + (f"  {url}" if url else ""))
            quote = textwrap.shorten(one_line(c.quote), width=min(width * 3, 400), placeholder=" …")
            lines.extend(textwrap.wrap(f"“{quote}”", width=width, initial_indent="      ", subsequent_indent="      "))
    return "\n".join(lines)


def passages_text(passages: Sequence[Passage], *, width: int = 100) -> str:
    """`search` results: rank, scores, source and version, heading, then the start of the passage."""
    out = []
    for i, p in enumerate(passages, 1):
        c = p.chunk
        sim = f"{p.similarity:.3f}" if p.similarity is not None else "-"
        bm25 = f"{p.bm25:.2f}" if p.bm25 is not None else "-"
        out.append(
            f"{i:>2}. score {p.score:.4f} (cosine {sim}, bm25 {bm25})  {one_line(c.source)} [v{one_line(c.version)}]"
        )
        out.append(f"    {one_line(c.section) or one_line(c.title)}")
        body = textwrap.shorten(one_line(c.text), width=width * 2, placeholder=" …")
        out.extend(textwrap.wrap(body, width=width, initial_indent="    ", subsequent_indent="    "))
    return "\n".join(out)


def passages_json(passages: Sequence[Passage]) -> str:
    return json.dumps([p.to_dict() for p in passages], ensure_ascii=False)


def products_text(files: dict[str, list[IndexedFile]], releases: dict[str, list[str]]) -> str:
    """`products`: each product with its releases, then its files, each with its releases and where they were
    read ("acme/2.3.rst  2.3  (file name)"); names come from the docs' folders: one line each, no controls."""
    if not files:
        return "Nothing is indexed."
    lines = []
    for name, own in files.items():
        held = releases.get(name, [])
        said = say("releases_held", "en", releases=", ".join(held)) if held else say("no_releases", "en")
        lines.append(one_line(f"{name}: {said}; {len(own)} file{'s' * (len(own) != 1)}"))
        width = max(len(f.source) for f in own)
        for f in own:
            release = ", ".join(f.releases) if len(f.releases) <= 3 else f"{f.releases[0]} … {f.releases[-1]}"
            where = f"  ({f.release_from})" if f.release_from else ""
            lines.append("  " + one_line(f"{f.source.ljust(width)}  {release or '-'}{where}"))
    return "\n".join(lines)


def products_json(files: dict[str, list[IndexedFile]], releases: dict[str, list[str]]) -> str:
    """`products --json`: {"products": [{"name", "releases", "files": [{"file", "releases", "release_from"}]}]}."""
    rows = [
        {"name": n, "releases": releases.get(n, []), "files": [f.to_dict() for f in own]} for n, own in files.items()
    ]
    return json.dumps({"products": rows}, ensure_ascii=False)
