"""HTML for the web chat, built from escaped parts: the answer with linked [n] markers, numbered sources whose
quotes unfold, refusals in a box of their own, and the plain-text twin that the copy button copies.

Everything that comes from the docs is untrusted. The answer's own Markdown (code spans, one entry per line) is
rendered by markdown-it-py with raw HTML, images and links switched off; every other
string goes through `markupsafe.escape`, every URL through `safe_url`. The chat shows these messages as HTML
as they are (`render_markdown=False`), so no second Markdown pass (autolinks, LaTeX) can turn doc text into
markup. Pure functions, no gradio import.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from markupsafe import escape

from assistant.index.catalog import IndexedFile
from assistant.model.messages import say
from assistant.model.records import Answer, Citation
from assistant.text.untrusted import safe_url, without_controls

REFUSAL_LABELS = {"en": "Not in the release docs", "fr": "Absent des notes de version"}
QUOTE_LABELS = {"en": "Quoted passage", "fr": "Passage cité"}
SOURCES_LABELS = {"en": "Sources", "fr": "Sources"}
KIND_NAMES = {"migration-guide": "migration guide", "release-notes": "release notes", "release-news": "release news"}
LINK_ATTRS = 'target="_blank" rel="noopener noreferrer nofollow"'
# The plain text of a message travels inside it, base64 in a comment (nothing the page shows): the copy
# button copies it instead of the HTML, and follow-ups read the user's questions back from it.
_COPY = re.compile(r"<!--reldocs-copy:([A-Za-z0-9+/=]*)-->")
_MARKER = re.compile(r"\[(\d{1,3})\]")


def _message(html: str, plain: str) -> str:
    return f"{html}<!--reldocs-copy:{base64.b64encode(plain.encode()).decode('ascii')}-->"


def message_text(content: Any) -> str:
    """The plain text of a chat message made here (what copy copies); other content as it is."""
    if isinstance(content, list):  # Gradio's list of parts
        content = " ".join(
            p.get("text", "") for p in content if isinstance(p, dict) and p.get("type", "text") == "text"
        )
    if not isinstance(content, str):
        return ""
    m = _COPY.search(content)
    return base64.b64decode(m.group(1)).decode("utf-8", "replace") if m else content


SEARCHING = _message(
    '<p class="reldocs-status"><em>Searching the release docs…</em></p>', "Searching the release docs…"
)
STOPPED = _message('<p class="reldocs-status"><em>Stopped.</em></p>', "Stopped.")
ERROR_TEXT = "Sorry, something went wrong while answering. Please try again, or rephrase the question."
ERROR = _message(f'<p class="reldocs-error">⚠️ {ERROR_TEXT}</p>', ERROR_TEXT)


def user_message(question: str) -> str:
    """The user's question as shown in the chat: text only, whatever it contains."""
    return _message(f'<span class="reldocs-question">{escape(question)}</span>', question)


def answer_message(answer: Answer, turn: int = 0) -> str:
    """A grounded answer with its sources, or a refusal in its own box (refusals cite nothing).

    `turn` (the message's place in the chat) keeps the [n] anchors of different answers apart.
    """
    if not answer.found:
        return refusal_message(answer.text, answer.notice, answer.language)
    anchor = f"reldocs-{turn}"
    parts = [f'<div class="reldocs-answer">{answer_body(answer.text, answer.citations, anchor)}']
    if answer.notice:
        parts.append(f'<p class="reldocs-notice"><em>{_text(answer.notice)}</em></p>')
    if answer.citations:
        parts.append(sources_html(answer.citations, answer.language, anchor))
    parts.append("</div>")
    return _message("".join(parts), plain_answer(answer))


def refusal_message(text: str, notice: str | None = None, language: str = "en") -> str:
    label = REFUSAL_LABELS.get(language, REFUSAL_LABELS["en"])
    body = f'<span class="reldocs-badge">{escape(label)}</span>{answer_body(text, (), "")}'
    if notice:
        body += f'<p class="reldocs-notice"><em>{_text(notice)}</em></p>'
    plain = f"{label}: {without_controls(text)}" + (f"\n({without_controls(notice)})" if notice else "")
    return _message(f'<div class="reldocs-refusal">{body}</div>', plain)


def answer_body(text: str, citations: Sequence[Citation], anchor: str) -> str:
    """The answer's Markdown as HTML; each [n] that names a citation links to its source entry."""
    md = _markdown()
    tokens = md.parse(without_controls(text))
    known = {c.n for c in citations}
    for token in tokens:
        if token.type == "inline" and token.children:
            token.children = [piece for child in token.children for piece in _link_markers(child, known, anchor)]
    return md.renderer.render(tokens, md.options, {})


def inline_html(text: str) -> str:
    """One line of doc text as inline HTML: its code spans as code, everything else as written, escaped (no
    emphasis, which would eat a bare `__init__`'s underscores, and no entities, which would bring back the control
    characters `without_controls` took out)."""
    return _code_spans().renderInline(without_controls(text))


def sources_html(citations: Sequence[Citation], language: str, anchor: str) -> str:
    """'Sources' and one entry per citation: [n] title (linked when safe), version, kind, section; quote folds."""
    quoted = escape(QUOTE_LABELS.get(language, QUOTE_LABELS["en"]))
    rows = []
    for c in citations:
        title = _text(c.title or c.source)
        url = safe_url(c.url)
        link = f'<a class="reldocs-source-link" href="{escape(url)}" {LINK_ATTRS}>{title}</a>' if url else title
        facts = " · ".join(p for p in (f"v{_text(c.version)}" if c.version else "", _kind(c.kind)) if p)
        section = f' — <em class="reldocs-section">{_text(c.section)}</em>' if c.section else ""
        rows.append(
            f'<div class="reldocs-source" id="{anchor}-{c.n}"><strong>[{c.n}]</strong> {link}'
            f"{' — ' + facts if facts else ''}{section}"
            f'<details class="reldocs-quote"><summary>{quoted} [{c.n}]</summary>'
            f"<blockquote>{_text(' '.join(c.quote.split()))}</blockquote>"
            f'<p class="reldocs-path"><sub>{_text(c.source)}</sub></p></details></div>'
        )
    label = escape(SOURCES_LABELS.get(language, SOURCES_LABELS["en"]))
    return f'<div class="reldocs-sources"><p><strong>{label}</strong></p>{"".join(rows)}</div>'


def plain_answer(answer: Answer) -> str:
    """The answer as plain text: what the copy button puts on the clipboard."""
    lines = [without_controls(answer.text)]
    if answer.notice:
        lines.append(f"({without_controls(answer.notice)})")
    if answer.citations:
        lines += ["", SOURCES_LABELS.get(answer.language, "Sources") + ":"]
        for c in answer.citations:
            where = " › ".join(without_controls(p) for p in (c.title or c.source, c.section) if p)
            facts = ", ".join(p for p in (f"v{c.version}" if c.version else "", _kind(c.kind, html=False)) if p)
            lines.append(f"[{c.n}] {where}" + (f" ({without_controls(facts)})" if facts else ""))
            url = safe_url(c.url)
            if url:
                lines.append(f"    {url}")
    return "\n".join(lines)


def _text(value: str) -> str:
    return str(escape(without_controls(value)))


def _kind(kind: str, *, html: bool = True) -> str:
    name = KIND_NAMES.get(kind, kind)
    return _text(name) if html else without_controls(name)


def _link_markers(token: Any, known: set[int], anchor: str) -> list[Any]:
    """A text token split so each known [n] becomes a link to source n (raw HTML made here, not from the docs)."""
    if token.type != "text" or not _MARKER.search(token.content):
        return [token]
    from markdown_it.token import Token

    out, last = [], 0
    for m in _MARKER.finditer(token.content):
        n = int(m.group(1))
        if n not in known:
            continue
        out.append(Token("text", "", 0, content=token.content[last : m.start()]))
        link = f'<a class="reldocs-ref" href="#{anchor}-{n}">[{n}]</a>'
        out.append(Token("html_inline", "", 0, content=link))
        last = m.end()
    out.append(Token("text", "", 0, content=token.content[last:]))
    return out


@lru_cache(maxsize=1)
def _markdown() -> Any:
    """CommonMark without raw HTML, images or links: the only links in an answer are its [n] markers, and a
    source's own (validated) URL in the list below it."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    return md.disable(["image", "link", "autolink", "html_inline", "html_block", "reference"])


@lru_cache(maxsize=1)
def _code_spans() -> Any:
    """markdown-it with its inline code spans only: every other rule off."""
    from markdown_it import MarkdownIt

    return MarkdownIt("zero").enable(["backticks"])


def indexed_note(products: dict[str, list[str]]) -> str:
    """'Indexed versions: 2.11.0, 2.12.0' ('Indexed version: 2.12.0' for one); with several products, each
    product's range: 'Indexed: pandas 2.0.0–3.0.0 · PyTorch 2.12.0 · acme (no release numbers)'."""
    if not products:
        return "Nothing is indexed yet."
    if len(products) == 1:
        ((name, versions),) = products.items()
        if not versions:
            return f"Indexed: {name} (no release numbers)"
        return f"Indexed version{'s' if len(versions) > 1 else ''}: {', '.join(versions)}"
    spans = [
        f"{p} {v[0]}–{v[-1]}" if len(v) > 1 else f"{p} {v[0]}" if v else f"{p} (no release numbers)"
        for p, v in products.items()
    ]
    return "Indexed: " + " · ".join(spans)


def files_html(files: dict[str, list[IndexedFile]], releases: dict[str, list[str]]) -> str:
    """The sidebar's list of what is indexed: per product its releases, then each file with its releases and
    where they were read (`products`' text as HTML; every name escaped: folders are the docs' authors')."""
    if not files:
        return "<p>Nothing is indexed yet.</p>"
    parts = []
    for name, own in files.items():
        held = releases.get(name, [])
        said = say("releases_held", "en", releases=", ".join(held)) if held else say("no_releases", "en")
        rows = "".join(
            f"<li><code>{_text(f.source)}</code> {_text(', '.join(f.releases) or '-')}"
            + (f" <small>({_text(f.release_from)})</small>" if f.release_from else "")
            + "</li>"
            for f in own
        )
        parts.append(f"<p><b>{_text(name)}</b>: {_text(said)}</p><ul>{rows}</ul>")
    return f'<div class="reldocs-files">{"".join(parts)}</div>'
