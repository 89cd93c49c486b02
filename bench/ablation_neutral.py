"""What switching a heuristic off puts in its place, for `bench/ablation_table.py`: patterns that never match,
limits lifted; and the `Ablation` record the table is made of.

Most heuristics are tuned values of the question path (`assistant.tuning.Tuning`): switching one off replaces
its field. The few that are not (the tokenizer the index is built with, the catalog learnt from the index, a
setting, a rule with no tuned value) are patched in their modules instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any

from assistant.answer.extractive import ExtractiveAnswerer
from assistant.tuning import DEFAULT, Tuning

NEVER = re.compile(r"(?!)()")  # never matches; its group keeps `sub(r"\1", …)` valid


def without(pattern: re.Pattern[str], piece: str) -> re.Pattern[str]:
    """A live pattern of the core with one of its pieces taken out (so the ablation cannot drift from it)."""
    assert piece in pattern.pattern, piece
    return re.compile(pattern.pattern.replace(piece, ""), pattern.flags)


def never(*_: object) -> bool:
    """A rule's test that never holds (a function of the core patched by it)."""
    return False


def as_said(sentence: str) -> str:
    """A sentence quoted as the docs end it (for `_full_stop`)."""
    return sentence


def no_label(*_: object) -> str:
    """No release label before a quote (for `ExtractiveAnswerer._release_label`)."""
    return ""


UNLIMITED = 10**9
INFINITE = float("inf")

# Modules patched where the heuristic is no tuned value.
K, Q, T, CATALOG, A = (
    "assistant.knowledge_base",
    "assistant.understand.query",
    "assistant.text.words",
    "assistant.index.catalog",
    "assistant.answer.extractive",
)
# The report's module column for a tuned value, by its part (the package the value was tuned in).
PART_MODULES = {
    "text": "text.py",
    "units": "model.py",
    "understand": "understand.py",
    "search": "search.py",
    "gate": "gate.py",
    "answer": "answer.py",
}

Patch = tuple[str, str, Any]  # (object path: a module or a class inside one, attribute, value)
Tuned = tuple[str, Any]  # (`part__field` of `Tuning`, value)


@dataclass(frozen=True)
class Ablation:
    """One heuristic switched off: its name, the module it lives in, what "off" means, the tuned values it
    replaces and the patches it makes."""

    name: str
    module: str
    off: str
    patches: tuple[Patch, ...]
    tuning: tuple[Tuned, ...] = ()
    rebuild: bool = False  # it acts when the retriever is built (its indexes), not per question

    def tuned(self, base: Tuning = DEFAULT) -> Tuning:
        """`base` with this ablation's tuned values replaced."""
        return base.with_values(**dict(self.tuning)) if self.tuning else base


def ab(name: str, off: str, *changes: Patch | Tuned, module: str | None = None, rebuild: bool = False) -> Ablation:
    """An `Ablation` of tuned values `("part__field", value)` and patches `(object path, attribute, value)`; its
    module named after the first change's unless given."""
    tuned = tuple(c for c in changes if len(c) == 2)
    patches = tuple(c for c in changes if len(c) == 3)
    assert len(tuned) + len(patches) == len(changes) > 0, name
    first = changes[0]
    where = module or (
        PART_MODULES[first[0].partition("__")[0]]
        if len(first) == 2
        else first[0].removeprefix("assistant.").split(".")[0] + ".py"
    )
    return Ablation(name, where, off, patches, tuned, rebuild)  # type: ignore[arg-type]


def tuned_names() -> set[str]:
    """Every `part__field` name of `Tuning`."""
    return {f"{p.name}__{f.name}" for p in fields(Tuning) for f in fields(getattr(DEFAULT, p.name))}


class UnlimitedAnswerer(ExtractiveAnswerer):
    """The extractive answerer with no cap on quoted sentences: the knowledge base passes `Settings.top_k`, a
    setting, not a tuned value, so its answerer class is replaced."""

    def __init__(self, stats: Any, tuning: Tuning = DEFAULT, *, max_units: int | None = None):
        super().__init__(stats, tuning, max_units=None)
