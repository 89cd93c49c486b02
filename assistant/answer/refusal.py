"""The honest answer: "the docs don't cover this", with what the gate's `Reason` adds; it cites nothing.

The gate decides (`assistant.gate.refusals`); this words it, in the asker's language, from the sentences of
`assistant.model.messages`. Moved from the gate, so that the gate returns a reason and the answer stage writes
every answer, a refusal included.
"""

from __future__ import annotations

from collections.abc import Sequence

from assistant.gate.refusals import Reason
from assistant.model.messages import joined, say
from assistant.model.query import Query
from assistant.model.records import Answer


def refusal(query: Query, reason: Reason | None = None, *, mode: str = "extractive") -> Answer:
    """The honest answer: "the docs don't cover this", with what the reason adds; it cites nothing."""
    text = say("not_covered", query.language)
    note = explain(reason, query.language) if reason else ""
    return Answer(
        question=query.question,
        text=f"{text} {note}" if note else text,
        found=False,
        mode=mode,  # type: ignore[arg-type]
        language=query.language,
    )


def explain(reason: Reason, language: str = "en") -> str:
    """The note a refusal adds for its reason ('' when it adds none)."""
    if reason.kind in ("unknown_names", "weak_evidence") and reason.names:  # what the docs lack, whatever tipped it
        return say("nothing_mentions", language, names=", ".join(f"`{n}`" for n in reason.names))
    if reason.kind == "release_not_indexed":
        return coverage_note(reason.coverage, language)
    if reason.kind == "other_releases":
        asked = joined(reason.names, language)
        if reason.others:
            return say("other_releases", language, asked=asked, others=joined(reason.others, language))
        return say("no_release", language, asked=asked)
    return ""


def coverage_note(coverage: Sequence[tuple[str, Sequence[str]]], language: str = "en") -> str:
    """'(The indexed docs cover PyTorch versions 2.7.0–2.12.0; pandas version 3.0.0.)'."""
    spans = []
    for name, versions in coverage:
        if not versions:
            continue
        product = f"{name} " if name else ""
        if len(versions) == 1:
            spans.append(say("one_version", language, product=product, version=versions[0]))
        else:
            spans.append(say("version_span", language, product=product, first=versions[0], last=versions[-1]))
    if not spans:
        return say("nothing_indexed", language)
    return say("coverage", language, spans=" ; ".join(spans) if language == "fr" else "; ".join(spans))
