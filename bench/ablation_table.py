"""The heuristics `bench/ablation.py` switches off, one `Ablation` each: what it is and its neutral value.

"Switched off" is the neutral value: a weight or bonus of 0, a limit lifted, a pattern that never matches
(`NEVER`), a branch disabled by replacing its function with the identity (or one returning nothing).
Patches are `(object path, attribute, value)`; the object path is a module or a class inside one.
"""

from __future__ import annotations

from functools import partial

from assistant.model.units import excerpt
from assistant.text import words as text
from assistant.text.instructions import instructs
from assistant.understand import query
from bench.ablation_neutral import (
    INFINITE,
    NEVER,
    UNLIMITED,
    A,
    Ablation,
    C,
    G,
    H,
    K,
    Q,
    R,
    S,
    T,
    U,
    UnlimitedAnswerer,
    WholeIndexRarity,
    ab,
    from_release_unnarrowed,
    knows_no_snake_prefix,
    release_led_by_any,
    terms_without_spellings,
    with_leads_off,
    without,
)

ABLATIONS: tuple[Ablation, ...] = (
    # assistant/answer/extractive.py: scoring sentences, choosing what to quote
    ab(
        "MAX_UNITS (Settings.top_k)",
        "no cap on quoted sentences (the knowledge base passes `top_k`=5, not MAX_UNITS)",
        (K, "ExtractiveAnswerer", UnlimitedAnswerer),
        module="answering.py",
    ),
    ab("MAX_GROUPS", "no cap on quoted passages", (A, "MAX_GROUPS", UNLIMITED)),
    ab("GROUP_RATIO=0", "every passage may join (and own-language needs no score)", (A, "GROUP_RATIO", 0.0)),
    ab("GROUP_RATIO=1", "no further passage joins (own-language only on a tie)", (A, "GROUP_RATIO", 1.0)),
    ab("PRIOR_WEIGHT", "retrieval rank does not lift sentences (0)", (S, "PRIOR_WEIGHT", 0.0)),
    ab("LEAD_BONUS", "no bonus for lead sentences (0)", (S, "LEAD_BONUS", 0.0)),
    ab("PART_WEIGHT", "a symbol's parts earn no partial coverage (0)", (C, "PART_WEIGHT", 0.0)),
    ab(
        "release_spellings",
        "'TOML 1.1' in a question does not meet 'v1.1.0' in the docs",
        (C, "release_spellings", lambda number: frozenset({number})),
    ),
    ab("CONTEXT_WEIGHT", "title/section terms count nothing for non-lead sentences (0)", (S, "CONTEXT_WEIGHT", 0.0)),
    ab(
        "LEAD_CONTEXT_WEIGHT",
        "title/section terms count nothing for lead sentences (0)",
        (S, "LEAD_CONTEXT_WEIGHT", 0.0),
    ),
    ab("NO_TERMS_COVERAGE", "a question without terms has coverage 0", (S, "NO_TERMS_COVERAGE", 0.0)),
    ab(
        "coverage spellings",
        "the docs' spellings of a symbol neither match nor set its weight in coverage",
        (C + ".Terms", "of", classmethod(terms_without_spellings)),
    ),
    ab("NEIGHBOUR_RATIO", "any sentence of the best passage may join it (0)", (A, "NEIGHBOUR_RATIO", 0.0)),
    ab("GROUP_UNITS", "no cap on sentences from the best passage", (A, "GROUP_UNITS", UNLIMITED)),
    ab("ENTRY_REST", "the rest of the best sentence's entry joins only by its own coverage", (A, "ENTRY_REST", False)),
    ab("RELEASE_BONUS", "the named release's sentences rank as any other (0)", (S, "RELEASE_BONUS", 0.0)),
    ab("BUG_FIX_PENALTY", "bug-fix sentences rank as changes (0)", (S, "BUG_FIX_PENALTY", 0.0)),
    ab("ENTRY_WEIGHT", "a changelog sentence ranks by its own coverage, not its entry's (0)", (S, "ENTRY_WEIGHT", 0.0)),
    ab(
        "ENTRY_NEIGHBOURS",
        "a further changelog passage gives one sentence, not the rest of its entry",
        (A, "ENTRY_NEIGHBOURS", False),
    ),
    ab(
        "GONE_BONUS",
        "a removal's entry ranks as any other for a question saying a name is gone (0)",
        (S, "GONE_BONUS", 0.0),
    ),
    ab(
        "rows as instructions",
        "a table row is no instruction unless its words are",
        (A, "_tells", lambda unit: instructs(unit.text)),
    ),
    ab(
        "how-question fix fallback",
        "no fix added after choosing",
        (A + ".ExtractiveAnswerer", "_best_fix", staticmethod(lambda ranked: [])),
    ),
    ab(
        "_named_fix",
        "a how-question gets no fix from the entry naming its rarest term",
        (A + ".ExtractiveAnswerer", "_named_fix", lambda self, *args: []),
    ),
    ab("CODE_LINES", "no line of an instruction's example is quoted (0)", (A, "CODE_LINES", 0)),
    ab("FIX_UNITS", "a how-question's fix is one instruction, without its entry's others (1)", (A, "FIX_UNITS", 1)),
    ab(
        "FOLLOWING_FROM",
        "the chunk after a best passage in its section is not read (0)",
        ("assistant.answer.following", "FOLLOWING_FROM", 0),
    ),
    ab(
        "_with_leads",
        "a sentence does not bring its entry's lead",
        (A + ".ExtractiveAnswerer", "_with_leads", with_leads_off),
    ),
    ab("_own_language", "no own-language passage quoted first", (A, "_own_language", lambda *args: False)),
    ab("_similar", "near-duplicate sentences are all quoted", (A, "_similar", lambda a, b: False)),
    ab(
        "_release_label",
        "no 'pandas 3.0.0:' label before quotes",
        (A + ".ExtractiveAnswerer", "_release_label", lambda self, chunk: ""),
    ),
    ab("_full_stop", "list titles are not given a full stop", (A, "_full_stop", lambda sentence: sentence)),
    ab("_THEN", "a sentence about how things were does not bring the next one", (A, "_THEN", NEVER)),
    ab("_WHY", "a why-question does not bring the sentence after the change (the reason)", (Q, "_WHY", NEVER)),
    ab("_GONE", "no question says a name is gone", (Q, "_GONE", NEVER)),
    # assistant/model/units.py: what a sentence is
    ab("glossed units", "French sentences are matched by their own words", (U, "translate_french", lambda text: text)),
    # `excerpt`'s default limit is bound at import: the answerer's reference is patched instead.
    ab(
        "QUOTE_CHARS",
        "citation excerpts are not cut",
        (A, "excerpt", partial(excerpt, limit=UNLIMITED)),
        module="units.py",
    ),
    ab("_HEADLINE", "no heading becomes a lead sentence", (U, "_HEADLINE", NEVER)),
    ab("_INSTRUCTION", "no sentence is an instruction", ("assistant.text.instructions", "_INSTRUCTION", NEVER)),
    ab("MIN_SENTENCE_CHARS", "short fragments are quotable (0)", (U, "MIN_SENTENCE_CHARS", 0)),
    ab("INTRO_CHARS", "short 'intro:' sentences are quotable (0)", (U, "INTRO_CHARS", 0)),
    ab("SHOWN_CODE_CHARS", "no one-line code is quoted with its introduction (0)", (U, "SHOWN_CODE_CHARS", 0)),
    # assistant/gate/refusals.py
    ab("MIN_COVERAGE=0", "the weak-evidence refusal never fires", (R, "MIN_COVERAGE", 0.0)),
    ab("MIN_COVERAGE=inf", "coverage is never evidence (only similarity)", (R, "MIN_COVERAGE", INFINITE)),
    ab("MIN_SIMILARITY", "similarity never rescues weak coverage (inf)", (R, "MIN_SIMILARITY", INFINITE)),
    ab("MIN_OVERLAP", "similarity alone is evidence, whatever the coverage (0)", (R, "MIN_OVERLAP", 0.0)),
    ab(
        "_bare",
        "a one-sentence question the two searches disagree on is answered on similarity",
        (R, "_bare", lambda query: False),
    ),
    ab(
        "Query.topic",
        "the products a question names count in the overlap check",
        (Q + ".Query", "topic", property(lambda self: self)),
    ),
    ab(
        "_of_product",
        "a package named after a product (`pydantic-core`) is a topic word",
        (Q, "_of_product", lambda term, catalog: False),
    ),
    ab(
        "_package_products",
        "a package named after a product (`pydantic-core`) does not single that product's docs out",
        (Q, "_package_products", lambda question, catalog: []),
    ),
    ab(
        "ScopedTerms.idf",
        "a named product's topic words weigh by their rarity in the whole index, not in its docs",
        ("assistant.search.scoped_terms", "ScopedTerms", WholeIndexRarity),
    ),
    ab("release rule", "never refuse for 'only other releases answer'", (R, "release", lambda *args, **kwargs: None)),
    ab("missing_symbols", "invented symbols are not refused", (R, "missing_symbols", lambda query, stats: [])),
    ab(
        "_in_family",
        "a name the docs write only as a wildcard family (`node_link_*`) is unknown",
        (R, "_in_family", lambda term, stats: False),
    ),
    ab(
        "_variable_member",
        "a member of the asker's variable (`f.create_dataset`) must be written as it is",
        (R, "_variable_member", lambda parts, stats: False),
    ),
    ab("unknown_names", "unknown proper names are not refused", (R, "unknown_names", lambda query, stats: [])),
    ab(
        "_asks_later",
        "'fixed in 6.5.1 compared with 6.5.0?' is answered from 6.5.0 when 6.5.1 is not indexed",
        (R, "_asks_later", lambda query: False),
    ),
    ab(
        "_setting",
        "names of the asker's machine ('on my Retina MacBook') must be in the docs",
        (R, "_setting", lambda query, stats: frozenset()),
    ),
    ab(
        "_ACRONYM",
        "an acronym of the asker's setting ('CI', 'LAN') must be in the docs",
        (T, "_ACRONYM", NEVER),
        module="refusals.py",
    ),
    ab(
        "_acronym_names",
        "an acronym within a longer name ('Django REST Framework') is the asker's setting, not that name's word",
        (Q, "_acronym_names", lambda question, names: []),
    ),
    ab("_BUILTINS", "Python's own exceptions ('ImportError') must be in the docs", (R, "_BUILTINS", frozenset())),
    ab(
        "_sibling",
        "a best sentence about Python 3.6 is evidence for a question about 3.8",
        (R, "_sibling", lambda query, words, text="": False),
    ),
    ab(
        "French quoted names",
        "a French question's quoted words must be in the docs as written («\u00a0nouveau style\u00a0»)",
        (R, "translate_french", lambda text: text),
    ),
    ab(
        "release rule leads",
        "a release answers when it covers well enough, whichever release's sentence ranks first",
        (R, "release", release_led_by_any),
    ),
    # assistant/understand/query.py
    ab("_HOW", "no question is a how-question", (Q, "_HOW", NEVER)),
    ab(
        "_before (gate)",
        "asked which release fixed what 4.0.0 broke, 4.0.0's notes answer too",
        (G, "_before", lambda chunk, query: False),
    ),
    ab(
        "_FIXED_LATER",
        "'which release fixed it?' stays with the release the problem was met in",
        (Q, "_FIXED_LATER", NEVER),
    ),
    ab(
        "_LATER_RELEASES",
        "a question about later releases asks of the release it names",
        (Q, "_LATER_RELEASES", NEVER),
    ),
    ab("_LISTED", "'Python 3.7 and 3.8': 3.8 is read alone, as a release of the product", (Q, "_LISTED", NEVER)),
    ab("_COMPOUND", "'Title-Cased' is two names, 'Title' and 'Cased'", (Q, "_COMPOUND", NEVER)),
    ab(
        "version bounds",
        "'Require Python 3.10 or later' does not say 3.9 was dropped, nor 'Python < 3.7' that 3.7 was not",
        (Q, "asks_dropped", lambda question: False),
    ),
    ab(
        "asks_when",
        "a sentence on start_soon() answers 'which release added a timeout argument to start_soon()?'",
        (Q, "asks_when", lambda question: ""),
    ),
    ab(
        "upgrade range",
        "'from 1.7 to 2.x' prefers the releases it names, not those the upgrade went through",
        (Q, "upgrade_versions", lambda question: None),
    ),
    ab(
        "_specific (upgrade_answer)",
        "every question naming an upgrade gets the whole plan",
        ("assistant.answer.upgrade", "_specific", lambda query: False),
    ),
    ab(
        "FRENCH_GLOSSARY (french.py)",
        "no French-to-English glossary (search and terms)",
        ("assistant.text.french", "_GLOSSARY_FOLDED", {}),
    ),
    ab(
        "French function words (french.py)",
        "'notre', 'après', 'faut-il' stay terms of a French question",
        ("assistant.text.french", "_function_words", lambda: frozenset()),
        ("assistant.text.french", "_INVERSION", NEVER),
    ),
    ab("_QUOTED", "quoted literals are not names", (Q, "_QUOTED", NEVER)),
    ab("_VERSIONS_OF", "what a question asks the versions of is no name", (Q, "_VERSIONS_OF", NEVER)),
    ab("_NOT_NAMES", "'API', 'FAQ' count as names", (Q, "_NOT_NAMES", frozenset())),
    ab("_MAJOR", "'pandas 3' names no release", (Q, "_MAJOR", NEVER)),
    ab("call_values", "names passed in a call (`app=my_app`) must be in the docs", (Q, "call_values", lambda q: [])),
    ab(
        "CALL_KEYWORDS",
        "a call's keywords (`day_of_week=`) must be in the docs",
        ("assistant.understand.asker_code", "CALL_KEYWORDS", False),
    ),
    ab("is_follow_up", "no question leans on the conversation", (Q, "is_follow_up", lambda terms: False)),
    ab("with_spellings", "no docs' spellings of symbols", (K, "with_spellings", lambda query, spell: query)),
    ab(
        "GENERIC (text.py)",
        "release-doc filler words stay query terms",
        ("assistant.text.words", "GENERIC", frozenset()),
    ),
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
        (Q, "_NAME_WORD", without(query._NAME_WORD, f"(?:{text.VERSION_AFTER_SLASH})?")),
        rebuild=True,
    ),
    # assistant/search/retrieval.py
    ab("RRF_K", "no rank damping in fusion (0)", (H, "RRF_K", 0)),
    ab("LEXICAL_RATIO", "every BM25 candidate votes (0)", (H, "LEXICAL_RATIO", 0.0)),
    ab("SYMBOL_HITS", "no cap on symbol hits and dotted-name tails", (H, "SYMBOL_HITS", UNLIMITED), rebuild=True),
    ab("PREFERRED_BOOST", "named release/product not boosted (1.0)", (H, "PREFERRED_BOOST", 1.0)),
    ab("PREFERRED_HITS", "no extra dense search of the named release (0)", (H, "PREFERRED_HITS", 0)),
    ab(
        "REMOVAL_HEADS",
        "no match that removes a name the question says is gone is added after fusion (0)",
        (H, "REMOVAL_HEADS", 0),
    ),
    ab(
        "NAME_CANDIDATES",
        "a removal of a gone name is looked for among the question's matches only, not the chunks naming it (0)",
        (H, "NAME_CANDIDATES", 0),
    ),
    ab(
        "SHORT_NAME_CHARS",
        "a dotted name's last part is not its name in prose (`WSGIMiddleware`)",
        (H, "SHORT_NAME_CHARS", UNLIMITED),
    ),
    ab(
        "HybridRetriever.within",
        "names are looked for in every product's docs, not the asked product's",
        (H + ".HybridRetriever", "within", lambda self, products: self),
    ),
    ab(
        "NAME_SHARE",
        "a word before numbers is another thing's only by its numbers, however written ('SQLAlchemy 1.4')",
        ("assistant.index.catalog", "NAME_SHARE", INFINITE),
        rebuild=True,
    ),
    ab(
        "MODULE_SHARE",
        "a name inside a product's name is its module however short (0): `log` for structlog",
        ("assistant.index.catalog", "MODULE_SHARE", 0.0),
        rebuild=True,
    ),
    ab(
        "_prose_names",
        "a product is named only by its package name, not as its docs write it (`Beautiful Soup`)",
        ("assistant.index.catalog", "_prose_names", lambda name, chunks: set()),
        rebuild=True,
    ),
    ab(
        "snake_case prefix (knows)",
        "`SECRET_KEY` is unknown where the docs only write `SECRET_KEY_FALLBACKS`",
        (H + ".HybridRetriever", "knows", knows_no_snake_prefix),
    ),
    # assistant/gate/decision.py and assistant/knowledge_base.py
    ab(
        "Query.prefers_product",
        "a question naming a product may be answered from another product's docs",
        (Q + ".Query", "prefers_product", lambda self, chunk: True),
    ),
    ab(
        "_from_release narrowing",
        "a refused release is not searched alone",
        (G + ".Gate", "_from_release", from_release_unnarrowed),
    ),
    ab(
        "_on_merit",
        "the release asked about answers only when its passages alone are evidence enough",
        (G + ".Gate", "_on_merit", lambda self, query, passages: False),
    ),
    ab("HEAD_PASSAGES", "the answerer reads fusion's best passages only (0)", (K, "HEAD_PASSAGES", 0)),
    ab(
        "_later (release rule)",
        "a how-question about a release may be answered by a later release's fix",
        (G, "_later", lambda chunk, query: False),
    ),
    ab(
        "OWN_CLOSE",
        "the release a question names answers only when its sentence is the best, not nearly (inf)",
        (G, "OWN_CLOSE", INFINITE),
    ),
    ab(
        "symbols_elsewhere",
        "a release searched alone answers though only other releases write the question's symbol",
        (R, "symbols_elsewhere", lambda query, own, passages: False),
    ),
)
