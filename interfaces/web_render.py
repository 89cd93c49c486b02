"""Markdown for the web chat: the answer with its [n] markers, then numbered sources with quotes to unfold.

Pure functions of an `Answer`, no gradio import, so they are cheap to test.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from assistant.models import Answer, Citation

SEARCHING = "_Searching the release docs…_"
ERROR = "⚠️ Sorry, something went wrong while answering. Please try again, or rephrase the question."
REFUSAL_LABELS = {"en": "Not in the release docs", "fr": "Absent des notes de version"}
QUOTE_LABELS = {"en": "Quoted passage", "fr": "Passage cité"}
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_KIND_NAMES = {"migration-guide": "migration guide", "release-notes": "release notes", "release-news": "release news"}


def answer_markdown(answer: Answer) -> str:
    """A grounded answer with its sources, or a refusal in its own box (refusals cite nothing)."""
    if not answer.found:
        return refusal_markdown(answer.text, answer.notice, answer.language)
    parts = [_escape_html(answer.text)]
    if answer.notice:
        parts.append(f"_{_escape_html(answer.notice)}_")
    if answer.citations:
        parts.append(sources_markdown(answer.citations, answer.language))
    return "\n\n".join(parts)


def refusal_markdown(text: str, notice: str | None = None, language: str = "en") -> str:
    # Markdown inside an HTML block needs the blank lines around it.
    label = REFUSAL_LABELS.get(language, REFUSAL_LABELS["en"])
    body = f'<span class="reldocs-badge">{label}</span>\n\n{_escape_html(text)}'
    if notice:
        body += f"\n\n_{_escape_html(notice)}_"
    return f'<div class="reldocs-refusal">\n\n{body}\n\n</div>'


def sources_markdown(citations: Sequence[Citation], language: str = "en") -> str:
    """'Sources' and one entry per citation: [n] title (linked), version, section; the quote folds out."""
    quoted = QUOTE_LABELS.get(language, QUOTE_LABELS["en"])
    lines = ['<div class="reldocs-sources">', "", "**Sources**", ""]
    for c in citations:
        title = _escape_link_text(c.title or c.source)
        title = f"[{title}]({c.url})" if c.url else title
        facts = " · ".join(p for p in (f"v{c.version}" if c.version else "", _KIND_NAMES.get(c.kind, c.kind)) if p)
        head = f"**[{c.n}]** {title} — {facts}"
        if c.section:
            head += f" — _{_escape_html(c.section)}_"
        lines += [
            head,
            "",
            f'<details class="reldocs-quote"><summary>{quoted} [{c.n}]</summary>',
            "",
            f"> {_escape_html(' '.join(c.quote.split()))}",
            "",
            f"<sub>{_escape_html(c.source)}</sub>",
            "",
            "</details>",
            "",
        ]
    lines.append("</div>")
    return "\n".join(lines)


def _escape_html(text: str) -> str:
    """Keep `<tensor>` or `a < b` visible as text (the chat would drop them as tags), except inside code spans."""
    out, last = [], 0
    for m in _CODE_SPAN.finditer(text):
        out.append(_lt_gt(text[last : m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(_lt_gt(text[last:]))
    return "".join(out)


def _lt_gt(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _escape_link_text(text: str) -> str:
    return _escape_html(text).replace("[", r"\[").replace("]", r"\]")
