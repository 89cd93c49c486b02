"""Stage 3's tuned values: the evidence a question needs to be answered, and which refusal rules apply."""

from __future__ import annotations

import builtins
from dataclasses import dataclass


@dataclass(frozen=True)
class GateTuning:
    """The refusal rules (`assistant.gate.refusals`) and the release decision (`assistant.gate.decision`)."""

    # Whether the passages search found answer the question, weighed by the fitted model of the evidence
    # (`assistant.gate.evidence`): each feature's weight and the intercept ("bias"), fitted by bench/fit_gate.py on
    # every question set pooled (bench/gate-evidence.jsonl), chosen by leaving one family of sets out at a time; it
    # replaced five hand rules (the least coverage, similarity and overlap, the bare question, the sibling release).
    model: tuple[tuple[str, float], ...] = (
        ("bias", -0.235),
        ("coverage", 1.992),
        ("agree", 1.628),
        ("symbols", -1.631),
        ("names", -1.467),
        ("sibling", -1.66),
        ("single", -1.67),
    )
    threshold: float = 0.5  # the least probability of a right answer that is answered
    # Proper names no document holds weigh against answering (the model's `names`), Python's own exceptions
    # and warnings ("ImportError", "DeprecationWarning") aside: names of the asker's setting, which release notes
    # leave unsaid.
    builtins: frozenset[str] = frozenset(dir(builtins))
    shown_names: int = 3  # missing names a refusal names
    # "What was fixed in 6.5.1 compared with 6.5.0?" asks of 6.5.1: refused when 6.5.1 is not indexed.
    asks_later: bool = True
    # A question about a release is answered from that release's docs, or refused ("only other releases answer") ...
    release_rule: bool = True
    release_leads: bool = True  # ... whose sentence must lead the answer (its release weight included)
