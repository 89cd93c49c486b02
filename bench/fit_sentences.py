"""Fit the sentence scores' weights (`SearchTuning.sentence_model`) on every question set pooled, one family left out.

Usage:
    python bench/fit_sentences.py collect [--out bench/sentence-features.jsonl] [--exclude SET ...]
    python bench/fit_sentences.py fit [--features bench/sentence-features.jsonl] [--json]

`collect` asks every answerable question of every own and fresh set (the sets and corpora `bench/fit_gate.py`
collects from) as the knowledge base reaches its answer: the query understood, the passages searched and let
through by the gate (those it weighs, where it refuses), and the chunks that follow them. For each sentence of
those passages it writes the features the sentence scores weigh (`assistant.search.sentences.FEATURES`) and
whether the sentence holds one of the question's expected phrases in an expected file (and release): a sentence
the answer should quote (any one phrase: where a set asks for several, the answer's few sentences share them). A
question none of whose sentences does is left out (search missed it: no weight can rank it first).

`fit` fits a linear ranking (scikit-learn's logistic regression on pairs: each right sentence against each wrong
one of its question's 30 covering most of it, no intercept), its regularisation chosen by leave-one-family-out:
each family (one product, or one kind of set, as `bench/fit_gate.py` names them) is ranked by weights fitted on the
others, scored by how many of its questions get a right sentence first. It prints that score per family for the
hand-set weights the model replaced, for the weights in `Tuning`, and left out; and the weights fitted on all,
scaled so that coverage weighs 1 (the answerer compares scores by their ratios, so the scale must stay).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
if str(BENCH_DIR.parent) not in sys.path:
    sys.path.insert(0, str(BENCH_DIR.parent))

from bench import evaluate as ev  # noqa: E402
from bench.fit_gate import DEFAULT_INDEX, family, indexed, searched  # noqa: E402

DEFAULT_OUT = BENCH_DIR / "sentence-features.jsonl"
# scikit-learn's `C`, the inverse of the penalty; of two as good, the smaller (the stronger penalty) is chosen.
STRENGTHS = (0.001, 0.003, 0.01, 0.03, 0.1, 1.0)
NEGATIVES = 30  # a question's wrong sentences paired with each right one: those covering most of it
# The hand-set weights the fitted model replaced (stop 57), kept to compare with.
HAND = (("coverage", 1.0), ("entry", 0.9), ("prior", 0.25), ("lead", 0.05), ("release", 0.1), ("gone", 0.1))


def _right(question: dict[str, Any], text: str, chunk: Any) -> bool:
    """The sentence holds an expected phrase, in an expected file (and release, where the set names one)."""
    phrases = [*question.get("must_contain", ()), *(question.get("any_of") or ())]
    held = len(ev.missing_phrases(text, phrases, question.get("drop", "`"))) < len(phrases)
    return held and ev.expected_source(question, chunk)


def _sentences(kb: Any, question: dict[str, Any]) -> list[list[float]] | None:
    """Each sentence the answerer would rank for the question: its features, then 1.0 if right else 0.0."""
    from assistant.answer.following import with_following

    reached = searched(kb, question)
    if reached is None:
        return None
    query, gate, found = reached
    r = kb.retriever
    verdict = gate.after_search(query, found)
    passages = with_following(verdict.passages or gate.weighed(query, found), r.chunks, r.by_id, kb.tuning)
    rows = []
    for p_idx, _, unit, features in kb.extractive.features(query, passages):
        right = float(_right(question, unit.text, passages[p_idx].chunk))
        rows.append([*(round(f, 4) for f in features), right])
    return rows


def collect(out: Path, exclude: Sequence[str], index: Path) -> int:
    """Write each answerable question's sentences; returns how many questions."""
    from assistant.embed.embedder import SentenceTransformerEmbedder
    from assistant.knowledge_base import KnowledgeBase
    from assistant.runtime.settings import Settings

    embedder = SentenceTransformerEmbedder(Settings().embedding_model)
    count = 0
    with out.open("w", encoding="utf-8") as sink:
        for name, settings, questions in indexed(exclude, index, embedder):
            kb = KnowledgeBase.open(settings, embedder=embedder)
            for q in ev.load_questions(questions):
                rows = _sentences(kb, q) if q["answerable"] else None
                if rows and any(row[-1] for row in rows):
                    record = {"set": name, "family": family(name), "id": q["id"], "rows": rows}
                    sink.write(json.dumps(record, separators=(",", ":")) + "\n")
                    count += 1
            print(f"{name}: done", file=sys.stderr, flush=True)
    return count


def _pairs(questions: Sequence[dict[str, Any]]) -> tuple[list[list[float]], list[int]]:
    """Each right sentence minus each of its question's best-covering wrong ones, both ways round."""
    x: list[list[float]] = []
    y: list[int] = []
    for q in questions:
        right = [r[:-1] for r in q["rows"] if r[-1]]
        wrong = sorted((r[:-1] for r in q["rows"] if not r[-1]), key=lambda r: -r[0])[:NEGATIVES]
        for a in right:
            for b in wrong:
                diff = [u - v for u, v in zip(a, b, strict=True)]
                x += [diff, [-d for d in diff]]
                y += [1, 0]
    return x, y


def _fit(questions: Sequence[dict[str, Any]], strength: float) -> list[float]:
    from sklearn.linear_model import LogisticRegression

    x, y = _pairs(questions)
    model = LogisticRegression(C=strength, fit_intercept=False, max_iter=2000).fit(x, y)
    return [float(w) for w in model.coef_[0]]


def first_right(questions: Sequence[dict[str, Any]], weights: Sequence[float]) -> int:
    """How many questions have a right sentence ranked first (ties go to the earlier sentence, as when answering)."""
    right = 0
    for q in questions:
        scores = [sum(w * f for w, f in zip(weights, r[:-1], strict=True)) for r in q["rows"]]
        best = max(range(len(scores)), key=lambda i: (scores[i], -i))
        right += bool(q["rows"][best][-1])
    return right


def fit(questions: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The regularisation with the best leave-one-family-out score, each family's score, and the weights fitted on
    all."""
    from assistant.search.sentences import FEATURES
    from assistant.tuning import DEFAULT

    today = [dict(DEFAULT.search.sentence_model).get(f, 0.0) for f in FEATURES]
    hand = [dict(HAND).get(f, 0.0) for f in FEATURES]
    families = sorted({q["family"] for q in questions})

    def held_out(strength: float) -> dict[str, int]:
        out = {}
        for fam in families:
            held = [q for q in questions if q["family"] == fam]
            out[fam] = first_right(held, _fit([q for q in questions if q["family"] != fam], strength))
        return out

    scores = {c: held_out(c) for c in STRENGTHS}
    strength = max(STRENGTHS, key=lambda c: (sum(scores[c].values()), -c))
    weights = _fit(questions, strength)
    if weights[0] <= 0:  # coverage must count for a sentence, or the answerer's score ratios mean nothing
        raise ValueError(f"the fitted coverage weight is {weights[0]:.3f}, not above 0")
    family_of = {fam: [q for q in questions if q["family"] == fam] for fam in families}
    return {
        "questions": len(questions),
        "strength": strength,
        "by_strength": {str(c): sum(s.values()) for c, s in scores.items()},
        "families": {
            fam: {
                "questions": len(family_of[fam]),
                "hand": first_right(family_of[fam], hand),
                "today": first_right(family_of[fam], today),
                "left_out": scores[strength][fam],
            }
            for fam in families
        },
        "hand": first_right(questions, hand),
        "left_out": sum(scores[strength].values()),
        "today": first_right(questions, today),
        "fitted_on_all": first_right(questions, weights),
        "weights": [[f, round(w / weights[0], 3)] for f, w in zip(FEATURES, weights, strict=True)],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="ask every answerable question; write its sentences' features")
    c.add_argument("--out", type=Path, default=DEFAULT_OUT)
    c.add_argument("--exclude", nargs="*", default=[], help="sets left out (a fresh set not yet scored)")
    c.add_argument("--index", type=Path, default=DEFAULT_INDEX, help="where each set's index is built and kept")
    f = sub.add_parser("fit", help="fit the weights, one family left out")
    f.add_argument("--features", type=Path, default=DEFAULT_OUT)
    f.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.command == "collect":
        count = collect(args.out, args.exclude, args.index)
        print(f"{count} questions -> {args.out}", file=sys.stderr)
        return 0
    questions = [json.loads(line) for line in args.features.read_text(encoding="utf-8").splitlines() if line]
    report = fit(questions)
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"{report['questions']} questions; C {report['strength']}; a right sentence first:")
    for fam, row in report["families"].items():
        counts = f"hand-set {row['hand']:4d}, in Tuning {row['today']:4d}, left out {row['left_out']:4d}"
        print(f"  {fam:32s} {row['questions']:4d}  {counts}")
    print(f"  all: hand-set {report['hand']}, in Tuning {report['today']}, left out {report['left_out']}")
    print("weights:", ", ".join(f"{n} {w}" for n, w in report["weights"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
