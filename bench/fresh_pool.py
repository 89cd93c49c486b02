"""The fresh sets pooled: every set in `bench/fresh/` whose docs are fetched, scored again now, one product at a time.

Once scored, a fresh set is an own set; pooled they are hundreds of questions over a dozen products nobody here
wrote, the pool issue #39 asks the answerer's weights to be fitted and checked on one product left out at a time.
Each set is scored alone, over its own index (built once under `--index`), as `bench/evaluate.py` scores it; the
report gives each set and the pool. `--tuning part__field=VALUE` (repeatable) scores a variant of the tuned values
beside the default, per set, with the questions whose check changed: the ablation's way (`Tuning.with_values`),
over questions no tuning looked at when the set was written. `--exclude` leaves out a set, such as the newest one,
whose failures must not be read.

Usage:
    python bench/fetch_fresh_docs.py
    python bench/fresh_pool.py [--exclude 2026-12-06-django-cms] [--tuning gate__release_leads=False] [--json]
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
if str(BENCH_DIR.parent) not in sys.path:
    sys.path.insert(0, str(BENCH_DIR.parent))

from bench import evaluate as ev  # noqa: E402
from bench.fetch_fresh_docs import DEFAULT_DOCS, FRESH_DIR, docs_folder, sets  # noqa: E402

DEFAULT_INDEX = BENCH_DIR.parent / "data" / "fresh-index"


def tuned_value(text: str) -> tuple[str, Any]:
    """`part__field=VALUE` as a name and a Python literal (a word that is no literal stays a string)."""
    name, sep, raw = text.partition("=")
    if not sep or "__" not in name:
        raise ValueError(f"not part__field=VALUE: {text!r}")
    try:
        return name, ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        return name, raw


def score(kb: ev.SupportsAsk, questions: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each question's result, as `bench/evaluate.py` checks it."""
    return [ev._score_one(kb, q) for q in questions]


def totals(results: Sequence[dict[str, Any]]) -> dict[str, int]:
    """Answerable questions answered right (answer and source), and unanswerable ones refused."""
    answerable = [r for r in results if r["answerable"]]
    return {
        "answered": sum(bool(r["ok"]) for r in answerable),
        "answerable": len(answerable),
        "refused": sum(bool(r["ok"]) for r in results if not r["answerable"]),
        "unanswerable": len(results) - len(answerable),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=Path, default=DEFAULT_DOCS, help="where bench/fetch_fresh_docs.py put them")
    parser.add_argument("--index", type=Path, default=DEFAULT_INDEX, help="one index folder per set, built once")
    parser.add_argument("--exclude", nargs="*", default=[], help="sets left out")
    parser.add_argument("--tuning", action="append", default=[], help="a variant: part__field=VALUE")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    from assistant.embed.embedder import SentenceTransformerEmbedder
    from assistant.knowledge_base import KnowledgeBase
    from assistant.runtime.settings import Settings
    from assistant.tuning import DEFAULT
    from ingest import sync

    try:
        variant = DEFAULT.with_values(**dict(map(tuned_value, args.tuning))) if args.tuning else None
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    report: dict[str, Any] = {"sets": {}, "pool": {}}
    names = [n for n in sets() if n not in args.exclude and docs_folder(n, args.docs).is_dir()]
    if not names:
        print("error: no set's docs are fetched: python bench/fetch_fresh_docs.py", file=sys.stderr)
        return 2
    embedder = SentenceTransformerEmbedder(Settings().embedding_model)  # loaded once, for every set's index and ask
    for name in names:
        settings = Settings(corpus_dir=docs_folder(name, args.docs), index_dir=args.index / name)
        with contextlib.redirect_stdout(sys.stderr):
            sync(settings, progress=False, embedder=embedder)
        questions = ev.load_questions(FRESH_DIR / name / "questions.jsonl")
        base = score(KnowledgeBase.open(settings, embedder=embedder), questions)
        row: dict[str, Any] = {"default": totals(base)}
        if variant is not None:  # opened anew: a tuned value may act where the retriever is built
            other = score(KnowledgeBase.open(settings, embedder=embedder, tuning=variant), questions)
            row["variant"] = totals(other)
            row["changed"] = [
                (a["id"], a["ok"], b["ok"]) for a, b in zip(base, other, strict=True) if a["ok"] != b["ok"]
            ]
        report["sets"][name] = row
        print(f"{name}: {row}", file=sys.stderr)
    for key in ("default", "variant") if variant is not None else ("default",):
        report["pool"][key] = {
            k: sum(r[key][k] for r in report["sets"].values()) for k in report["sets"][names[0]][key]
        }
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        for key, t in report["pool"].items():
            print(
                f"pool of {len(names)} sets, {key}: answered {t['answered']}/{t['answerable']}, "
                f"refused {t['refused']}/{t['unanswerable']}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
