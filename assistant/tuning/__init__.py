"""Every tuned value of the question path, as data: one frozen `Tuning`, one part per stage, handed to the stages.

The values are the ones the stages were tuned with; an evaluation or ablation that tries another builds a
`Tuning` with `dataclasses.replace` (or `Tuning.with_values`) and opens a knowledge base with it, patching no
module. The knowledge base hands its `tuning` to each stage object it builds (`HybridRetriever`,
`ExtractiveAnswerer`, `Gate`, the chat-model answerer) and to each stage function it calls; those pass it on.
A public function also called from outside the question path (by tests, the benches, the interfaces) defaults
to `DEFAULT`. This is the lowest layer: it imports nothing of the project.

Tuned are the weights, thresholds and limits of the stages, their word lists and the patterns of the words a
heuristic reacts to (what asks how, what says a name is gone), and "switches": a rule the ablation can turn off
as a whole (`best_fix`, `release_rule`) is a bool its code checks; a fitted model (`search.sentence_model`,
`gate.model`) is one value, its weights fitted by a bench script on every question set pooled. A constant that is
a cache's size (the sentence memo, `lru_cache` bounds) is no tuning: it changes no answer. Left in their modules,
with the reason:

- the tokenizer (`assistant.text.words`: `_TOKEN`, `_BRITISH`, `_ABLE`, `STOPWORDS`, `GENERIC`): the index is
  built with it by ingest, which takes no tuning; `GENERIC` is the tokenizer's filler-word list for query terms
  (`content_terms`, also read by the chat model's grounding), kept beside the stopwords;
- the catalog's `NAME_SHARE`, `MODULE_SHARE` and `_prose_names` (`assistant.index.catalog`): the products and
  their names are learnt once per index generation, below the stages;
- patterns that read a notation rather than weigh evidence: version numbers and series (`understand.query`),
  version bounds in prose (`text.bounds`, switched as a whole by `understand.version_bounds`), an upgrade's
  span (`understand.upgrade_range`, switched by `understand.upgrade_range`), code quoted in a question
  (`understand.asker_code`), markup and citations (`assistant.text`, `answer.grounding`), and the words of a
  question (`understand.query._NAME_WORD`, read with the tokenizer's own `VERSION_AFTER_SLASH`);
- the French glossary and function words (`assistant.text.french`): language data, whose use is switched here;
- Python's own names, which `search.removals` leaves out of what a question says is gone: a fact of Python (the
  gate's copy is tuned, `gate.builtins`, as the ablation empties it for the refusal rule alone);
- the upgrade plan and scan (`assistant.upgrade`): commands of their own, not stages of a question.

The parts: `text` (acronyms, instructions, French), `units` (what a sentence is, how a quote is cut),
`understand`, `search`, `gate`, `answer` (one per stage, in `assistant/tuning/<part>.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from assistant.tuning.answer import AnswerTuning
from assistant.tuning.gate import GateTuning
from assistant.tuning.search import SearchTuning
from assistant.tuning.text import TextTuning, UnitsTuning
from assistant.tuning.understand import UnderstandTuning

__all__ = [
    "DEFAULT",
    "AnswerTuning",
    "GateTuning",
    "SearchTuning",
    "TextTuning",
    "Tuning",
    "UnderstandTuning",
    "UnitsTuning",
]


@dataclass(frozen=True)
class Tuning:
    """The tuned values of every stage of the question path, one frozen part each."""

    text: TextTuning = field(default_factory=TextTuning)  # acronyms, instructions, French (assistant.text)
    units: UnitsTuning = field(default_factory=UnitsTuning)  # sentences and quotes (assistant.model.units)
    understand: UnderstandTuning = field(default_factory=UnderstandTuning)  # stage 1
    search: SearchTuning = field(default_factory=SearchTuning)  # stage 2
    gate: GateTuning = field(default_factory=GateTuning)  # stage 3
    answer: AnswerTuning = field(default_factory=AnswerTuning)  # stage 4

    def __hash__(self) -> int:
        # Kept once computed: cached functions (`units_of`, `instructs`) take the tuning as a key at every call.
        cached = self.__dict__.get("_hash")
        if cached is None:
            cached = hash(tuple(getattr(self, f.name) for f in fields(self)))
            object.__setattr__(self, "_hash", cached)
        return cached

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
