"""Pins for the heuristics that read a changelog's entries, one change each, and questions about removals:
each test is a case one heuristic decides, and fails when `bench/ablation.py --pytest NAME` switches it off
(no model, no index).

Expected values are written out, not imported: the ablation changes the tuned values before this module loads.
"""

from __future__ import annotations

from dataclasses import replace

from assistant.answer.extractive import ExtractiveAnswerer
from assistant.gate.refusals import Reason
from assistant.index.catalog import Catalog
from assistant.model.document import Entry
from assistant.model.records import Chunk, Passage
from assistant.text.words import tokens
from assistant.understand.query import build_query
from tests.test_answer_rules import Stats
from tests.test_heuristic_pins import after_search, answer, make, ranked


def logged(*items: str, version: str = "4.0.0", n: int = 0) -> Chunk:
    """A chunk of a many-release changelog: each item one change."""
    return replace(make(entries=tuple(Entry("item", i) for i in items), version=version, n=n), kind="changelog")


def test_a_changelog_sentence_ranks_by_what_its_whole_entry_covers() -> None:
    # The sentence scores' `entry` feature. The entry that answers says "callback" in one sentence and "decoded
    # array" in the next; a look-alike entry holds as many of the question's words in one sentence, and opens its entry.
    chunks = [
        logged("Encoding a tuple as an array is now faster.", n=0),
        logged("Added the `on_array` callback. It receives each decoded array and returns its replacement.", n=1),
    ]
    best = ranked("Can a callback turn each decoded array into a tuple?", chunks)[0]
    assert best in ("Added the `on_array` callback.", "It receives each decoded array and returns its replacement.")


def test_a_release_notes_sentence_keeps_its_own_coverage() -> None:
    # The sentence scores' `entry` feature is a changelog's only: a release note's paragraph may discuss several
    # changes, so its sentences weigh what they cover themselves.
    said = "Added the `on_array` callback. It receives each decoded array and returns its replacement."
    chunks = [make(entries=(Entry("item", said),)), logged(said, n=1)]
    query = build_query("Can a callback turn each decoded array into a tuple?", Catalog.learn(chunks))
    found = ExtractiveAnswerer(Stats(chunks)).features(query, [Passage(c, 1.0) for c in chunks])
    entry = {(p, u): row[1] for p, u, _, row in found}  # the coverage the entry adds to the sentence's own
    assert entry[(0, 1)] == 0.0 and entry[(1, 1)] > 0.0


def test_a_question_about_something_gone_ranks_the_entry_that_removed_it_first() -> None:
    # The sentence scores' `gone` feature. Both entries name the function as often; the question says it
    # disappeared, and only one entry removed it. The feature is the entry's: its fix shares it.
    chunks = [
        logged("`frobnicate()` is twice as fast on large inputs.", n=0),
        logged("`frobnicate()` was removed. Call `frob()` instead.", version="5.0.0", n=1),
    ]
    first = ranked("frobnicate() disappeared after the upgrade. Which release was it?", chunks)[0]
    assert first in ("`frobnicate()` was removed.", "Call `frob()` instead.")
    assert (
        ranked("Is frobnicate() fast on large inputs?", chunks)[0] == "`frobnicate()` is twice as fast on large inputs."
    )


def test_which_questions_say_something_is_gone() -> None:
    # _GONE: the ways users say a name went away, in English and French; a plain question about it is not.
    catalog = Catalog.learn([logged("`frobnicate()` was removed.")])
    for question in (
        "frobnicate() no longer exists, what now?",
        "Which release took it out?",
        "Which release stopped supporting Python 3.9?",
        "import frobnicate fails with ModuleNotFoundError",
        "La fonction frobnicate() n'existe plus.",
    ):
        assert build_query(question, catalog).asks_gone, question
    assert not build_query("Is frobnicate() fast?", catalog).asks_gone


def test_asking_what_the_maintainers_advise_asks_for_the_fix() -> None:
    # _HOW's advice words: "what do they recommend / advise / suggest" wants the instruction, as "how" does.
    catalog = Catalog.learn([logged("Dot-prefixed names are rejected. Users should strip the dot first.")])
    for question in ("Is it intentional, and what do the maintainers recommend?", "What do they advise?"):
        assert build_query(question, catalog).asks_how, question


def test_an_entrys_old_and_new_spelling_are_both_quoted() -> None:
    # `_similar` merges only what another passage says again: in one entry, two near-identical lines are the
    # old import and the new one (cachetools' changelog shows each on a line of its own), and the new one answers.
    parts = (
        "The submodules were deleted: statements like",
        "`from cachetools.ttl import TTLCache`",
        "will no longer work. Use",
        "`from cachetools import TTLCache`",
        "instead.",
    )
    entries = (Entry("item", "Remove deprecated submodules."), *(Entry("item", p, continues=True) for p in parts))
    chunks = [replace(make(entries=entries), kind="changelog"), logged("`TTLCache` is faster.", n=1)]
    text = answer("`from cachetools.ttl import TTLCache` fails now. How am I supposed to import it?", chunks)
    assert "`from cachetools import TTLCache`" in text


def test_an_upgrade_question_asks_about_the_releases_it_went_through() -> None:
    # releases_between. "From 1.7 to 2.x": what changed is in 2.0.0 and later 2.x releases, not in 1.7's patches;
    # "from 2.5 to 2.6" includes 2.6's patch releases.
    versions = ("1.7.0", "1.7.1", "2.0.0", "2.5.0", "2.6.0", "2.6.1", "3.0.0")
    catalog = Catalog.learn([logged("Changed things.", version=v, n=n) for n, v in enumerate(versions)])
    query = build_query("After upgrading from 1.7 to 2.x, `encode()` returns a str. Why?", catalog)
    assert query.prefer == ("2.0.0", "2.5.0", "2.6.0", "2.6.1")
    assert build_query("Going from 2.5 to 2.6 broke my `decode()` call.", catalog).prefer == ("2.6.0", "2.6.1")


def test_a_specific_question_about_an_upgrade_is_not_answered_with_the_whole_plan() -> None:
    # upgrade_answer._specific: "What breaks from 1.0 to 2.0?" asks for the plan; a question about one call does not.
    from assistant.understand.plan_question import planned

    catalog = Catalog.learn([logged("Changed things.", version=v, n=n) for n, v in enumerate(("1.0.0", "2.0.0"))])
    assert planned(build_query("What breaks if I go from 1.0 to 2.0?", catalog), catalog) is not None
    whole = planned(build_query("What breaks if I go from 1.x to 2.x?", catalog), catalog)  # a series: its last
    assert whole is not None and whole[:2] == ("1.0.0", "2.0.0")
    specific = "After upgrading from 1.0 to 2.0, my `except ValueError` no longer catches task errors. What happened?"
    assert planned(build_query(specific, catalog), catalog) is None


def test_what_a_removal_lists_below_it_or_a_removed_heading_holds_is_removed() -> None:
    # removals: an item nested in "Remove previously deprecated code." names what was removed; so does an entry
    # under a "Removed" heading (Keep a Changelog), in words that say nothing of removing.
    nested = (
        Entry("item", "Remove previously deprecated code."),
        Entry("item", "`frobnicate` has `frob` now.", depth=1),
    )
    chunks = [
        logged("`frobnicate` is twice as fast now.", n=0),
        replace(make(entries=nested, version="5.0.0", n=1), kind="changelog"),
    ]
    question = "`from acme import frobnicate` fails with an ImportError. What now?"
    assert ranked(question, chunks)[0] == "`frobnicate` has `frob` now."
    listed = replace(make(entries=(Entry("item", "`frobnicate` has `frob` now."),), section="Removed", n=1))
    assert ranked(question, [chunks[0], replace(listed, kind="changelog")])[0] == "`frobnicate` has `frob` now."


def test_a_sentence_about_a_sibling_release_answers_no_question_about_another() -> None:
    # _sibling. "Dropped support for Python 3.6" is no answer to "which release dropped 3.8?"; a CUDA 12.x
    # sentence may still answer a question about 13.0 (another series).
    def reason(question: str, said: str) -> Reason | None:
        chunks = [logged(said)]
        query = build_query(question, Catalog.learn(chunks))
        words = frozenset(tokens(said))
        passage, stats = Passage(chunks[0], 1.0, similarity=0.9), Stats(chunks)
        best = ExtractiveAnswerer(stats).best_coverage(query, [passage])  # as much of the question as it holds
        return after_search(query, [passage], stats, best, best=words, best_text=said)

    refused = reason("Which release dropped support for Python 3.8?", "Dropped support for Python 3.6.")
    assert refused is not None and refused.kind == "weak_evidence"
    assert reason("Which release dropped support for Python 3.8?", "Dropped support for Python 3.8.") is None
    refused = reason("Which release added support for Python 3.12?", "Added support for Python 3.11.")
    assert refused is not None and refused.kind == "weak_evidence"
    assert reason("Which wheels ship with CUDA 13.0?", "Wheels ship with CUDA 12.8 and 12.9.") is None
