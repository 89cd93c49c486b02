"""Fast checks of the benchmark's parts: the synthetic corpus, the metrics, the goals and the report."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from unittest import mock

import pytest

from assistant.model.records import Chunk, Passage
from bench.baselines import first_hit, mrr_at, rank_score, recall_at, retrieval_quality
from bench.run import goals, padded_tokens, plot, read_chunks, render_markdown
from bench.synthetic import PRODUCT, generate, sample_questions


def test_synthetic_corpus_is_about_the_target_size_and_seeded(tmp_path: Path) -> None:
    corpus = generate(tmp_path / "a", 300, seed=7)
    chunks = read_chunks(corpus.root)
    assert 0.8 * 300 <= len(chunks) <= 1.2 * 300
    assert {c.product for c in chunks} == {PRODUCT}
    assert all(c.version and c.section for c in chunks)
    assert any("```" in c.text for c in chunks) and any("/pull/" in c.text for c in chunks)
    again = generate(tmp_path / "b", 300, seed=7)
    first = sorted(p.read_text() for p in corpus.root.rglob("*.md"))
    assert first == sorted(p.read_text() for p in again.root.rglob("*.md"))
    other = generate(tmp_path / "c", 300, seed=8)
    assert first != sorted(p.read_text() for p in other.root.rglob("*.md"))


@pytest.mark.slow  # generates and reads a corpus of 2,000 documents
def test_synthetic_corpus_scales_with_the_target(tmp_path: Path) -> None:
    small = len(read_chunks(generate(tmp_path / "s", 200).root))
    large = len(read_chunks(generate(tmp_path / "l", 2000).root))
    assert 8 <= large / small <= 12


def test_sampled_questions_name_a_symbol_of_their_source_chunk(tmp_path: Path) -> None:
    chunks = read_chunks(generate(tmp_path, 200, seed=3).root)
    questions = sample_questions(chunks, 10, seed=1)
    assert len(questions) == 10
    by_source = {c.source: "" for c in chunks}
    for c in chunks:
        by_source[c.source] += c.text
    for q in questions:
        symbol = q["question"].split("`")[1]
        assert symbol.startswith("torch.") and symbol in by_source[q["source"]]
    assert sum(PRODUCT in q["question"] for q in questions) == 5  # half name a version
    assert questions == sample_questions(chunks, 10, seed=1)


def test_rank_metrics() -> None:
    assert first_hit(["a", "b", "c"], {"c", "z"}) == 3
    assert first_hit(["a", "b"], {"z"}) is None
    ranks = [1, 2, 6, None]
    assert recall_at(ranks, 5) == 0.5
    assert recall_at(ranks, 10) == 0.75
    assert mrr_at(ranks, 10) == pytest.approx((1 + 0.5 + 1 / 6) / 4)
    assert mrr_at(ranks, 5) == pytest.approx((1 + 0.5) / 4)
    assert recall_at([], 5) == 0.0
    assert rank_score(0) > rank_score(1) > 0


def _passage(source: str, text: str = "") -> Passage:
    return Passage(
        Chunk(id=source, text=text, source=source, title="", product="", version="", kind="", section=""), 1.0
    )


def test_retrieval_quality_scores_answerable_questions_only() -> None:
    results = {
        "q1": [("x", "nothing here"), ("a", "Use `torch.Foo` instead")],
        "q2": [("b", "unrelated"), ("c", "needs CUDA 12.6 now")],
        "q3": [("x", ""), ("y", "")],
    }
    questions = [
        {"id": "q1", "question": "q1", "answerable": True, "sources": ["a"], "must_contain": ["torch.foo"]},
        {"id": "q2", "question": "q2", "answerable": True, "sources": ["b", "c"], "must_contain": ["12.6"]},
        {"id": "q3", "question": "q3", "answerable": True, "sources": ["z"], "must_contain": ["z"]},
        {"id": "q4", "question": "q4", "answerable": False, "sources": [], "must_contain": []},
    ]
    questions[1]["version"] = "2.11"
    seen_versions = []

    def search(text: str, version: str | None) -> list[Passage]:
        seen_versions.append(version)
        return [_passage(s, t) for s, t in results[text]]

    got = retrieval_quality(search, questions)
    assert got["ranks"] == {"q1": 2, "q2": 1, "q3": None}
    assert got["recall@5"] == pytest.approx(2 / 3)
    assert got["mrr@10"] == pytest.approx((0.5 + 1) / 3)
    assert got["evidence_ranks"] == {"q1": 2, "q2": 2, "q3": None}  # backticks and case do not matter
    assert got["evidence_mrr@10"] == pytest.approx((0.5 + 0.5) / 3)
    assert seen_versions == [None, "2.11", None]


class _Tokenizer:
    def __call__(self, texts: list[str], **_: object) -> dict[str, list[list[int]]]:
        return {"input_ids": [[0] * len(t.split()) for t in texts]}


class _Model:
    max_seq_length = 4
    tokenizer = _Tokenizer()


def test_padded_tokens_pads_each_batch_to_its_longest() -> None:
    calls = [["a b c", "a", "a b c d e f"], ["a b"]]  # lengths 3, 1, 6->4 (truncated); 2
    ran, real = padded_tokens(_Model(), calls, batch=2)
    assert real == 3 + 1 + 4 + 2
    assert ran == (4 + 4) + (1) + (2)  # sorted 4,3 | 1 ; then 2


def _result() -> dict:
    quality = {"recall@5": 0.9, "mrr@10": 0.8, "answer_acc": 0.7, "refusal_acc": 1.0}
    extra = {"source_acc": 0.8, "false_refusal": 0.1, "answerable": 3, "unanswerable": 1, "ask_p50_ms": 20.0}
    stage = {"p50": 10.0, "p95": 20.0, "n": 4}
    return {
        "quality": {
            "ours": {**quality, **extra},
            "dense_baseline": {**quality, **extra, "recall@5": 0.8, "mrr@10": 0.7},
            "bm25_baseline": {**quality, **extra, "recall@5": 0.85, "mrr@10": 0.75},
        },
        "latency_ms": {
            "p50": 20.0,
            "p95": 40.0,
            "floor_p50": 14.0,
            "floor_p95": 16.0,
            "n": 4,
            "stages": {k: stage for k in ("embed", "dense", "lexical", "retrieve", "answer", "total")},
            "cold_ms": {
                "ask": 9000.0,
                "floor": 6000.0,
                "ask_runs": [9000.0],
                "floor_runs": [6000.0],
                "ask_peak_rss_mb": 700,
                "floor_peak_rss_mb": 600,
            },
        },
        "ingest": {
            "chunks": 100,
            "files": 2,
            "chunks_per_s": 15.0,
            "encode_floor_chunks_per_s": 16.0,
            "first_ingest_s": 6.7,
            "reingest_s": 0.01,
            "peak_rss_mb": 900.0,
            "model_load_s": 3.0,
            "floor_chunks": 100,
            "batch_size": 32,
            "ingest_encode_s": 6.0,
            "ingest_tokens": {"padded": 9000, "real": 7000},
            "floor_tokens": {"padded": 8000, "real": 7000},
        },
        "scale": [
            {
                "chunks": n,
                "files": 1,
                "p50_ms": 20.0 + n / 1000,
                "p95_ms": 30.0,
                "stages_p50": {"embed": 14.0, "dense": 3.0, "lexical": 1.0, "answer": 2.0},
                "ingest_chunks_per_s": 15.0,
                "ingest_measured": "real-model" if n == 100 else "modelled",
                "store_chunks_per_s": 900.0,
                "chunk_s": 0.1,
                "write_s": n / 1000,
                "open_s": n / 5000,
            }
            for n in (100, 1000, 10000)
        ],
        "details": {
            "ours": {"ranks": {"q1": 1, "q2": 2, "q3": None}},
            "dense_baseline": {"ranks": {"q1": 2, "q2": 2, "q3": 3}},
            "bm25_baseline": {"ranks": {"q1": 1, "q2": 1, "q3": None}},
        },
        "meta": {
            "mode": "quick",
            "plan": {"latency_passes": 1, "floor_fraction": 1 / 3, "scale_queries": 15},
            "started": "2026-01-01 00:00:00 UTC",
            "duration_s": 240.0,
            "corpus": "/x/corpus",
            "questions": {"file": "q.jsonl", "n": 4},
            "machine": {
                "cpu": "Test CPU",
                "cores_logical": 2,
                "cores_usable": 2,
                "torch_threads": 2,
                "memory_gb": 8,
                "os": "Linux",
                "python": "3.11",
                "versions": {"torch": "2"},
                "commit": "abc123",
            },
            "phases": [
                {"phase": "ingest (child process)", "wall_s": 10, "other_cpu_share": 0.5, "load_avg_1m": [1, 1]}
            ],
        },
    }


def test_goals_compare_against_the_best_baseline_and_the_floors() -> None:
    result = _result()
    met = {g["goal"]: g["met"] for g in goals(result)}
    assert all(met.values()), met
    worse = copy.deepcopy(result)
    worse["quality"]["bm25_baseline"]["mrr@10"] = 0.85
    worse["latency_ms"]["p50"] = 50.0
    worse["ingest"]["chunks_per_s"] = 10.0
    worse["scale"] = worse["scale"][:2]
    met = {g["goal"]: g["met"] for g in goals(worse)}
    assert met == {
        "MRR@10 above both baselines": False,
        "recall@5 above both baselines": True,
        "warm p50 ≤ 1.5× the floor": False,
        "ingest ≥ 0.9× the encode floor": False,
        "scale series spans ≥ 100×": False,
        "query p50 at the largest size ≤ 2× the p50 at 1k": True,
    }


@pytest.mark.slow  # draws the report's plots with matplotlib
def test_report_says_which_goals_were_missed_and_why(tmp_path: Path) -> None:
    result = _result()
    result["quality"]["bm25_baseline"]["mrr@10"] = 0.85
    result["ingest"]["chunks_per_s"] = 10.0
    result["goals"] = goals(result)
    text = render_markdown(result)
    assert "| reldocs (hybrid) | 0.900 | 0.800 |" in text
    assert "Test CPU" in text and "abc123" in text
    assert "**MRR@10 above both baselines** — missed" in text and "q2: 2 vs 1" in text
    assert "On 1 of the 1 question lost to BM25 only, dense-only retrieval also ranked" in text
    assert "**ingest ≥ 0.9× the encode floor** — missed" in text and "90 tokens per chunk" in text
    assert "warm p50 ≤ 1.5× the floor** — missed" not in text
    assert "shared with other work" in text  # the ingest phase ran at 50% background load
    plot(result, tmp_path)
    assert {p.name for p in tmp_path.glob("bench-*.png")} == {
        "bench-quality.png",
        "bench-latency.png",
        "bench-scale.png",
    }


@pytest.mark.slow  # draws the report's plots with matplotlib
def test_a_size_that_failed_is_reported_and_left_out_of_the_span(tmp_path: Path) -> None:
    result = _result()
    failed = {**result["scale"][-1], "chunks": 100000, "p50_ms": None, "p95_ms": None, "open_s": None, "queries": 0}
    failed["stages_p50"] = dict.fromkeys(failed["stages_p50"])
    failed["error"] = "KnowledgeBase.open failed: InternalError: too many SQL variables"
    result["scale"].append(failed)
    result["goals"] = goals(result)
    span = next(g for g in result["goals"] if g["goal"].startswith("scale"))
    assert span["value"] == "100 → 10000 chunks (100×); failed at 100000" and span["met"]
    text = render_markdown(result)
    assert "**Scale, 100000 chunks** — KnowledgeBase.open failed: InternalError: too many SQL variables" in text
    assert "| 100000 | 1 | – | – |" in text
    plot(result, tmp_path)
    assert (tmp_path / "bench-scale.png").stat().st_size > 0


def test_cold_start_is_a_goal_and_a_section_with_its_stages() -> None:
    result = _result()
    stages = {"imports": 900.0, "embedder": 300.0, "load_chunks": 200.0, "lexical_load": 150.0, "chunks": 2000}
    stages |= {"vectors_load": 20.0, "retriever_build": 180.0, "first_answer": 60.0, "total": 1700.0}
    row = {"ask_runs": [1800.0], "floor_runs": [950.0], "ask_peak_rss_mb": 300.0, "floor_peak_rss_mb": 100.0}
    result["cold_start"] = {
        "floor_command": 'python -c "import onnxruntime, tokenizers, chromadb"',
        "corpora": [
            {**row, "label": "corpus (benchmark corpus)", "command": "python app.py ask --json Q", "ask": 1800.0}
            | {"floor": 950.0, "ratio": 1.89, "stages_ms": stages},
            {**row, "label": "synthetic, 100000 chunks", "command": "python app.py ask --json --no-sync Q"}
            | {"ask": 9000.0, "floor": 950.0, "ratio": 9.47, "stages_ms": {"error": "MemoryError"}},
        ],
    }
    result["meta"]["plan"]["cold_rounds"] = 3
    result["goals"] = goals(result)
    cold = next(g for g in result["goals"] if g["goal"].startswith("cold"))
    assert cold["met"] and cold["value"] == "1.80 s (1.89×)"  # the benchmark corpus decides, not the synthetic one
    text = render_markdown(result)
    assert "## Cold start" in text and "| corpus (benchmark corpus) | 2000 | 1800.0 | 950.0 | 1.89× |" in text
    assert "| synthetic, 100000 chunks | **failed**: MemoryError |" in text
    assert "| corpus (benchmark corpus) | 900.0 | 300.0 | 200.0 | 150.0 | 20.0 | 180.0 | 60.0 | 1700.0 | 8% |" in text


def test_load_summary_places_failures_on_the_outage_timeline() -> None:
    from bench.load_clients import ERROR, OK, UNAVAILABLE, Record, summary
    from bench.load_test import timeline

    records = [
        Record(0, 1.0, 0.5, OK),
        Record(1, 9.5, 1.0, UNAVAILABLE),  # started before the cut at 10 s, still in flight then
        Record(0, 12.0, 0.1, UNAVAILABLE),
        Record(1, 14.0, 0.2, OK),  # the other replica kept answering
        Record(0, 16.0, 0.3, OK),
        Record(0, 17.0, 0.1, ERROR, "ConnectError"),  # after the outage: must show up as such
        Record(1, 3.0, 0.2, ERROR, "ReadTimeout"),  # before it
    ]
    got = summary(records, (10.0, 15.0))
    assert (got["requests"], got["ok"], got["unavailable"], got["errors"]) == (7, 3, 2, 2)
    assert (got["failed_in_outage"], got["failed_outside"], got["failed_after"]) == (2, 2, 1)
    assert got["ok_after"] == 1 and got["first_ok_after_s"] == 1.3
    assert got["p50_ms"] == 300.0 and got["per_replica"]["1"]["requests"] == 3
    assert [t["from_s"] for t in timeline(records)] == [0.0, 5.0, 10.0, 15.0]
    assert timeline(records)[2] == {"from_s": 10.0, "ok": 1, "unavailable": 1, "error": 0}


def test_a_blind_set_line_is_scored_as_its_writer_keyed_it(tmp_path: Path) -> None:
    """../shared/blind-sets.md's format: any one phrase of `any` (asterisks and backticks dropped), a part of
    the cited path, and the release the citation must be of, which is no filter on the search."""
    from types import SimpleNamespace

    from bench.evaluate import _score_one, load_questions

    path = tmp_path / "q.jsonl"
    path.write_text(
        '{"id": "ac01", "q": "What replaces foo?", "any": ["use **bar** instead", "gone"], '
        '"src": ["acme/CHANGES"], "ans": true, "version": "2.3.0"}\n'
        '{"id": "ac02", "q": "Does acme do baz?", "any": [], "src": [], "ans": false}\n',
        encoding="utf-8",
    )
    answerable, refusal = load_questions(path)
    assert answerable["version"] is None and refusal["answerable"] is False

    def kb(text: str, source: str, version: str) -> SimpleNamespace:
        cite = SimpleNamespace(source=source, version=version)
        answer = SimpleNamespace(text=text, found=True, citations=[cite], timings_ms={})
        return SimpleNamespace(ask=lambda *a, **k: answer)

    right = _score_one(kb("Use `bar` instead [1].", "acme/CHANGES.md", "2.3"), answerable)
    assert right["answer_ok"] and right["source_ok"]
    other_release = _score_one(kb("Use bar instead [1].", "acme/CHANGES.md", "2.2"), answerable)
    assert other_release["answer_ok"] and not other_release["source_ok"]
    assert not _score_one(kb("Nothing here [1].", "acme/CHANGES.md", "2.3"), answerable)["answer_ok"]


def test_the_fresh_blind_table_is_put_after_the_first_paragraph_once(tmp_path: Path) -> None:
    from bench import fresh_blind

    rows = tmp_path / "rows.jsonl"
    rows.write_text(
        '{"date": "2026-12-06", "project": "acme 1.0", "docs": "CHANGES", "questions": "32", "index": "alone", '
        '"answer": 0.8, "source": 0.76, "refusal": 0.857, "commit": "abc"}\n',
        encoding="utf-8",
    )
    page = tmp_path / "benchmarks.md"
    page.write_text("# Benchmarks\n\nIntro.\n\n## Goals\n\nx\n", encoding="utf-8")
    fresh_blind.update(page, rows)
    fresh_blind.update(page, rows)
    text = page.read_text(encoding="utf-8")
    assert text.count(fresh_blind.HEADING) == 1 and text.index("Intro.") < text.index(fresh_blind.HEADING)
    assert text.index(fresh_blind.HEADING) < text.index("## Goals")
    assert "| 2026-12-06 | acme 1.0 | CHANGES | 32 | alone | 0.80 | 0.76 | 0.86 | `abc` |" in text


def test_the_projects_used_are_named_as_the_registry_names_them(tmp_path: Path) -> None:
    # A new set's writer is told to avoid these: a project some set holds is not fresh. Folder names and pins
    # are read as the registry's names (scikit_learn-1.9.1.tar.gz is scikit-learn, tables-3.11.1 is tables).
    from bench import fresh_blind

    (tmp_path / "corpus" / "pytorch").mkdir(parents=True)
    (tmp_path / "corpus-more" / "Acme_Lib").mkdir(parents=True)
    used = fresh_blind.used([tmp_path / "corpus", tmp_path / "corpus-more"])
    assert {"pytorch", "acme-lib", "scikit-learn", "tables", "python-dateutil", "pywavelets", "pyopenssl"} <= set(used)
    assert {"h5py", "fabric", "nox", "django", "numpy"} <= set(used)
    assert not {"sklearn", "pytables", "dateutil"} & set(used) and used == sorted(set(used))


def test_the_scan_sets_table_is_kept_and_put_before_the_goals_once(tmp_path: Path) -> None:
    from bench import scan_quality

    page, rows = tmp_path / "benchmarks.md", tmp_path / "rows.jsonl"
    page.write_text("# Benchmarks\n\nIntro.\n\n## Goals\n\nx\n", encoding="utf-8")
    row = {"set": "acme", "span": "acme 1 → 2", "files": 3, "labels": 4, "found": 2, "recall": 0.5,
           "false_lines": 1, "precision": 0.667, "possible_lines": 0, "scan_seconds": 0.1,
           "peer": {"tool": "acme-lint 1.0 (`acme-lint .`)", "found": 1, "recall": 0.25, "false_lines": 3}}  # fmt: skip
    first = tmp_path / "first.jsonl"
    first.write_text(
        '{"span": "acme 1 → 2", "when": "stop 9", "labels": 4, "found": 1, "false_lines": 3, "precision": 0.25}\n',
        encoding="utf-8",
    )
    scan_quality.write([row], page, rows, first)
    scan_quality.write([row], page, rows, first)
    text = page.read_text(encoding="utf-8")
    assert text.count(scan_quality.HEADING) == 1 and text.index(scan_quality.HEADING) < text.index("## Goals")
    assert "| acme 1 → 2 | 3 | 4 | 2 (0.50) | 1 (0.67) | 0 | acme-lint 1.0: 1 (0.25) | 3 | 0.1 |" in text
    assert text.count("| acme 1 → 2 | stop 9 | 4 | 1 (0.25) | 3 (0.25) |") == 1


def test_a_scan_set_manifest_is_data_never_a_path_to_write_through(tmp_path: Path) -> None:
    from bench import fetch_scan_sets

    with pytest.raises(ValueError, match="plain file name"):
        fetch_scan_sets._safe_name("../escape.py")
    (tmp_path / "x.py").write_bytes(b"print(1)\n")
    rows = [{"file": "x.py", "repo": "o/r", "path": "x.py", "commit": "0" * 40, "sha256": "0" * 64}]
    with mock.patch.object(fetch_scan_sets, "manifest", lambda name: rows):
        placed, problems = fetch_scan_sets.fetch("demo", tmp_path / "out", local=tmp_path)
    assert placed == 0 and "sha256 differs" in problems[0] and not (tmp_path / "out" / "demo" / "x.py").exists()


def test_a_scan_sets_docs_come_from_its_sdist_by_digest_and_only_as_regular_files(tmp_path: Path) -> None:
    import hashlib
    import io
    import tarfile

    from bench import fetch_scan_sets

    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w:gz") as tar:
        for name, data in (
            ("acme-2.0/doc/release/release_2.0.rst", b"Removed `acme.old`.\n"),
            ("acme-2.0/CHANGES.rst", b"Version 2.0\n-----------\n\n- Removed `acme.old`.\n"),
        ):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("acme-2.0/doc/release/release_2.1.rst")  # a link to elsewhere: never followed
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(link)
    data = archive.getvalue()
    url = "https://pypi.example/packages/acme-2.0.tar.gz"
    about = {
        "product": "acme",
        "sdist": f"{url}#sha256={hashlib.sha256(data).hexdigest()}",
        "folder": "doc/release",
        "files": {"release_2.0.rst": "2.0", "release_2.1.rst": "2.1"},
    }
    response = mock.MagicMock()
    response.__enter__.return_value.read.return_value = data
    with (
        mock.patch.object(fetch_scan_sets, "spec", lambda name: about),
        mock.patch.object(fetch_scan_sets.urllib.request, "urlopen", return_value=response),
    ):
        placed, problems = fetch_scan_sets.fetch_docs("demo", tmp_path)
        assert (placed, len(problems)) == (1, 1) and "release_2.1.rst is not a regular file" in problems[0]
        assert (tmp_path / "acme" / "2.0" / "release_2.0.rst").read_text() == "Removed `acme.old`.\n"
        assert not (tmp_path / "acme" / "2.1").exists()
        # a changelog of every release, at the archive's top: beside the product's other files
        about.update(folder="", files={"CHANGES.rst": ""})
        placed, problems = fetch_scan_sets.fetch_docs("demo", tmp_path / "top")
        assert (placed, problems) == (1, []) and (tmp_path / "top" / "acme" / "CHANGES.rst").is_file()
        about["sdist"] = f"{url}#sha256={'0' * 64}"  # another archive than the one named: nothing written
        (tmp_path / "acme" / "2.0" / "release_2.0.rst").unlink()
        placed, problems = fetch_scan_sets.fetch_docs("demo", tmp_path)
    assert placed == 0 and "sha256 differs" in problems[0] and not list((tmp_path / "acme").rglob("*.rst"))


def test_guide_plans_counts_the_topics_under_breaking_changes() -> None:
    from bench.guide_plans import topics

    guide = (
        "# V5 Migration Guide\n\n## Long Term Support\n\n### Why Node 20?\n\n## Breaking Changes\n\n"
        "### Removed `app.use()` ([#3506](https://example.com/3506))\n\n#### Before\n\n### `reply.res` moved\n\n"
        "## New Features\n\n### Diagnostics\n"
    )
    assert topics(guide) == ["Removed app.use() (#3506)", "reply.res moved"]


@pytest.mark.slow  # a whole evaluation with its index: over a second, in CI's slow tier
def test_evaluate_scores_a_baseline_on_any_question_file(
    tmp_path: Path, fake_kb, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from bench import baselines, evaluate

    questions = tmp_path / "q.jsonl"
    rows = [
        {
            "id": "a1",
            "question": "Why does torchrun no longer use port 29500?",
            "answerable": True,
            "lang": "en",
            "must_contain": ["29500"],
            "sources": ["pytorch/2.12.0/migration-guide.txt"],
            "version": None,
        },
        {
            "id": "a2",
            "question": "What replaces the flux capacitor in PyTorch 2.12?",
            "answerable": False,
            "lang": "en",
            "must_contain": [],
            "sources": [],
            "version": None,
        },
    ]
    questions.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    monkeypatch.setattr(evaluate, "_open_kb", lambda *args, **kwargs: fake_kb)
    built: list[str] = []
    real = baselines.baseline_kb
    monkeypatch.setattr(
        baselines, "baseline_kb", lambda kb, kind, embedder: built.append(kind) or real(kb, kind, embedder)
    )
    for system in ("reldocs", "bm25", "dense"):
        args = ["--questions", str(questions), "--corpus", str(tmp_path), "--index", str(tmp_path / "i"), "--json"]
        assert evaluate.main([*args, "--system", system]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["system"] == system and report["questions"] == 2
    assert built == ["bm25", "dense"]  # the same index, gate and answerer; only retrieval is the baseline's
    with pytest.raises(SystemExit):
        evaluate.main(["--system", "grep"])
    assert "invalid choice: 'grep'" in capsys.readouterr().err


def test_scoring_one_scan_set_keeps_the_other_sets_rows() -> None:
    from bench import scan_quality

    rows = [
        {"set": "a", "mode": "files", "installed": "", "found": 1},
        {"set": "b", "mode": "files", "installed": "", "found": 2},
        {"set": "a", "mode": "files", "installed": "a 1.0", "found": 3},
        {"set": "a", "mode": "repositories", "installed": "", "found": 4},
    ]
    new = {"set": "a", "mode": "files", "installed": "", "found": 9}
    kept = scan_quality.merged(rows, [new], "files", False)
    assert [r["found"] for r in kept] == [9, 2, 3, 4]  # in its place
    other = {"set": "c", "mode": "files", "installed": "", "found": 7}
    assert [r["found"] for r in scan_quality.merged(rows, [other], "files", False)] == [1, 2, 3, 4, 7]


@pytest.mark.slow  # fits some two thousand small models (scikit-learn)
def test_the_gate_model_is_fitted_and_scored_one_family_left_out() -> None:
    from bench import fit_gate

    def row(family: str, answerable: bool, coverage: float, right: bool) -> dict[str, object]:
        evidence = dict.fromkeys(("topic", "similarity", "absent", "symbols", "names", "sibling", "single"), 0.0)
        evidence.update(coverage=coverage, agree=1.0, focus=1.0, passages=3)
        return {
            "family": family,
            "answerable": answerable,
            "evidence": evidence,
            "today_ok": right,
            "through_ok": right,
            "through_found": True,
        }

    rows = [
        row(f, answerable, coverage, answerable)
        for f in ("a", "b", "c")
        for answerable, coverage in ((True, 0.9), (True, 0.8), (True, 0.7), (False, 0.1), (False, 0.2))
    ]
    report = fit_gate.fit([*rows, {**rows[0], "evidence": None}])
    assert "coverage" in report["features"] and report["weights"]["coverage"] > 0
    # each family, decided by a model of the other two, is right on all five questions
    assert {f: r["left_out"] for f, r in report["families"].items()} == {"a": 5, "b": 5, "c": 5}
    assert report["not_weighed"] == 1


@pytest.mark.slow  # fits some two thousand small models (scikit-learn)
def test_the_gate_model_in_the_tuning_is_the_one_fitted_on_the_kept_evidence() -> None:
    from assistant.tuning import DEFAULT
    from bench import fit_gate

    rows = [json.loads(line) for line in fit_gate.DEFAULT_OUT.read_text(encoding="utf-8").splitlines() if line]
    report = fit_gate.fit(rows)
    assert tuple((k, round(v, 3)) for k, v in report["weights"].items()) == DEFAULT.gate.model
    assert report["threshold"] == DEFAULT.gate.threshold


@pytest.mark.slow  # fits some hundred small models (scikit-learn)
def test_the_sentence_weights_are_fitted_as_a_ranking_one_family_left_out() -> None:
    from bench import fit_sentences

    # Two families whose right sentence covers more of the question than the wrong one, though it ranks lower.
    def question(family: str) -> dict[str, object]:
        rows = [[0.4, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0], [0.9, 0.0, 0.9, 0.0, 0.0, 0.0, 1.0]]
        return {"family": family, "rows": rows}

    report = fit_sentences.fit([question("a"), question("b"), question("a")])
    weights = dict(report["weights"])
    assert weights["coverage"] == 1.0 and report["families"]["a"]["left_out"] == 2
    assert fit_sentences.first_right([question("a")], [1.0, 0, 0, 0, 0, 0]) == 1
    assert fit_sentences.first_right([question("a")], [0, 0, 1.0, 0, 0, 0]) == 0  # the retrieval rank alone


@pytest.mark.slow  # fits some hundred small rankings (scikit-learn), about 30 s
def test_the_sentence_weights_in_the_tuning_are_the_ones_fitted_on_the_kept_features() -> None:
    from assistant.tuning import DEFAULT
    from bench import fit_sentences

    text = fit_sentences.DEFAULT_OUT.read_text(encoding="utf-8")
    report = fit_sentences.fit([json.loads(line) for line in text.splitlines() if line])
    assert tuple((n, w) for n, w in report["weights"]) == DEFAULT.search.sentence_model


def test_the_ablations_table_tests_exist() -> None:
    # A table test deleted with its rule must leave the list too, or every ablation's pytest run stops at once.
    from bench.ablation_report import FAST_TESTS

    root = Path(__file__).resolve().parent.parent
    for entry in FAST_TESTS:
        path, _, name = entry.partition("::")
        assert (root / path).is_file(), entry
        assert not name or f"def {name}(" in (root / path).read_text(encoding="utf-8"), entry


def test_scan_quality_lists_each_miss_and_false_line_with_what_the_scan_said_there() -> None:
    from assistant.upgrade.findings import Finding
    from bench import scan_quality

    labels = [
        {"file": "a.py", "line": 3, "kind": "removed", "symbol": "p.x"},
        {"file": "a.py", "line": 5, "kind": "removed", "symbol": "p.y"},
        {"file": "b.py", "line": 1, "kind": "deprecated", "symbol": "p.z"},
    ]
    findings = [
        Finding("dir/a.py", 3, 1, "x()", "p.x", "c1", True),
        Finding("dir/a.py", 5, 1, "o.y", "p.Y.y", "c2", False),
        Finding("dir/a.py", 9, 1, "w()", "p.w", "c3", True),
    ]
    out = scan_quality._misses(labels, labels[:1], {("a.py", 3), ("a.py", 9)}, findings)
    assert [(m["file"], m["line"], m["said"]) for m in out["missed"]] == [
        ("a.py", 5, ["possible p.Y.y c2"]),
        ("b.py", 1, []),
    ]
    assert out["false"] == [{"file": "a.py", "line": 9, "said": ["exact p.w c3"]}]
