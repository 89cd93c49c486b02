"""Pins for the heuristics that find a how-question's fix: each test is a case one heuristic decides, and fails
when `bench/ablation.py --pytest NAME` switches that heuristic off (no model, no index).

Expected values are written out, not imported: the ablation changes the tuned values before this module loads.
"""

from __future__ import annotations

from assistant.answer.extractive import ExtractiveAnswerer
from assistant.answer.following import with_following
from assistant.index.catalog import Catalog
from assistant.model.document import Entry
from assistant.model.records import Passage
from assistant.understand.query import build_query
from tests.test_answer_rules import Stats
from tests.test_heuristic_pins import make, passages


def _ask(question: str, found: list[Passage], chunks: list) -> str:
    query = build_query(question, Catalog.learn(chunks))
    return list(ExtractiveAnswerer(Stats(chunks)).stream(query, found))[-1].text


def test_the_chunk_after_a_passage_in_its_section_is_read_with_it() -> None:
    # FOLLOWING_FROM. A section cut into small chunks: the change (and the question's words) in the first,
    # its fix in the next, which the search did not find. Reading the section on gives the fix.
    section = "Changes to Handling of Standard Types › Unions"
    change = make("In V2 an `int | str` field keeps the string '1' as a string instead of an int.", section=section)
    fix = make("To revert to the behaviour of V1, annotate the union with `Field(mode='smart')`.", section=section, n=1)
    other = make("Field order is kept in JSON schemas.", section="Fields", n=2)
    chunks = [change, fix, other]
    found = [Passage(change, 1.0), Passage(other, 0.5)]
    read = with_following(found, chunks, {c.id: i for i, c in enumerate(chunks)})
    assert [p.chunk.id for p in read] == [change.id, other.id, fix.id]
    assert read[2].score == 1.0  # at the score of the passage it follows
    text = _ask("My int | str field keeps '1' as a string in V2. How do I get V1's behaviour back?", read, chunks)
    assert "annotate the union" in text


def test_the_chunk_after_a_passage_joins_only_from_the_same_section() -> None:
    # FOLLOWING_FROM. The next chunk of another section is another change, not the rest of this one.
    first = make("The `copy` keyword is deprecated.", section="Copy keyword")
    nxt = make("`DataFrame.swapaxes` was removed.", section="Removals", n=1)
    chunks = [first, nxt]
    read = with_following([Passage(first, 1.0)], chunks, {c.id: i for i, c in enumerate(chunks)})
    assert [p.chunk.id for p in read] == [first.id]


def test_asking_whether_one_may_do_something_is_a_how_question() -> None:
    # _HOW ("can i"). "Can I just delete X?" wants the docs' instruction ("it can be safely removed").
    catalog = Catalog.learn([make("x")])
    assert build_query("Can I just delete the copy=False arguments from my calls?", catalog).asks_how
    assert build_query("It is gone now. What am I supposed to use for tokens?", catalog).asks_how
    assert not build_query("Which Python versions are supported?", catalog).asks_how


def test_a_how_question_gets_the_fix_however_low_it_ranks() -> None:
    # _best_fix. The sentence saying how things were shares every word of the question; the fix, in another
    # section's paragraph, scores a third of it. It is still what the asker came for.
    said = (
        "`ImageGrab.grab` now accepts an optional keyword argument of `scale_down`. "
        "By default, images will be captured at 2x. If `scale_down` is `True`, they will be at 1x."
    )
    chunks = [
        make("Previously, macOS screenshots with a `bbox` on a Retina screen were captured at 1x.", section="Retina"),
        make(entries=(Entry("paragraph", said),), section="New arguments", n=1),
    ]
    question = "Since 12.3 my macOS screenshots with a bbox on a Retina screen are captured at 2x. How do I get 1x?"
    assert "If `scale_down` is `True`, they will be at 1x." in _ask(question, passages(chunks), chunks)
