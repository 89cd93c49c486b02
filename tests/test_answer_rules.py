"""The extractive answerer's ranking rules as tables: each rule, a case it decides (no model, no index)."""

from __future__ import annotations

import math

import pytest

from assistant.answer.extractive import ExtractiveAnswerer
from assistant.index.catalog import Catalog
from assistant.model.records import Chunk, Passage
from assistant.text.instructions import instructs
from assistant.text.words import tokens
from assistant.understand.query import build_query, proper_names


class Stats:
    """Term statistics over a few chunks, as the retriever computes them over the index."""

    def __init__(self, chunks: list[Chunk]) -> None:
        self.catalog = Catalog.learn(chunks)
        self.docs = [set(tokens(f"{c.section} {c.text}")) for c in chunks]
        self.vocab = sorted(set().union(*self.docs))

    def idf(self, token: str) -> float:
        n = sum(token in d for d in self.docs)
        return math.log(1 + (len(self.docs) - n + 0.5) / (n + 0.5))

    def knows(self, token: str) -> bool:
        return token in self.vocab


def chunk(text: str, section: str = "Deprecations", version: str = "2.0.0", n: int = 0) -> Chunk:
    return Chunk(f"c{n}-{version}", text, f"p/{version}/notes.md", "Notes", "p", version, "release-notes", section)


def answer(question: str, chunks: list[Chunk]) -> str:
    catalog = Catalog.learn(chunks)
    query = build_query(question, catalog)
    answerer = ExtractiveAnswerer(Stats(chunks))  # type: ignore[arg-type]
    passages = [Passage(c, 1.0 - i / 100) for i, c in enumerate(chunks)]
    return list(answerer.stream(query, passages))[-1].text


@pytest.mark.parametrize(
    ("sentence", "instruction"),
    [
        ("Use `lon_lat()` instead.", True),
        ("If you still need the package, install it directly with `pip install x[tz]`.", True),
        ("Therefore, to ensure the start value is 1, the start value may be indicated explicitly.", True),
        ("All stubs packages must be uninstalled for typing to work.", True),
        ("The copy keyword has no effect, so it can be safely removed from your code.", True),
        ("The portable way is to make use of the `Engine.begin()` context manager.", True),
        ("To enable the warnings mode, we enable the `WARN_20=1` variable.", True),
        ("A new parameter that can be set to a positive value.", True),
        ("Applications should pass the engine explicitly.", True),
        ("To use them where a `str` is expected you'll now need to convert them with `str(url)`.", True),
        ("This serves as a complete replacement for `parse_obj_as`.", True),
        ("To keep checksums set it to true.", True),  # a purpose clause without its comma
        ("The handler is only used if you opt-in by setting `sigterm = true`.", True),
        ("To support Python 3.12 the build was updated.", False),  # "build" is a noun here
        ("Fixed a crash by setting the default.", False),
        ("The former behavior is available by setting the `use_align_attribute` option to `True`.", True),
        ("The old output is restored by passing `legacy=True`.", True),
        ("The speed-up is available by default on every platform.", False),  # says how things are, not what to do
        ("To revert to the behaviour of V1, annotate the union with `Field(mode='smart')`.", True),
        ("You should not do `isinstance(m, Model[int])`.", False),  # forbids, but says nothing to do instead
        ("The `coords()` method is deprecated.", False),
        ("If `scale_down` is `True`, they will be at 1x.", True),  # the option's value that gets the behaviour
        ("If the file is empty, an error is raised.", False),  # a condition on the data, not on an option
        ("This can be seen as an improvement.", False),  # "can be seen" describes, it asks nothing
        ("It should now be considered deprecated.", False),
        ("This default of 1 should default to the minimum.", False),  # a bare "it should" describes behaviour
    ],
)
def test_instructions_are_told_by_grammar(sentence: str, instruction: bool) -> None:
    assert instructs(sentence) is instruction


def test_a_how_question_quotes_the_fix_of_a_later_passage() -> None:
    chunks = [
        chunk("Mixin columns are now sorted after the columns of the declared class in CREATE TABLE.", n=0),
        chunk("The column order of the model above is id, col1, then the mixin columns.", n=1),
        chunk("This column order is an improvement for most models with a mixin.", n=2),
        chunk("To control the order, pass `sort_order` to `mapped_column()` for each column.", n=3),
    ]
    text = answer("Why did the column order of my mixin models change, and how do I control it?", chunks)
    assert "sort_order" in text


def test_a_question_naming_a_release_quotes_that_release_first() -> None:
    chunks = [
        chunk("Removed deprecated `is_categorical()`; use `is_categorical_dtype()` instead.", version="2.0.0", n=0),
        chunk(
            "Deprecated `is_categorical_dtype()`, use `isinstance(dtype, CategoricalDtype)` instead.",
            version="2.1.0",
            n=1,
        ),
    ]
    text = answer("is_categorical_dtype warns in 2.1. What is the recommended check?", chunks)
    first = text.splitlines()[0]
    assert first.removeprefix("- ").startswith("2.1.0: ") and "isinstance" in first


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("How do I use the {% partialdef %} template tag?", ["partialdef"]),
        ("What does {{ items|length_is:3 }} become?", []),  # a variable names the user's data, not the docs'
        ('Is "strict mode" still there?', ["strict mode"]),
    ],
)
def test_template_tags_and_quotes_are_names(question: str, names: list[str]) -> None:
    assert proper_names(question) == names


def test_a_how_question_adds_the_best_instruction_when_descriptions_fill_the_answer() -> None:
    chunks = [
        chunk("Mixin columns of a model are now sorted after the declared columns in the column order.", n=0),
        chunk("The column order of a model with a mixin places id first, then the mixin columns.", n=1),
        chunk("This column order of mixin models is an improvement for most models.", n=2),
        chunk("A model whose mixin column order matters sees its mixin columns last.", n=3),
        chunk("To keep the old order, pass `sort_order` to `mapped_column()`.", n=4),
    ]
    text = answer("Why did the column order of my mixin models change, and how do I control it?", chunks)
    assert "sort_order" in text


def test_the_retrieval_rank_lifts_a_passage_over_a_slightly_fuller_one() -> None:
    # Both say the change; the one retrieval ranks far lower only adds a common word ("output"). The passage
    # both rankings agree on is the better quote, so its sentence leads.
    chunks = [
        chunk("The scheduler default changed to cosine decay.", n=0),
        chunk("The scheduler default changed to cosine decay for its output.", n=1),
        *[chunk(f"Logging output format number {i}.", n=2 + i) for i in range(6)],
    ]
    query = build_query("Why did the scheduler default change to cosine decay for the output?", Catalog.learn(chunks))
    passages = [Passage(chunks[0], 1.0), Passage(chunks[1], 0.3)] + [Passage(c, 0.1) for c in chunks[2:]]
    best = ExtractiveAnswerer(Stats(chunks)).scored_units(query, passages)[0]  # type: ignore[arg-type]
    assert best.p_idx == 0 and best.coverage < 1.0


def test_a_sentence_ending_in_a_colon_shows_the_short_code_it_introduces() -> None:
    from dataclasses import replace

    from assistant.model.document import Entry

    def with_code(text: str, code: str, n: int) -> Chunk:
        return replace(chunk(text, n=n), entries=(Entry("paragraph", text), Entry("code", code)))

    intro = "Google Pub/Sub transport support needs additional dependencies installed:"
    shown = answer("Which dependencies does the Pub/Sub transport need?", [with_code(intro, 'pip install "x[gcp]"', 0)])
    assert '`pip install "x[gcp]"`' in shown
    long_code = "\n".join(f"step_{i}()" for i in range(60))  # past `AnswerTuning.code_chars`: the citation shows it
    assert "step_0" not in answer(
        "Which dependencies does the Pub/Sub transport need?", [with_code(intro, long_code, 1)]
    )
    # code that inline spans would misread (nesting lost, a backtick closing the span) is left to the citation
    for odd in ("def f():\n    return 1", 'x = "``"'):
        assert "`" not in answer("Which dependencies does the Pub/Sub transport need?", [with_code(intro, odd, 3)])
    told = "Google Pub/Sub transport support needs additional dependencies installed."
    assert "pip" not in answer(
        "Which dependencies does the Pub/Sub transport need?", [with_code(told, "pip install x", 2)]
    )
