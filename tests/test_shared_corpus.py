"""Quality over ../shared/corpus (PyTorch 2.7–2.12): versions and the evaluation set's floors."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.knowledge_base import KnowledgeBase
from bench.evaluate import evaluate, load_questions

pytestmark = pytest.mark.slow
QUESTIONS = Path(__file__).resolve().parents[1] / "bench" / "questions.jsonl"


def test_named_version_is_preferred(shared_kb: KnowledgeBase) -> None:
    passages = shared_kb.search("What was deprecated in 2.11?", k=5)
    assert passages[0].chunk.version == "2.11.0"
    only = shared_kb.search("deprecated", k=10, version="2.10")
    assert {p.chunk.version for p in only} == {"2.10.0"}


def test_exact_symbol_beats_embeddings(shared_kb: KnowledgeBase) -> None:
    top = shared_kb.search("TORCH_COMPILE_OVERRIDE_BACKENDS", k=1)[0]
    assert "TORCH_COMPILE_OVERRIDE_BACKENDS" in top.chunk.text


def test_evaluation_set_floors(shared_kb: KnowledgeBase) -> None:
    metrics = evaluate(shared_kb, load_questions(QUESTIONS))
    rates = {k: metrics[k]["rate"] for k in ("answer_acc", "source_acc", "refusal_acc")}
    assert rates["answer_acc"] >= 0.88, rates
    assert rates["source_acc"] >= 0.93, rates
    assert rates["refusal_acc"] >= 0.9, rates
