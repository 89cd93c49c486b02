"""Pins for the heuristics that read the docs' and the question's wording: each test is a case one heuristic
decides, and fails when `bench/ablation.py --pytest NAME` switches it off (no model, no index).

Expected values are written out, not imported: the ablation changes the tuned values before this module loads.
"""

from __future__ import annotations

from assistant.index.catalog import Catalog
from assistant.model.document import Entry
from assistant.model.records import Passage
from assistant.understand.query import build_query
from tests.test_answer_rules import Stats
from tests.test_heuristic_pins import after_search, answer, make, ranked


def test_british_and_american_spellings_meet() -> None:
    # _BRITISH. The asker writes "behaviour", the docs "behavior".
    chunks = [
        make("Unions of `str` and `int` are now checked in order.", n=0),
        make("The behavior of unions changed to smart mode.", n=1),
    ]
    assert ranked("What changed in the behaviour of unions?", chunks)[0].startswith("The behavior of unions")


def test_what_can_be_done_meets_doing_it() -> None:
    # _ABLE (text.py). The asker wants to pickle; the docs say "pickleable", which Snowball keeps whole.
    chunks = [
        make("`Path` objects are now faster to build.", n=0),
        make("`Path` objects are now pickleable.", n=1),
    ]
    assert ranked("Can I pickle a Path?", chunks)[0] == "`Path` objects are now pickleable."


def test_a_decorator_is_not_the_word_it_spells() -> None:
    # _TOKEN's "@" (text.py). `@validator` is neither "validate" nor `@root_validator`: the passage about the
    # decorator asked about ranks first though another passage, about its sibling, is retrieved first.
    chunks = [
        make("`@root_validator` is deprecated; use `@model_validator` instead.", n=0),
        make("`@validator` is deprecated; use `@field_validator` instead.", n=1),
    ]
    assert ranked("@validator is deprecated. What should I use?", chunks)[0].startswith("`@validator`")


def test_a_question_whether_a_problem_was_fixed_asks_the_releases_after_the_one_it_names() -> None:
    # _FIXED_LATER. "On 2.1.0 this fails: which release fixed it?" is about 2.2.0 and later; "was it fixed in
    # 2.1.0?" stays with 2.1.0.
    catalog = Catalog.of_versions(["2.0.0", "2.1.0", "2.2.0", "3.0.0"])
    asked = build_query("On 2.1.0 the reader rejects long lines. Which release fixed that?", catalog)
    assert set(asked.prefer) == {"2.2.0", "3.0.0"}
    assert build_query("Après le passage à 2.1.0 : existe-t-il une version corrigée ?", catalog).prefer != ("2.1.0",)
    assert build_query("Was the long-line bug fixed in 2.1.0?", catalog).prefer == ("2.1.0",)
    assert build_query("The reader rejects long lines. Was it fixed in 2.1.0?", catalog).prefer == ("2.1.0",)
    for question in ("On 2.1.0 it fails. Is there a release that fixes that?", "Which release made it actually work?"):
        assert build_query(question.replace("Which", "On 2.1.0 it fails. Which"), catalog).asks_fixed, question


def test_asked_whether_a_problem_was_fixed_the_entry_brings_the_sentence_saying_so() -> None:
    # _FIXED_LATER (then-now). The entry describes the problem first; the sentence after it says it was fixed.
    said = "Installing 4.0.0 copies the source tree into site-packages. This issue has been rectified."
    chunks = [make(entries=(Entry("item", said),), version="4.0.1"), make("Faster routing.", version="4.0.0", n=1)]
    question = "Installing 4.0.0 copied the source tree into my site-packages. Is there a release that fixes that?"
    assert "This issue has been rectified." in answer(question, chunks)


def test_a_bare_question_the_two_searches_disagree_on_needs_more_of_its_words() -> None:
    # _bare and Passage.both (AGREEMENT_HEADS). Close in meaning but sharing few words, and found first by
    # neither search together: a one-sentence question asks for what the docs lack.
    chunks = [
        make("In order to unpin a `pydantic<2` dependency, take the following steps.", version="2.0.0", n=0),
        make("Validators no longer wrap a `TypeError` (such as with FastAPI).", version="2.0.0", n=1),
    ]
    stats = Stats(chunks)
    apart = [Passage(c, 1.0 - i / 100, similarity=0.6, both=False) for i, c in enumerate(chunks)]
    bare = build_query("How do I migrate my FastAPI app's dependency injection?", Catalog.learn(chunks))
    reason = after_search(bare, apart, stats, 0.24)
    assert reason is not None and reason.kind == "weak_evidence"
    # Where both searches put one passage first, or where a sentence shares all its words, it answers.
    together = [Passage(c, 1.0, similarity=0.6, both=i == 0) for i, c in enumerate(chunks)]
    assert after_search(bare, together, stats, 0.24) is None
    assert after_search(bare, apart, stats, 1.0) is None
    # Told what happened first ("X fails after upgrading."), the docs say it in their own words: it answers.
    told = build_query("My app's dependency injection broke. How do I migrate it?", Catalog.learn(chunks))
    assert after_search(told, apart, stats, 0.24) is None
