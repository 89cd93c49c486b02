"""Renderers for `upgrade`: terminal text (by release, then by file), a Markdown checklist to paste into an
issue or pull request, and the `--json` contract. SARIF is `interfaces.sarif`.

Summaries, sections and titles come from the docs, file lines from the user's code: text passes each through
`one_line`, Markdown escapes them, and URLs are shown only as `safe_url` re-serialises them.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from assistant.model.records import Citation
from assistant.upgrade.plan import PlannedChange, UpgradePlan

if TYPE_CHECKING:
    from assistant.upgrade.scan import Finding, ScanError

from assistant.text.untrusted import one_line, safe_url


def plan_json(plan: UpgradePlan, findings: Sequence[Finding] = (), errors: Sequence[ScanError] = ()) -> str:
    """The one object `upgrade --json` prints."""
    return json.dumps(plan_dict(plan, findings, errors), ensure_ascii=False)


def plan_dict(plan: UpgradePlan, findings: Sequence[Finding] = (), errors: Sequence[ScanError] = ()) -> dict:
    return {
        "product": plan.product,
        "from": plan.from_version,
        "to": plan.to_version,
        "versions": list(plan.versions),
        "changes": [_change_dict(c) for c in plan.changes],
        "findings": [
            {
                "file": f.file,
                "line": f.line,
                "col": f.col,
                "code": f.code,
                "symbol": f.symbol,
                "change": f.change,
                "exact": f.exact,
                **({"cell": f.cell} if f.cell is not None else {}),
            }
            for f in findings
        ],
        "errors": [{"file": e.file, "error": e.error} for e in errors],
    }


def _change_dict(c: PlannedChange) -> dict[str, Any]:
    cite = c.citation
    return {
        "id": c.id,
        "version": c.version,
        "kind": c.kind,
        "summary": c.summary,
        "symbols": list(c.symbols),
        "replacement": c.replacement,
        "citation": _citation(cite),
        "also": [_citation(a) for a in c.citations if a != cite],
    }


def _citation(c: Citation) -> dict[str, str]:
    fields = ("title", "version", "kind", "section", "source", "url", "quote")
    return {f: getattr(c, f) for f in fields}


def plan_text(plan: UpgradePlan, findings: Sequence[Finding] = (), errors: Sequence[ScanError] = ()) -> str:
    """The plan by release; under each release its changes, then the lines of code they hit, by file."""
    by_id = by_change(findings)
    exact = sum(f.exact for f in findings)
    lines = [
        f"{one_line(plan.product)} {one_line(plan.from_version)} → {one_line(plan.to_version)}: "
        f"{len(plan.changes)} changes in {counted(len(plan.versions), 'release')}"
        + (f"; {exact} hits in your code, {len(findings) - exact} possible" if findings else ""),
    ]
    if not plan.versions:
        lines.append("No indexed release lies in that range.")
    for version in plan.versions:
        changes = [c for c in plan.changes if c.version == version]
        lines += ["", f"== {one_line(version)} ({counted(len(changes), 'change')}) =="]
        for c in changes:
            lines.append(f"- [{c.kind}] {one_line(c.summary)}")
            if c.replacement:
                lines.append(f"    use instead: {one_line(c.replacement)}")
            shown = " › ".join(p for p in (one_line(c.citation.title), one_line(c.citation.section)) if p)
            also = ", ".join(dict.fromkeys(one_line(a.version) for a in c.citations if a != c.citation))
            url = safe_url(c.citation.url)
            lines.append(
                f"    source: {shown}" + (f" (also announced in {also})" if also else "") + (f" {url}" if url else "")
            )
        hits = [f for c in changes for f in by_id.get(c.id, [])]
        if hits:
            lines.append("  your code:")
            for file, in_file in _by_file(hits).items():
                lines.append(f"    {one_line(file)}")
                for f in in_file:
                    mark = "" if f.exact else "  (possible: the receiver's type is unknown)"
                    lines.append(f"      {where(f)}  {one_line(f.code)}  ← {one_line(f.symbol)}{mark}")
    for e in errors:
        lines.append(f"skipped {one_line(e.file)}: {one_line(e.error)}")
    return "\n".join(lines)


def plan_markdown(plan: UpgradePlan, findings: Sequence[Finding] = (), errors: Sequence[ScanError] = ()) -> str:
    """A checklist: one box per change, with its source linked and the code it hits under it."""
    by_id = by_change(findings)
    out = [f"## Upgrade {_md(plan.product)} {_md(plan.from_version)} → {_md(plan.to_version)}", ""]
    for version in plan.versions:
        changes = [c for c in plan.changes if c.version == version]
        if not changes:
            continue
        out += [f"### {_md(version)}", ""]
        for c in changes:
            url = safe_url(c.citation.url)
            source = _md(c.citation.section or c.citation.title)
            cite = f"[{source}]({url})" if url else source
            use = f" Use instead: `{_code(c.replacement)}`." if c.replacement else ""
            out.append(f"- [ ] **{c.kind}**: {_md(c.summary)}{use} ({cite})")
            for f in by_id.get(c.id, []):
                kind = "" if f.exact else " (possible)"
                out.append(f"  - `{_code(f.file)}:{where(f)}` `{_code(f.code)}`{kind}")
        out.append("")
    if errors:
        out += ["### Files not scanned", ""] + [f"- `{_code(e.file)}`: {_md(e.error)}" for e in errors] + [""]
    return "\n".join(out).rstrip() + "\n"


def by_change(findings: Sequence[Finding]) -> dict[str, list[Finding]]:
    """Findings by the id of the change they hit."""
    out: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        out[f.change].append(f)
    return out


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


def _md(text: str) -> str:
    """Doc text as Markdown that renders as the text: markup characters escaped, on one line."""
    text = one_line(text)
    return "".join(f"\\{ch}" if ch in "\\`*_[]<>#|!~" else ch for ch in text)


def _code(text: str) -> str:
    """Text inside a code span: one line, no backtick to end it early."""
    return one_line(text).replace("`", "'")
