"""The products' own tools beside reldocs' scan on the labelled real-code sets, in one run, scored the same way.

Each set's files (`data/scan-sets/<set>/`, fetched by `bench/fetch_scan_sets.py`) are copied to their
repositories' paths, `<tmp>/<set>/<owner>+<name>/<path>` from the manifest, for some tools read paths (django-upgrade
fixes only files named like `settings.py` or `tests*.py`; mypy names modules by path). Every peer is scored exactly
as `bench/scan_quality.py` scores reldocs: a labelled use is found when the tool flags its file and line; a flagged
line no label names is false (once per line); precision is the share of flagged lines that are labelled. reldocs
is scored in the same run by `bench.scan_quality.score(set, files, shared, code=True)`: its docs and its releases'
code, exact findings with docs in their evidence.

The peers' environment, never a project dependency, lives under `data/peers-env/` (git-ignored) and is made once
and reused (a `reldocs-peers.json` in each venv records what was installed; a change of pins remakes it):

    python -m venv data/peers-env/tools
    data/peers-env/tools/bin/python -m pip install ruff==0.17.6 torchfix==0.7.0 bump-pydantic==0.8.0 \\
        django-upgrade==1.33.0 mypy==1.19.1

and, for mypy, one venv per set holding the span's new release and its stubs (`MYPY_TARGETS`), for example

    python -m venv data/peers-env/mypy-pandas
    data/peers-env/mypy-pandas/bin/python -m pip install pandas==3.0.* pandas-stubs==3.0.*

(numpy==2.0.2; sqlalchemy==2.0.* and pydantic==2.0.*, typed inline; django==5.2.* with django-stubs==5.2.*,
without its mypy plugin, which runs Django itself inside mypy's process and wants the project's settings; the sets
with no peer get mypy alone: flask==3.1.3, matplotlib==3.9.*, networkx==3.6.1 with types-networkx,
scipy==1.15.* with scipy-stubs==1.15.*, scikit-learn==1.9.1). A stubs package that does not install leaves the
release alone, and the row says so. PyTorch gets no mypy: torch's wheels are 66–766 MB, so it is not installed,
and its row says that.

The commands, each from the peers' venv (`data/peers-env/tools/bin/`), run from `<tmp>/<set>/` (or a copy of it)
on the files laid out there (`FILES`, relative paths):

- NumPy: `ruff check --isolated --no-cache --exit-zero --select NPY201 --output-format json FILES`; each
  diagnostic's row is a flagged line (a syntax error ruff reports is not a finding and is named instead).
- pandas (no codemod exists; the set's recorded peer): the same with `--select PD`.
- PyTorch: `torchfix --select ALL FILES` (every rule, as the set's run by hand; its default leaves out TOR3, TOR4
  and TOR9); its flake8-style `path:line:col: TORnnn message` lines on stdout are the flagged lines; without `--fix`
  it writes nothing.
- Pydantic: `bump-pydantic --diff --log-file <tmp>/bump-pydantic-<owner>+<name>.log <owner>+<name>` once per
  repository (it takes one package folder), on a copy, with `COLUMNS=100000` since it prints the diff through rich,
  which would wrap long lines (the padding is stripped); every old line its unified diff removes or replaces is a
  flagged line; pure insertions (an import added) flag nothing. Should rich stop on code it reads as markup
  (`[/x]`), the same command without `--diff` rewrites the copy and the diff is taken as `--diff` takes it
  (`difflib.unified_diff`), and the row says so; errors in its log file are named in the row.
- Django: `django-upgrade --target-version 5.2 FILES` on a copy (it rewrites in place); every old line the
  unified diff of the copy against the original removes or replaces is a flagged line.
- mypy, every set but PyTorch, once per repository, run from the repository's folder (or from the deepest folder
  whose path below it is made of identifiers, so mypy can name the module):
  `mypy --python-executable data/peers-env/mypy-<set>/bin/python --check-untyped-defs --follow-imports=silent
  --enable-error-code deprecated --explicit-package-bases --config-file <tmp>/mypy-<set>.ini
  --cache-dir data/peers-env/cache/<set> --no-error-summary --show-error-codes --no-pretty --no-color-output FILES`,
  the config saying `ignore_missing_imports = True` for every module but the product's (`[mypy-pandas.*]
  ignore_missing_imports = False`): the repositories' other modules and their other dependencies are not here, and
  their missing imports are no finding, while the product's are reported (a removed module, a product with no types).
  `--follow-imports=silent` reads the laid-out siblings without reporting on them. Each line with an error in a
  labelled file is a flagged line; `[deprecated]` errors (PEP 702's `@deprecated` in the new release) are scored
  apart, as "with [deprecated]", and the main figure leaves them out. A file mypy cannot parse (a blocking
  `[syntax]` error stops the whole run) is left out, named, and the rest checked again.

A tool that does not install or run is one line on stderr and its row says why; the run goes on.

This file holds the command line, the scoring and the docs section; `bench/peer_tools.py` makes the environments,
runs each tool and turns its output into flagged (file, line) pairs.

Usage:
    python bench/peers.py [--set numpy] [--files data/scan-sets] [--shared ../shared] [--json] [--write]

`--write` keeps the rows in `bench/peers.jsonl` (one per set and tool; with `--set`, that set's rows replaced) and
puts the section "## The scan beside the products' own tools" in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from bench.common import log, put_section  # noqa: E402
from bench.fetch_scan_sets import DEFAULT_OUT, SETS_DIR, manifest, sets  # noqa: E402
from bench.peer_tools import MYPY_SKIPPED, NO_TOOL, OWN_TOOL, Line, ToolError, lay_out, planned, tools_env  # noqa: E402

DEFAULT_SHARED = REPO_ROOT.parent / "shared"
ROWS = REPO_ROOT / "bench" / "peers.jsonl"
PAGE = REPO_ROOT / "docs" / "benchmarks.md"
HEADING = "## The scan beside the products' own tools"


def _labels(name: str) -> list[dict[str, Any]]:
    path = SETS_DIR / name / "labels.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def score_lines(lines: set[Line], labels: list[dict[str, Any]]) -> dict[str, Any]:
    """`lines` scored as scan_quality scores reldocs' exact findings."""
    labelled = {(str(r["file"]), int(r["line"])) for r in labels}
    found = [r for r in labels if (str(r["file"]), int(r["line"])) in lines]
    return {
        "labels": len(labels),
        "found": len(found),
        "recall": round(len(found) / len(labels), 3) if labels else None,
        "flagged_lines": len(lines),
        "false_lines": len(lines - labelled),
        "precision": round(len(lines & labelled) / len(lines), 3) if lines else None,
    }


def _recorded(name: str, labels: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The set's committed `peer.jsonl` (a peer run by hand earlier, on flat copies) scored the same way."""
    path = SETS_DIR / name / "peer.jsonl"
    if not path.is_file():
        return None
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return score_lines({(Path(str(r["file"])).name, int(r["line"])) for r in rows}, labels)


def _spec(name: str) -> dict[str, Any]:
    return json.loads((SETS_DIR / name / "set.json").read_text(encoding="utf-8"))


def reldocs_row(name: str, files: Path, shared: Path) -> dict[str, Any]:
    """reldocs' own row from scan_quality, in this run."""
    from bench.scan_quality import score

    started = time.perf_counter()
    try:
        row = score(name, files, shared, code=True)
    except Exception as e:  # one set's failure is its row: the run goes on
        return {"set": name, "tool": "reldocs", "error": f"{type(e).__name__}: {e}"}
    if "skipped" in row:
        return {"set": name, "tool": "reldocs", "skipped": row["skipped"]}
    keep = ("labels", "found", "recall", "exact_lines", "false_lines", "precision", "possible_lines")
    more = ("code_releases", "found_with_code_evidence", "code_only_lines", "code_only_labelled", "found_by_either")
    return {
        "set": name,
        "tool": "reldocs",
        "command": f"bench.scan_quality.score({name!r}, files, shared, code=True)",
        **{k: row[k] for k in keep if k in row},
        "flagged_lines": row.get("exact_lines"),
        **{k: row[k] for k in more if k in row},
        "seconds": round(time.perf_counter() - started, 1),
    }


def peer_rows(name: str, files: Path, bin_dir: Path | None, why_not: str, work: Path) -> list[dict[str, Any]]:
    """Each applicable peer's row for one set."""
    labels = _labels(name)
    root = work / name
    placed = lay_out(name, files, root)
    own = OWN_TOOL.get(name)
    rows: list[dict[str, Any]] = []
    if name in NO_TOOL:
        rows.append({"set": name, "tool": NO_TOOL[name][0], "skipped": NO_TOOL[name][1]})
    if name in MYPY_SKIPPED:
        rows.append({"set": name, "tool": "mypy", "skipped": MYPY_SKIPPED[name]})
    notes: dict[str, str] = {}
    for tool, runner in planned(name, root, placed, work, notes):
        if bin_dir is None:
            rows.append({"set": name, "tool": tool, "error": why_not})
            continue
        log(f"{name}: {tool}")
        started = time.perf_counter()
        try:
            outcome = runner(bin_dir)
        except Exception as e:  # one tool's failure is its row: the run goes on
            why = str(e) if isinstance(e, ToolError) else f"{type(e).__name__}: {e}"
            log(f"{name}: {tool} failed: {why}")
            rows.append({"set": name, "tool": tool, "error": why})
            continue
        row: dict[str, Any] = {
            "set": name,
            "tool": tool,
            "command": outcome.command,
            **score_lines(outcome.lines, labels),
        }
        for label, extra in outcome.apart.items():
            with_it = score_lines(outcome.lines | extra, labels)
            row[f"with_{label}"] = {k: with_it[k] for k in ("found", "recall", "flagged_lines", "false_lines")}
        labelled = {(str(r["file"]), int(r["line"])) for r in labels}
        row["found_by_code"] = {
            code: len([r for r in labels if (str(r["file"]), int(r["line"])) in lines])
            for code, lines in sorted(outcome.by_code.items())
            if lines & labelled
        }
        row["flagged_by_code"] = {code: len(lines) for code, lines in sorted(outcome.by_code.items())}
        if tool == own and (recorded := _recorded(name, labels)):
            row["recorded_by_hand"] = {k: recorded[k] for k in ("found", "flagged_lines", "false_lines")}
        if notes.get(tool):
            row["checked_against"] = notes[tool]
        if outcome.problems:
            row["problems"] = outcome.problems
        row["seconds"] = round(time.perf_counter() - started, 1)
        rows.append(row)
        log(f"{name}: {tool}: {row['found']} / {row['labels']} found, {row['false_lines']} false lines")
    return rows


def _commit() -> str:
    """The project's commit this run scans with (its working tree may hold more)."""
    got = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True)
    return got.stdout.strip() if got.returncode == 0 else ""


def run_set(
    name: str, files: Path, shared: Path, bin_dir: Path | None, why_not: str, work: Path
) -> list[dict[str, Any]]:
    """reldocs' row and the peers' rows of one set, each with the set's span."""
    spec = _spec(name)
    span = f"{spec['product']} {spec['from']} → {spec['to']}"
    missing = [r["file"] for r in manifest(name) if not (files / name / str(r["file"])).is_file()]
    if missing:
        return [
            {"set": name, "span": span, "tool": "all", "skipped": f"{len(missing)} files absent from {files / name}"}
        ]
    log(f"{name}: reldocs")
    rows = [reldocs_row(name, files, shared)]
    if "found" in rows[0]:
        log(f"{name}: reldocs: {rows[0]['found']} / {rows[0]['labels']} found, {rows[0]['false_lines']} false lines")
    rows += peer_rows(name, files, bin_dir, why_not, work)
    commit = _commit()
    return [
        {"set": r["set"], "span": span, **{k: v for k, v in r.items() if k != "set"}, "commit": commit} for r in rows
    ]


def _cell(row: dict[str, Any] | None) -> str:
    if row is None:
        return "–"
    if "found" not in row:
        return row.get("skipped") or row.get("error") or "–"
    text = f"{row['found']} / {row['labels']}, {row['false_lines']} false"
    if "with_deprecated" in row:
        w = row["with_deprecated"]
        text += f" ({w['found']} / {row['labels']}, {w['false_lines']} false with `[deprecated]`)"
    return text


def table(rows: list[dict[str, Any]]) -> list[str]:
    """The Markdown table: one line per set, reldocs then the product's own tool then mypy."""
    lines = [
        "| span | labelled | reldocs (docs and code): found, false lines | code-only lines | the product's own tool "
        "| its found, false lines | mypy 1.19.1, new release installed: found, false lines |",
        "|---|---|---|---|---|---|---|",
    ]
    by_set: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_set.setdefault(r["set"], []).append(r)
    for group in by_set.values():
        ours = next((r for r in group if r["tool"] == "reldocs"), None)
        own = next((r for r in group if r["tool"] not in ("reldocs", "mypy", "all")), None)
        mypy = next((r for r in group if r["tool"] == "mypy"), None)
        labels = next((r["labels"] for r in group if "labels" in r), "–")
        tool = own["tool"] if own else "none"
        lines.append(
            f"| {group[0]['span']} | {labels} | {_cell(ours)} | {(ours or {}).get('code_only_lines', '–')} "
            f"| {tool} | {_cell(own) if own else '–'} | {_cell(mypy)} |"
        )
    return lines


def section(rows: list[dict[str, Any]], seconds: float | None = None) -> list[str]:
    """The section's Markdown lines, heading first; `seconds`, the whole run's time."""
    problems = [
        f"- {r['span']}, {r['tool']}: " + "; ".join(r["problems"][:3]) + (" …" if len(r["problems"]) > 3 else "")
        for r in rows
        if r.get("problems")
    ]
    against = [f"{r['set']}'s files against {r['checked_against']}" for r in rows if r.get("checked_against")]
    recorded = [
        f"{r['tool']} {r['found']} found, {r['false_lines']} false here, {h['found']} and {h['false_lines']} recorded"
        for r in rows
        if (h := r.get("recorded_by_hand"))
    ]
    took = f" ({seconds / 60:.0f} min on {os.cpu_count()} cores)" if seconds else ""
    commits = sorted({str(r.get("commit")) for r in rows if r.get("commit")})
    at = f" at `{'`, `'.join(commits)}`" if commits else ""
    return [
        HEADING,
        "",
        'The labelled real-code sets of "The code scan on real code", each file laid out at its repository path, '
        f"and each product's own tool and mypy run on them beside reldocs' scan, in one run{took} of "
        f"`python bench/peers.py --write`{at} (`bench/peers.jsonl`). Everything is scored the same way: a labelled use "
        "is found when the tool flags its file and line, a flagged line no label names is false. reldocs' figures "
        "are its exact findings with the docs in their evidence, its releases' code read (`scan_quality --code`); "
        "code-only lines are its exact findings only the code shows, counted apart. The peers ran from their own "
        "venv under `data/peers-env/` (never a project dependency): ruff 0.17.6 `check --select NPY201` (NumPy) "
        "and `--select PD` (pandas, which has no codemod), TorchFix 0.7.0 `--select ALL`, bump-pydantic 0.8.0 "
        "`--diff` and django-upgrade 1.33.0 `--target-version 5.2` (each old line their rewrite removes or "
        "replaces), and mypy 1.19.1 `--check-untyped-defs --follow-imports=silent --enable-error-code deprecated` "
        "with the span's new release and its stubs installed in a venv of its own (`--python-executable`), "
        "missing imports reported for the product only; every error line counts, `[deprecated]` ones in "
        "brackets. The exact commands and versions are in `bench/peers.py`'s docstring.",
        "",
        *table(rows),
        "",
        "mypy checked " + "; ".join(against) + ". Its false lines are mostly what it says of any untyped code "
        "(Django's: attributes a test case sets in `setUpClass`, `self.client` typed `Client | None`; the "
        "django-stubs plugin was not used, as it runs Django inside mypy's process); scikit-learn ships no types, "
        "so each import of it is an `[import-untyped]` line. All count, as mypy reports them.",
        "",
        *(
            [
                "The tools run by hand earlier on flat copies of the files (each set's `peer.jsonl`), scored the same "
                "way: " + "; ".join(recorded) + ". django-upgrade fixes some files only by their names "
                "(`settings.py`, `tests*.py`), which the flat copies lost; the hand run of bump-pydantic also "
                "counted the line after each insertion.",
                "",
            ]
            if recorded
            else []
        ),
        *(["What the tools could not read:", "", *problems, ""] if problems else []),
    ]


def merged(kept: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The kept rows with the sets of `new` replaced, in the sets' order."""
    names = {r["set"] for r in new}
    rows = [r for r in kept if r["set"] not in names] + new
    order = {name: i for i, name in enumerate(sets())}
    return sorted(rows, key=lambda r: order.get(r["set"], len(order)))


def _rows(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _summary(row: dict[str, Any]) -> str:
    if "found" not in row:
        return f"{row['tool']}: {row.get('skipped') or row.get('error')}"
    text = f"{row['tool']}: {row['found']} / {row['labels']} found, {row['false_lines']} false lines"
    if "with_deprecated" in row:
        w = row["with_deprecated"]
        text += f" ({w['found']} found, {w['false_lines']} false with [deprecated])"
    if "recorded_by_hand" in row:
        rec = row["recorded_by_hand"]
        text += f"; recorded by hand: {rec['found']} found, {rec['false_lines']} false"
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", dest="only", choices=sets(), help="one set only (example: --set numpy)")
    parser.add_argument("--files", type=Path, default=DEFAULT_OUT, help="where fetch_scan_sets.py put the files")
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help="the folder holding corpus-more/")
    parser.add_argument("--json", action="store_true", help="one JSON object per set and tool")
    parser.add_argument("--write", action="store_true", help="keep the rows and rewrite docs/benchmarks.md's section")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    bin_dir, why_not = tools_env()
    if bin_dir is None:
        log(f"peers not installed: {why_not}")
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="reldocs-peers-") as tmp:
        for name in [args.only] if args.only else sets():
            got = run_set(name, args.files, args.shared, bin_dir, why_not, Path(tmp))
            rows += got
            for row in got:
                if args.json:
                    print(json.dumps(row, ensure_ascii=False))
            if not args.json:
                print(f"{got[0]['span']}:")
                for row in got:
                    print(f"  {_summary(row)}")
    seconds = time.perf_counter() - started
    log(f"done in {seconds:.0f} s")
    if args.write:
        kept = merged(_rows(ROWS), rows)
        ROWS.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept), encoding="utf-8")
        put_section(PAGE, HEADING, section(kept, None if args.only else seconds), "\n## Goals")
    return 0


if __name__ == "__main__":
    sys.exit(main())
