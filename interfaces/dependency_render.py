"""Renderers of a project's dependency bumps (`upgrade --requirements` / `--lock-diff`): text, the Markdown of a
pull-request comment (capped: the worst kept, the least severe cut first, with a note where the full report is),
the `--json` object (each package's `changes` and `findings` as `upgrade --json` has them) and SARIF.

Names, versions and notes come from dependency files, the registry and the docs: text passes them through
`one_line`, Markdown shows names and code as code spans and the docs' text as `upgrade_render.md` makes it safe.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from assistant.text.untrusted import one_line, safe_url
from assistant.upgrade.arrange import arrange
from assistant.upgrade.bumps import DependencyPlan, PackagePlan
from interfaces.upgrade_render import (
    SECTION_TITLES,
    code,
    counted,
    entry_markdown,
    errors_markdown,
    md,
    plan_dict,
    plan_text,
)

COMMENT_LIMIT = 65_536  # a GitHub pull-request comment's body, in characters
# Dropped first when a comment is over its limit: new features, then deprecations, what breaks, possible hits.
_RANK = {"hits": 0, "possible": 1, "breaks": 2, "deprecations": 3, "new": 4}


def _moved(n: int) -> str:
    return f"{n} dependency moved" if n == 1 else f"{n} dependencies moved"


def _span(p: PackagePlan) -> str:
    return f"{p.bump.from_version or '—'} → {p.bump.to_version or '—'}"


def _with_code(p: PackagePlan, show_all: bool) -> bool:
    """Whether a package's changes only its releases' code shows are listed though the code does not hit them:
    with `show_all`, and always for a plan the docs have no part in (else it would show nothing unhit)."""
    return show_all or (p.plan is not None and not any("docs" in c.evidence for c in p.plan.changes))


def report_text(report: DependencyPlan, *, include_new: bool = False, show_all: bool = False) -> str:
    """Each planned package as `upgrade` shows its plan, worst first; then the others, each with why."""
    planned = [p for p in report.packages if p.status == "planned" and p.plan]
    hits = sum(p.hits for p in report.packages)
    head = f"{_moved(len(report.packages))}, {len(planned)} planned"
    lines = [head + (f"; {hits} hits in your code" if report.files else "")]
    for p in planned:
        assert p.plan is not None
        lines += [
            "",
            f"=== {one_line(p.bump.name)} {one_line(_span(p))} ===",
            *([one_line(p.note)] if p.note else []),
            plan_text(p.plan, p.findings, include_new=include_new, show_all=_with_code(p, show_all)),
        ]
    others = [p for p in report.packages if p not in planned]
    if others:
        lines += ["", "=== Not planned ==="]
        lines += [f"- {one_line(p.bump.name)} {one_line(_span(p))}: {one_line(p.note)}" for p in others]
    lines += [f"skipped {one_line(e.file)}: {one_line(e.error)}" for e in report.errors]
    return "\n".join(lines)


def report_dict(
    report: DependencyPlan,
    *,
    urls: Mapping[str, str] | None = None,
    problems: Sequence[Mapping[str, object]] = (),
    include_new: bool = False,
) -> dict:
    """The `--json` object: `urls` maps an indexed file to where it was read (the fetched docs' provenance);
    `problems` are the input's (dependency files' lines that could not be read)."""
    urls = urls or {}
    packages = []
    for p in report.packages:
        planned = plan_dict(p.plan, p.findings, include_new=include_new) if p.plan else {}
        docs = [{"file": f.source, "url": urls.get(f.source, ""), "releases": list(f.releases)} for f in p.docs]
        packages.append(
            {
                "name": p.bump.name,
                "product": p.product,
                "from": p.bump.from_version,
                "to": p.bump.to_version,
                "status": p.status,
                "note": p.note,
                "versions": planned.get("versions", []),
                "docs": docs,
                "sections": planned.get("sections", []),
                "changes": planned.get("changes", []),
                "findings": planned.get("findings", []),
                # what the releases' code adds, as `upgrade --json` has it
                "code_releases": planned.get("code_releases", []),
                "evidence_counts": planned.get("evidence_counts", {}),
                "notes": planned.get("notes", []),
                "timings_ms": planned.get("timings_ms", {}),
            }
        )
    errors = [{"file": e.file, "error": e.error} for e in report.errors]
    return {"packages": packages, "errors": [*errors, *problems], "files": report.files}


def report_json(report: DependencyPlan, **options: object) -> str:
    return json.dumps(report_dict(report, **options), ensure_ascii=False)  # type: ignore[arg-type]


def report_sarif(report: DependencyPlan) -> str:
    from interfaces.sarif import plans_sarif

    return plans_sarif([(p.plan, p.findings) for p in report.packages if p.plan], report.errors)


def report_markdown(
    report: DependencyPlan,
    *,
    limit: int | None = None,
    full_report: str = "",
    include_new: bool = False,
    show_all: bool = False,
) -> str:
    """A pull-request comment: a table of every package moved, then each planned one worst first (its code's hits,
    then what breaks, each cited), then the ones not planned. Over `limit` characters, the least severe changes are
    cut first (new features, deprecations, what breaks, possible hits, hits last), each package saying how many it
    left out, and a note names `full_report` (a link or where the full report is)."""
    blocks = _blocks(report, include_new, show_all)
    if limit is None:
        return _joined(blocks, None, full_report)
    budget = limit
    for _ in range(8):  # the notes a cut adds take room too: shrink the budget by what ran over
        kept = _kept(blocks, budget)
        text = _joined(blocks, kept, full_report)
        if len(text) <= limit:
            return text
        budget -= len(text) - limit + 64
    return text[: text.rfind("\n", 0, limit - 1) + 1]  # only a report of thousands of packages gets here


# A block: (rank, package index, section kind, lines); rank -1 is always kept (the summary, each package's head).
Block = tuple[int, int, str, list[str]]


def _blocks(report: DependencyPlan, include_new: bool, show_all: bool) -> list[Block]:
    packages = report.packages
    planned = [p for p in packages if p.status == "planned" and p.plan]
    hits = sum(p.hits for p in packages)
    head = [
        f"## reldocs: {_moved(len(packages))}",
        "",
        f"{len(planned)} planned from their release docs"
        + (" and their releases' code" if any(p.plan.code_releases for p in planned if p.plan) else "")
        + (f"; **{counted(hits, 'hit')}** in the code" if report.files else "")
        + ". Worst first.",
        "",
        "| Package | From | To | Hits | Changes | Status |",
        "|---|---|---|---|---|---|",
    ]
    shown = {
        p.bump.name: arrange(p.plan, p.findings, include_new=include_new, include_code=_with_code(p, show_all))
        for p in planned
        if p.plan
    }
    for p in packages:
        changes = sum(len(s.entries) for s in shown.get(p.bump.name, ()))  # as listed below
        versions = " | ".join(f"`{code(v)}`" if v else "—" for v in (p.bump.from_version, p.bump.to_version))
        head.append(f"| `{code(p.bump.name)}` | {versions} | {p.hits} | {changes} | {p.status} |")
    blocks: list[Block] = [(-1, -1, "", [*head, ""])]
    for n, p in enumerate(planned):
        assert p.plan is not None
        named = f" ({md(p.product)})" if p.product and p.product != p.bump.name else ""
        note = [f"_{md(p.note)}_", ""] if p.note else []
        blocks.append((-1, n, "", [f"### `{code(p.bump.name)}` {md(_span(p))}{named}", "", *note]))
        sections = shown[p.bump.name]
        if not sections:
            blocks.append((-1, n, "", ["Nothing that breaks or is deprecated (`--include-new` lists the rest).", ""]))
        for section in sections:
            title = [f"#### {SECTION_TITLES[section.kind]}", ""]
            for i, entry in enumerate(section.entries):
                blocks.append((_RANK[section.kind], n, section.kind, (title if i == 0 else []) + entry_markdown(entry)))
    others = [p for p in packages if p not in planned]
    if others:
        lines = ["### Not planned", ""]
        lines += [f"- `{code(p.bump.name)}` {md(_span(p))}: {md(p.note)}" for p in others]
        blocks.append((-1, len(planned), "", ["", *lines]))
    if report.errors:
        blocks.append((-1, len(planned) + 1, "", ["", *errors_markdown(report.errors)]))
    return blocks


def _kept(blocks: list[Block], budget: int) -> set[int]:
    """The blocks to keep within `budget` characters: the always-kept ones, then the worst first."""
    kept = {i for i, b in enumerate(blocks) if b[0] < 0}
    used = sum(_size(blocks[i]) for i in kept)
    for i in sorted((i for i in range(len(blocks)) if i not in kept), key=lambda i: (blocks[i][0], i)):
        if used + _size(blocks[i]) > budget:
            break  # the next worst does not fit: nothing less severe is kept in its place
        kept.add(i)
        used += _size(blocks[i])
    return kept


def _size(block: Block) -> int:
    return sum(len(line) + 1 for line in block[3])


def _joined(blocks: list[Block], kept: set[int] | None, full_report: str) -> str:
    """The blocks in their order, each package saying how many of its changes were cut, and a note when any was."""
    out: list[str] = []
    cut: dict[int, int] = {}
    shown = False  # an entry of the current section is shown
    for i, (rank, package, kind, lines) in enumerate(blocks):
        if kept is None or i in kept:
            out += lines
            shown = shown or rank >= 0
        elif rank >= 0:
            cut[package] = cut.get(package, 0) + 1
        after = blocks[i + 1] if i + 1 < len(blocks) else None
        if rank < 0 or (after is not None and after[0] >= 0 and (after[1], after[2]) == (package, kind)):
            continue  # not the section's last entry
        if shown:
            out.append("")
        shown = False
        if cut.get(package) and (after is None or after[0] < 0 or after[1] != package):
            out += [f"_{counted(cut[package], 'more change')} of this package not shown: cut to fit._", ""]
    if cut:
        total = sum(b[0] >= 0 for b in blocks)
        url = safe_url(full_report)
        where = f" [The full report]({url})." if url else f" The full report: {md(full_report)}." if full_report else ""
        out.append(
            f"> This comment is cut to fit: {total - sum(cut.values())} of {counted(total, 'change')} shown, the most "
            f"severe first.{where}"
        )
    return "\n".join(out).rstrip() + "\n"
