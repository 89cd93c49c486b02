"""What the gate weighs before answering, as a few named numbers (`Evidence`), and the fitted model that weighs them.

Each number is one thing a person would check: how much of the question the best sentence holds (`coverage`),
how close in meaning the nearest passage is (`similarity`), whether the
word and meaning searches agree on a passage (`agree`), how many names the question hinges on no document holds
(`absent`; code names, `symbols`, and proper names, `names`), whether the best sentence holds the question's rarest
word (`focus`) or names another release of a number's series (`sibling`), and whether the question is one bare
sentence (`single`).

`probability` is a logistic model over them (the chosen model weighs some of the nine; the others stay as
candidates for the next fit): its weights are fitted by `bench/fit_gate.py` on every question set pooled, chosen by
leaving one family of sets out at a time, and stored in `GateTuning.model`. Written here by hand because answering
imports no learning library: the model is a weighted sum and a logistic function.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

FEATURES = (
    "coverage",
    "similarity",
    "agree",
    "absent",
    "symbols",
    "names",
    "focus",
    "sibling",
    "single",
)


@dataclass(frozen=True)
class Evidence:
    """The gate's evidence for one question and the passages search found for it."""

    coverage: float  # the best sentence's weighted share of the question's terms
    similarity: float  # the nearest passage's closeness in meaning
    agree: bool  # a passage both searches found
    symbols: tuple[str, ...]  # code names of the question that no document holds (an invented API)
    names: tuple[str, ...]  # proper names the question hinges on that no document holds ("TensorFlow")
    focus: bool  # the best sentence holds the question's rarest word the docs know (its products' names aside)
    sibling: bool  # the best sentence names another release of a number's series, not the number itself
    single: bool  # the question is one sentence, telling nothing of what happened to the asker
    passages: int  # how many passages search found

    @property
    def absent(self) -> tuple[str, ...]:
        """Every name the question hinges on that no document holds, code names first."""
        return (*self.symbols, *self.names)

    def features(self) -> dict[str, float]:
        """The numbers the model weighs, by name (`FEATURES`); each count of names goes up to two, each name once."""
        return {
            "coverage": self.coverage,
            "similarity": self.similarity,
            "agree": float(self.agree),
            "absent": float(min(len(set(self.absent)), 2)),
            "symbols": float(min(len(set(self.symbols)), 2)),
            "names": float(min(len(set(self.names)), 2)),
            "focus": float(self.focus),
            "sibling": float(self.sibling),
            "single": float(self.single),
        }


def probability(evidence: Evidence, model: Mapping[str, float]) -> float:
    """The fitted model's probability that an answer from these passages is right: `model` maps each feature it
    uses to its weight, and `"bias"` to the intercept."""
    return logistic(evidence.features(), model)


def logistic(values: Mapping[str, float], model: Mapping[str, float]) -> float:
    """The model's probability for features given by name (as `Evidence.features` names them; the fit reads
    them from its collected rows). A weight of no feature is an error, not a zero: a misspelt name would
    otherwise leave its feature unweighed."""
    unknown = set(model) - {"bias", *FEATURES}
    if unknown:
        raise ValueError(f"the gate's model weighs no such feature: {', '.join(sorted(unknown))}")
    z = model.get("bias", 0.0) + sum(w * values[name] for name, w in model.items() if name != "bias")
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def tipped_by_names(evidence: Evidence, model: Mapping[str, float], threshold: float) -> bool:
    """Whether the names no document holds are what the evidence falls short by: without them, it would answer."""
    values = {**evidence.features(), "absent": 0.0, "symbols": 0.0, "names": 0.0}
    return bool(evidence.absent) and logistic(values, model) >= threshold
