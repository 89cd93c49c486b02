"""The gate's fitted model: the evidence it weighs, named, and the refusal it decides where `GateTuning.model` is
set (no model file, no index: the evidence is made here)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from assistant.gate.evidence import FEATURES, Evidence, probability
from assistant.gate.refusals import evidence, judge
from assistant.index.catalog import Catalog
from assistant.model.records import Passage
from assistant.text.words import tokens
from assistant.tuning import DEFAULT
from assistant.understand.query import build_query
from tests.test_answer_rules import Stats
from tests.test_heuristic_pins import make

STRONG = Evidence(0.8, 0.7, True, (), (), True, False, False, passages=4)
MODEL = DEFAULT.with_values(gate__model=(("bias", -3.0), ("coverage", 5.0), ("absent", -1.5)), gate__threshold=0.5)


def test_the_features_are_named_and_bounded() -> None:
    features = replace(STRONG, symbols=("a", "b"), names=("c", "a")).features()
    assert tuple(features) == FEATURES
    assert features["absent"] == 2.0 and features["symbols"] == 2.0  # counted up to two
    assert replace(STRONG, symbols=("a",), names=("a",)).features()["absent"] == 1.0  # each name once
    assert features["agree"] == 1.0 and features["sibling"] == 0.0


def test_the_model_answers_strong_evidence_and_refuses_weak() -> None:
    assert probability(STRONG, dict(MODEL.gate.model)) > 0.5
    assert judge(STRONG, MODEL) is None
    weak = replace(STRONG, coverage=0.2)
    assert probability(weak, dict(MODEL.gate.model)) < 0.5
    reason = judge(weak, MODEL)
    assert reason is not None and reason.kind == "weak_evidence"


def test_a_name_no_document_holds_is_weighed_not_final() -> None:
    # A name the docs lack ("price", the asker's own column) weighs against answering, with the rest: a strong
    # sentence still answers it; with weak evidence it is refused, and the refusal names it.
    one = replace(STRONG, coverage=1.0, names=("price",))
    assert judge(one, DEFAULT) is None and judge(one, MODEL) is None
    weak = replace(one, coverage=0.3, single=True)
    assert judge(replace(weak, names=()), DEFAULT) is None
    reason = judge(weak, DEFAULT)
    assert reason is not None and reason.kind == "unknown_names" and reason.names == ("price",)
    two = replace(STRONG, coverage=1.0, names=("price", "qty"))
    reason = judge(two, MODEL)
    assert reason is not None and reason.kind == "unknown_names" and reason.names == ("price", "qty")


def test_no_passage_is_no_answer_whatever_the_model() -> None:
    always = DEFAULT.with_values(gate__model=(("bias", 50.0),), gate__threshold=0.0)
    assert judge(replace(STRONG, passages=0), always) is not None


def test_the_evidence_is_what_the_rules_weighed() -> None:
    chunks = [make("`DataFrame.append` has been removed; use `concat` instead.", version="2.0.0", n=0)]
    query = build_query("What replaces DataFrame.append in 2.0?", Catalog.learn(chunks))
    words = frozenset(tokens(chunks[0].text))
    found = evidence(query, [Passage(chunks[0], 1.0, similarity=0.55, both=True)], Stats(chunks), 0.9, best=words)
    assert (found.coverage, found.similarity, found.agree) == (0.9, 0.55, True)
    assert found.absent == () and found.focus and not found.sibling and found.single
    assert found.passages == 1
    # Its rarest word elsewhere, the best sentence is only near it.
    other = frozenset(tokens("`DataFrame.pipe` is kept."))
    near = evidence(query, [Passage(chunks[0], 1.0, similarity=0.55, both=True)], Stats(chunks), 0.9, best=other)
    assert not near.focus


def test_a_weight_of_no_feature_is_an_error() -> None:
    # A misspelt feature would otherwise leave its feature unweighed, silently.
    with pytest.raises(ValueError, match="coverge"):
        probability(STRONG, {"bias": 0.0, "coverge": 1.0})


def test_a_refusal_names_the_absent_names_only_when_they_are_why() -> None:
    # Weak evidence with a name the docs lack is weak evidence (and a release asked about is searched again);
    # evidence that would answer but for the name is refused for the name.
    hopeless = replace(STRONG, coverage=0.0, agree=False, single=True, names=("price",))
    reason = judge(hopeless, DEFAULT)
    assert reason is not None and reason.kind == "weak_evidence" and reason.names == ("price",)  # still said
    tipped = replace(STRONG, coverage=0.3, single=True, names=("price",))
    reason = judge(tipped, DEFAULT)
    assert reason is not None and reason.kind == "unknown_names"
