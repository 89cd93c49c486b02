"""How well the code scan finds what release docs change in real code: recall and precision against the
hand labels of each real-code set (`bench/scan_sets/<set>/`, fetched by `bench/fetch_scan_sets.py`), with the
product's own peer tool beside it where the set has one.

A labelled use is found when an exact finding is on its file and line; an exact finding on a line no label
names is false (counted once per line); possible findings count neither way, and are reported as a count, for
they must stay bounded (no more possible lines than exact ones). The plan is built from the set's docs as ingest
chunks them (no index, no model), as `python app.py upgrade --product P --from A --to B --json FOLDER` builds it.

Usage:
    python bench/scan_quality.py [--set pandas] [--files data/scan-sets] [--shared ../shared] [--json] [--write]
    python bench/scan_quality.py --repos DIR [...]

`--repos DIR` scans each whole repository a set's files come from, as a user scans a project, and scores the
labelled files in it: DIR holds each at the manifest's commit as `<owner>+<name>@<commit[:10]>/` (for example
`git archive <commit> | tar -x -C DIR/<owner>+<name>@<commit[:10]>`). Labels of files absent from a tree are left
out and counted.

`--write` keeps the rows in `bench/scan-quality.jsonl` and rewrites their section of docs/benchmarks.md (which
`bench/report.py` renders from that file too).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from assistant.index.catalog import Catalog  # noqa: E402
from assistant.upgrade.plan import make_plan, named_in_docs  # noqa: E402
from assistant.upgrade.scan import scan  # noqa: E402
from assistant.upgrade.targeting import targets  # noqa: E402
from bench.common import put_section  # noqa: E402
from bench.fetch_scan_sets import DEFAULT_OUT, SETS_DIR, docs_folder, manifest, sets  # noqa: E402
from ingest.chunking import chunk_document  # noqa: E402
from ingest.loader import load_document  # noqa: E402

DEFAULT_SHARED = REPO_ROOT.parent / "shared"
ROWS = REPO_ROOT / "bench" / "scan-quality.jsonl"
PAGE = REPO_ROOT / "docs" / "benchmarks.md"
HEADING = "## The code scan on real code"
CODE_MODE = "files, docs and code"
# Each set's first run, before anything of it was read: how the scan generalises to a product it was not built on
FIRST_RUNS = REPO_ROOT / "bench" / "scan-first-runs.jsonl"
TYPES = REPO_ROOT / "data" / "scan-types"  # what the installed products' calls return, as the scan keeps it


def _rows(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _chunks(path: Path, root: Path) -> list[Any]:
    return chunk_document(load_document(path, root))


def _repo_tree(repos: Path, row: dict[str, Any]) -> Path:
    return repos / f"{str(row['repo']).replace('/', '+')}@{str(row['commit'])[:10]}"


def _scan_repos(
    name: str, repos: Path, found: list[Any], infer: bool = False
) -> tuple[set[tuple[str, int]], set[tuple[str, int]], int]:
    """Exact and possible (file, line) of the set's labelled files, each whole repository scanned as a project."""
    trees: dict[Path, dict[str, str]] = {}
    for r in manifest(name):
        trees.setdefault(_repo_tree(repos, r), {})[str(r["path"])] = str(r["file"])
    exact: set[tuple[str, int]] = set()
    possible: set[tuple[str, int]] = set()
    files = 0
    for tree, labelled in trees.items():
        report = scan([tree], found, parallel=True, infer=infer, types_folder=TYPES)
        files += report.files
        for f in report.findings:
            rel = Path(f.file).relative_to(tree).as_posix()
            if rel in labelled:
                (exact if f.exact else possible).add((labelled[rel], f.line))
    return exact, possible - exact, files


def _with_code(
    plan: Any, spec: dict[str, Any], named: frozenset[str] = frozenset(), paths: tuple[Path, ...] = ()
) -> tuple[Any, dict[str, Any]]:
    """`plan` with its releases' code in it, as `upgrade` makes it (archives fetched into data/ once, the API diff
    cached there, the names the code under `paths` takes that the newest release lacks added), and what that
    cost; the plan unchanged, and why, when the code cannot be had."""
    from assistant.runtime.settings import Settings
    from assistant.upgrade.code_plan import with_code
    from assistant.upgrade.reach import diff_reached
    from assistant.upgrade.targeting import doc_targets
    from ingest.dependencies import fetch_sources

    if spec.get("package") is False:
        return plan, {"code": "no source distribution to diff"}
    settings = Settings(data_dir=REPO_ROOT / "data")
    started = time.perf_counter()
    got = fetch_sources(spec.get("package") or spec["product"], spec["from"], spec["to"], settings=settings)
    if len(got.trees) < 2:
        return plan, {"code": "; ".join(got.problems) or "fewer than two releases"}
    fetched = time.perf_counter() - started
    diff = diff_reached(got.trees, paths, cache_dir=settings.api_diffs_path)
    info = {
        "code_releases": list(diff.releases),
        "code_changes": len(diff.changes),
        "fetch_seconds": round(fetched, 1),
        "diff_ms": diff.timings_ms,
    }
    return with_code(plan, diff, doc_targets(plan), named), info


def score(
    name: str,
    files: Path,
    shared: Path,
    repos: Path | None = None,
    infer: bool = False,
    code: bool = False,
    show_missed: bool = False,
) -> dict[str, Any]:
    """One set's row: labels, exact recall and precision, possible lines, the peer's row, seconds; with `repos`,
    of the labelled files in their whole repositories, scanned as projects; with `infer`, receivers typed from
    the product's installed source (`assistant.upgrade.inferred`), the release installed named in the row; with
    `show_missed` (files only), each missed label and each false line with what the scan said on its line
    (`missed`, `false`)."""
    spec = json.loads((SETS_DIR / name / "set.json").read_text(encoding="utf-8"))
    docs = docs_folder(name, shared)
    folder = files / name
    if repos is None:
        missing = [r["file"] for r in manifest(name) if not (folder / str(r["file"])).is_file()]
    else:
        missing = [r["file"] for r in manifest(name) if not _repo_tree(repos, r).is_dir()]
    if not docs.is_dir() or missing:
        where = folder if repos is None else repos
        why = f"docs {docs} absent" if not docs.is_dir() else f"{len(missing)} files absent from {where}"
        return {"set": name, "skipped": why}
    # The product's folder is read as its own corpus: `<product>/<version>/…` under a root of its parent.
    chunks = [c for path in sorted(docs.rglob("*")) if path.is_file() for c in _chunks(path, docs.parent)]
    catalog = Catalog.learn(chunks)
    plan = make_plan(chunks, catalog, spec["from"], spec["to"], spec["product"])
    named = named_in_docs(chunks, catalog, plan.product) if code else frozenset()
    reach = (folder,) if repos is None else ()
    plan, code_info = _with_code(plan, spec, named, reach) if code else (plan, {})
    labels = _rows(SETS_DIR / name / "labels.jsonl")
    absent: list[dict[str, Any]] = []
    started = time.perf_counter()
    if repos is None:
        returns = dict(plan.code_returns)
        report = scan([folder], targets(plan), parallel=True, infer=infer, types_folder=TYPES, returns=returns)
        scanned = report.files
        # With the code: a labelled use is found by an exact finding the docs show (alone or with the code); what
        # only the code shows is counted apart.
        docs = {c.id for c in plan.changes if "docs" in c.evidence}
        code_only = {(Path(f.file).name, f.line) for f in report.findings if f.exact and f.change not in docs}
        exact = {(Path(f.file).name, f.line) for f in report.findings if f.exact and f.change in docs}
        possible = {(Path(f.file).name, f.line) for f in report.findings if not f.exact} - exact
    else:
        exact, possible, scanned = _scan_repos(name, repos, targets(plan), infer)
        present = {str(r["file"]) for r in manifest(name) if (_repo_tree(repos, r) / str(r["path"])).is_file()}
        absent = [r for r in labels if r["file"] not in present]  # a mirror may lack a file's blob
        labels = [r for r in labels if r["file"] in present]
    seconds = time.perf_counter() - started
    labelled = {(r["file"], int(r["line"])) for r in labels}
    found = [r for r in labels if (r["file"], int(r["line"])) in exact]
    row: dict[str, Any] = {
        "set": name,
        "mode": "files" if repos is None else "repositories",
        "span": f"{spec['product']} {spec['from']} → {spec['to']}",
        "files": scanned,
        "labels": len(labels),
        "found": len(found),
        "recall": round(len(found) / len(labels), 3) if labels else None,
        "exact_lines": len(exact),
        "false_lines": len(exact - labelled),
        "precision": round(len(exact & labelled) / len(exact), 3) if exact else None,
        "possible_lines": len(possible),
        "changes": len(plan.changes),
        "scan_seconds": round(seconds, 2),
        "missed_by_kind": dict(Counter(r["kind"] for r in labels if r not in found)),
        "installed": _installed(plan.modules) if infer else "",
    }
    if absent:
        row["labels_left_out"] = len(absent)
    if show_missed and repos is None:
        row |= _misses(labels, found, exact | (code_only if code else set()), report.findings)
    if code:
        both = {c.id for c in plan.changes if c.evidence == ("docs", "code")}
        by_both = {(Path(f.file).name, f.line) for f in report.findings if f.exact and f.change in both}
        alone = code_only - exact
        row |= code_info | {
            "mode": CODE_MODE,
            "found_with_code_evidence": len([r for r in labels if (r["file"], int(r["line"])) in by_both]),
            "code_only_lines": len(alone),
            "code_only_labelled": len(alone & labelled),
            "found_by_either": len([r for r in labels if (r["file"], int(r["line"])) in exact | code_only]),
        }
    peer = _rows(SETS_DIR / name / "peer.jsonl") if repos is None else []
    if peer:
        lines = {(Path(str(p["file"])).name, int(p["line"])) for p in peer}
        hit = [r for r in labels if (r["file"], int(r["line"])) in lines]
        row["peer"] = {
            "tool": spec.get("peer", ""),
            "found": len(hit),
            "recall": round(len(hit) / len(labels), 3) if labels else None,
            "lines": len(lines),
            "false_lines": len(lines - labelled),
            "precision": round(len(lines & labelled) / len(lines), 3) if lines else None,
        }
    return row


def _misses(
    labels: list[dict[str, Any]], found: list[dict[str, Any]], exact: set[tuple[str, int]], findings: Any
) -> dict[str, Any]:
    """Each missed label (file, line, kind, symbol) and each false exact line, with what the scan said on that
    line: its findings as "exact|possible|guarded symbol change", or nothing."""
    said: dict[tuple[str, int], list[str]] = {}
    for f in findings:
        how = "guarded" if f.guarded else "exact" if f.exact else "possible"
        said.setdefault((Path(f.file).name, f.line), []).append(f"{how} {f.symbol} {f.change}")
    labelled = {(r["file"], int(r["line"])) for r in labels}
    missed = [
        {k: r[k] for k in ("file", "line", "kind", "symbol")} | {"said": said.get((r["file"], int(r["line"])), [])}
        for r in labels
        if r not in found and (r["file"], int(r["line"])) not in exact
    ]
    false = [{"file": f, "line": n, "said": said.get((f, n), [])} for f, n in sorted(exact - labelled)]
    return {"missed": missed, "false": false}


def _installed(modules: tuple[str, ...]) -> str:
    """The product's release installed where the scan ran ("pandas 3.1.1"), which typed its receivers; "none"."""
    found = importlib.metadata.packages_distributions()
    for module in modules:
        for dist in found.get(module, []):
            return f"{dist} {importlib.metadata.version(dist)}"
    return "none"


def section(path: Path = ROWS, first: Path = FIRST_RUNS) -> list[str]:
    """The section's Markdown lines, heading first, from the kept rows, then the sets' first runs (`first`)."""
    rows = [r for r in _rows(path) if "skipped" not in r and r.get("mode") != CODE_MODE]
    coded = [r for r in _rows(path) if "skipped" not in r and r.get("mode") == CODE_MODE]
    lines = [
        HEADING,
        "",
        "Real files from public repositories, every use of an API the docs change labelled by hand before any scan "
        "ran on them (`bench/scan_sets/<set>/LABELS.md` says how; `python bench/fetch_scan_sets.py` fetches the "
        "files by commit and checks their sha256), scored by `python bench/scan_quality.py --write` against the "
        "docs in ../shared (the others from their sdists, by digest: networkx, Flask, scikit-learn, NumPy, SciPy, "
        "Matplotlib). "
        "A labelled use is found when an "
        "exact finding is on its line; an exact finding on a line no label names is false; possible findings count "
        "neither way. The product's own "
        'codemod or lint rules ran on the same files (their commands in each `LABELS.md`). The rows "whole '
        'repositories" scan each repository the files come from, at the same commit, as a user scans a project '
        "(`--repos`), and score the same labels in it (those of files a local copy lacked left out). The rows "
        '"typed from … installed" type receivers from the product\'s installed source, as `upgrade` does by default '
        "(`--infer`; `RELDOCS_SCAN_INFER_TYPES`): the release that was installed is named.",
        "",
        "| span | files scanned | labelled | exact found (recall) | false lines (precision) | possible lines "
        "| the product's own tool: found (recall) | its false lines | scan s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        peer = r.get("peer") or {}
        shown = f"{peer['tool'].split(' (')[0]}: {peer['found']} ({peer['recall']:.2f})" if peer else "–"
        span = r["span"] if r.get("mode", "files") == "files" else f"{r['span']}, whole repositories"
        span += f", typed from {r['installed']} installed" if r.get("installed") else ""
        lines.append(
            f"| {span} | {r['files']} | {r['labels']} | {r['found']} ({r['recall']:.2f}) "
            f"| {r['false_lines']} ({r['precision'] if r['precision'] is not None else 0:.2f}) "
            f"| {r['possible_lines']} | {shown} | {peer.get('false_lines', '–')} | {r['scan_seconds']} |"
        )
    if coded:
        lines += [
            "",
            "With the releases' code (`--code`): each release's source distribution fetched, its public API diffed "
            "(`assistant/upgrade/api/`), and linked to the docs' changes, as `upgrade --product P --from A --to B` "
            "does. A labelled use is found by an exact finding of a change the docs show (with the code or not); "
            "the findings of changes only the code shows are counted apart (their lines, and how many of those "
            "lines a label names), and so is the recall of both together. Each name the set's files take from "
            "the product that the newest release shows gone and the oldest does not is a removal too "
            "(`assistant/upgrade/api/namespaces.py`: what the oldest made at run time is in no diff). The diff's "
            "time is as the run found the cache (archives cached; warm, it is under a second).",
            "",
            "| span | releases diffed | docs: found (recall) | docs: false lines | code only: lines (labelled) "
            "| docs or code: found (recall) | diff s | scan s |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for r in coded:
            diffed = ", ".join(r.get("code_releases") or []) or r.get("code", "–")
            both = r.get("found_by_either", r["found"])
            lines.append(
                f"| {r['span']} | {diffed} | {r['found']} ({r['recall']:.2f}) | {r['false_lines']} "
                f"| {r.get('code_only_lines', 0)} ({r.get('code_only_labelled', 0)}) "
                f"| {both} ({both / r['labels']:.2f}) | {(r.get('diff_ms') or {}).get('total', 0) / 1000:.1f} "
                f"| {r['scan_seconds']} |"
            )
    firsts = _rows(first) if first.is_file() else []
    if firsts:
        lines += [
            "",
            "Each set's first run, scored once before anything of it was read (its labels committed first). "
            "PyTorch's docs were the scan's own; it had never been built on the others' docs. That is how it "
            "generalises; the rows above, run after rules were written from these sets' misses, no longer show it.",
            "",
            "| span | first run | labelled | exact found (recall) | false lines (precision) |",
            "|---|---|---|---|---|",
            *(
                f"| {r['span']} | {r['when']} | {r['labels']} | {r['found']} ({r['found'] / r['labels']:.2f}) "
                f"| {r['false_lines']} ({r['precision']:.2f}) |"
                for r in firsts
            ),
        ]
    return [*lines, ""]


def merged(rows: list[dict[str, Any]], scored: list[dict[str, Any]], mode: str, infer: bool) -> list[dict[str, Any]]:
    """The kept rows with `scored` in place of their like: the other mode's rows stay as they were, and so do the
    other sets' where one set was scored."""
    new = {r["set"]: r for r in scored}
    out = []
    for r in rows:  # in place, so a set keeps its row's place in the table
        like = (r.get("mode", "files"), bool(r.get("installed"))) == (mode, infer) and r["set"] in new
        out.append(new.pop(r["set"]) if like else r)
    return out + list(new.values())


def write(rows: list[dict[str, Any]], page: Path = PAGE, path: Path = ROWS, first: Path = FIRST_RUNS) -> None:
    """Keep `rows` and put their section in `page` before "## Goals", replacing an earlier one."""
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    put_section(page, HEADING, section(path, first), "\n## Goals")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", dest="only", choices=sets())
    parser.add_argument("--files", type=Path, default=DEFAULT_OUT, help="where fetch_scan_sets.py put the files")
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help="the folder holding corpus-more/")
    parser.add_argument("--json", action="store_true", help="one JSON object per set")
    parser.add_argument("--repos", type=Path, help="score the labelled files in their whole repositories, here")
    parser.add_argument("--infer", action="store_true", help="type receivers from the product's installed source")
    parser.add_argument("--write", action="store_true", help="keep the rows and rewrite docs/benchmarks.md's section")
    parser.add_argument("--code", action="store_true", help="with the releases' code: fetch and diff their API")
    parser.add_argument(
        "--show-missed",
        action="store_true",
        help="list each missed label and false line with what the scan said there (in the JSON rows)",
    )
    args = parser.parse_args(argv)
    if args.code and args.repos:
        parser.error("--code scores the sets' files, not whole repositories")
    scored = []
    for name in [args.only] if args.only else sets():
        row = score(name, args.files, args.shared, args.repos, args.infer, args.code, args.show_missed)
        scored.append(row)
        if args.json:
            print(json.dumps(row, ensure_ascii=False))
        elif "skipped" in row:
            print(f"{name}: skipped ({row['skipped']})")
        else:
            print(
                f"{row['span']}: {row['files']} files, {row['labels']} labelled; exact {row['found']} found "
                f"(recall {row['recall']}), {row['false_lines']} false lines (precision {row['precision']}); "
                f"{row['possible_lines']} possible lines; {row['changes']} changes; scan {row['scan_seconds']} s"
            )
            if "peer" in row:
                p = row["peer"]
                print(f"  peer {p['tool']}: {p['found']} found (recall {p['recall']}), {p['false_lines']} false lines")
    if args.write:
        mode = "repositories" if args.repos is not None else CODE_MODE if args.code else "files"
        write(merged(_rows(ROWS), scored, mode, args.infer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
