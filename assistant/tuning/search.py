"""Stage 2's tuned values: how the two rankings are fused, which passages are found for the gate and the
answerer, and how their sentences are scored against the question."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class SearchTuning:
    """Retrieval (`HybridRetriever`), sentence scoring (`SentenceRanker`, coverage) and removals."""

    answer_passages: int = 8  # passages the answerer reads; `top_k` of them at most are cited
    # Fusion.
    rrf_k: int = 60  # the usual constant: damps the head of each ranking so neither signal dominates
    lexical_ratio: float = 0.5  # BM25 below this share of the best does not vote
    candidates: int = 40  # taken from each ranking before fusion
    preferred_boost: float = 1.6  # a version the question names outranks a slightly better match elsewhere
    removal_heads: int = 2  # candidates whose entries remove a name the question says is gone, added after fusion
    agreement_heads: int = 5  # the first passages of each ranking compared: none shared, the two searches disagree
    # Names.
    # A sentence's score: a weight for each of `assistant.search.sentences.FEATURES` (a name it lacks weighs 0),
    # fitted by bench/fit_sentences.py (coverage scaled to 1) at stop 57. It replaced five hand-set weights: the
    # entry's coverage 0.9, the retrieval rank 0.25, a lead sentence 0.05, the named release 0.1, a removal's entry
    # 0.1. Refitted on the features of stop 58's code, the weights ranked a right sentence first for 709 of 1,191
    # questions, these for 712: they stay, with the features they were fitted on (bench/sentence-features.jsonl).
    sentence_model: tuple[tuple[str, float], ...] = (
        ("coverage", 1.0),
        ("entry", 0.239),
        ("prior", 0.655),
        ("lead", -0.086),
        ("release", 0.185),
        ("gone", 0.149),
    )
    # A term in the passage's title or section counts this much for a lead sentence, which the heading speaks for
    # (for others, nothing: the heading is their section's, not theirs).
    lead_context_weight: float = 1.0
    # Coverage.
    coverage_spellings: bool = True  # the docs' spellings of a symbol match it and set its weight
    # An entry that says something was removed: "Removed", "Drop", "no longer supported" are English, not any
    # product's vocabulary.
    removes: re.Pattern[str] = re.compile(
        r"\b(?:remov(?:e|ed|es|al|ing)|drop(?:ped|s)?|delet(?:e|ed|es)|(?:is|are|was|were|has been|have been) taken "
        r"out|no longer (?:exists?|available|supported|accepted|accepts?|supports?|provided|included)|"
        r"supprim\w*|retir\w*)\b",
        re.IGNORECASE,
    )
