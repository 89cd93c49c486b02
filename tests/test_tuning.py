"""The tuned values as data (`assistant.tuning`): a frozen `Tuning` the stages are handed, replaced field by field
for an ablation, and the ablation table, whose every entry names a tuned value or a patch target that exists."""

from __future__ import annotations

import dataclasses

import pytest

from assistant.answer.extractive import ExtractiveAnswerer
from assistant.index.catalog import Catalog
from assistant.model.records import Chunk, Passage
from assistant.tuning import DEFAULT, Tuning
from assistant.understand.query import build_query
from bench.ablation import _resolve
from bench.ablation_neutral import Ablation, tuned_names
from bench.ablation_table import ABLATIONS
from tests.test_answer_rules import Stats


def test_tuning_is_frozen_and_replaced_by_name() -> None:
    assert Tuning() == DEFAULT and hash(Tuning()) == hash(DEFAULT)
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT.answer.max_groups = 1  # type: ignore[misc]
    fewer = DEFAULT.with_values(answer__max_groups=1, search__answer_passages=4)
    assert (fewer.answer.max_groups, fewer.search.answer_passages) == (1, 4)
    assert (DEFAULT.answer.max_groups, DEFAULT.search.answer_passages) == (3, 8)  # the default is untouched
    assert fewer.gate is DEFAULT.gate  # parts not named are shared
    with pytest.raises(ValueError, match="no tuned value"):
        DEFAULT.with_values(answer__no_such_value=1)


@pytest.mark.parametrize("ablation", ABLATIONS, ids=[a.name for a in ABLATIONS])
def test_every_ablation_names_a_tuned_value_or_an_existing_target(ablation: Ablation) -> None:
    assert ablation.tuning or ablation.patches
    assert {name for name, _ in ablation.tuning} <= tuned_names()
    ablation.tuned()  # `with_values` accepts them
    for target, attribute, _ in ablation.patches:
        assert hasattr(_resolve(target), attribute), f"{target}.{attribute}"


def test_a_stage_built_with_a_replaced_tuning_reads_it() -> None:
    # The answerer quotes as many passages as its tuning says (MAX_GROUPS), not a module's constant.
    chunks = [
        Chunk(f"c{i}", f"`{name}()` no longer accepts `squeeze`.", f"p/{i}.md", "Notes", "pandas", "2.0.0", "notes", "")
        for i, name in enumerate(["read_csv", "read_json", "read_html", "read_xml"])
    ]
    query = build_query("Which readers no longer accept squeeze?", Catalog.learn(chunks))
    passages = [Passage(c, 1.0 - i / 100) for i, c in enumerate(chunks)]

    def quoted(tuning: Tuning) -> int:
        return len(list(ExtractiveAnswerer(Stats(chunks), tuning).stream(query, passages))[-1].text.splitlines())

    assert quoted(DEFAULT) == 3
    assert quoted(DEFAULT.with_values(answer__max_groups=2)) == 2
