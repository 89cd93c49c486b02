"""The web UI's Upgrade tab: pick a product and two versions, paste code or upload `.py`/`.ipynb` files, and
get the plan with the code it hits, each change's quote unfolding, and the Markdown checklist to download.

`upgrade_html` is a pure function from the core's plan and findings to HTML built of escaped parts (doc text
and the user's code are both untrusted); `run_upgrade` calls the core; `build_upgrade_tab` lays it out.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from markupsafe import escape

from assistant.knowledge_base import KnowledgeBase
from assistant.model.errors import IndexUnavailable
from assistant.runtime.bounded import Overrun
from assistant.text.untrusted import safe_url
from assistant.upgrade.arrange import arrange
from assistant.upgrade.plan import PlanError, UpgradePlan
from assistant.upgrade.scan import Finding, ScanError
from interfaces.code_diff import code_diff, product_to_diff
from interfaces.upgrade_render import SECTION_TITLES, counted, evidence_lines, plan_markdown, where
from interfaces.web_render import LINK_ATTRS, inline_html

PASTED = "pasted.py"


def _mark(f: Finding) -> str:
    """Why a finding is not a hit, if it is not."""
    if f.exact:
        return ""
    return (
        f" <em>(guarded: {escape(f.guarded)})</em>" if f.guarded else " <em>(possible: receiver of unknown type)</em>"
    )


def upgrade_html(plan: UpgradePlan, findings: Sequence[Finding] = (), errors: Sequence[ScanError] = ()) -> str:
    """The plan as a person acts on it (`assistant.upgrade.arrange`): the changes the code hits, each with its
    lines, open; then what breaks and the deprecations, each folded; every change with its kind, what to use
    instead, and its quote and source unfolding beneath it."""
    sections = arrange(plan, findings)
    exact = sum(f.exact for f in findings)
    shown = sum(len(s.entries) for s in sections)
    head = (
        f"{escape(plan.product)} {escape(plan.from_version)} → {escape(plan.to_version)}: "
        f"{counted(shown, 'change')} in {counted(len(plan.versions), 'release')}"
    )
    if findings:
        head += f"; {exact} hits in your code, {len(findings) - exact} possible"
    parts = [f'<div class="reldocs-plan"><p class="reldocs-plan-head"><strong>{head}</strong></p>']
    if not plan.versions:
        parts.append("<p>No indexed release lies in that range.</p>")
    parts += [f'<p class="reldocs-plan-note">{escape(line)}</p>' for line in (*evidence_lines(plan), *plan.notes)]
    for section in sections:
        title = f"{SECTION_TITLES[section.kind]} <small>({counted(len(section.entries), 'change')})</small>"
        folded = section.kind not in ("hits", "possible")
        parts.append(
            f'<details class="reldocs-section" data-section="{section.kind}"><summary><strong>{title}</strong>'
            "</summary><ul>"
            if folded
            else f'<h3 data-section="{section.kind}">{title}</h3><ul>'
        )
        for entry in section.entries:
            c = entry.change
            use = f" <em>Use instead:</em> <code>{escape(c.replacement)}</code>" if c.replacement else ""
            use = use or (f" <em>Fix:</em> {inline_html(c.fix)}" if c.fix else "")
            code = "".join(
                f'<li class="reldocs-hit{"" if f.exact else " reldocs-possible"}"><code>{escape(f.file)}:'
                f"{escape(where(f))}</code> <code>{escape(f.code)}</code>{_mark(f)}</li>"
                for f in entry.findings
            )
            sources = "".join(_source(cite) for cite in c.citations)
            parts.append(
                f'<li class="reldocs-change" data-kind="{escape(c.kind)}"><strong>[{escape(c.kind)}]</strong> '
                f"<small>{escape(c.version)}</small> {inline_html(c.summary)}{use}"
                + (f'<ul class="reldocs-hits">{code}</ul>' if code else "")
                + f"<details><summary>Source</summary>{sources}</details></li>"
            )
        parts.append("</ul></details>" if folded else "</ul>")
    if errors:
        parts.append("<h3>Files not scanned</h3><ul>")
        parts += [f"<li><code>{escape(e.file)}</code>: {escape(e.error)}</li>" for e in errors]
        parts.append("</ul>")
    parts.append("</div>")
    return "".join(parts)


def _source(cite: Any) -> str:
    where = " › ".join(str(escape(p)) for p in (cite.title, cite.section) if p)
    url = safe_url(cite.url)
    label = f'<a href="{escape(url)}" {LINK_ATTRS}>{where}</a>' if url else where
    return f"<blockquote>{escape(cite.quote)}</blockquote><p>{label} ({escape(cite.version)})</p>"


@lru_cache(maxsize=1)
def _work() -> tempfile.TemporaryDirectory[str]:
    """One folder per process for every plan's checklist (and the pasted code, while it is scanned), removed
    when the process ends: a server answering for weeks leaves no folder per request behind."""
    return tempfile.TemporaryDirectory(prefix="reldocs-upgrade-")


def run_upgrade(
    kb: KnowledgeBase, product: str, start: str, end: str, code: str, files: Sequence[Any] | None
) -> tuple[str, str | None]:
    """The plan's HTML and the path of its Markdown checklist (None when there is no plan). Pasted code over
    `scan_max_pasted_chars` is refused, not cut; the scan runs in the knowledge base's bounded worker, where
    a file over the size caps is named and skipped and one that is too much work stops the scan, not the server.
    The names the code takes that the newer release's code lacks are read there too (`code_diff`, `bounded`)."""
    start, end = (start or "").strip(), (end or "").strip()
    if not start or not end:
        return '<p class="reldocs-plan-error">Pick the version you run and the one you upgrade to.</p>', None
    code = code if isinstance(code, str) else ""  # the event is reachable by scripts, which may send anything
    limit = kb.settings.scan_max_pasted_chars
    if len(code) > limit:
        return (
            f'<p class="reldocs-plan-error">Pasted code may have up to {limit:,} characters, not {len(code):,}: '
            "upload it as a file instead.</p>"
        ), None
    work = Path(tempfile.mkdtemp(dir=_work().name))
    checklist = work / "upgrade-checklist.md"
    try:
        paths = [Path(getattr(f, "name", f)) for f in files or []]
        if code.strip():
            # A lone surrogate (JSON can carry one) is no character a file can hold: it becomes U+FFFD, not an error.
            (work / PASTED).write_text(code, encoding="utf-8", errors="replace")
            paths.append(work / PASTED)
        named = product or None
        # The names the code takes that the newer release lacks are read in the bounded worker, as the scan is.
        wanted = product_to_diff(kb, named)
        diff, notes = code_diff(kb, wanted, start, end, cached_only=True, paths=paths, bounded=True)
        plan = kb.plan(start, end, product=named or (diff.product if diff else None), code=diff, notes=notes)
        findings: Sequence[Finding] = ()
        errors: Sequence[ScanError] = ()
        if paths:
            try:
                report = kb.scan(paths, plan, bounded=True)
                # Show uploaded files by their own names, not the server's temp paths.
                findings = [replace(f, file=Path(f.file).name) for f in report.findings]
                errors = [ScanError(Path(e.file).name, e.error) for e in report.errors]
            except Overrun as e:  # the plan stands; one line says why the code was not scanned
                names = ", ".join(p.name for p in paths) if len(paths) <= 3 else f"{len(paths)} files"
                errors = [ScanError(names, f"not scanned: the scan {e}; scan fewer or smaller files at a time")]
        checklist.write_text(plan_markdown(plan, findings, errors), encoding="utf-8")
        return upgrade_html(plan, findings, errors), str(checklist)
    except (PlanError, IndexUnavailable) as e:
        return f'<p class="reldocs-plan-error">{escape(str(e))}</p>', None
    finally:
        (work / PASTED).unlink(missing_ok=True)  # the user's code is not kept; only the checklist stays
        if not checklist.is_file():  # no checklist (no plan, or a failure): nothing of the request stays
            shutil.rmtree(work, ignore_errors=True)


def build_upgrade_tab(kb: KnowledgeBase) -> None:
    """The tab's controls and events, inside the caller's `gr.Blocks` and `gr.Tab`."""
    import gradio as gr

    products = kb.products()
    names = list(products)
    first = names[0] if names else None
    versions = products.get(first, []) if first else []

    def pick(product: str) -> tuple[Any, Any]:
        choices = products.get(product, [])
        return (
            gr.Dropdown(choices=choices, value=choices[0] if choices else None),
            gr.Dropdown(choices=choices, value=choices[-1] if choices else None),
        )

    with gr.Row(equal_height=True):
        product = gr.Dropdown(names, value=first, label="Product", elem_id="reldocs-upgrade-product")
        start = gr.Dropdown(
            versions,
            value=versions[0] if versions else None,
            label="From (the version you run)",
            allow_custom_value=True,  # a release that is not indexed works: 1.26 -> 2.0
            elem_id="reldocs-upgrade-from",
        )
        end = gr.Dropdown(
            versions,
            value=versions[-1] if versions else None,
            label="To",
            allow_custom_value=True,
            elem_id="reldocs-upgrade-to",
        )
    code = gr.Code(label="Your code (optional)", language="python", lines=8, elem_id="reldocs-upgrade-code")
    files = gr.File(label="Or upload .py / .ipynb files", file_count="multiple", file_types=[".py", ".ipynb"])
    go = gr.Button("Plan the upgrade", variant="primary", elem_id="reldocs-upgrade-go")
    result = gr.HTML(elem_id="reldocs-upgrade-result")
    checklist = gr.File(label="Markdown checklist", interactive=False, elem_id="reldocs-upgrade-checklist")
    private: dict[str, Any] = {"api_visibility": "private"}
    product.change(pick, [product], [start, end], queue=False, **private)
    go.click(
        lambda p, a, b, c, f: run_upgrade(kb, p, a, b, c, f),
        [product, start, end, code, files],
        [result, checklist],
        # A queue of its own, one plan at a time: scans wait behind each other, never in front of the chat's
        # questions (in "kb", four scans would take every slot the chat and the API have).
        concurrency_id="upgrade",
        concurrency_limit=1,
        **private,
    )
