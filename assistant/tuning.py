"""Every tuned value of the question path, as data: one frozen `Tuning`, one part per stage, handed to the stages.

The values are the ones the stages were tuned with; an evaluation or ablation that tries another builds a
`Tuning` with `dataclasses.replace` (or `Tuning.with_values`) and opens a knowledge base with it, patching no
module. This is the lowest layer: it imports nothing of the project.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any


@dataclass(frozen=True)
class SearchTuning:
    """Stage 2: how many passages are found for the gate and the answerer."""

    answer_passages: int = 8  # passages the answerer reads; `top_k` of them at most are cited
    head_passages: int = 3  # ... and each ranking's first few, where fusion ranked them lower


@dataclass(frozen=True)
class Tuning:
    """The tuned values of every stage of the question path."""

    search: SearchTuning = field(default_factory=SearchTuning)

    def with_values(self, **values: Any) -> Tuning:
        """A copy with some values replaced, named `part__field` (`search__answer_passages=4`)."""
        parts: dict[str, dict[str, Any]] = {}
        for name, value in values.items():
            part, _, key = name.partition("__")
            if part not in {f.name for f in fields(self)} or key not in {f.name for f in fields(getattr(self, part))}:
                raise ValueError(f"no tuned value {name!r}")
            parts.setdefault(part, {})[key] = value
        return replace(self, **{p: replace(getattr(self, p), **v) for p, v in parts.items()})


DEFAULT = Tuning()
