"""A baseline: the findings of an earlier `upgrade --json` run that a project has accepted, silenced in later runs.

A finding is the baseline's when its file, its change and its line's code are those of one of the baseline's
findings: the line may move as code is added above it, and a new use of the same change on another line is
still reported. A baseline that cannot be read is an error, never an empty baseline (that would silence nothing
while saying it did).
"""

from __future__ import annotations

import json
from dataclasses import replace

from assistant.model.errors import ReldocsError
from assistant.upgrade.scan import ScanReport

Key = tuple[str, str, str]  # file, change id, the line's code (stripped)
MAX_BASELINE_BYTES = 50_000_000


class BaselineError(ReldocsError):
    """The baseline file is not an `upgrade --json` output."""


def read_baseline(data: bytes) -> frozenset[Key]:
    """The findings a baseline file holds; `BaselineError` when it is not `upgrade --json`'s output."""
    if len(data) > MAX_BASELINE_BYTES:
        raise BaselineError(f"the baseline is over {MAX_BASELINE_BYTES // 1_000_000} MB")
    try:
        findings = json.loads(data)["findings"]
        return frozenset((str(f["file"]), str(f["change"]), str(f["code"])) for f in findings)
    except (ValueError, KeyError, TypeError) as e:
        raise BaselineError(f"not the output of upgrade --json ({type(e).__name__}: {e})") from None


def without(report: ScanReport, baseline: frozenset[Key]) -> ScanReport:
    """`report` less the findings the baseline holds."""
    kept = tuple(f for f in report.findings if (f.file, f.change, f.code) not in baseline)
    return replace(report, findings=kept)
