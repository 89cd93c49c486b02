"""Pins for reading version bounds ("Python < 3.7", "3.10 or later") in questions about a dropped version:
the table of what a bound says of a number, and the ranking and refusal it changes (no model, no index)."""

from __future__ import annotations

import pytest

from assistant.answer.extractive import ExtractiveAnswerer
from assistant.gate.refusals import Reason
from assistant.index.catalog import Catalog
from assistant.model.records import Passage
from assistant.text.bounds import bounds, says_dropped, says_so
from assistant.text.words import tokens
from assistant.understand.query import build_query
from tests.test_answer_rules import Stats
from tests.test_heuristic_pins import after_search, ranked
from tests.test_heuristic_pins_changelogs import logged


@pytest.mark.parametrize(
    ("sentence", "number", "dropped"),
    [
        ("Dropped support for Python < 3.7.", "3.7", False),
        ("Dropped support for Python < 3.7.", "3.6", True),
        ("Require Python 3.10 or later.", "3.9", True),
        ("Require Python 3.9 or later. (#4718)", "3.9", False),
        ("Require Python 3.10 or later.", "3.6", None),  # where 3.9 was dropped, not 3.6
        ("Python 3.8+ is now required.", "3.7", True),
        ("requires Python >= 3.8", "3.7", True),
        ("Python 3.6 and earlier are no longer supported.", "3.6", True),
        ("Python 3.6 and earlier are no longer supported.", "3.7", False),
        ("Support for Python versions before 3.8 was removed.", "3.7", True),
        ("Dropped support for Python 3.7.0 and below.", "3.7", True),
        ("The minimum supported Python version is now 3.9.", "3.8", True),
        ("Supports Python 3.9+ and PyPy.", "3.9", False),
        ("Drop support for Python 3.9.", "3.9", None),  # no bound: the number is read as written
        ("Add support for Python 3.12.", "3.11", None),
        ("Subclassing raises an error on Python 3.10+.", "3.9", None),  # no statement of what is supported
    ],
)
def test_what_a_bound_says_of_a_number(sentence: str, number: str, dropped: bool | None) -> None:
    assert says_dropped(sentence, number) is dropped


@pytest.mark.parametrize(
    ("sentence", "said"),
    [
        ("Drop support for Python 3.9.", True),
        ("Python 3.9 is no longer supported.", True),
        ("Removed: Support for Python 3.9.", True),  # a Keep a Changelog "Removed" section, read with its name
        ("Require Python 3.10 or later.", True),
        ("Raise `TypeError` when subclassing `ParamSpec` on Python 3.9.", False),  # changed on it, not dropped
        ("Dropped support for Python 3.8.", False),
        ("Require Python 3.9 or later.", False),
    ],
)
def test_only_a_sentence_saying_support_ended_answers_whether_it_did(sentence: str, said: bool) -> None:
    assert says_so(sentence, "3.9") is said


def test_a_number_is_read_by_its_first_bound() -> None:
    assert [(b.op, b.number, b.dropping) for b in bounds("Drop Python < 3.8; require Python 3.9+ and CUDA 12.1.")] == [
        ("<", "3.8", True),
        (">=", "3.9", False),
    ]


def test_the_release_that_requires_the_next_version_dropped_this_one() -> None:
    # A question about a dropped version is answered by a bound one above it, not by a sentence that merely
    # names the version, nor by a bound that keeps it.
    chunks = [
        logged("Restored AIX support on Python 3.9 when installing scripts.", version="45.2.0"),
        logged("Require Python 3.9 or later.", version="75.4.0", n=1),
        logged("Require Python 3.10 or later.", version="83.0.0", n=2),
    ]
    assert ranked("Which release stopped supporting Python 3.9?", chunks)[0] == "Require Python 3.10 or later."


def test_a_bound_that_keeps_the_version_is_no_evidence_it_was_dropped() -> None:
    def reason(question: str, said: str) -> Reason | None:
        chunks = [logged(said)]
        query = build_query(question, Catalog.learn(chunks))
        passage, stats = Passage(chunks[0], 1.0, similarity=0.9), Stats(chunks)
        best = ExtractiveAnswerer(stats).best_coverage(query, [passage])  # as much of the question as it holds
        return after_search(query, [passage], stats, best, best=frozenset(tokens(said)), best_text=said)

    refused = reason("Was Python 3.7 support dropped in 4.0.0?", "Dropped support for Python < 3.7.")
    assert refused is not None and refused.kind == "weak_evidence"
    refused = reason("Which release dropped support for Python 3.9?", "Raise `TypeError` on Python 3.9.")
    assert refused is not None and refused.kind == "weak_evidence"
    assert reason("Was Python 3.6 support dropped in 4.0.0?", "Dropped support for Python < 3.7.") is None
