"""Property test: whatever a question holds (prose, broken code, brackets nested deep, quotes left open), reading
the asker's code out of it never raises and returns only words of the question."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from assistant.understand.asker_code import asker_values

PIECES = ["f(", "x=", ")", "(", "[", "]", "'", '"', "a.b", "Europe/Paris", "=", ",", " ", "df.x", "é", "\x00", "ok"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=60) | st.text(max_size=200))
@example(["x=", "'", "é", "f(", "'"])  # a word from a letter no ASCII one: read whole, not from its `f`
def test_reading_the_askers_code_never_fails(parts: list[str] | str) -> None:
    question = parts if isinstance(parts, str) else "".join(parts)
    words = set(re.findall(r"\w+", question.lower()))
    for value in asker_values(question):
        assert set(re.findall(r"\w+", value.lower())) <= words


def test_brackets_nested_beyond_the_parser_are_prose() -> None:
    assert asker_values("f(" + "[" * 5000 + "x" + "]" * 5000 + ")") == []
