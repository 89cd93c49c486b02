"""Stage 4's tuned values: which sentences the extractive answerer quotes and how, what the chat model is shown
and held to, and how much of an upgrade plan an answer quotes."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AnswerTuning:
    """The extractive answerer's choices, the chat model's bounds, and the upgrade plan's answer."""

    max_groups: int = 3  # passages quoted in one answer
    group_ratio: float = 0.8  # a further passage joins when its best sentence scores this close to the best
    neighbour_ratio: float = 0.5  # the best passage's further sentences need this share of the best coverage
    # The best passage's further sentences include the rest of the best sentence's entry: "Fixes a denial of
    # service due to recursion error for deeply nested statements." answers only with "Instead of recursion error
    # a generic SQLParseError is raised."
    entry_rest: bool = True
    # A sentence from inside an entry brings the entry's first sentence, which says what changed.
    with_leads: bool = True
    # A how-question wants the fix: the best-ranked instruction is added however low it ranks, when none is chosen.
    best_fix: bool = True
    # The chunk after each of the first few best passages, when it continues their section, is read with them: a
    # change and its fix often fall in neighbouring chunks.
    following_from: int = 3
    # A quoted sentence that ends in a colon shows the code block it introduces ("… install additional
    # dependencies:" then `pip install "celery[gcpubsub]"`) up to this many characters: the fix is often the code.
    code_chars: int = 200
    # The chat model.
    llm_passage_chars: int = 2000  # per passage in the prompt; chunks are shorter, this only bounds odd ones
    llm_history: int = 4  # earlier questions shown to the model when condensing a follow-up
    # At least half of a claim's content words must be in its passages. Numbers, names and URLs are checked one by
    # one and catch invented facts; this only has to catch a statement about something else. A faithful paraphrase
    # swaps words for synonyms ("lets the OS choose" for "OS-assigned"): those tried kept 0.5 to 1.0 of their words.
    claim_word_share: float = 0.5
    # The upgrade plan.
    plan_lines: int = 10  # changes quoted in the answer, worst first; the command lists them all
