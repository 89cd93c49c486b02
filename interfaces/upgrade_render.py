"""Renderers for `upgrade`: terminal text (by release, then by file), a Markdown checklist to paste into an
issue or pull request, and the `--json` contract. SARIF is `interfaces.sarif`.

Summaries, sections and titles come from the docs, file lines from the user's code: text passes each through
`one_line`, Markdown escapes them, and URLs are shown only as `safe_url` re-serialises them.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from assistant.model.api import CodeChange
from assistant.model.records import Citation
from assistant.upgrade.arrange import Entry, arrange, evidence_counts, unlisted_code
from assistant.upgrade.plan import PlannedChange, UpgradePlan

if TYPE_CHECKING:
    from assistant.upgrade.scan import Finding, ScanError

from assistant.text.untrusted import one_line, safe_url

SECTION_TITLES = {
    "hits": "Your code",
    "possible": "Possibly your code (a receiver of unknown type, or guarded by a version check or ImportError)",
    "breaks": "What breaks",
    "deprecations": "Deprecations",
    "new": "New features",
}


def plan_json(
    plan: UpgradePlan,
    findings: Sequence[Finding] = (),
    errors: Sequence[ScanError] = (),
    *,
    include_new: bool = False,
    show_all: bool = True,
) -> str:
    """The one object `upgrade --json` prints: every change, whatever `show_all` says."""
    return json.dumps(plan_dict(plan, findings, errors, include_new=include_new), ensure_ascii=False)


def plan_dict(
    plan: UpgradePlan, findings: Sequence[Finding] = (), errors: Sequence[ScanError] = (), *, include_new: bool = False
) -> dict:
    """`changes` in the arranged order (`assistant.upgrade.arrange`: the ones the code hits first), `sections`
    naming which are which, `findings` in the same order; each change and finding with its `evidence` (docs,
    code or both) and, where the code shows it, its `code` record."""
    sections = arrange(plan, findings, include_new=include_new, include_code=True)
    evidence = {c.id: list(c.evidence) for c in plan.changes}
    return {
        "product": plan.product,
        "from": plan.from_version,
        "to": plan.to_version,
        "versions": list(plan.versions),
        "docs": plan.docs,
        "code_releases": list(plan.code_releases),
        "evidence_counts": evidence_counts(plan),
        "timings_ms": dict(plan.code_timings_ms),
        "notes": list(plan.notes),
        "sections": [{"kind": s.kind, "changes": [e.change.id for e in s.entries]} for s in sections],
        "changes": [_change_dict(e.change, plan, e.findings) for s in sections for e in s.entries],
        "findings": [
            {
                "file": f.file,
                "line": f.line,
                "col": f.col,
                "code": f.code,
                "symbol": f.symbol,
                "change": f.change,
                "exact": f.exact,
                "evidence": evidence.get(f.change, []),
                **({"guarded": f.guarded} if f.guarded else {}),
                **({"cell": f.cell} if f.cell is not None else {}),
            }
            for s in sections
            for e in s.entries
            for f in e.findings
        ],
        "errors": [{"file": e.file, "error": e.error} for e in errors],
    }


def _change_dict(c: PlannedChange, plan: UpgradePlan, findings: Sequence[Finding] = ()) -> dict[str, Any]:
    cite = c.citation
    return {
        "id": c.id,
        "version": c.version,
        "kind": c.kind,
        "summary": c.summary,
        "symbols": list(c.symbols),
        "replacement": c.replacement,
        "fix": c.fix,
        "hits": sum(f.exact for f in findings),
        "possible": sum(not f.exact for f in findings),
        "citation": _citation(cite),
        "also": [_citation(a) for a in c.citations if a != cite],
        "evidence": list(c.evidence),
        **({"code": code_dict(c.code[0], plan)} if c.code else {}),
        **({"code_more": [code_dict(k, plan) for k in c.code[1:]]} if len(c.code) > 1 else {}),
    }


def code_dict(k: CodeChange, plan: UpgradePlan) -> dict[str, Any]:
    """A code record as the JSON has it, with the archives of the two releases it was seen between."""
    archives = dict(plan.code_archives)
    releases = plan.code_releases
    before = releases[releases.index(k.release) - 1] if k.release in releases[1:] else ""
    return {
        "object": k.object,
        "kind": k.kind,
        "parameter": k.parameter,
        "release": k.release,
        "source_a": k.source_a,
        "source_b": k.source_b,
        "fix": k.fix,
        "paths": list(k.paths),
        "archives": {"a": archives.get(before), "b": archives.get(k.release)},
    }


def _citation(c: Citation) -> dict[str, str]:
    fields = ("title", "version", "kind", "section", "source", "url", "quote")
    return {f: getattr(c, f) for f in fields}


def plan_text(
    plan: UpgradePlan,
    findings: Sequence[Finding] = (),
    errors: Sequence[ScanError] = (),
    *,
    include_new: bool = False,
    show_all: bool = False,
) -> str:
    """The plan as a person acts on it: the changes the code hits first, each with its lines, then what breaks
    and what is deprecated, by release (`assistant.upgrade.arrange`); what only the releases' code shows and the
    code does not hit, with `show_all`."""
    sections = arrange(plan, findings, include_new=include_new, include_code=show_all)
    exact = sum(f.exact for f in findings)
    shown = sum(len(s.entries) for s in sections)
    lines = [
        f"{one_line(plan.product)} {one_line(plan.from_version)} → {one_line(plan.to_version)}: "
        f"{counted(shown, 'change')} in {counted(len(plan.versions), 'release')}"
        + (f"; {exact} hits in your code, {len(findings) - exact} possible" if findings else ""),
    ]
    lines += evidence_lines(plan)
    if not plan.versions:
        lines.append("No indexed release lies in that range.")
    hidden = sum(c.kind == "new" for c in plan.changes) if not include_new else 0
    for section in sections:
        lines += ["", f"== {SECTION_TITLES[section.kind]} ({counted(len(section.entries), 'change')}) =="]
        release = None
        for entry in section.entries:
            c = entry.change
            if section.kind not in ("hits", "possible") and c.version != release:
                release = c.version
                lines.append(f"-- {one_line(release)} --")
            at = f" {one_line(c.version)}" if section.kind in ("hits", "possible") else ""
            # a hit's change id: what `# reldocs: ignore[ID]` on a line silences
            tag = f"  [id {c.id}]" if section.kind in ("hits", "possible") else ""
            lines.append(f"- [{c.kind}]{at} {one_line(c.summary)}{tag}")
            if c.replacement:
                lines.append(f"    use instead: {one_line(c.replacement)}")
            elif c.fix:
                lines.append(f"    fix: {one_line(c.fix)}")
            where_from = " › ".join(p for p in (one_line(c.citation.title), one_line(c.citation.section)) if p)
            also = ", ".join(dict.fromkeys(one_line(a.version) for a in c.citations if a != c.citation))
            url = safe_url(c.citation.url)
            lines.append(
                f"    source: {where_from}"
                + (f" (also announced in {also})" if also else "")
                + (f" {url}" if url else "")
            )
            for file, in_file in _by_file(entry.findings).items():
                lines.append(f"    {one_line(file)}")
                for f in in_file:
                    mark = (
                        ""
                        if f.exact
                        else f"  (guarded: {f.guarded})"
                        if f.guarded
                        else "  (possible: the receiver's type is unknown)"
                    )
                    lines.append(f"      {where(f)}  {one_line(f.code)}  ← {one_line(f.symbol)}{mark}")
    if hidden:
        lines += ["", f"({counted(hidden, 'new feature')} not shown: --include-new lists them.)"]
    if (unlisted := 0 if show_all else unlisted_code(plan, findings)) > 0:
        lines += ["", f"({counted(unlisted, 'change')} only the releases' code shows not shown: --all lists them.)"]
    for e in errors:
        lines.append(f"skipped {one_line(e.file)}: {one_line(e.error)}")
    lines += [f"note: {one_line(n)}" for n in plan.notes]
    return "\n".join(lines)


def plan_markdown(
    plan: UpgradePlan,
    findings: Sequence[Finding] = (),
    errors: Sequence[ScanError] = (),
    *,
    include_new: bool = False,
    show_all: bool = False,
) -> str:
    """A checklist: the changes the code hits first, then what breaks, then deprecations; one box per change,
    with its fix, its source linked and the code it hits under it."""
    out = [f"## Upgrade {md(plan.product)} {md(plan.from_version)} → {md(plan.to_version)}", ""]
    if said := evidence_lines(plan):
        out += [md(line) for line in said] + [""]
    for section in arrange(plan, findings, include_new=include_new, include_code=show_all):
        out += [f"### {SECTION_TITLES[section.kind]}", ""]
        for entry in section.entries:
            out += entry_markdown(entry)
        out.append("")
    out += errors_markdown(errors)
    out += [f"- note: {md(n)}" for n in plan.notes]
    return "\n".join(out).rstrip() + "\n"


def evidence_lines(plan: UpgradePlan) -> list[str]:
    """Where the plan's changes come from: the releases whose code was diffed and how many changes the docs, the
    code and both show; a plan of the code alone, that the docs were not there. (Why the code diff is missing:
    `plan.notes`, shown last.)"""
    lines = []
    if not plan.docs:
        lines.append(
            f"The release docs of {one_line(plan.product)} are not indexed: these changes are the code's only."
        )
    if plan.code_releases:
        n = evidence_counts(plan)
        lines.append(
            f"Code of {', '.join(map(one_line, plan.code_releases))} compared: {n['both']} changes in the docs and "
            f"the code, {n['docs']} in the docs only, {n['code']} in the code only."
        )
    return lines


def entry_markdown(entry: Entry) -> list[str]:
    """One change as a checklist box (its fix, its source linked), the code it hits under it."""
    c = entry.change
    url = safe_url(c.citation.url)
    source = md(c.citation.section or c.citation.title)
    cite = f"[{source}]({url})" if url else source
    use = f" Use instead: `{code(c.replacement)}`." if c.replacement else f" Fix: {md(c.fix)}" if c.fix else ""
    out = [f"- [ ] **{c.kind}** ({md(c.version)}): {md(c.summary)}{use} ({cite})"]
    for f in entry.findings:
        kind = "" if f.exact else f" (guarded: {f.guarded})" if f.guarded else " (possible)"
        out.append(f"  - `{code(f.file)}:{where(f)}` `{code(f.code)}`{kind}")
    return out


def errors_markdown(errors: Sequence[ScanError]) -> list[str]:
    """The files that could not be scanned, and why: a section of their own (none when every file was)."""
    return (
        ["### Files not scanned", ""] + [f"- `{code(e.file)}`: {md(e.error)}" for e in errors] + [""] if errors else []
    )


def _by_file(findings: Sequence[Finding]) -> dict[str, list[Finding]]:
    out: dict[str, list[Finding]] = defaultdict(list)
    for f in sorted(findings, key=lambda f: (f.file, f.cell or 0, f.line, f.col)):
        out[f.file].append(f)
    return out


def where(f: Finding) -> str:
    """'12:5', or 'cell 3:2:1' in a notebook."""
    return f"cell {f.cell + 1}:{f.line}:{f.col}" if f.cell is not None else f"{f.line}:{f.col}"


def counted(n: int, word: str) -> str:
    """'1 change', '7 changes'."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# A code span of the docs' text, and a link whose target is checked before it is kept.
_SPAN = re.compile(r"(`[^`\n]++`)")
_LINK = re.compile(r"\[([^\[\]\n]{1,200}+)\]\(([^()\s]{1,2000}+)\)")


def md(text: str) -> str:
    """Doc text as Markdown that renders as the docs wrote it, on one line: its code spans as code, its links as
    links where the target passes `safe_url`; everything else escaped, so raw HTML, images and link syntax in
    hostile docs stay text."""
    out = []
    for part in _SPAN.split(one_line(text)):
        if len(part) > 2 and part.startswith("`") and part.endswith("`"):
            out.append(part)  # a code span: nothing in it is markup
            continue
        at = 0
        for m in _LINK.finditer(part):
            url = safe_url(m.group(2))
            out.append(_escaped(part[at : m.start()]))
            out.append(f"[{_escaped(m.group(1))}]({url})" if url else _escaped(m.group(1)))
            at = m.end()
        out.append(_escaped(part[at:]))
    return "".join(out)


def _escaped(text: str) -> str:
    return "".join(f"\\{ch}" if ch in "\\`*_[]<>#|!~" else ch for ch in text)


def code(text: str) -> str:
    """Text inside a code span: one line, no backtick to end it early."""
    return one_line(text).replace("`", "'")
