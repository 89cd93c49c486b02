"""`upgrade --format sarif`: the scan's findings as SARIF 2.1.0, for code-scanning tools in CI.

One rule per change of the plan that the code hits (its summary, kind and source as help), one result per
finding; exact hits are warnings, possible ones (a receiver of unknown type) notes. Files that could not be
scanned become tool execution notifications. Written by hand: SARIF is plain JSON, and the packages that
model it bring nothing this small log needs.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from assistant.plan import UpgradePlan

if TYPE_CHECKING:
    from assistant.scan import Finding, ScanError

from assistant.untrusted import safe_url

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL = "reldocs"


def plan_sarif(plan: UpgradePlan, findings: Sequence[Finding], errors: Sequence[ScanError] = ()) -> str:
    hit = {f.change for f in findings}
    changes = [c for c in plan.changes if c.id in hit]
    index = {c.id: n for n, c in enumerate(changes)}
    rules = []
    for c in changes:
        cite = c.citation
        url = safe_url(cite.url)
        help_text = f"{c.summary}" + (f" Use instead: {c.replacement}." if c.replacement else "")
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
                + ("" if f.exact else " (possible: the receiver's type is unknown)")
            },
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": Path(f.file).as_posix()},
                        "region": {"startLine": f.line, "startColumn": f.col, "snippet": {"text": f.code}},
                    }
                }
            ],
            **({"properties": {"cell": f.cell}} if f.cell is not None else {}),
        }
        for f in findings
        if f.change in index
    ]
    run = {
        "tool": {"driver": {"name": TOOL, "rules": rules}},
        "results": results,
        "invocations": [
            {
                "executionSuccessful": True,
                "toolExecutionNotifications": [
                    {
                        "level": "error",
                        "message": {"text": e.error},
                        "locations": [{"physicalLocation": {"artifactLocation": {"uri": Path(e.file).as_posix()}}}],
                    }
                    for e in errors
                ],
            }
        ],
    }
    return json.dumps({"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}, ensure_ascii=False, indent=1)
