"""The heuristics `bench/ablation.py` switches off, one `Ablation` each: what it is and its neutral value.

"Switched off" is the neutral value: a weight or bonus of 0, a limit lifted, a pattern that never matches
(`NEVER`), a rule's switch turned off. A tuned value is named `("part__field", value)`, a field of
`assistant.tuning.Tuning` the knowledge base is opened with. What is no tuned value is patched,
`(object path, attribute, value)` (the object path is a module or a class inside one): the tokenizer the index
is built with (`assistant.text.words`), the catalog learnt from the index (`assistant.index.catalog`), and the
`Settings.top_k` cap, rules with no tuned value; each says why where it is listed.
"""

from __future__ import annotations

from assistant.text import words as text
from assistant.tuning import DEFAULT
from assistant.understand import query
from bench.ablation_neutral import (
    CATALOG,
    INFINITE,
    NEVER,
    UNLIMITED,
    A,
    Ablation,
    K,
    Q,
    T,
    UnlimitedAnswerer,
    ab,
    as_said,
    never,
    no_label,
    without,
)

MODEL_FEATURES = tuple(name for name, _ in DEFAULT.gate.model if name != "bias")


def without_sentence_feature(name: str) -> tuple[tuple[str, float], ...]:
    """The sentence scores' fitted weights with one feature's weight 0."""
    return tuple((n, 0.0 if n == name else w) for n, w in DEFAULT.search.sentence_model)


def without_feature(name: str) -> tuple[tuple[str, float], ...]:
    """The gate's fitted model with one feature's weight 0 (the model itself being one tuned value)."""
    return tuple((n, 0.0 if n == name else w) for n, w in DEFAULT.gate.model)


ABLATIONS: tuple[Ablation, ...] = (
    # assistant/answer/extractive.py: scoring sentences, choosing what to quote
    ab(
        "MAX_UNITS (Settings.top_k)",
        "no cap on quoted sentences (the knowledge base passes `top_k`=5, not MAX_UNITS)",
        # A setting, not a tuned value: the knowledge base's answerer class is replaced.
        (K, "ExtractiveAnswerer", UnlimitedAnswerer),
        module="answering.py",
    ),
    ab("MAX_GROUPS", "no cap on quoted passages", ("answer__max_groups", UNLIMITED)),
    ab("GROUP_RATIO=0", "every passage may join", ("answer__group_ratio", 0.0)),
    ab("GROUP_RATIO=1", "no further passage joins", ("answer__group_ratio", 1.0)),
    ab(
        "sentences: prior",
        "retrieval rank does not lift sentences (its weight 0)",
        ("search__sentence_model", without_sentence_feature("prior")),
    ),
    ab(
        "sentences: lead",
        "no weight for lead sentences",
        ("search__sentence_model", without_sentence_feature("lead")),
    ),
    ab(
        "LEAD_CONTEXT_WEIGHT",
        "title/section terms count nothing for lead sentences (0)",
        ("search__lead_context_weight", 0.0),
    ),
    ab(
        "coverage spellings",
        "the docs' spellings of a symbol neither match nor set its weight in coverage",
        ("search__coverage_spellings", False),
    ),
    ab("NEIGHBOUR_RATIO", "any sentence of the best passage may join it (0)", ("answer__neighbour_ratio", 0.0)),
    ab(
        "ENTRY_REST",
        "the rest of the best sentence's entry joins only by its own coverage",
        ("answer__entry_rest", False),
    ),
    ab(
        "Query.prefers_product",
        "a question naming a product may be answered from another product's docs",
        ("understand__own_product", False),
    ),
    ab(
        "sentences: release",
        "the named release's sentences rank as any other (its weight 0)",
        ("search__sentence_model", without_sentence_feature("release")),
    ),
    ab(
        "sentences: entry",
        "a changelog sentence ranks by its own coverage, not its entry's (its weight 0)",
        ("search__sentence_model", without_sentence_feature("entry")),
    ),
    ab(
        "sentences: gone",
        "a removal's entry ranks as any other for a question saying a name is gone (its weight 0)",
        ("search__sentence_model", without_sentence_feature("gone")),
    ),
    ab("how-question fix fallback", "no fix added after choosing", ("answer__best_fix", False)),
    ab(
        "FOLLOWING_FROM",
        "the chunk after a best passage in its section is not read (0)",
        ("answer__following_from", 0),
    ),
    ab("_with_leads", "a sentence does not bring its entry's lead", ("answer__with_leads", False)),
    ab("code_chars", "a sentence ending in a colon quotes no code block after it (0)", ("answer__code_chars", 0)),
    ab("_similar", "a sentence whose words another quoted one holds is quoted too", (A, "_similar", never)),
    ab(
        "_release_label",
        "no 'pandas 3.0.0:' label before quotes",
        (f"{A}.ExtractiveAnswerer", "_release_label", no_label),
        module="answer.py",
    ),
    ab("_full_stop", "list titles are not given a full stop", (A, "_full_stop", as_said), module="answer.py"),
    ab("_GONE", "no question says a name is gone", ("understand__gone", NEVER)),
    # assistant/model/units.py: what a sentence is
    ab("QUOTE_CHARS", "citation excerpts are not cut", ("units__quote_chars", UNLIMITED), module="units.py"),
    ab("_HEADLINE", "no heading becomes a lead sentence", ("units__headline", NEVER)),
    ab("_INSTRUCTION", "no sentence is an instruction", ("text__instruction", NEVER)),
    # assistant/gate/refusals.py
    *(
        ab(
            f"model: {name}",
            f"the gate's model without `{name}` (its weight 0)",
            ("gate__model", without_feature(name)),
        )
        for name in MODEL_FEATURES
    ),
    ab("model threshold", "the model never refuses (threshold 0)", ("gate__threshold", 0.0)),
    ab("release rule", "never refuse for 'only other releases answer'", ("gate__release_rule", False)),
    ab(
        "_asks_later",
        "'fixed in 6.5.1 compared with 6.5.0?' is answered from 6.5.0 when 6.5.1 is not indexed",
        ("gate__asks_later", False),
    ),
    ab(
        "_ACRONYM",
        "an acronym of the asker's setting ('CI', 'LAN') counts against answering when the docs lack them",
        ("text__acronym", NEVER),
        module="refusals.py",
    ),
    ab(
        "_BUILTINS",
        "Python's own exceptions ('ImportError') count against answering when the docs lack them",
        ("gate__builtins", frozenset()),
    ),
    ab(
        "release rule leads",
        "a release answers when it covers well enough, whichever release's sentence ranks first",
        ("gate__release_leads", False),
    ),
    # assistant/understand/query.py
    ab("_HOW", "no question is a how-question", ("understand__how", NEVER)),
    ab(
        "_FIXED_LATER",
        "'which release fixed it?' stays with the release the problem was met in",
        ("understand__fixed_later", NEVER),
    ),
    ab(
        "version bounds",
        "'Require Python 3.10 or later' does not say 3.9 was dropped, nor 'Python < 3.7' that 3.7 was not",
        ("understand__version_bounds", False),
    ),
    ab(
        "upgrade range",
        "'from 1.7 to 2.x' prefers the releases it names, not those the upgrade went through",
        ("understand__upgrade_range", False),
    ),
    ab(
        "_specific (upgrade_answer)",
        "every question naming an upgrade gets the whole plan",
        ("understand__specific_questions", False),
    ),
    ab(
        "FRENCH_GLOSSARY (french.py)",
        "no French-to-English glossary (search and terms)",
        ("text__french_glossary", False),
    ),
    ab(
        "French function words (french.py)",
        "'notre', 'après', 'faut-il' stay terms of a French question",
        ("text__french_function_words", False),
        ("text__french_inversion", NEVER),
    ),
    ab("_QUOTED", "quoted literals are not names", ("understand__quoted", NEVER)),
    ab("_MAJOR", "'pandas 3' names no release", ("understand__major", NEVER)),
    ab(
        "call_values",
        "names passed in a call (`app=my_app`) count against answering when the docs lack them",
        ("understand__call_values", False),
    ),
    # Fewer than 0 terms: no question leans on the conversation.
    ab("is_follow_up", "no question leans on the conversation", ("understand__follow_up_terms", 0)),
    ab(
        "with_spellings",
        "no docs' spellings of symbols",
        ("understand__spellings", False),
        module="knowledge_base.py",
    ),
    # The tokenizer's filler words and spellings: the index is built with them by ingest, which takes no tuning.
    ab("GENERIC (text.py)", "release-doc filler words stay query terms", (T, "GENERIC", frozenset())),
    ab("_BRITISH (text.py)", "British spellings do not meet American ones", (T, "_BRITISH", NEVER), rebuild=True),
    ab("_ABLE (text.py)", "'pickleable' does not meet 'pickle'", (T, "_ABLE", NEVER), rebuild=True),
    ab(
        "decorator tokens (text.py)",
        "`@validator` is the word 'validator'",
        (T, "_TOKEN", without(text._TOKEN, r"(?<![\w@])@[^\W\d]\w*(?:\.\w+)*|")),
        rebuild=True,
    ),
    ab(
        "versioned names (text.py)",
        "'HTTP/3' is the words 'HTTP' and '3'",
        (T, "_TOKEN", without(text._TOKEN, r"(?<![\w/])[^\W\d_]{2,}" + text.VERSION_AFTER_SLASH + "|")),
        # The query's name words are read with the tokenizer's `VERSION_AFTER_SLASH`: they stay beside it.
        (Q, "_NAME_WORD", without(query._NAME_WORD, f"(?:{text.VERSION_AFTER_SLASH})?")),
        rebuild=True,
    ),
    # assistant/search/retrieval.py
    ab("RRF_K", "no rank damping in fusion (0)", ("search__rrf_k", 0)),
    ab("LEXICAL_RATIO", "every BM25 candidate votes (0)", ("search__lexical_ratio", 0.0)),
    ab("PREFERRED_BOOST", "named release/product not boosted (1.0)", ("search__preferred_boost", 1.0)),
    ab(
        "REMOVAL_HEADS",
        "no match that removes a name the question says is gone is added after fusion (0)",
        ("search__removal_heads", 0),
    ),
    # The catalog: the products and their names are learnt from the index, below the stages, when it is loaded.
    ab(
        "NAME_SHARE",
        "a word before numbers is another thing's only by its numbers, however written ('SQLAlchemy 1.4')",
        (CATALOG, "NAME_SHARE", INFINITE),
        rebuild=True,
    ),
    ab(
        "MODULE_SHARE",
        "a name inside a product's name is its module however short (0): `log` for structlog",
        (CATALOG, "MODULE_SHARE", 0.0),
        rebuild=True,
    ),
    ab(
        "_prose_names",
        "a product is named only by its package name, not as its docs write it (`Beautiful Soup`)",
        (CATALOG, "_prose_names", lambda name, chunks: set()),
        rebuild=True,
    ),
)
