"""Which sentences tell the reader what to do: the part of the docs that answers a how-question.

A release note states a change ("`coords()` is deprecated") and then, often, the fix ("Use `lon_lat()`
instead", "it can be safely removed", "all stubs packages must be uninstalled"). The fix is worded as an
imperative, a modal, or a pointer to the replacement; these phrases are English grammar, not any product's
vocabulary. They are a tuned pattern, `TextTuning.instruction`.
"""

from __future__ import annotations

from functools import lru_cache

from assistant.tuning import DEFAULT, Tuning


@lru_cache(maxsize=16384)  # the same passages' sentences are judged again and again
def instructs(sentence: str, tuning: Tuning = DEFAULT) -> bool:
    """True when the sentence tells the reader what to do ("Use X instead", "Call .item()"): the phrases of
    `tuning.text.instruction`."""
    return bool(tuning.text.instruction.search(sentence))
