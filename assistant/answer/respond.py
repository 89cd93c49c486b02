"""Stage 4's entry: the answer to a `Query` from the gate's `Verdict`, and the final touches every answer gets.

A refused question gets the honest "the docs don't cover this" naming why; otherwise the answerer writes from
the passages the gate let through (the extractive one also reads the rest of a best passage's section, where
an example may continue). Moved from the facade.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace

from assistant.answer.extractive import Answerer
from assistant.answer.following import with_following
from assistant.answer.refusal import refusal
from assistant.gate.decision import Verdict
from assistant.model.messages import say
from assistant.model.query import Query
from assistant.model.records import Answer, Chunk
from assistant.tuning import DEFAULT, Tuning


def respond(
    query: Query,
    verdict: Verdict,
    answerer: Answerer,
    *,
    following: tuple[Sequence[Chunk], Mapping[str, int]] | None = None,
    tuning: Tuning = DEFAULT,
) -> Iterator[Answer]:
    """Growing drafts of the answer, the last one final: a refusal when the verdict has a reason. `following`
    (the chunks in reading order and their positions) adds the chunk after each best passage in its section, as
    `tuning.answer` says."""
    if verdict.reason is not None:
        yield refusal(query, verdict.reason)
        return
    passages = verdict.passages
    if following is not None:
        passages = with_following(passages, *following, tuning)
    yield from answerer.stream(query, passages)


def finished(answer: Answer, query: Query, timings: Mapping[str, float], max_chars: int) -> Answer:
    """The final answer with its timings and notes: which release it can speak for, when the docs it quotes
    carry none or the release asked about is several products'; when the question was cut to `max_chars`."""
    notes = []
    if answer.found and query.unnumbered and any(not c.version for c in answer.citations):
        notes.append(say("unnumbered", query.language, asked=", ".join(query.unnumbered)))
    taken = sorted({c.product for c in answer.citations if c.version in query.prefer and c.product})
    if answer.found and query.release_owners and taken:
        asked = ", ".join(v for v in query.prefer if any(c.version == v for c in answer.citations))
        owners = ", ".join(query.release_owners)
        notes.append(say("release_owners", query.language, asked=asked, owners=owners, taken=", ".join(taken)))
    if query.truncated:
        notes.append(say("truncated", query.language, n=max_chars))
    if notes:
        answer = replace(answer, notice=" ".join([answer.notice, *notes] if answer.notice else notes))
    return replace(answer, final=True, timings_ms={k: round(v, 2) for k, v in timings.items()})
