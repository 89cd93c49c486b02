"""The heuristics `bench/ablation.py` switches off, one `Ablation` each: what it is and its neutral value.

"Switched off" is the neutral value: a weight or bonus of 0, a limit lifted, a pattern that never matches
(`NEVER`), a branch disabled by replacing its function with the identity (or one returning nothing).
Patches are `(object path, attribute, value)`; the object path is a module or a class inside one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from assistant import refusals
from assistant.answering import ExtractiveAnswerer, Scored
from assistant.coverage import Terms
from assistant.instructions import instructs
from assistant.knowledge_base import KnowledgeBase
from assistant.models import Passage
from assistant.retrieval import HybridRetriever
from assistant.scoped_terms import ScopedTerms
from assistant.units import excerpt

NEVER = re.compile(r"(?!)()")  # never matches; its group keeps `sub(r"\1", …)` valid
# The word tokenizer before decorators kept their "@".
_TOKEN_NO_AT = re.compile(r"c\+\+\d*|[^\W_][\w]*(?:[.\-][\w]+)*|_[\w]+(?:\.[\w]+)*", re.UNICODE | re.IGNORECASE)
UNLIMITED = 10**9
INFINITE = float("inf")

A, C, U, R, Q, H, K, T = (
    "assistant.answering",
    "assistant.coverage",
    "assistant.units",
    "assistant.refusals",
    "assistant.query",
    "assistant.retrieval",
    "assistant.knowledge_base",
    "assistant.text",
)


@dataclass(frozen=True)
class Ablation:
    """One heuristic switched off: its name, the module it lives in, what "off" means, and the patches."""

    name: str
    module: str
    off: str
    patches: tuple[tuple[str, str, Any], ...]
    rebuild: bool = False  # the patch acts when the retriever is built (its indexes), not per question


def _ab(
    name: str, off: str, *patches: tuple[str, str, Any], module: str | None = None, rebuild: bool = False
) -> Ablation:
    where = module or patches[0][0].removeprefix("assistant.").split(".")[0] + ".py"
    return Ablation(name, where, off, patches, rebuild)


class _UnlimitedAnswerer(ExtractiveAnswerer):
    """The extractive answerer with no cap on quoted sentences (the knowledge base passes `top_k`)."""

    def __init__(self, stats: Any, *, max_units: int = 0, following: Any = None) -> None:
        super().__init__(stats, max_units=UNLIMITED, following=following)


_terms_of = Terms.of.__func__  # type: ignore[attr-defined]


def _terms_without_spellings(cls: type[Terms], query: Any, stats: Any) -> Terms:
    return _terms_of(cls, replace(query, spellings=()), stats)


def _from_release_unnarrowed(
    self: KnowledgeBase, query: Any, passages: list[Passage], weak: Any | None = None
) -> tuple[list[Passage], Any | None]:
    return passages, weak or self._release(query, passages, self._own(query, passages))


def _with_leads_off(self: Any, group: list[Scored], passages: Any) -> list[Scored]:
    return sorted(group, key=lambda s: s.u_idx)


_release_rule = refusals.release


def _release_led_by_any(*args: Any, leads: bool = True) -> Any:
    return _release_rule(*args)


class _WholeIndexRarity(ScopedTerms):
    def idf(self, token: str) -> float:
        return self.stats.idf(token)


def _knows_no_snake_prefix(self: HybridRetriever, token: str) -> bool:
    return token in self._idf or token in self._tails or ("." in token and self.knows_prefix(token + "."))


ABLATIONS: tuple[Ablation, ...] = (
    # assistant/answering.py: scoring sentences, choosing what to quote
    _ab(
        "MAX_UNITS (Settings.top_k)",
        "no cap on quoted sentences (the knowledge base passes `top_k`=5, not MAX_UNITS)",
        (K, "ExtractiveAnswerer", _UnlimitedAnswerer),
        module="answering.py",
    ),
    _ab("MAX_GROUPS", "no cap on quoted passages", (A, "MAX_GROUPS", UNLIMITED)),
    _ab("GROUP_RATIO=0", "every passage may join (and own-language needs no score)", (A, "GROUP_RATIO", 0.0)),
    _ab("GROUP_RATIO=1", "no further passage joins (own-language only on a tie)", (A, "GROUP_RATIO", 1.0)),
    _ab("PRIOR_WEIGHT", "retrieval rank does not lift sentences (0)", (A, "PRIOR_WEIGHT", 0.0)),
    _ab("LEAD_BONUS", "no bonus for lead sentences (0)", (A, "LEAD_BONUS", 0.0)),
    _ab("PART_WEIGHT", "a symbol's parts earn no partial coverage (0)", (C, "PART_WEIGHT", 0.0)),
    _ab(
        "release_spellings",
        "'TOML 1.1' in a question does not meet 'v1.1.0' in the docs",
        (C, "release_spellings", lambda number: frozenset({number})),
    ),
    _ab("CONTEXT_WEIGHT", "title/section terms count nothing for non-lead sentences (0)", (A, "CONTEXT_WEIGHT", 0.0)),
    _ab(
        "LEAD_CONTEXT_WEIGHT",
        "title/section terms count nothing for lead sentences (0)",
        (A, "LEAD_CONTEXT_WEIGHT", 0.0),
    ),
    _ab("NO_TERMS_COVERAGE", "a question without terms has coverage 0", (A, "NO_TERMS_COVERAGE", 0.0)),
    _ab(
        "coverage spellings",
        "the docs' spellings of a symbol neither match nor set its weight in coverage",
        (C + ".Terms", "of", classmethod(_terms_without_spellings)),
    ),
    _ab("NEIGHBOUR_RATIO", "any sentence of the best passage may join it (0)", (A, "NEIGHBOUR_RATIO", 0.0)),
    _ab("GROUP_UNITS", "no cap on sentences from the best passage", (A, "GROUP_UNITS", UNLIMITED)),
    _ab("ENTRY_REST", "the rest of the best sentence's entry joins only by its own coverage", (A, "ENTRY_REST", False)),
    _ab("RELEASE_BONUS", "the named release's sentences rank as any other (0)", (A, "RELEASE_BONUS", 0.0)),
    _ab("BUG_FIX_PENALTY", "bug-fix sentences rank as changes (0)", (A, "BUG_FIX_PENALTY", 0.0)),
    _ab(
        "ENTRY_WEIGHT", "a changelog sentence ranks by its own coverage, not its entry's (0)", (A, "ENTRY_WEIGHT", 0.0)
    ),
    _ab(
        "ENTRY_NEIGHBOURS",
        "a further changelog passage gives one sentence, not the rest of its entry",
        (A, "ENTRY_NEIGHBOURS", False),
    ),
    _ab(
        "GONE_BONUS",
        "a removal's entry ranks as any other for a question saying a name is gone (0)",
        (A, "GONE_BONUS", 0.0),
    ),
    _ab(
        "rows as instructions",
        "a table row is no instruction unless its words are",
        (A, "_tells", lambda unit: instructs(unit.text)),
    ),
    _ab(
        "how-question fix fallback",
        "no fix added after choosing",
        (A + ".ExtractiveAnswerer", "_best_fix", staticmethod(lambda ranked: [])),
    ),
    _ab(
        "_named_fix",
        "a how-question gets no fix from the entry naming its rarest term",
        (A + ".ExtractiveAnswerer", "_named_fix", lambda self, *args: []),
    ),
    _ab("CODE_LINES", "no line of an instruction's example is quoted (0)", (A, "CODE_LINES", 0)),
    _ab("FIX_UNITS", "a how-question's fix is one instruction, without its entry's others (1)", (A, "FIX_UNITS", 1)),
    _ab(
        "FOLLOWING_FROM",
        "the chunk after a best passage in its section is not read (0)",
        ("assistant.following", "FOLLOWING_FROM", 0),
    ),
    _ab(
        "_with_leads",
        "a sentence does not bring its entry's lead",
        (A + ".ExtractiveAnswerer", "_with_leads", _with_leads_off),
    ),
    _ab("_own_language", "no own-language passage quoted first", (A, "_own_language", lambda *args: False)),
    _ab("_similar", "near-duplicate sentences are all quoted", (A, "_similar", lambda a, b: False)),
    _ab(
        "_release_label",
        "no 'pandas 3.0.0:' label before quotes",
        (A + ".ExtractiveAnswerer", "_release_label", lambda self, chunk: ""),
    ),
    _ab("_full_stop", "list titles are not given a full stop", (A, "_full_stop", lambda sentence: sentence)),
    _ab("_THEN", "a sentence about how things were does not bring the next one", (A, "_THEN", NEVER)),
    _ab("_WHY", "a why-question does not bring the sentence after the change (the reason)", (Q, "_WHY", NEVER)),
    _ab("_GONE", "no question says a name is gone", (Q, "_GONE", NEVER)),
    # assistant/units.py: what a sentence is
    _ab("glossed units", "French sentences are matched by their own words", (U, "translate_french", lambda text: text)),
    # `excerpt`'s default limit is bound at import: the answerer's reference is patched instead.
    _ab(
        "QUOTE_CHARS",
        "citation excerpts are not cut",
        (A, "excerpt", partial(excerpt, limit=UNLIMITED)),
        module="units.py",
    ),
    _ab("_HEADLINE", "no heading becomes a lead sentence", (U, "_HEADLINE", NEVER)),
    _ab("_INSTRUCTION", "no sentence is an instruction", ("assistant.instructions", "_INSTRUCTION", NEVER)),
    _ab("MIN_SENTENCE_CHARS", "short fragments are quotable (0)", (U, "MIN_SENTENCE_CHARS", 0)),
    _ab("INTRO_CHARS", "short 'intro:' sentences are quotable (0)", (U, "INTRO_CHARS", 0)),
    _ab("SHOWN_CODE_CHARS", "no one-line code is quoted with its introduction (0)", (U, "SHOWN_CODE_CHARS", 0)),
    # assistant/refusals.py
    _ab("MIN_COVERAGE=0", "the weak-evidence refusal never fires", (R, "MIN_COVERAGE", 0.0)),
    _ab("MIN_COVERAGE=inf", "coverage is never evidence (only similarity)", (R, "MIN_COVERAGE", INFINITE)),
    _ab("MIN_SIMILARITY", "similarity never rescues weak coverage (inf)", (R, "MIN_SIMILARITY", INFINITE)),
    _ab("MIN_OVERLAP", "similarity alone is evidence, whatever the coverage (0)", (R, "MIN_OVERLAP", 0.0)),
    _ab(
        "Query.topic",
        "the products a question names count in the overlap check",
        (Q + ".Query", "topic", property(lambda self: self)),
    ),
    _ab(
        "_of_product",
        "a package named after a product (`pydantic-core`) is a topic word",
        (Q, "_of_product", lambda term, catalog: False),
    ),
    _ab(
        "_package_products",
        "a package named after a product (`pydantic-core`) does not single that product's docs out",
        (Q, "_package_products", lambda question, catalog: []),
    ),
    _ab(
        "ScopedTerms.idf",
        "a named product's topic words weigh by their rarity in the whole index, not in its docs",
        ("assistant.scoped_terms", "ScopedTerms", _WholeIndexRarity),
    ),
    _ab("release rule", "never refuse for 'only other releases answer'", (R, "release", lambda *args, **kwargs: None)),
    _ab("missing_symbols", "invented symbols are not refused", (R, "missing_symbols", lambda query, stats: [])),
    _ab(
        "_in_family",
        "a name the docs write only as a wildcard family (`node_link_*`) is unknown",
        (R, "_in_family", lambda term, stats: False),
    ),
    _ab(
        "_variable_member",
        "a member of the asker's variable (`f.create_dataset`) must be written as it is",
        (R, "_variable_member", lambda parts, stats: False),
    ),
    _ab("unknown_names", "unknown proper names are not refused", (R, "unknown_names", lambda query, stats: [])),
    _ab(
        "_asks_later",
        "'fixed in 6.5.1 compared with 6.5.0?' is answered from 6.5.0 when 6.5.1 is not indexed",
        (R, "_asks_later", lambda query: False),
    ),
    _ab(
        "_setting",
        "names of the asker's machine ('on my Retina MacBook') must be in the docs",
        (R, "_setting", lambda query, stats: frozenset()),
    ),
    _ab("_ACRONYM", "an acronym of the asker's setting ('CI', 'LAN') must be in the docs", (R, "_ACRONYM", NEVER)),
    _ab("_BUILTINS", "Python's own exceptions ('ImportError') must be in the docs", (R, "_BUILTINS", frozenset())),
    _ab(
        "_sibling",
        "a best sentence about Python 3.6 is evidence for a question about 3.8",
        (R, "_sibling", lambda query, words, text="": False),
    ),
    _ab(
        "French quoted names",
        "a French question's quoted words must be in the docs as written («\u00a0nouveau style\u00a0»)",
        (R, "translate_french", lambda text: text),
    ),
    _ab(
        "release rule leads",
        "a release answers when it covers well enough, whichever release's sentence ranks first",
        (R, "release", _release_led_by_any),
    ),
    # assistant/query.py
    _ab("_HOW", "no question is a how-question", (Q, "_HOW", NEVER)),
    _ab(
        "_before (knowledge base)",
        "asked which release fixed what 4.0.0 broke, 4.0.0's notes answer too",
        (K, "_before", lambda chunk, query: False),
    ),
    _ab(
        "_FIXED_LATER",
        "'which release fixed it?' stays with the release the problem was met in",
        (Q, "_FIXED_LATER", NEVER),
    ),
    _ab(
        "_LATER_RELEASES",
        "a question about later releases asks of the release it names",
        (Q, "_LATER_RELEASES", NEVER),
    ),
    _ab("_LISTED", "'Python 3.7 and 3.8': 3.8 is read alone, as a release of the product", (Q, "_LISTED", NEVER)),
    _ab("_COMPOUND", "'Title-Cased' is two names, 'Title' and 'Cased'", (Q, "_COMPOUND", NEVER)),
    _ab(
        "version bounds",
        "'Require Python 3.10 or later' does not say 3.9 was dropped, nor 'Python < 3.7' that 3.7 was not",
        (Q, "asks_dropped", lambda question: False),
    ),
    _ab(
        "asks_when",
        "a sentence on start_soon() answers 'which release added a timeout argument to start_soon()?'",
        (Q, "asks_when", lambda question: ""),
    ),
    _ab(
        "upgrade range",
        "'from 1.7 to 2.x' prefers the releases it names, not those the upgrade went through",
        (Q, "upgrade_versions", lambda question: None),
    ),
    _ab(
        "_specific (upgrade_answer)",
        "every question naming an upgrade gets the whole plan",
        ("assistant.upgrade_answer", "_specific", lambda query: False),
    ),
    _ab(
        "FRENCH_GLOSSARY (french.py)",
        "no French-to-English glossary (search and terms)",
        ("assistant.french", "_GLOSSARY_FOLDED", {}),
    ),
    _ab(
        "French function words (french.py)",
        "'notre', 'après', 'faut-il' stay terms of a French question",
        ("assistant.french", "_function_words", lambda: frozenset()),
        ("assistant.french", "_INVERSION", NEVER),
    ),
    _ab("_QUOTED", "quoted literals are not names", (Q, "_QUOTED", NEVER)),
    _ab("_VERSIONS_OF", "what a question asks the versions of is no name", (Q, "_VERSIONS_OF", NEVER)),
    _ab("_NOT_NAMES", "'API', 'FAQ' count as names", (Q, "_NOT_NAMES", frozenset())),
    _ab("_MAJOR", "'pandas 3' names no release", (Q, "_MAJOR", NEVER)),
    _ab("call_values", "names passed in a call (`app=my_app`) must be in the docs", (Q, "call_values", lambda q: [])),
    _ab(
        "CALL_KEYWORDS",
        "a call's keywords (`day_of_week=`) must be in the docs",
        ("assistant.asker_code", "CALL_KEYWORDS", False),
    ),
    _ab("is_follow_up", "no question leans on the conversation", (Q, "is_follow_up", lambda terms: False)),
    _ab("with_spellings", "no docs' spellings of symbols", (K, "with_spellings", lambda query, spell: query)),
    _ab("GENERIC (text.py)", "release-doc filler words stay query terms", ("assistant.text", "GENERIC", frozenset())),
    _ab("_BRITISH (text.py)", "British spellings do not meet American ones", (T, "_BRITISH", NEVER), rebuild=True),
    _ab("_ABLE (text.py)", "'pickleable' does not meet 'pickle'", (T, "_ABLE", NEVER), rebuild=True),
    _ab(
        "decorator tokens (text.py)", "`@validator` is the word 'validator'", (T, "_TOKEN", _TOKEN_NO_AT), rebuild=True
    ),
    # assistant/retrieval.py
    _ab("RRF_K", "no rank damping in fusion (0)", (H, "RRF_K", 0)),
    _ab("LEXICAL_RATIO", "every BM25 candidate votes (0)", (H, "LEXICAL_RATIO", 0.0)),
    _ab("SYMBOL_HITS", "no cap on symbol hits and dotted-name tails", (H, "SYMBOL_HITS", UNLIMITED), rebuild=True),
    _ab("PREFERRED_BOOST", "named release/product not boosted (1.0)", (H, "PREFERRED_BOOST", 1.0)),
    _ab("PREFERRED_HITS", "no extra dense search of the named release (0)", (H, "PREFERRED_HITS", 0)),
    _ab(
        "REMOVAL_HEADS",
        "no match that removes a name the question says is gone is added after fusion (0)",
        (H, "REMOVAL_HEADS", 0),
    ),
    _ab(
        "NAME_CANDIDATES",
        "a removal of a gone name is looked for among the question's matches only, not the chunks naming it (0)",
        (H, "NAME_CANDIDATES", 0),
    ),
    _ab(
        "SHORT_NAME_CHARS",
        "a dotted name's last part is not its name in prose (`WSGIMiddleware`)",
        (H, "SHORT_NAME_CHARS", UNLIMITED),
    ),
    _ab(
        "HybridRetriever.within",
        "names are looked for in every product's docs, not the asked product's",
        (H + ".HybridRetriever", "within", lambda self, products: self),
    ),
    _ab(
        "NAME_SHARE",
        "a word before numbers is another thing's only by its numbers, however written ('SQLAlchemy 1.4')",
        ("assistant.catalog", "NAME_SHARE", INFINITE),
        rebuild=True,
    ),
    _ab(
        "MODULE_SHARE",
        "a name inside a product's name is its module however short (0): `log` for structlog",
        ("assistant.catalog", "MODULE_SHARE", 0.0),
        rebuild=True,
    ),
    _ab(
        "_prose_names",
        "a product is named only by its package name, not as its docs write it (`Beautiful Soup`)",
        ("assistant.catalog", "_prose_names", lambda name, chunks: set()),
        rebuild=True,
    ),
    _ab(
        "snake_case prefix (knows)",
        "`SECRET_KEY` is unknown where the docs only write `SECRET_KEY_FALLBACKS`",
        (H + ".HybridRetriever", "knows", _knows_no_snake_prefix),
    ),
    # assistant/knowledge_base.py
    _ab(
        "Query.prefers_product",
        "a question naming a product may be answered from another product's docs",
        (Q + ".Query", "prefers_product", lambda self, chunk: True),
    ),
    _ab(
        "_from_release narrowing",
        "a refused release is not searched alone",
        (K + ".KnowledgeBase", "_from_release", _from_release_unnarrowed),
    ),
    _ab(
        "_on_merit",
        "the release asked about answers only when its passages alone are evidence enough",
        (K + ".KnowledgeBase", "_on_merit", lambda self, query, passages: False),
    ),
    _ab("HEAD_PASSAGES", "the answerer reads fusion's best passages only (0)", (K, "HEAD_PASSAGES", 0)),
    _ab(
        "_later (release rule)",
        "a how-question about a release may be answered by a later release's fix",
        (K, "_later", lambda chunk, query: False),
    ),
    _ab(
        "OWN_CLOSE",
        "the release a question names answers only when its sentence is the best, not nearly (inf)",
        (K, "OWN_CLOSE", INFINITE),
    ),
    _ab(
        "symbols_elsewhere",
        "a release searched alone answers though only other releases write the question's symbol",
        (R, "symbols_elsewhere", lambda query, own, passages: False),
    ),
)
