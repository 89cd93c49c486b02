"""Fit the gate's model (`assistant.gate.evidence`) on every question set pooled, chosen by leaving one family out.

Usage:
    python bench/fit_gate.py collect [--out bench/gate-evidence.jsonl] [--exclude SET ...]
    python bench/fit_gate.py fit [--evidence bench/gate-evidence.jsonl] [--json] [--write]

`collect` asks every question of every own set (`bench/questions*.jsonl`, over the corpus `bench/evaluate.py`
gives it) and of every fresh set (`bench/fresh/`, over its fetched docs), twice: as reldocs answers today, and
with the gate letting every answer through (a model that answers everything). For each it writes one JSON line:
the set, its family, the gate's evidence (`Gate.evidence` on the passages the gate weighs, `Gate.weighed`), and
whether each answer was right as `bench/evaluate.py` checks it. Questions the gate does not weigh (refused before
search, answered from an upgrade plan) are written without evidence. A set whose docs are missing is named on
stderr and left out.

`fit` fits a logistic regression (scikit-learn, here only: answering imports none) on the features, the target
being "the answer let through is right". Which features (from all of them, the one whose removal most raises the
score taken out, one at a time, while a removal does not lower it), how strong a penalty and which threshold are
chosen by leave-one-family-out: each family (one product, or one kind of set) is decided by a model fitted on the
others. The score is the evaluation's: answerable questions answered right plus unanswerable ones refused. What is
fitted is the gate's decision on the passages search found. It prints the gate's
score as collected beside the model's, per family, and the weights to store in `GateTuning.model` (fitted on
all); `--write` puts that table in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
if str(BENCH_DIR.parent) not in sys.path:
    sys.path.insert(0, str(BENCH_DIR.parent))

from bench import evaluate as ev  # noqa: E402
from bench.common import put_section  # noqa: E402
from bench.fetch_fresh_docs import DEFAULT_DOCS, FRESH_DIR, docs_folder, sets  # noqa: E402

DEFAULT_OUT = BENCH_DIR / "gate-evidence.jsonl"  # kept: the weights in `GateTuning` are fitted on it
DEFAULT_INDEX = BENCH_DIR.parent / "data" / "fit-index"
PAGE = BENCH_DIR.parent / "docs" / "benchmarks.md"
HEADING = "## The gate's model, one family left out"
OWN_SETS = (*ev.SET_NAMES, *ev.FETCHED_SETS)
PENALTIES = (0.1, 0.3, 1.0, 3.0)
THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(2, 15))


def family(name: str) -> str:
    """The family a set is scored in when it is left out: a product, or the changelog or release-notes sets."""
    if name in ev.CHANGELOG_SETS:
        return "changelogs"
    if name in ev.RELEASE_NOTES_SETS:
        return "release-notes"
    return name


def _corpora(exclude: Sequence[str]) -> list[tuple[str, Path, Path]]:
    """Each set to collect: its name, corpus folder and questions file."""
    out = []
    for name in OWN_SETS:
        if name in exclude:
            continue
        try:
            corpus, files = ev._plan(argparse.Namespace(set=name, corpus=None, more_corpus=None, questions=None))
        except FileNotFoundError as e:
            print(f"{name}: left out: {e}", file=sys.stderr)
            continue
        out.append((name, corpus, files[name]))
    for name in sets():
        folder = docs_folder(name, DEFAULT_DOCS)
        if name in exclude:
            continue
        if not folder.is_dir():
            print(f"{name}: left out: no docs in {folder} (python bench/fetch_fresh_docs.py)", file=sys.stderr)
            continue
        out.append((name, folder, FRESH_DIR / name / "questions.jsonl"))
    return out


def indexed(exclude: Sequence[str], index: Path, embedder: Any) -> Iterator[tuple[str, Any, Path]]:
    """Each set to collect (`_corpora`) with the settings of its index under `index`, synced first."""
    from assistant.runtime.settings import Settings
    from ingest import sync

    for name, corpus, questions in _corpora(exclude):
        settings = Settings(corpus_dir=corpus, index_dir=index / name)
        with contextlib.redirect_stdout(sys.stderr):
            sync(settings, progress=False, embedder=embedder)
        yield name, settings, questions


def _evidence(kb: Any, question: dict[str, Any]) -> dict[str, Any] | None:
    """The gate's evidence for a question, as the knowledge base's pipeline reaches it (None: the gate does not
    weigh it)."""
    reached = searched(kb, question)
    if reached is None:
        return None
    query, gate, passages = reached
    found = gate.evidence(query, gate.weighed(query, passages))
    return {**{k: round(v, 4) for k, v in found.features().items()}, "passages": found.passages}


def searched(kb: Any, question: dict[str, Any]) -> tuple[Any, Any, Any] | None:
    """The question understood, the gate, and the passages search found, as the knowledge base's pipeline reaches
    them (None: answered before search, from an upgrade plan or refused for a release not indexed)."""
    from assistant.answer.upgrade import plan_for
    from assistant.gate.decision import Gate
    from assistant.understand.condense import understand

    r, tuning = kb.retriever, kb.tuning
    query = understand(
        question["question"],
        r.catalog,
        r.spellings,
        version=question.get("version"),
        max_chars=kb.settings.max_question_chars,
        tuning=tuning,
    )
    if query.upgrade is not None and plan_for(query.upgrade, r.chunks, r.catalog) is not None:
        return None  # answered from its plan, as the knowledge base does
    n = tuning.search.answer_passages
    gate = Gate(r, kb.extractive, tuning)
    if gate.before_search(query) is not None:
        return None
    return query, gate, r.search(query, n)


def collect(out: Path, exclude: Sequence[str], index: Path) -> int:
    """Write each question's evidence and both answers' checks; returns how many questions."""
    from assistant.embed.embedder import SentenceTransformerEmbedder
    from assistant.knowledge_base import KnowledgeBase
    from assistant.runtime.settings import Settings
    from assistant.tuning import DEFAULT

    commit = ""
    with contextlib.suppress(OSError):  # no git: the rows name no commit
        commit = subprocess.run(
            ["git", "describe", "--always", "--dirty"], cwd=BENCH_DIR.parent, capture_output=True, text=True
        ).stdout.strip()
    through = DEFAULT.with_values(gate__model=(("bias", 0.0),), gate__threshold=0.0)  # lets every answer through
    embedder = SentenceTransformerEmbedder(Settings().embedding_model)
    count = 0
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as sink:
        for name, settings, questions in indexed(exclude, index, embedder):
            today = KnowledgeBase.open(settings, embedder=embedder)
            let = KnowledgeBase.open(settings, embedder=embedder, tuning=through)
            rows = ev.load_questions(questions)
            for q in rows:
                now, forced = ev._score_one(today, q), ev._score_one(let, q)
                row = {
                    "set": name,
                    "family": family(name),
                    "id": q["id"],
                    "answerable": bool(q["answerable"]),
                    "evidence": _evidence(today, q),
                    "today_ok": bool(now["ok"]),
                    "through_ok": bool(forced["ok"]),
                    "through_found": bool(forced["found"]),
                    "commit": commit,  # the gate "today" is that of this commit ("-dirty": with changes)
                }
                sink.write(json.dumps(row) + "\n")
            count += len(rows)
            print(f"{name}: {len(rows)} questions", file=sys.stderr)
    return count


def _score(rows: Sequence[dict[str, Any]], answer: Sequence[bool]) -> int:
    """Questions right when the gate answers where `answer` says: an answerable one right if let through and right,
    an unanswerable one right if refused (or refused anyway, later)."""
    total = 0
    for row, yes in zip(rows, answer, strict=True):
        if row["answerable"]:
            total += yes and row["through_ok"]
        else:
            total += not yes or not row["through_found"]
    return total


def _matrix(rows: Sequence[dict[str, Any]], names: Sequence[str]) -> list[list[float]]:
    return [[r["evidence"][n] for n in names] for r in rows]


def _fit(rows: Sequence[dict[str, Any]], names: Sequence[str], penalty: float) -> dict[str, float]:
    from sklearn.linear_model import LogisticRegression

    target = [bool(r["answerable"] and r["through_ok"]) for r in rows]
    model = LogisticRegression(C=penalty, max_iter=1000).fit(_matrix(rows, names), target)
    return {"bias": float(model.intercept_[0]), **{n: float(w) for n, w in zip(names, model.coef_[0], strict=True)}}


def _answers(rows: Sequence[dict[str, Any]], weights: dict[str, float], threshold: float) -> list[bool]:
    from assistant.gate.evidence import logistic

    return [r["evidence"]["passages"] > 0 and logistic(r["evidence"], weights) >= threshold for r in rows]


def leave_one_out(
    rows: Sequence[dict[str, Any]], names: Sequence[str], penalty: float, threshold: float
) -> dict[str, int]:
    """Each family's score by a model fitted on the other families."""
    out = {}
    for fam in sorted({r["family"] for r in rows}):
        held = [r for r in rows if r["family"] == fam]
        weights = _fit([r for r in rows if r["family"] != fam], names, penalty)
        out[fam] = _score(held, _answers(held, weights, threshold))
    return out


def _backward(rows: Sequence[dict[str, Any]], penalty: float) -> tuple[int, list[str]]:
    """The features kept when, from all of them, the one whose removal most raises the leave-one-family-out score
    is taken out, one at a time, while its removal does not lower it; with that score."""
    from assistant.gate.evidence import FEATURES

    kept = list(FEATURES)
    best = sum(leave_one_out(rows, kept, penalty, 0.5).values())
    while len(kept) > 1:
        scores = {
            name: sum(leave_one_out(rows, [k for k in kept if k != name], penalty, 0.5).values()) for name in kept
        }
        name = max(scores, key=lambda n: (scores[n], FEATURES.index(n)))
        if scores[name] < best:
            return best, kept
        best, kept = scores[name], [k for k in kept if k != name]
    return best, kept


def fit(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The features, penalty and threshold with the best leave-one-family-out score, and the weights fitted on all."""
    weighed = [r for r in rows if r["evidence"] is not None]
    chosen = {penalty: _backward(weighed, penalty) for penalty in PENALTIES}
    penalty = max(PENALTIES, key=lambda p: (chosen[p][0], -len(chosen[p][1]), -abs(math.log(p))))
    names = chosen[penalty][1]
    thresholds = {t: sum(leave_one_out(weighed, names, penalty, t).values()) for t in THRESHOLDS}
    threshold = max(thresholds, key=lambda t: (thresholds[t], -abs(t - 0.5)))
    return {
        "features": list(names),
        "penalty": penalty,
        "threshold": threshold,
        "weights": _fit(weighed, names, penalty),
        "families": _families(weighed, names, penalty, threshold),
        "not_weighed": len(rows) - len(weighed),
        "commits": sorted({r.get("commit", "") for r in rows} - {""}),
    }


def _families(rows: Sequence[dict[str, Any]], names: Sequence[str], penalty: float, threshold: float) -> dict:
    """Per family: its questions right as collected and as the model fitted on the other families decides."""
    out = {}
    for fam in sorted({r["family"] for r in rows}):
        held = [r for r in rows if r["family"] == fam]
        yes = _answers(held, _fit([r for r in rows if r["family"] != fam], names, penalty), threshold)
        asked = [(r, y) for r, y in zip(held, yes, strict=True) if r["answerable"]]
        not_asked = [(r, y) for r, y in zip(held, yes, strict=True) if not r["answerable"]]
        out[fam] = {
            "questions": len(held),
            "as_collected": sum(r["today_ok"] for r in held),
            "left_out": _score(held, yes),
            "answerable": len(asked),
            "answered_today": sum(r["today_ok"] for r, _ in asked),
            "answered": sum(y and r["through_ok"] for r, y in asked),
            "unanswerable": len(not_asked),
            "refused_today": sum(r["today_ok"] for r, _ in not_asked),
            "refused": sum(not y or not r["through_found"] for r, y in not_asked),
        }
    return out


def section(report: dict[str, Any]) -> list[str]:
    """The fit's Markdown section: each family's questions right as collected and as the model fitted on the other
    families decides, answerable and unanswerable apart, and the model."""
    lines = [
        HEADING,
        "",
        "Whether to answer or say the docs don't cover it is decided by a logistic model of the gate's evidence "
        "(`assistant/gate/evidence.py`), fitted by `python bench/fit_gate.py` on every question set pooled (the "
        f"own sets and the fresh sets once scored: {len(report['families'])} families). Each family (a product, "
        "the changelog sets, the release-notes sets, each fresh set) is decided here by a model fitted on the others; "
        "features, penalty and threshold are chosen by that score. A question counts right as the evaluation "
        "counts it; questions the gate does not weigh (a release not indexed, an upgrade plan) are left out.",
        "",
        f'Right "as collected": as the gate of the code the evidence was collected with decided '
        f"(`{'`, `'.join(report['commits']) or '?'}`).",
        "",
        "| family | answerable | right as collected | right, left out | unanswerable | refused as collected "
        "| refused, left out |",
        "|---|---|---|---|---|---|---|",
    ]
    total = [0] * 6
    for name, f in report["families"].items():
        cells = [f["answerable"], f["answered_today"], f["answered"], f["unanswerable"], f["refused_today"]]
        cells.append(f["refused"])
        total = [a + b for a, b in zip(total, cells, strict=True)]
        lines.append(f"| {name} | " + " | ".join(map(str, cells)) + " |")
    lines.append("| **all** | " + " | ".join(f"**{n}**" for n in total) + " |")
    weights = ", ".join(f"`{k}` {v:+.3f}" for k, v in report["weights"].items())
    lines += [
        "",
        f"Chosen: {', '.join(report['features'])}; penalty C = {report['penalty']}; threshold "
        f"{report['threshold']}. Fitted on all: {weights}.",
        "",
    ]
    return lines


def write(report: dict[str, Any], page: Path = PAGE) -> None:
    """Put the fit's section in `page` before the code scan's, replacing an earlier one."""
    put_section(page, HEADING, section(report), "\n## The code scan on real code")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="each question's evidence and checks")
    c.add_argument("--out", type=Path, default=DEFAULT_OUT)
    c.add_argument("--index", type=Path, default=DEFAULT_INDEX, help="one index folder per set, built once")
    c.add_argument("--exclude", nargs="*", default=[], help="sets left out (the newest fresh set, unread)")
    f = sub.add_parser("fit", help="the model chosen by leaving one family out")
    f.add_argument("--evidence", type=Path, default=DEFAULT_OUT)
    f.add_argument("--json", action="store_true")
    f.add_argument("--write", action="store_true", help="put the table in docs/benchmarks.md")
    args = parser.parse_args(argv)
    if args.command == "collect":
        print(f"{collect(args.out, args.exclude, args.index)} questions", file=sys.stderr)
        return 0
    try:
        rows = [json.loads(line) for line in args.evidence.read_text(encoding="utf-8").splitlines() if line]
    except (OSError, ValueError) as e:
        print(f"error: cannot read {args.evidence}: {e}", file=sys.stderr)
        return 2
    report = fit(rows)
    if args.write:
        write(report)
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    for fam, r in report["families"].items():
        print(f"{fam:32} {r['questions']:4}  as collected {r['as_collected']:4}  left out {r['left_out']:4}")
    print(f"features {report['features']} penalty {report['penalty']} threshold {report['threshold']}")
    print("model = " + repr(tuple((k, round(v, 3)) for k, v in report["weights"].items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
