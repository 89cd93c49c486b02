"""Stage 2's tuned values: how the two rankings are fused, which passages are found for the gate and the
answerer, and how their sentences are scored against the question."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class SearchTuning:
    """Retrieval (`HybridRetriever`), sentence scoring (`SentenceRanker`, coverage) and removals."""

    answer_passages: int = 8  # passages the answerer reads; `top_k` of them at most are cited
    head_passages: int = 3  # ... and each ranking's first few, where fusion ranked them lower
    # Fusion.
    rrf_k: int = 60  # the usual constant: damps the head of each ranking so neither signal dominates
    lexical_ratio: float = 0.5  # BM25 below this share of the best does not vote
    candidates: int = 40  # taken from each ranking before fusion
    symbol_hits: int = 20  # a symbol found in more chunks than this is too common to single any out
    preferred_boost: float = 1.6  # a version the question names outranks a slightly better match elsewhere
    preferred_hits: int = 10  # dense candidates of the named release/product that make a search of their own unneeded
    preferred_candidates: int = 20  # ... that search's own candidates, at most
    removal_heads: int = 2  # candidates whose entries remove a name the question says is gone, added after fusion
    # ... looked for also among the chunks that name it, when the question's matches hold too few.
    name_candidates: int = 40
    agreement_heads: int = 5  # the first passages of each ranking compared: none shared, the two searches disagree
    # Names.
    short_name_chars: int = 8  # a dotted name's last part this long is also its name in prose ("WSGIMiddleware")
    # A member this long, used through a receiver of unknown type (`df.append`), is looked for as the docs'
    # `Class.member`; a dotted name's last part this long names it when the question says it is gone.
    member_chars: int = 4
    snake_prefix: bool = True  # `SECRET_KEY` is known where the docs only write `SECRET_KEY_FALLBACKS`
    # Names and rarity are judged in the docs of the products a question names, not in every product's.
    scoped_names: bool = True
    scoped_rarity: bool = True  # ... a named product's topic words weigh by their rarity in its docs
    # Sentence scores.
    prior_weight: float = 0.25  # how much the passage's retrieval rank lifts its sentences
    lead_bonus: float = 0.05  # the first sentence of a list entry or paragraph, usually its summary
    context_weight: float = 0.5  # a term in the passage's title or section counts this much for a sentence
    lead_context_weight: float = 1.0  # ... and fully for a lead sentence, which the heading speaks for
    no_terms_coverage: float = 0.5  # a question with no content terms ("what's new in 2.11?")
    release_bonus: float = 0.1  # sentences of the release a question names rank above other releases' near matches
    # A changelog entry is one change: its sentences rank by what the whole entry covers, by this share ("New
    # `array_hook` parameter …" then "Called with each decoded JSON array …" answer a question together).
    entry_weight: float = 0.9
    gone_bonus: float = 0.1  # a removal's entry ranks above other mentions for a question saying something is gone
    # Coverage.
    part_weight: float = 0.6  # a symbol whose parts alone are there counts this much, pro rata
    release_spellings: bool = True  # 'TOML 1.1' in a question meets 'v1.1.0' in the docs
    coverage_spellings: bool = True  # the docs' spellings of a symbol match it and set its weight
    # An entry that says something was removed: "Removed", "Drop", "no longer supported" are English, not any
    # product's vocabulary.
    removes: re.Pattern[str] = re.compile(
        r"\b(?:remov(?:e|ed|es|al|ing)|drop(?:ped|s)?|delet(?:e|ed|es)|(?:is|are|was|were|has been|have been) taken "
        r"out|no longer (?:exists?|available|supported|accepted|accepts?|supports?|provided|included)|"
        r"supprim\w*|retir\w*)\b",
        re.IGNORECASE,
    )
