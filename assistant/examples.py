"""Example questions drawn from the indexed docs, for an interface to offer: what a user of these docs could ask,
never a fixed list about one product (four PyTorch questions over a pandas index answer nothing).

Per product: "What replaces `x` in P R?" for a name its newest release removes, deprecates or breaks and says
what to use instead; "What breaks when upgrading P from Q to R?" (or "What breaks in P R?", where one release is
indexed); then another name. The products take turns, and one question of the first kind is also asked in
French. Each is asked before it is offered and kept only when its answer's first source is of the release it
names (for a name, the entry it was drawn from, quoting the name): an example that would be refused or answered
from elsewhere is no example.

Written by hand: no library draws questions from release notes; the sentences are the project's own wording.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from itertools import islice
from typing import Protocol

from assistant.index.catalog import sort_versions
from assistant.model.records import Answer
from assistant.upgrade.plan import PlanError, PlannedChange, UpgradePlan
from assistant.upgrade.subjects import spelled_at
from assistant.upgrade.targeting import targets


class Docs(Protocol):
    """What the examples need of a knowledge base (`KnowledgeBase` is one)."""

    def products(self) -> dict[str, list[str]]: ...

    def plan(self, from_version: str, to_version: str, *, product: str | None = None) -> UpgradePlan: ...

    def ask(self, question: str) -> Answer: ...


_GONE = ("removed", "deprecated", "breaking")
MAX_CANDIDATES = 12  # questions asked at most to find the examples: each costs an answer
NAMES = 2  # replaced names a product offers questions about, newest release first


@dataclass(frozen=True)
class _Candidate:
    question: str
    product: str
    version: str
    source: str = ""  # the file of the entry it was drawn from ("" for an upgrade question)
    name: str = ""  # the name as the entry writes it, which the answer must quote


def example_questions(kb: Docs, limit: int = 4) -> list[str]:
    """Up to `limit` questions these docs answer, across the indexed products, each checked by asking it: the
    last one in French when one answers."""
    per_product = [list(_candidates(kb, product, versions)) for product, versions in kb.products().items()]
    english = [c for round_ in _rounds(per_product) for c in round_][:MAX_CANDIDATES]
    named = next((c for c in english if c.name), None)
    french = None if named is None else replace(named, question=_in_french(named))
    answered = (c.question for c in english if _answered(kb.ask(c.question), c))
    if french is None or limit < 2:  # one example is an English one
        return list(islice(answered, limit))
    out = list(islice(answered, limit - 1))
    if _answered(kb.ask(french.question), french):
        return [*out, french.question]
    return [*out, *islice(answered, limit - len(out))]


def _candidates(kb: Docs, product: str, versions: list[str]) -> Iterator[_Candidate]:
    releases = sort_versions(versions)
    if not releases:
        return
    newest = releases[-1]
    earlier = releases[-2] if len(releases) > 1 else ""
    try:
        plan = kb.plan(earlier or "0", newest, product=product)
    except PlanError:
        return
    # the names a change does away with itself: no parameter, call form or value of it
    itself = {
        (t.change, t.symbol) for t in targets(plan) if not (t.parameter or t.forms or t.values) and t.positional < 0
    }
    replaced = [
        _Candidate(f"What replaces `{name}` in {product} {newest}?", product, newest, change.citation.source, name)
        for name, change in islice(dict(_replaced(plan.changes, itself, newest)).items(), NAMES)
    ]
    span = f"when upgrading {product} from {earlier} to {newest}" if earlier else f"in {product} {newest}"
    yield from replaced[:1]
    yield _Candidate(f"What breaks {span}?", product, newest)
    yield from replaced[1:]


def _replaced(
    changes: tuple[PlannedChange, ...], itself: set[tuple[str, str]], release: str
) -> Iterator[tuple[str, PlannedChange]]:
    """Names the release does away with and whose replacement its entry gives, as the entry writes them: only a
    name the scan looks for as what the change is about (`itself`: change id and symbol), not one it mentions."""
    for change in changes:
        if change.version != release or change.kind not in _GONE or not change.replacement or not change.symbols:
            continue
        symbol = change.symbols[0]
        span = spelled_at(symbol, change.summary)
        if (change.id, symbol) in itself and span is not None:
            yield change.summary[span[0] : span[1]], change


def _rounds(per_product: list[list[_Candidate]]) -> Iterator[list[_Candidate]]:
    """The first candidate of each product, then the second of each, and so on."""
    depth = max(map(len, per_product), default=0)
    for i in range(depth):
        yield [c[i] for c in per_product if i < len(c)]


def _in_french(candidate: _Candidate) -> str:
    return f"Que remplace `{candidate.name}` dans {candidate.product} {candidate.version} ?"


def _answered(answer: Answer, candidate: _Candidate) -> bool:
    """The answer is found and its first source is of the release asked about; for a name, the entry's file,
    quoting the name."""
    if not answer.found or not answer.citations:
        return False
    first = answer.citations[0]
    if candidate.name:
        return first.version == candidate.version and first.source == candidate.source and candidate.name in first.quote
    return first.version == candidate.version
