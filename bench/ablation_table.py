"""The heuristics `bench/ablation.py` switches off, one `Ablation` each: what it is and its neutral value.

"Switched off" is the neutral value: a weight or bonus of 0, a limit lifted, a pattern that never matches
(`NEVER`), a rule's switch turned off. A tuned value is named `("part__field", value)`, a field of
`assistant.tuning.Tuning` the knowledge base is opened with. What is no tuned value is patched,
`(object path, attribute, value)` (the object path is a module or a class inside one): the tokenizer the index
is built with (`assistant.text.words`), the catalog learnt from the index (`assistant.index.catalog`), and the
`Settings.top_k` cap; each says why where it is listed.
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
    Ablation,
    K,
    Q,
    T,
    UnlimitedAnswerer,
    ab,
    without,
)

MODEL_FEATURES = tuple(name for name, _ in DEFAULT.gate.model if name != "bias")


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
    ab("PRIOR_WEIGHT", "retrieval rank does not lift sentences (0)", ("search__prior_weight", 0.0)),
    ab("LEAD_BONUS", "no bonus for lead sentences (0)", ("search__lead_bonus", 0.0)),
    ab("PART_WEIGHT", "a symbol's parts earn no partial coverage (0)", ("search__part_weight", 0.0)),
    ab(
        "release_spellings",
        "'TOML 1.1' in a question does not meet 'v1.1.0' in the docs",
        ("search__release_spellings", False),
    ),
    ab(
        "CONTEXT_WEIGHT",
        "title/section terms count nothing for non-lead sentences (0)",
        ("search__context_weight", 0.0),
    ),
    ab(
        "LEAD_CONTEXT_WEIGHT",
        "title/section terms count nothing for lead sentences (0)",
        ("search__lead_context_weight", 0.0),
    ),
    ab("NO_TERMS_COVERAGE", "a question without terms has coverage 0", ("search__no_terms_coverage", 0.0)),
    ab(
        "coverage spellings",
        "the docs' spellings of a symbol neither match nor set its weight in coverage",
        ("search__coverage_spellings", False),
    ),
    ab("NEIGHBOUR_RATIO", "any sentence of the best passage may join it (0)", ("answer__neighbour_ratio", 0.0)),
    ab("GROUP_UNITS", "no cap on sentences from the best passage", ("answer__group_units", UNLIMITED)),
    ab(
        "ENTRY_REST",
        "the rest of the best sentence's entry joins only by its own coverage",
        ("answer__entry_rest", False),
    ),
    ab("RELEASE_BONUS", "the named release's sentences rank as any other (0)", ("search__release_bonus", 0.0)),
    ab(
        "ENTRY_WEIGHT",
        "a changelog sentence ranks by its own coverage, not its entry's (0)",
        ("search__entry_weight", 0.0),
    ),
    ab(
        "ENTRY_NEIGHBOURS",
        "a further changelog passage gives one sentence, not the rest of its entry",
        ("answer__entry_neighbours", False),
    ),
    ab(
        "GONE_BONUS",
        "a removal's entry ranks as any other for a question saying a name is gone (0)",
        ("search__gone_bonus", 0.0),
    ),
    ab("rows as instructions", "a table row is no instruction unless its words are", ("answer__rows_instruct", False)),
    ab("how-question fix fallback", "no fix added after choosing", ("answer__best_fix", False)),
    ab(
        "_named_fix",
        "a how-question gets no fix from the entry naming its rarest term",
        ("answer__named_fix", False),
    ),
    ab("CODE_LINES", "no line of an instruction's example is quoted (0)", ("answer__code_lines", 0)),
    ab(
        "FIX_UNITS",
        "a how-question's fix is one instruction, without its entry's others (1)",
        ("answer__fix_units", 1),
    ),
    ab(
        "FOLLOWING_FROM",
        "the chunk after a best passage in its section is not read (0)",
        ("answer__following_from", 0),
    ),
    ab("_with_leads", "a sentence does not bring its entry's lead", ("answer__with_leads", False)),
    # A share of shared words no pair of sentences reaches: none is a near-duplicate of another.
    ab("_similar", "near-duplicate sentences are all quoted", ("answer__similar_share", INFINITE)),
    ab("_release_label", "no 'pandas 3.0.0:' label before quotes", ("answer__release_label", False)),
    ab("_full_stop", "list titles are not given a full stop", ("answer__full_stop", False)),
    ab("_THEN", "a sentence about how things were does not bring the next one", ("answer__then", NEVER)),
    ab("_GONE", "no question says a name is gone", ("understand__gone", NEVER)),
    # assistant/model/units.py: what a sentence is
    ab("QUOTE_CHARS", "citation excerpts are not cut", ("units__quote_chars", UNLIMITED), module="units.py"),
    ab("_HEADLINE", "no heading becomes a lead sentence", ("units__headline", NEVER)),
    ab("_INSTRUCTION", "no sentence is an instruction", ("text__instruction", NEVER)),
    ab("MIN_SENTENCE_CHARS", "short fragments are quotable (0)", ("units__min_sentence_chars", 0)),
    ab("INTRO_CHARS", "short 'intro:' sentences are quotable (0)", ("units__intro_chars", 0)),
    ab(
        "SHOWN_CODE_CHARS",
        "no one-line code is quoted with its introduction (0)",
        ("units__shown_code_chars", 0),
    ),
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
    ab(
        "Query.topic",
        "the products a question names count in the model's `topic` coverage",
        ("understand__topic_apart", False),
    ),
    ab(
        "_of_product",
        "a package named after a product (`pydantic-core`) is a topic word",
        ("understand__of_product", False),
    ),
    ab(
        "ScopedTerms.idf",
        "a named product's topic words weigh by their rarity in the whole index, not in its docs",
        ("search__scoped_rarity", False),
    ),
    ab("release rule", "never refuse for 'only other releases answer'", ("gate__release_rule", False)),
    ab(
        "missing_symbols",
        "code names no document holds are not counted (the model's `symbols`)",
        ("gate__missing_symbols", False),
    ),
    ab(
        "_in_family",
        "a name the docs write only as a wildcard family (`node_link_*`) is unknown",
        ("gate__in_family", False),
    ),
    ab(
        "unknown_names",
        "proper names no document holds are not counted (the model's `names`)",
        ("gate__unknown_names", False),
    ),
    ab(
        "_asks_later",
        "'fixed in 6.5.1 compared with 6.5.0?' is answered from 6.5.0 when 6.5.1 is not indexed",
        ("gate__asks_later", False),
    ),
    ab(
        "_setting",
        "names of the asker's machine ('on my Retina MacBook') count against answering when the docs lack them",
        ("gate__setting", NEVER),
    ),
    ab(
        "_ACRONYM",
        "an acronym of the asker's setting ('CI', 'LAN') counts against answering when the docs lack them",
        ("text__acronym", NEVER),
        module="refusals.py",
    ),
    ab(
        "_acronym_names",
        "an acronym within a longer name ('Django REST Framework') is the asker's setting, not that name's word",
        ("understand__acronym_names", False),
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
        "_LATER_RELEASES",
        "a question about later releases asks of the release it names",
        ("understand__later_releases", NEVER),
    ),
    ab(
        "_LISTED",
        "'Python 3.7 and 3.8': 3.8 is read alone, as a release of the product",
        ("understand__listed", NEVER),
    ),
    ab("_COMPOUND", "'Title-Cased' is two names, 'Title' and 'Cased'", ("understand__compounds", False)),
    ab(
        "version bounds",
        "'Require Python 3.10 or later' does not say 3.9 was dropped, nor 'Python < 3.7' that 3.7 was not",
        ("understand__version_bounds", False),
    ),
    ab(
        "asks_when",
        "a sentence on start_soon() answers 'which release added a timeout argument to start_soon()?'",
        ("understand__asks_when", NEVER),
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
    ab("_VERSIONS_OF", "what a question asks the versions of is no name", ("understand__versions_of", NEVER)),
    ab("_MAJOR", "'pandas 3' names no release", ("understand__major", NEVER)),
    ab(
        "call_values",
        "names passed in a call (`app=my_app`) count against answering when the docs lack them",
        ("understand__call_values", False),
    ),
    ab(
        "CALL_KEYWORDS",
        "a call's keywords (`day_of_week=`) count against answering when the docs lack them",
        ("understand__call_keywords", False),
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
    ab(
        "SYMBOL_HITS",
        "no cap on symbol hits and dotted-name tails",
        ("search__symbol_hits", UNLIMITED),
        rebuild=True,
    ),
    ab("PREFERRED_BOOST", "named release/product not boosted (1.0)", ("search__preferred_boost", 1.0)),
    ab("PREFERRED_HITS", "no extra dense search of the named release (0)", ("search__preferred_hits", 0)),
    ab(
        "REMOVAL_HEADS",
        "no match that removes a name the question says is gone is added after fusion (0)",
        ("search__removal_heads", 0),
    ),
    ab(
        "NAME_CANDIDATES",
        "a removal of a gone name is looked for among the question's matches only, not the chunks naming it (0)",
        ("search__name_candidates", 0),
    ),
    ab(
        "SHORT_NAME_CHARS",
        "a dotted name's last part is not its name in prose (`WSGIMiddleware`)",
        ("search__short_name_chars", UNLIMITED),
    ),
    ab(
        "HybridRetriever.within",
        "names are looked for in every product's docs, not the asked product's",
        ("search__scoped_names", False),
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
    ab(
        "snake_case prefix (knows)",
        "`SECRET_KEY` is unknown where the docs only write `SECRET_KEY_FALLBACKS`",
        ("search__snake_prefix", False),
    ),
    # assistant/gate/decision.py and assistant/knowledge_base.py
    ab(
        "Query.prefers_product",
        "a question naming a product may be answered from another product's docs",
        ("understand__own_product", False),
    ),
    ab("_from_release narrowing", "a refused release is not searched alone", ("gate__narrow_release", False)),
    ab(
        "HEAD_PASSAGES",
        "the answerer reads fusion's best passages only (0)",
        ("search__head_passages", 0),
        module="knowledge_base.py",
    ),
    ab(
        "_later (release rule)",
        "a how-question about a release may be answered by a later release's fix",
        ("gate__no_later_fix", False),
    ),
    ab(
        "OWN_CLOSE",
        "the release a question names answers only when its sentence is the best, not nearly (inf)",
        ("gate__own_close", INFINITE),
    ),
    ab(
        "symbols_elsewhere",
        "a release searched alone answers though only other releases write the question's symbol",
        ("gate__symbols_elsewhere", False),
    ),
)
