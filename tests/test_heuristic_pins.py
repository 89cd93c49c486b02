"""Pins for the answerer's, the query's and the refusals' heuristics: each test is a case one heuristic decides,
and fails when `bench/ablation.py --pytest NAME` switches that heuristic off (no model, no index).

Expected values are written out, not imported: the ablation changes the tuned values before this module loads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from assistant.answer.extractive import ExtractiveAnswerer
from assistant.gate.refusals import Reason, evidence, judge
from assistant.index.catalog import Catalog
from assistant.model.document import Entry
from assistant.model.query import Query
from assistant.model.records import Chunk, Passage
from assistant.model.units import units_of
from assistant.tuning import DEFAULT
from assistant.understand.query import build_query, proper_names
from tests.test_answer_rules import Stats


def after_search(query: Query, found: Sequence[Passage], stats: Stats, coverage: float, **known: Any) -> Reason | None:
    """The gate's refusal for these passages, as it decides after search: their evidence, judged."""
    return judge(evidence(query, found, stats, coverage, **known), known.get("tuning", DEFAULT))


def make(
    text: str = "",
    *,
    entries: tuple[Entry, ...] = (),
    section: str = "Deprecations",
    version: str = "2.0.0",
    language: str = "en",
    n: int = 0,
) -> Chunk:
    """A chunk as ingest writes one; `entries` (else `text` as one paragraph) are what the answerer reads."""
    text = text or " ".join(e.text for e in entries)
    source = f"pandas/{version}/notes.md"
    return Chunk(
        f"c{n}-{version}", text, source, "Notes", "pandas", version, "release-notes", section, language, "", entries
    )


class Flat(Stats):
    """Every term weighs the same: a sentence's coverage is the share of the question's terms it holds."""

    def idf(self, token: str) -> float:
        return 1.0


def passages(chunks: list[Chunk]) -> list[Passage]:
    """The chunks as retrieved, in order: each ranks a little below the one before."""
    return [Passage(c, 1.0 - i / 100) for i, c in enumerate(chunks)]


def answer(question: str, chunks: list[Chunk]) -> str:
    query = build_query(question, Catalog.learn(chunks))
    answerer = ExtractiveAnswerer(Stats(chunks))
    return list(answerer.stream(query, passages(chunks)))[-1].text


def ranked(question: str, chunks: list[Chunk]) -> list[str]:
    """The chunks' sentences as the answerer ranks them for `question`, best first."""
    query = build_query(question, Catalog.learn(chunks))
    answerer = ExtractiveAnswerer(Stats(chunks))
    return [s.unit.text for s in answerer.scored_units(query, passages(chunks))]


# -- ranking sentences ------------------------------------------------------------------------------------


def test_the_section_heading_speaks_for_its_lead_sentences() -> None:
    # LEAD_CONTEXT_WEIGHT: under "Styler", an entry's first sentence "several options were removed" is about the
    # Styler's options, though the sentence does not say "Styler".
    said = "Several options were removed."
    chunks = [make(said, section="Plotting", n=0), make(said, section="Styler", n=1)]
    query = build_query("Which Styler options were removed?", Catalog.learn(chunks))
    answerer = ExtractiveAnswerer(Stats(chunks))
    top = next(s for s in answerer.scored_units(query, passages(chunks)) if s.unit.text == said)
    assert top.p_idx == 1  # the Styler passage's, though the Plotting passage ranks first


# -- choosing what to quote -------------------------------------------------------------------------------


def test_a_passage_nearly_as_good_as_the_best_joins_the_answer() -> None:
    # GROUP_RATIO. The question asks about two functions and each passage answers for one: the second
    # scores a hair below the first (its rank), and an answer quoting only the first would be half an answer.
    chunks = [
        make("`read_csv()` no longer accepts `squeeze`.", n=0),
        make("`read_table()` no longer accepts `squeeze`.", n=1),
    ]
    text = answer("Do read_csv() and read_table() still accept squeeze?", chunks)
    assert "read_csv" in text and "read_table" in text


def test_an_answer_quotes_at_most_three_passages() -> None:
    # MAX_GROUPS. Four passages answer equally well; an answer is a few quotes, and quoting every near match
    # turns it into a list of search results (which `search` gives).
    names = ["read_csv", "read_json", "read_html", "read_xml"]
    chunks = [make(f"`{name}()` no longer accepts `squeeze`.", n=i) for i, name in enumerate(names)]
    lines = answer("Which readers no longer accept squeeze?", chunks).splitlines()
    assert len(lines) == 3 and all(line.startswith("- ") for line in lines)


def test_the_best_sentence_brings_the_rest_of_its_entry() -> None:
    # ENTRY_REST. The question's words are in the entry's first sentence; what happens now is in its second,
    # which shares none of them. Another entry of the passage, as unrelated in words, stays out.
    entries = (
        Entry("item", "Fixed a crash on deeply nested statements. Instead a generic `ParseError` is raised."),
        Entry("item", "Thread-safe initialization of the lexer."),
    )
    text = answer("What happens now with deeply nested statements?", [make(entries=entries)])
    assert "generic `ParseError` is raised" in text and "lexer" not in text


def test_near_duplicate_sentences_are_quoted_once_and_cited_twice() -> None:
    # _similar. Two pages state the same change; repeating it would add length, not information.
    said = "`read_csv()` no longer accepts the `squeeze` keyword."
    chunks = [make(said, n=0), make(f"Also, {said[0].lower()}{said[1:]}", section="I/O", n=1)]
    text = answer("Does read_csv still accept squeeze?", chunks)
    assert text.count("squeeze") == 1 and text.endswith("[1][2]")


def test_a_sentence_from_inside_an_entry_brings_its_lead() -> None:
    # _with_leads. "It will be removed" answers the question, but only the entry's first sentence says
    # what "it" is.
    # The entry's other sentences share the question's words, so its rest (ENTRY_REST) fills the quote first.
    said = (
        "Deprecated `Series.view`. A future version may copy instead. Views may be removed from memory early. "
        "It will be removed in a future version."
    )
    text = answer("Is it going to be removed in a future version?", [make(entries=(Entry("item", said),))])
    assert text.startswith("Deprecated `Series.view`. A future version")


def test_list_titles_get_a_full_stop_before_the_next_sentence() -> None:
    # _full_stop. A list entry's title often has no full stop; joined with the sentence after it, it would
    # run on ("Removed `DataFrame.append` Use …").
    entries = (
        Entry("item", "Removed `DataFrame.append`"),
        Entry("paragraph", "Use `concat()` instead.", continues=True),
    )
    text = answer("What replaces DataFrame.append?", [make(entries=entries)])
    assert text.startswith("Removed `DataFrame.append`. Use `concat()` instead.")


def test_a_heading_that_states_a_change_is_the_lead_of_its_entries() -> None:
    # _HEADLINE. Some notes put the change itself in the heading; the body alone ("Use … instead") would not
    # say what it replaces.
    chunks = [
        make("Use `DataFrame.transpose()` instead.", section="Deprecations › `DataFrame.swapaxes` is now deprecated")
    ]
    first = units_of(chunks[0])[0]
    assert (first.text, first.lead) == ("`DataFrame.swapaxes` is now deprecated", True)
    assert answer("What replaces swapaxes?", chunks).startswith("`DataFrame.swapaxes` is now deprecated. Use")


def test_french_sentences_are_matched_in_english_for_a_french_question() -> None:
    # A French sentence is weighed like the French question, through the glossary, so it covers "fonctions …
    # obsolètes" fully.
    chunks = [
        make("Several functions are deprecated.", n=0),
        make("Plusieurs fonctions sont obsolètes.", language="fr", n=1),
    ]
    query = build_query("Quelles fonctions sont obsolètes ?", Catalog.learn(chunks))
    answerer = ExtractiveAnswerer(Stats(chunks))
    coverage = {s.p_idx: s.coverage for s in answerer.scored_units(query, passages(chunks))}
    assert coverage[1] == pytest.approx(1.0)


# -- understanding the question ---------------------------------------------------------------------------

PANDAS = Catalog.learn([make(version="2.2.0"), make(version="3.0.0")])


@pytest.mark.parametrize(
    ("question", "terms", "searched"),
    [
        # FRENCH_GLOSSARY: the docs are English; a French question's terms weigh the evidence in English, and
        # its English equivalents are searched too.
        ("Quelles fonctions sont obsolètes ?", ("function", "deprec"), "functions deprecated"),
        # ... with the words users describe their code's behaviour with, and "mise à jour" as generic as "upgrade".
        ("Le parseur s'arrête depuis la mise à jour ?", ("parser", "stop"), "parser stops stopped upgrade upgrade"),
        # ... a hyphenated word whole ("en-tête" is one word, "header"), without the code name's hyphen split.
        (
            "Un en-tête Transfer-Encoding inhabituel est rejeté ?",
            ("header", "transfer-encod", "unusu", "unexpect", "reject"),
            "header unusual unexpected rejected",
        ),
        # GENERIC: every release note is about changes and versions; only `read_csv` says what this asks about.
        ("What changed in the new version of read_csv?", ("read_csv",), ""),
        # ... but a default is something a release changes: "did the default change?" is about the default.
        ("Did the default method of hash() change?", ("default", "method", "hash"), ""),
    ],
    ids=[
        "FRENCH_GLOSSARY",
        "FRENCH_GLOSSARY behaviour words",
        "FRENCH_GLOSSARY hyphenated word",
        "GENERIC",
        "GENERIC spares 'default'",
    ],
)
def test_the_terms_a_question_is_weighed_by(question: str, terms: tuple[str, ...], searched: str) -> None:
    query = build_query(question, PANDAS)
    assert query.terms == terms and query.text.endswith(searched)


def test_proper_names() -> None:
    assert proper_names("Does pandas still work with PyArrow?") == ["PyArrow"]  # a CamelCase name


def test_a_bare_major_after_a_product_names_its_releases() -> None:
    # _MAJOR. "pandas 3" is how people name pandas 3.0.0; a number after no product ("in 3 steps") is none.
    assert build_query("What did pandas 3 remove?", PANDAS).prefer == ("3.0.0",)
    assert build_query("Can I migrate in 3 steps?", PANDAS).prefer == ()


# -- refusing ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "coverage", "kind"),
    [
        # The model's `coverage`: a sentence holding half the question's terms is evidence, a tenth is not.
        ("Does read_csv accept squeeze?", 0.5, None),
        ("Does read_csv accept squeeze?", 0.1, "weak_evidence"),
        # Its `symbols`: an invented API is refused where the same evidence of a real one answers.
        ("Does `pandas.read_csvx` accept squeeze?", 0.6, "unknown_names"),
        ("Does `pandas.read_table` accept squeeze?", 0.6, None),
    ],
    ids=["coverage", "little coverage", "symbols", "known symbol"],
)
def test_evidence_rules(question: str, coverage: float, kind: str | None) -> None:
    chunks = [make("`read_csv()` no longer accepts `squeeze`; `pandas.read_table` neither.")]
    found = [Passage(chunks[0], 1.0, similarity=0.1)]
    reason = after_search(build_query(question, PANDAS), found, Stats(chunks), coverage)
    assert (reason.kind if reason else None) == kind


def test_a_question_with_no_topic_words_is_answered_from_the_release_it_names() -> None:
    # "What changed in 2.0.0?" has no terms once its version is read: every sentence of the release holds all
    # of none of them, evidence for the checks, not a lack of it.
    chunks = [make("Removed the `frobnicate` option.")]
    query = build_query("What changed in 2.0.0?", Catalog.learn(chunks))
    best = ExtractiveAnswerer(Stats(chunks)).best_coverage(query, passages(chunks))
    assert after_search(query, passages(chunks), Stats(chunks), best) is None


def test_a_long_passage_is_cited_by_an_excerpt_around_the_quote() -> None:
    # QUOTE_CHARS. The citation shows at most 600 characters of a long passage, the quoted sentence among them.
    filler = " ".join(f"Entry {i} says something else entirely, at some length." for i in range(40))
    chunks = [make(entries=(Entry("paragraph", f"{filler} The `frobnicate` option was removed."),))]
    query = build_query("What happened to the frobnicate option?", Catalog.learn(chunks))
    final = list(ExtractiveAnswerer(Stats(chunks)).stream(query, passages(chunks)))[-1]
    (citation,) = final.citations
    assert len(citation.quote) <= 602 and "`frobnicate` option was removed" in citation.quote
