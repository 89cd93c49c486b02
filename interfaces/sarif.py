"""`upgrade --format sarif`: the scan's findings (of one plan, or of each dependency's) as SARIF 2.1.0, for
code-scanning tools in CI.

One rule per change of the plan that the code hits (its summary, kind and source as help), one result per
finding; exact hits are warnings, possible ones (a receiver of unknown type) notes. Files that could not be
scanned become tool execution notifications. A file named by a relative path is a URI relative to
`%SRCROOT%` (the folder the scan ran in, so code-scanning services map it onto the repository), an absolute
one a `file://` URI. Written by hand: SARIF is plain JSON, and the packages that model it bring nothing this
small log needs. Checked against the OASIS schema and by Microsoft's SARIF Multitool (`validate`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from assistant.runtime.settings import PROJECT_ROOT
from assistant.upgrade.arrange import arrange
from assistant.upgrade.plan import UpgradePlan

if TYPE_CHECKING:
    from assistant.upgrade.scan import Finding, ScanError

from assistant.text.untrusted import safe_url

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL = "reldocs"
SRCROOT = "%SRCROOT%"


def plan_sarif(plan: UpgradePlan, findings: Sequence[Finding], errors: Sequence[ScanError] = ()) -> str:
    return plans_sarif([(plan, findings)], errors)


def plans_sarif(plans: Sequence[tuple[UpgradePlan, Sequence[Finding]]], errors: Sequence[ScanError] = ()) -> str:
    """One run for the findings of several plans (a project's dependencies): a rule per change hit, of any
    product (change ids name their product, so they never collide)."""
    hit = [(plan, e) for plan, findings in plans for s in arrange(plan, findings) for e in s.entries if e.findings]
    entries = [e for _, e in hit]  # per plan: hits first, worst first
    changes = [e.change for e in entries]
    index = {c.id: n for n, c in enumerate(changes)}
    rules = []
    for plan, c in ((plan, e.change) for plan, e in hit):
        cite = c.citation
        url = safe_url(cite.url)
        help_text = f"{c.summary}" + (
            f" Use instead: {c.replacement}." if c.replacement else f" {c.fix}" if c.fix else ""
        )
        rules.append(
            {
                "id": c.id,
                "name": f"{c.kind}-in-{plan.product}-{c.version}".replace(" ", "-"),
                "shortDescription": {"text": f"{plan.product} {c.version}: {c.kind}"},
                "fullDescription": {"text": c.summary},
                "help": {"text": f"{help_text} Source: {cite.title} › {cite.section} ({cite.source})"},
                **({"helpUri": url} if url else {}),
                "properties": {"kind": c.kind, "version": c.version, "symbols": list(c.symbols)},
            }
        )
    results = [
        {
            "ruleId": f.change,
            "ruleIndex": index[f.change],
            "level": "warning" if f.exact else "note",
            "message": {
                "text": f"`{f.symbol}`: {changes[index[f.change]].summary}"
                + (
                    ""
                    if f.exact
                    else f" (guarded: {f.guarded})"
                    if f.guarded
                    else " (possible: the receiver's type is unknown)"
                )
            },
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": artifact(f.file),
                        "region": {"startLine": f.line, "startColumn": f.col, "snippet": {"text": f.code}},
                    }
                }
            ],
            **({"properties": {"cell": f.cell}} if f.cell is not None else {}),
        }
        for e in entries
        for f in e.findings
    ]
    run = {
        "tool": {"driver": {"name": TOOL, **_version(), "rules": rules}},
        "originalUriBaseIds": {SRCROOT: {"uri": Path.cwd().as_uri().rstrip("/") + "/"}},
        "results": results,
        "invocations": [
            {
                "executionSuccessful": True,
                "toolExecutionNotifications": [
                    {
                        "level": "error",
                        "message": {"text": e.error},
                        "locations": [{"physicalLocation": {"artifactLocation": artifact(e.file)}}],
                    }
                    for e in errors
                ],
            }
        ],
    }
    return json.dumps({"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}, ensure_ascii=False, indent=1)


def artifact(file: str) -> dict[str, Any]:
    """A file's artifactLocation: a URI relative to %SRCROOT% for a relative path, else an absolute file URI."""
    path = Path(file)
    if path.is_absolute():
        return {"uri": path.as_uri()}
    return {"uri": quote(path.as_posix()), "uriBaseId": SRCROOT}


def _version() -> dict[str, str]:
    try:
        return {"semanticVersion": package_version(TOOL)}
    except PackageNotFoundError:  # run from a checkout that was never pip-installed: its pyproject says
        import tomllib

        try:
            project = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
            return {"semanticVersion": str(project["version"])}
        except (OSError, KeyError, ValueError):
            return {}
