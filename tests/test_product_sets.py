"""The per-product evaluation sets (bench/questions-<product>.jsonl) and `bench/evaluate.py --set`.

Everything here but the last test needs no model: file format, counts, that every expected phrase is
really in the docs it cites, corpus staging and the per-set report. The slow test runs each set over
its own index and the combined one, against regression floors.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bench.eval_corpus import stage_corpus
from bench.eval_report import format_report
from bench.evaluate import (
    CHANGELOG_SETS,
    FETCHED_SETS,
    PRODUCT_SETS,
    RELEASE_NOTES_SETS,
    SET_NAMES,
    check_unique_ids,
    evaluate_sets,
    load_questions,
    main,
    normalize,
    set_questions,
    set_sources,
)

ROOT = Path(__file__).resolve().parents[1]
MORE_CORPUS = ROOT.parent / "shared" / "corpus-more"
SHARED_CORPUS = ROOT.parent / "shared" / "corpus"
needs_docs = pytest.mark.skipif(not MORE_CORPUS.is_dir(), reason="../shared/corpus-more is not present")

_ROLE = re.compile(r":[a-z]+(?::[a-z]+)*:`([^`]*)`")
_MARKUP_IN_PHRASE = re.compile(r"``|`|:[a-z]+:|\*\*")


def _role_text(match: re.Match[str]) -> str:
    inner = match.group(1).strip()
    titled = re.match(r"(.*?)\s*<[^>]*>$", inner, re.S)
    if titled and titled.group(1):
        return titled.group(1)
    return inner[1:].split(".")[-1] if inner.startswith("~") else inner.lstrip(".")


def _without_markup(text: str) -> str:
    """Roughly what Sphinx/Markdown render: role text, literals, link text, no emphasis marks."""
    text = _ROLE.sub(_role_text, text)
    text = re.sub(r"`([^`<]{1,200}?)\s*<[^>\s]+>`__?", r"\1", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\[([^\]]*)\]\[[^\]]*\]", r"\1", text)
    text = text.replace("**", "").replace("``", "")
    return re.sub(r"(?<![\w*])\*(\S(?:[^*\n]*?\S)?)\*(?![\w*])", r"\1", text)


@pytest.mark.parametrize("name", PRODUCT_SETS)
def test_product_set_counts(name: str) -> None:
    questions = load_questions(set_questions(name))
    answerable = [q for q in questions if q["answerable"]]
    assert len(questions) >= 35
    assert len(answerable) >= 28
    assert len(questions) - len(answerable) >= 7
    assert sum(q["lang"] == "fr" for q in questions) >= 4
    assert {q["lang"] for q in questions} <= {"en", "fr"}


@pytest.mark.parametrize("name", PRODUCT_SETS)
def test_product_set_items_are_well_formed(name: str) -> None:
    for q in load_questions(set_questions(name)):
        assert q["question"].strip(), q["id"]
        assert q["version"] is None or re.fullmatch(r"\d+\.\d+\.\d+", q["version"]), q["id"]
        if not q["answerable"]:
            assert q["must_contain"] == [] and q["sources"] == [], q["id"]
            continue
        assert 1 <= len(q["must_contain"]) <= 2, q["id"]
        for phrase in q["must_contain"]:
            assert phrase.strip() and not _MARKUP_IN_PHRASE.search(phrase), (q["id"], phrase)
        assert q["sources"], q["id"]
        for source in q["sources"]:
            parts = source.split("/")
            assert len(parts) == 3 and parts[0] == name and re.fullmatch(r"\d+\.\d+\.\d+", parts[1]), (q["id"], source)


def test_ids_are_unique_across_every_set() -> None:
    check_unique_ids({name: load_questions(set_questions(name)) for name in (*SET_NAMES, *FETCHED_SETS)})


@pytest.mark.parametrize("name", CHANGELOG_SETS)
def test_the_changelog_sets_name_the_release_of_every_answer(name: str) -> None:
    from bench.fetch_changelogs import SETS

    questions = load_questions(set_questions(name))
    files = {f"{product}/{Path(inner).name}" for product, (_, inner) in SETS[name].items()}
    assert len(questions) >= 30 and sum(not q["answerable"] for q in questions) >= 5
    for q in questions:
        assert set(q["sources"]) <= files, q["id"]
        assert bool(q["answerable"]) == bool(q["sources"]) == bool(q["versions"]), q["id"]
        assert all(not _MARKUP_IN_PHRASE.search(p) for p in q["must_contain"]), q["id"]


@pytest.mark.parametrize("name", RELEASE_NOTES_SETS)
def test_the_release_notes_sets_cite_the_fetched_files_by_release(name: str) -> None:
    from bench.fetch_release_notes import SETS

    questions = load_questions(set_questions(name))
    files = {"/".join(filter(None, (p, v, f))): v for p, (_, _, named) in SETS[name].items() for f, v in named.items()}
    assert len(questions) >= 30 and sum(not q["answerable"] for q in questions) >= 5
    for q in questions:
        assert set(q["sources"]) <= set(files), q["id"]
        # A file in a release's folder answers for that release; one holding every release, for any of them.
        assert all(files[s] in ("", *q["versions"]) for s in q["sources"]), q["id"]
        assert all(not _MARKUP_IN_PHRASE.search(p) for p in q["must_contain"]), q["id"]


@needs_docs
@pytest.mark.parametrize("name", PRODUCT_SETS)
def test_expected_phrases_occur_in_the_cited_docs(name: str) -> None:
    """Each phrase is in one of its sources, both as the raw file reads and with the markup removed."""
    texts: dict[str, tuple[str, str]] = {}
    for q in load_questions(set_questions(name)):
        for source in q["sources"]:
            if source not in texts:
                raw = (MORE_CORPUS / source).read_text(encoding="utf-8")
                texts[source] = (normalize(raw), normalize(_without_markup(raw)))
        for phrase in q["must_contain"]:
            wanted = normalize(phrase)
            assert any(wanted in texts[s][0] for s in q["sources"]), (q["id"], phrase, "raw")
            assert any(wanted in texts[s][1] for s in q["sources"]), (q["id"], phrase, "without markup")


def test_markup_removal_helper() -> None:
    assert (
        _without_markup("Use :meth:`DataFrame.map` or :func:`~Series.dt.as_unit`.") == "Use DataFrame.map or as_unit."
    )
    assert _without_markup("see :ref:`the guide <migration>` and ``x`` **now**") == "see the guide and x now"
    assert _without_markup("[`RootModel`](concepts/models.md) and [`Url`][pydantic.Url]") == "`RootModel` and `Url`"


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_stage_corpus_keeps_product_paths_and_skips_loose_files(tmp_path: Path) -> None:
    more = _tree(tmp_path / "more", {"SOURCES.md": "x", "pandas/3.0.0/notes.rst": "p", "pandas/.hidden/a.md": "h"})
    torch = _tree(tmp_path / "corpus", {"pytorch/2.12.0/notes.md": "t", "README.md": "r"})
    sources = set_sources("all", torch, more)
    assert set(sources) == {*PRODUCT_SETS, "pytorch"}
    for product in ("sqlalchemy", "pydantic", "django"):
        _tree(more, {f"{product}/1.0.0/notes.md": product})
    dest = stage_corpus(sources, tmp_path / "staged")
    staged = sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file())
    assert staged == [
        "django/1.0.0/notes.md",
        "pandas/3.0.0/notes.rst",
        "pydantic/1.0.0/notes.md",
        "pytorch/2.12.0/notes.md",
        "sqlalchemy/1.0.0/notes.md",
    ]


def test_stage_corpus_copies_only_changes_and_drops_stale_files(tmp_path: Path) -> None:
    more = _tree(
        tmp_path / "more", {"pandas/2.0.0/a.rst": "one", "pandas/2.1.0/b.rst": "two", "pandas/3.0.0/c.rst": "x"}
    )
    dest = stage_corpus(set_sources("pandas", tmp_path, more), tmp_path / "staged")
    touched, same = dest / "pandas/2.0.0/a.rst", dest / "pandas/2.1.0/b.rst"
    os.utime(touched, ns=(1, 1))  # differs from its source: copied again
    stamp = same.stat().st_mtime_ns
    same.write_text("TWO")  # same size and time as its source: left alone
    os.utime(same, ns=(stamp, stamp))
    (more / "pandas/3.0.0/c.rst").unlink()
    _tree(more, {"pandas/2.2.0/d.rst": "four"})
    stage_corpus(set_sources("pandas", tmp_path, more), dest)
    assert touched.read_text() == "one" and touched.stat().st_mtime_ns != 1
    assert same.read_text() == "TWO"
    assert not (dest / "pandas/3.0.0").exists()
    assert (dest / "pandas/2.2.0/d.rst").read_text() == "four"


def test_stage_corpus_names_a_missing_product(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="django"):
        stage_corpus(set_sources("django", tmp_path, tmp_path / "nowhere"), tmp_path / "staged")


class _FakeKB:
    """Answers from a table: question -> (text, found, cited sources)."""

    def __init__(self, answers: dict[str, tuple[str, bool, list[str]]]) -> None:
        self.answers = answers

    def ask(self, question: str, history: Any = (), version: str | None = None) -> Any:
        text, found, cited = self.answers.get(question, ("The release docs don't cover this.", False, []))
        return SimpleNamespace(
            text=text, found=found, citations=[SimpleNamespace(source=s) for s in cited], timings_ms={"total": 1.0}
        )


def _q(qid: str, question: str, *, phrase: str | None = None, source: str = "") -> dict[str, Any]:
    answerable = phrase is not None
    return {
        "id": qid,
        "question": question,
        "answerable": answerable,
        "lang": "en",
        "must_contain": [phrase] if answerable else [],
        "sources": [source] if answerable else [],
        "version": None,
    }


def test_evaluate_sets_reports_per_set_and_in_total() -> None:
    kb = _FakeKB(
        {
            "a?": ("Use ``concat`` instead [1]", True, ["pandas/2.0.0/r.rst"]),
            "b?": ("Something else [1]", True, ["pandas/2.0.0/r.rst"]),
            "c?": ("Use Session.get [1]", True, ["sqlalchemy/2.0.0/m.rst"]),
        }
    )
    sets = {
        "pandas": [_q("pd1", "a?", phrase="concat", source="pandas/2.0.0/r.rst"), _q("pd2", "b?", phrase="x")],
        "sqlalchemy": [_q("sa1", "c?", phrase="session.get", source="sqlalchemy/2.0.0/m.rst"), _q("sa2", "d?")],
    }
    report = evaluate_sets(kb, sets)
    assert report["questions"] == 4
    assert report["answer_acc"]["count"] == 2 and report["answer_acc"]["total"] == 3
    pandas, sqlalchemy = report["by_set"]["pandas"], report["by_set"]["sqlalchemy"]
    assert (pandas["answer_acc"]["rate"], pandas["refusal_acc"]["total"]) == (0.5, 0)
    assert (sqlalchemy["answer_acc"]["rate"], sqlalchemy["refusal_acc"]["rate"]) == (1.0, 1.0)
    assert [(f["id"], f["set"]) for f in report["failures"]] == [("pd2", "pandas")]
    text = format_report(report, show_failures=True)
    assert "by set:" in text and "total" in text and "- pd2 [pandas en]" in text


def test_evaluate_sets_rejects_an_id_shared_by_two_sets() -> None:
    with pytest.raises(ValueError, match="duplicate id 'x1'"):
        evaluate_sets(_FakeKB({}), {"a": [_q("x1", "q?")], "b": [_q("x1", "r?")]})


def test_cli_rejects_questions_with_set_and_a_missing_product_folder(tmp_path: Path, capsys: Any) -> None:
    assert main(["--set", "pandas", "--questions", str(set_questions("pandas"))]) == 2
    assert main(["--set", "pandas", "--more-corpus", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--questions cannot be combined with --set" in err and "corpus folder not found" in err


# Regression floors, about one question under what the pipeline scores today (issue 10 aims at 0.9 everywhere).
# Lowered at stop 57, when 34 tuned items went and the sentence weights were fitted on every set pooled: the
# product sets fell (answers: pandas 0.875 -> 0.825, SQLAlchemy 0.949 -> 0.846, Pydantic 0.974 -> 0.868; pandas
# refusals 0.917 -> 0.833). At stop 58, with 16 more gone, the combined index's sources fell a question
# (0.973 -> 0.970).
FLOORS = {  # about a question below what each set scores today, alone and (for "all") combined
    "pandas": {"answer_acc": 0.8, "source_acc": 0.95, "refusal_acc": 0.83},
    "sqlalchemy": {"answer_acc": 0.79, "source_acc": 0.94, "refusal_acc": 0.87},
    "pydantic": {"answer_acc": 0.84, "source_acc": 0.97, "refusal_acc": 0.62},
    "django": {"answer_acc": 0.94, "source_acc": 0.97, "refusal_acc": 0.87},
    "all": {"answer_acc": 0.88, "source_acc": 0.96, "refusal_acc": 0.9},
}


@pytest.mark.slow
@pytest.mark.parametrize("name", [*PRODUCT_SETS, "all"])
def test_product_set_runs(name: str, tmp_path: Path, embedder: Any) -> None:
    """Each set over its own index (and every set over the combined one) end to end, above its floors."""
    if not MORE_CORPUS.is_dir() or (name == "all" and not SHARED_CORPUS.is_dir()):
        pytest.skip("../shared corpora are not present")
    from assistant.knowledge_base import KnowledgeBase
    from assistant.runtime.settings import Settings
    from ingest import sync

    corpus = stage_corpus(set_sources(name, SHARED_CORPUS, MORE_CORPUS), tmp_path / "corpus")
    settings = Settings(corpus_dir=corpus, data_dir=tmp_path / "data")
    sync(settings, progress=False, embedder=embedder)
    kb = KnowledgeBase.open(settings, embedder=embedder)
    names = SET_NAMES if name == "all" else (name,)
    sets = {n: load_questions(set_questions(n)) for n in names}
    report = evaluate_sets(kb, sets)
    assert report["questions"] == sum(len(q) for q in sets.values())
    assert report["errors"] == 0
    assert set(report["by_set"]) == set(names)
    rates = {k: report[k]["rate"] for k in ("answer_acc", "source_acc", "refusal_acc")}
    floors = FLOORS[name]
    assert all(rates[k] >= floors[k] for k in floors), (rates, floors)
