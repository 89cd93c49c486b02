"""The example questions an interface offers (`assistant.examples`): drawn from the indexed docs, never a fixed
list about one product, and each offered only when asking it gets an answer from the release it names. A stand-in
knowledge base answers from a table, so what is checked is the choice, not the answerer."""

from __future__ import annotations

from dataclasses import dataclass, field

from assistant.examples import example_questions
from assistant.index.catalog import Catalog
from assistant.model.document import Entry
from assistant.model.records import Answer, Chunk, Citation
from assistant.upgrade.plan import UpgradePlan, make_plan
from tests.test_changes_plan import chunk

CHUNKS = (
    chunk(Entry("item", "`acme.old_load()` is deprecated, use `acme.load()` instead."), version="2.1.0"),
    chunk(Entry("item", "`acme.read()` now returns a list."), section="Other changes", version="2.0.0", n=1),
    chunk(Entry("item", "Removed `tool.make_old`, use `tool.make` instead."), product="tool", version="5.0", n=2),
    chunk(Entry("item", "Added `tool.fast()`."), section="New features", product="tool", version="5.0", n=3),
)


@dataclass
class StandIn:
    """What `example_questions` asks of a knowledge base, over `CHUNKS`, answering from `answers` (refusing the
    rest); the questions it was asked, in order."""

    answers: dict[str, Answer]
    asked: list[str] = field(default_factory=list)

    def products(self) -> dict[str, list[str]]:
        return Catalog.learn(CHUNKS).listing()

    def plan(self, from_version: str, to_version: str, *, product: str | None = None) -> UpgradePlan:
        return make_plan(CHUNKS, Catalog.learn(CHUNKS), from_version, to_version, product)

    def ask(self, question: str) -> Answer:
        self.asked.append(question)
        return self.answers.get(question, Answer(question, "The release docs don't cover this.", False))


def answer(question: str, source: Chunk, quote: str) -> Answer:
    cited = Citation(1, "Acme notes", source.version, "release-notes", source.section, source.source, "", quote)
    return Answer(question, f"{quote} [1]", True, (cited,))


def test_examples_come_from_each_indexed_product_and_are_offered_only_when_answered_from_their_release() -> None:
    acme_old = "What replaces `acme.old_load` in acme 2.1.0?"
    upgrade = "What breaks when upgrading acme from 2.0.0 to 2.1.0?"
    tool = "What replaces `tool.make_old` in tool 5.0?"
    french = "Que remplace `acme.old_load` dans acme 2.1.0 ?"
    kb = StandIn(
        {
            acme_old: answer(acme_old, CHUNKS[0], "`acme.old_load()` is deprecated, use `acme.load()` instead."),
            upgrade: answer(upgrade, CHUNKS[0], "`acme.old_load()` is deprecated."),
            tool: answer(tool, CHUNKS[3], "Added `tool.fast()`."),  # another entry of that release: no example
            french: answer(french, CHUNKS[0], "`acme.old_load()` is deprecated, use `acme.load()` instead."),
        }
    )
    assert example_questions(kb, limit=4) == [acme_old, upgrade, french]
    # the products take turns, the French one after them; nothing is asked twice
    assert kb.asked[:3] == [acme_old, tool, upgrade] and len(kb.asked) == len(set(kb.asked))
    assert not any("fast" in q for q in kb.asked)  # a new feature is nothing to replace


def test_no_answered_question_means_no_examples_and_a_full_list_stops_asking() -> None:
    assert example_questions(StandIn({}), limit=4) == []
    acme_old = "What replaces `acme.old_load` in acme 2.1.0?"
    quote = "`acme.old_load()` is deprecated, use `acme.load()` instead."
    kb = StandIn({acme_old: answer(acme_old, CHUNKS[0], quote)})
    assert example_questions(kb, limit=1) == [acme_old]
    assert kb.asked == [acme_old]
