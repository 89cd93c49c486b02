"""What a scan returns: its findings, the files it could not read, and how many it read (`assistant.upgrade.scan`
makes them; the plan's renderers read them)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    """One place the code hits a target."""

    file: str  # the path as given, or as found under a given directory
    line: int  # 1-based; in a notebook, the line inside the cell
    col: int  # 1-based
    code: str  # the source line, stripped
    symbol: str  # the qualified name hit, "numpy.float_"; for a parameter, "torch.hub.load(trust_repo)"
    change: str  # Target.change
    exact: bool  # False for a possible hit (a class's member on a receiver of unknown type) or a guarded one
    cell: int | None = None  # in a notebook, the code cell's index among all its cells (0-based)
    # Why the use is not a hit though its receiver is known: under a version check or an ImportError fallback.
    guarded: str = ""


@dataclass(frozen=True)
class ScanError:
    """A file, or a notebook's cell, that could not be read or parsed: skipped, the rest still scanned."""

    file: str
    error: str  # one line: "syntax error at line 3: …", "cell 2: syntax error at line 1: …"


@dataclass(frozen=True)
class ScanReport:
    """What a scan found: findings ordered by file, cell, line and column, each place and change once."""

    findings: tuple[Finding, ...]
    errors: tuple[ScanError, ...]
    files: int  # files scanned: a notebook with a bad cell counts, as its other cells were


__all__ = ["Finding", "ScanError", "ScanReport"]
