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


def test_a_fix_brings_the_other_instructions_of_its_entry() -> None:
    # FIX_UNITS. The list names the methods the question asks
    # about; the entry after it holds two instructions, and the second one is the answer.
    methods = make(entries=(Entry("item", "`DataFrame.rename()` / `Series.rename()`"),), section="Copy keyword")
    said = (
        "Copy-on-Write defers copying the data until necessary. Use `.copy` to trigger an eager copy. "
        "The copy keyword has no effect, so it can be safely removed from your code."
    )
    fix = make(entries=(Entry("paragraph", said),), section="Copy keyword", n=1)
    chunks = [methods, fix]
    text = _ask("Can I just delete the copy arguments from my df.rename calls?", passages(chunks), chunks)
    assert "Use `.copy` to trigger an eager copy." in text
    assert "safely removed" in text


def test_a_how_question_gets_the_fix_of_the_entry_that_names_what_it_asks_about() -> None:
    # _named_fix. Under a heading naming `GenericModel`, every entry shares that word through the heading, so
    # entries with more of the question's other words outrank the one that states the removal; its
    # instruction ("Instead, …") is the answer.
    section = "Changes to `pydantic.generics.GenericModel`"
    chunks = [
        make("For example, you should not do `isinstance(my_model, MyGenericModel[int])`.", section=section),
        make("Mixing of V1 and V2 models is not supported for generic models.", section=section, n=1),
        make("If you need to perform `isinstance` checks, you can do this by subclassing.", section=section, n=2),
        make(
            "The `pydantic.generics.GenericModel` class is no longer necessary, and has been removed. "
            "Instead, you can now create generic `BaseModel` subclasses by adding `Generic` as a parent class.",
            section=section,
            n=3,
        ),
    ]
    # The rest of the guide, where "V2" and "models" are everywhere and `GenericModel` is not.
    chunks += [make(f"V2 models validate field {i} differently.", section=f"Field {i}", n=4 + i) for i in range(4)]
    text = _ask("Importing GenericModel fails in V2. How do I write generic models now?", passages(chunks), chunks)
    assert "as a parent class" in text


def test_an_instructions_example_lines_using_the_asked_name_are_quoted() -> None:
    # CODE_LINES. The instruction says an engine "may still be used directly"; what to write is only in its
    # example. The lines using `create_all` are quoted with it, the others are not.
    said = Entry("paragraph", "The `Engine` may still be used directly as the source of connectivity for:")
    code = Entry("code", "metadata_obj = MetaData()\n\nmetadata_obj.create_all(engine)\nmetadata_obj.reflect(engine)")
    fix = make(entries=(said, code), section="Bound metadata removed")
    other = make("Bound metadata is removed.", section="Bound metadata removed", n=1)
    chunks = [fix, other]
    text = _ask("MetaData(bind=engine) stopped working. How do I run create_all now?", passages(chunks), chunks)
    assert "`metadata_obj.create_all(engine)`" in text
    assert "reflect" not in text


def test_an_instructions_example_is_read_from_the_next_chunk_of_its_section() -> None:
    # CODE_LINES, across a chunk boundary: the instruction closes one chunk and its example opens the next.
    said = "For backwards compatibility, the following context manager may be used:"
    intro = make(entries=(Entry("paragraph", said),), section="Session subtransactions removed")
    code = Entry(
        "code", "@contextlib.contextmanager\ndef transaction(session):\n    with session.begin():\n        yield"
    )
    example = make(entries=(code,), section="Session subtransactions removed", n=1)
    chunks = [intro, example]
    query = build_query("How do I replace session.begin(subtransactions=True)?", Catalog.learn(chunks))
    answerer = ExtractiveAnswerer(Stats(chunks), following=lambda c: example if c.id == intro.id else None)
    text = list(answerer.stream(query, [Passage(intro, 1.0)]))[-1].text
    assert "`with session.begin():`" in text
    alone = list(ExtractiveAnswerer(Stats(chunks)).stream(query, [Passage(intro, 1.0)]))[-1].text
    assert "session.begin():" not in alone


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
