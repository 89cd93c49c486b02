"""Pins for the heuristics that read the docs' and the question's wording: each test is a case one heuristic
decides, and fails when `bench/ablation.py --pytest NAME` switches it off (no model, no index).

Expected values are written out, not imported: the ablation changes the tuned values before this module loads.
"""

from __future__ import annotations

from assistant.answer.extractive import ExtractiveAnswerer
from assistant.gate.refusals import unknown_names
from assistant.index.catalog import Catalog
from assistant.model.document import Entry
from assistant.model.query import topic
from assistant.model.records import Passage
from assistant.model.units import units_of
from assistant.understand.query import build_query, proper_names
from tests.test_answer_rules import Stats
from tests.test_heuristic_pins import after_search, answer, make, ranked


def test_a_sentence_about_how_things_were_brings_how_they_are() -> None:
    # _THEN. The question's words are all in the sentence about V1; the one after it, which shares none of
    # them, is the answer: without it the user reads only what used to happen.
    said = (
        "In V1, whenever a field was annotated as `int`, any float value was accepted. "
        "Conversion to integers is now only allowed if the decimal part is zero."
    )
    chunks = [make(entries=(Entry("paragraph", said),), n=0), make("Field order is kept in schemas.", n=1)]
    text = answer("Why does an int field accept a float value in V1 but not in V2?", chunks)
    assert "decimal part is zero" in text
    # The entry goes on about the question's words, so its rest (ENTRY_REST) fills the quote without the change.
    said = (
        "Saving an empty image would previously raise a `SystemError`. That has now been changed to a `ValueError`. "
        "Saving an empty image as GIF also raised a `SystemError`. Saving an empty image as PNG raised a "
        "`SystemError` as well."
    )
    chunks = [make(entries=(Entry("paragraph", said),), n=0), make("This adds no new errors to saving.", n=1)]
    assert "`ValueError`" in answer("Does saving an empty image still raise SystemError?", chunks)


def test_one_line_of_code_is_quoted_with_the_sentence_introducing_it() -> None:
    # SHOWN_CODE_CHARS. The tool's name is only in the command; the short sentence introducing it would
    # otherwise be dropped as a mere introduction, and the answer would not name the tool.
    chunks = [
        make(
            entries=(
                Entry("paragraph", "A code transformation tool helps you migrate your code."),
                Entry("paragraph", "You can install the tool from PyPI:"),
                Entry("code", "pip install bump-pydantic"),
            ),
            n=0,
        )
    ]
    text = answer("How do I install the migration tool?", chunks)
    assert "`pip install bump-pydantic`" in text


def test_shown_code_is_quoted_but_not_matched() -> None:
    # SHOWN_CODE_CHARS. The code shown is the reader's to copy; its names do not make the sentence about them.
    entries = (Entry("paragraph", "Imports look like this:"), Entry("code", "from pkg.v1.fields import Thing"))
    (unit,) = units_of(make(entries=entries))
    assert unit.text.endswith("`from pkg.v1.fields import Thing`") and "thing" not in unit.tokens


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


def test_what_a_question_asks_the_versions_of_is_a_name() -> None:
    # _VERSIONS_OF. "polars" is lower case, yet it is what the question is about: docs that never name it
    # cannot answer "the minimum version of polars", however well they list other minimum versions.
    question = "What is the minimum version of polars supported by pandas 3.0?"
    assert "polars" in proper_names(question)
    chunks = [make("The minimum supported version of NumPy is 1.26.0.", version="3.0.0")]
    query = build_query(question, Catalog.learn(chunks))
    assert unknown_names(query, Stats(chunks)) == ["polars"]


def test_a_package_named_after_the_product_is_no_topic_word() -> None:
    # _of_product (query.py). "pandas-stubs" says whose docs to read, as "pandas" does: a passage sharing only
    # that name shares nothing of "type-checking with several threads".
    chunks = [
        make("Type hints for `pandas-stubs` users are generated now.", version="2.0.0", n=0),
        make("Pandas 2.0 removes deprecated readers.", version="2.0.0", n=1),
    ]
    query = build_query("How do I make pandas-stubs type-check with several threads?", Catalog.learn(chunks))
    assert "pandas-stub" in query.product_terms and "pandas-stub" not in topic(query).terms
    close = [Passage(c, 1.0 - i / 100, similarity=0.6) for i, c in enumerate(chunks)]
    answerer, stats = ExtractiveAnswerer(Stats(chunks)), Stats(chunks)
    best, about = answerer.best_coverage(query, close), answerer.best_coverage(topic(query), close)
    reason = after_search(query, close, stats, best, about)
    assert reason is not None and reason.kind == "weak_evidence"
    # A hyphenated name of no product's stays a topic word.
    assert build_query("Does pyarrow-backed mean faster?", Catalog.learn(chunks)).product_terms == ()


def test_a_sentence_saying_what_no_longer_happens_brings_what_does() -> None:
    # _THEN, "no longer". The question's words are in the first sentence; the second says what happens now.
    said = "Unrecognized options in the configuration file are no longer errors. They are now warnings."
    chunks = [make(entries=(Entry("paragraph", said),), n=0), make("Configuration files may be TOML.", n=1)]
    text = answer("Are unrecognized options in my configuration file still errors?", chunks)
    assert "now warnings" in text


def test_a_question_whether_a_problem_was_fixed_asks_the_releases_after_the_one_it_names() -> None:
    # _FIXED_LATER. "On 2.1.0 this fails: which release fixed it?" is about 2.2.0 and later; "was it fixed in
    # 2.1.0?" stays with 2.1.0.
    catalog = Catalog.of_versions(["2.0.0", "2.1.0", "2.2.0", "3.0.0"])
    asked = build_query("On 2.1.0 the reader rejects long lines. Which release fixed that?", catalog)
    assert set(asked.prefer) == {"2.2.0", "3.0.0"}
    assert build_query("Après le passage à 2.1.0 : existe-t-il une version corrigée ?", catalog).prefer != ("2.1.0",)
    assert build_query("Was the long-line bug fixed in 2.1.0?", catalog).prefer == ("2.1.0",)
    for question in ("On 2.1.0 it fails. Is there a release that fixes that?", "Which release made it actually work?"):
        assert build_query(question.replace("Which", "On 2.1.0 it fails. Which"), catalog).asks_fixed, question


def test_a_question_about_later_releases_asks_the_releases_after_the_one_it_names() -> None:
    # _LATER_RELEASES. "With 2.1.0 the default changed. What is it in later releases?": 2.1.0 is where the asker
    # stands; the releases after it are asked of.
    catalog = Catalog.of_versions(["2.0.0", "2.1.0", "2.2.0", "3.0.0"])
    for question in (
        "With 2.1.0 the footnotes are sorted by reference. What is the default in later releases?",
        "Avec 2.1.0 les notes sont triées autrement. Quel est le défaut dans les versions suivantes ?",
    ):
        query = build_query(question, catalog)
        assert set(query.prefer) == {"2.2.0", "3.0.0"}, question
    # "since then" is the release it names: "I upgraded to 2.1.0 and since then ..." asks of 2.1.0.
    assert build_query("I upgraded to 2.1.0 and since then footnotes moved. Why?", catalog).prefer == ("2.1.0",)


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
    reason = after_search(bare, apart, stats, 0.24, 0.24)
    assert reason is not None and reason.kind == "weak_evidence"
    # Where both searches put one passage first, or where a sentence shares most of its words, it answers.
    together = [Passage(c, 1.0, similarity=0.6, both=i == 0) for i, c in enumerate(chunks)]
    assert after_search(bare, together, stats, 0.24, 0.24) is None
    assert after_search(bare, apart, stats, 0.8, 0.8) is None
    # Told what happened first ("X fails after upgrading."), the docs say it in their own words: it answers.
    told = build_query("My app's dependency injection broke. How do I migrate it?", Catalog.learn(chunks))
    assert after_search(told, apart, stats, 0.24, 0.24) is None
