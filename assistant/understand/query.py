"""Understanding a question before search: versions it names, follow-ups, French terms.

The patterns of what a question asks (how, gone, fixed later) and the rules' switches are tuned values,
read from the `Tuning` each function is handed (`UnderstandTuning`); the patterns that read version numbers and
words stay here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import NamedTuple

from assistant.index.catalog import Catalog, release_key, version_key
from assistant.model.query import Query
from assistant.text.bounds import asks_dropped, following
from assistant.text.french import expand_french, translate_french
from assistant.text.words import (
    STOPWORDS,
    VERSION_AFTER_SLASH,
    content_terms,
    detect_language,
    fold,
    is_identifier,
    is_release_number,
)
from assistant.tuning import DEFAULT, Tuning
from assistant.understand.asker_code import asker_values
from assistant.understand.upgrade_range import releases_between, upgrade_versions

_SERIES = re.compile(r"(?<![\w.])v?\d{1,3}\.x(?![\w.])", re.IGNORECASE)
_VERSION = re.compile(r"(?<![\w.])v?(\d{1,2})\.(\d{1,2})(?:\.(\d{1,2}))?(?![\w]|\.\d)")


def _catalog(available: Sequence[str] | Catalog) -> Catalog:
    return available if isinstance(available, Catalog) else Catalog.of_versions(available)


def named_versions(
    text: str, available: Sequence[str] | Catalog, tuning: Tuning = DEFAULT
) -> tuple[list[str], list[str]]:
    """Indexed versions a text names, and product versions it names that are not indexed."""
    named = _scan_versions(text, _catalog(available), tuning)
    return named.found, named.unknown


def without_versions(text: str, available: Sequence[str] | Catalog, tuning: Tuning) -> str:
    """The text minus its product-version mentions (they steer ranking, they are not topic words)."""
    return _scan_versions(text, _catalog(available), tuning).rest


class _Releases(NamedTuple):
    found: list[str]  # indexed releases
    unknown: list[str]  # releases of an indexed product that are not indexed
    rest: str  # the text without them
    unnumbered: list[str]  # releases of a product whose docs carry no release numbers: no reason to refuse


def _scan_versions(text: str, catalog: Catalog, tuning: Tuning) -> _Releases:
    """Release numbers a text names: indexed ones, ones of an indexed product that are not indexed, ones of a
    product whose docs carry none, and the text without them. A number after a product's name ("pandas 2.0")
    is that product's; after a name the docs use for something else ("CUDA 12.6"), nobody's; a bare one, a
    release of the products the text names (or of any product, when it names none) whose major version it
    shares, else of one that has no releases at all."""
    found: list[str] = []
    unknown: list[str] = []
    unnumbered: list[str] = []
    named = catalog.named_products(text) or list(catalog.products)
    rest, window = text, tuning.understand.owner_chars
    for m in reversed(list(_VERSION.finditer(text))):
        before = re.findall(r"[\w+]+", text[max(0, m.start() - window) : m.start()].lower())
        prev = fold(before[-1]) if before else ""
        if prev in catalog.other_versioned:
            continue
        owner = catalog.product(prev) if prev else None
        candidates = [owner] if owner else named
        major, minor, patch = m.group(1), m.group(2), m.group(3)
        matches = [
            v
            for p in candidates
            for v in p.versions
            if version_key(v)[:2] == (int(major), int(minor))
            and (patch is None or version_key(v)[2:3] == (int(patch),))
        ]
        if matches:
            found += [v for v in dict.fromkeys(matches) if v not in found]  # "2.3" of two products is one
        elif owner is not None and not owner.versions:
            unnumbered.append(m.group(0).lstrip("v"))
        elif owner or any(v.split(".")[0] == major for p in candidates for v in p.versions):
            # "in 2.11" reads as a release of an indexed product when its major version matches.
            unknown.append(m.group(0).lstrip("v"))
        elif any(not p.versions for p in candidates):  # may be one of theirs: they cannot say
            unnumbered.append(m.group(0).lstrip("v"))
        elif m.group(0).startswith("v"):
            unknown.append(m.group(0).lstrip("v"))
        else:
            continue
        rest = rest[: m.start()] + " " + rest[m.end() :]
    # A bare major right after a product's name ("Pydantic V3", "pandas 3", "Django 6") is that product's too.
    for m in reversed(list(tuning.understand.major.finditer(rest))):
        before = re.findall(r"[\w+]+", rest[max(0, m.start() - window) : m.start()].lower())
        owner = catalog.product(before[-1]) if before else None
        if owner is None:
            continue
        matches = [v for v in owner.versions if version_key(v)[:1] == (int(m.group(1)),)]
        if matches:
            found += [v for v in matches if v not in found]
        else:
            (unknown if owner.versions else unnumbered).append(m.group(1))
        rest = rest[: m.start()] + " " + rest[m.end() :]
    # "2.x" names a series of releases, no topic.
    return _Releases(found[::-1], unknown[::-1], _SERIES.sub(" ", rest), unnumbered[::-1])


def call_values(question: str, tuning: Tuning = DEFAULT) -> list[str]:
    """What the question's code passes to calls (`AsyncClient(app=my_asgi_app)`, `sns.scatterplot(df.x, df.y)`,
    `executor=AsyncioExecutor()`, `'Europe/Paris'`): the asker's own variables and data, which no release doc names
    (none where `tuning.understand.call_values` counts them as names)."""
    return asker_values(question, tuning) if tuning.understand.call_values else []


# A word of a question, a dotted name whole, a name's version after a slash with it ("HTTP/3"); or a sentence end.
_NAME_WORD = re.compile(rf"[A-Za-z][\w+]*(?:\.\w+)*(?:{VERSION_AFTER_SLASH})?|[.?!:;]")


def proper_names(question: str, tuning: Tuning = DEFAULT) -> list[str]:
    """CamelCase words, acronyms, capitalised words mid-sentence and quoted literals of a question."""
    tuned = tuning.understand
    # Quoted literals and template tag names (`{% partialdef … %}`) are names the docs must contain;
    # a `{{ var }}` names the user's own data.
    names = [m.group(1) or m.group(2) for m in tuned.quoted.finditer(question)]
    names = [n for n in names if re.search(r"\w", n)]  # `align="..."` quotes a placeholder, not a name
    sentence_start = True
    for m in _NAME_WORD.finditer(question):
        word = m.group(0)
        if word in ".?!:;":
            sentence_start = True
            continue
        if ("_" in word or "." in word) and "/" not in word:  # code symbols are checked whole, by `missing_symbols`
            sentence_start = False
            continue
        inner_caps = any(c.isupper() for c in word[1:])
        capitalised = word[0].isupper() and not sentence_start and len(word) >= tuned.name_chars
        if (inner_caps or capitalised) and fold(word) not in STOPWORDS:
            names.append(word)
        sentence_start = False
    return list(dict.fromkeys(names))


def is_follow_up(terms: Sequence[str], tuning: Tuning) -> bool:
    """A question too thin to search alone leans on the conversation ("and in 2.11?", "et pour MPS ?")."""
    return len(terms) < tuning.understand.follow_up_terms


def build_query(
    question: str,
    available: Sequence[str] | Catalog,
    *,
    history: Sequence[str] = (),
    version: str | None = None,
    product: str | None = None,
    max_chars: int = 2000,
    tuning: Tuning = DEFAULT,
) -> Query:
    """Turn a question (and earlier user turns) into what the retriever searches for.

    `available` is the index's catalog (or just its versions); `version` and `product` are hard filters.
    """
    tuned = tuning.understand
    catalog = _catalog(available)
    question = " ".join(question.split())
    truncated, question = len(question) > max_chars, question[:max_chars]
    language = detect_language(question)
    text = expand_french(question, tuning) if language == "fr" else question
    prefer, unknown, bare_question, unnumbered = _scan_versions(question, catalog, tuning)
    named = catalog.named_products(question)
    upgrade = upgrade_versions(question) if tuned.upgrade_range else None
    if upgrade:  # what changed for someone upgrading is in the releases they went through, not the one they left
        prefer = [v for p in named or catalog.products for v in releases_between(*upgrade, p.versions)] or prefer
    asks_fixed = bool(prefer) and bool(tuned.fixed_later.search(question)) and not tuned.fixed_in.search(question)
    if asks_fixed:
        # "On 25.2.0 this fails: which release fixed it?" asks of the releases after the one it names.
        last = max(map(release_key, prefer))
        prefer = [v for p in named or catalog.products for v in p.versions if release_key(v) > last] or prefer
    prefer_here = bool(prefer)
    previous = [h for h in history if h.strip()]
    if previous:
        terms = content_terms(bare_question)
        last = previous[-1]
        recent = " ".join(previous[-tuned.history_questions :])
        if not prefer and not unknown:  # "and which optimizer gained fused=True?" keeps the version talked about
            prefer, _ = named_versions(recent, catalog, tuning)
        if not named:  # "and what replaces it?" stays with the product talked about
            named = catalog.named_products(recent)
        if is_follow_up(terms, tuning):
            last_text = expand_french(last, tuning) if detect_language(last) == "fr" else last
            # Only the topic of the last question is carried over, not the version it named.
            text = f"{text} {without_versions(last_text, catalog, tuning) if prefer_here else last_text}"
    only = catalog.product(product) if product else None
    products = tuple(sorted(only.spellings)) if only else ((product,) if product else ())
    versions: tuple[str, ...] = ()
    if version:
        pool = only.versions if only else catalog.versions()
        versions = tuple(v for v in pool if v == version or v.startswith(version.rstrip(".") + "."))
        if not versions:
            versions = (version,)
    # Naming every product of the index singles none out.
    prefer_products = tuple(sorted(s for p in named for s in p.spellings)) if len(named) < len(catalog.products) else ()
    english = translate_french(text, tuning) if language == "fr" else text
    terms = content_terms(bare_question if english == question else without_versions(english, catalog, tuning))
    naming = _naming(frozenset(w for p in named for w in p.words))
    dropped = tuned.version_bounds and asks_dropped(english)
    drops = tuple(t for t in terms if is_release_number(t)) if dropped else ()
    return Query(
        question=question,
        # The release a bound names where one was dropped is searched too ("Require Python 3.10 or later").
        text=" ".join([text, *map(following, drops)]),
        language=language,
        # Terms weigh the evidence: a French word with an English equivalent counts once, in English.
        terms=tuple(terms),
        versions=versions,
        prefer=tuple(prefer),
        unknown_versions=tuple(unknown),
        names=tuple(proper_names(question, tuning)),
        asks_how=bool(tuned.how.search(question)),
        asks_gone=bool(tuned.gone.search(question)),
        asks_fixed=asks_fixed,
        products=products,
        prefer_products=prefer_products,
        truncated=truncated,
        product_terms=tuple(t for t in terms if t in naming),
        values=tuple(call_values(question, tuning)),  # each once, as read
        drops=drops,
        unnumbered=tuple(unnumbered),
        release_owners=_owners(prefer, catalog) if not (named or only or product) else (),
    )


def _owners(releases: Sequence[str], catalog: Catalog) -> tuple[str, ...]:
    """The products holding a release of `releases`, when more than one does (else none: it singles one out)."""
    owners = tuple(p.name for p in catalog.products if set(p.versions) & set(releases))
    return owners if len(owners) > 1 else ()


@lru_cache(maxsize=256)
def _naming(words: frozenset[str]) -> frozenset[str]:
    """The terms of the words that name products (the same few sets recur at every question)."""
    return frozenset(content_terms(" ".join(sorted(words))))


def with_spellings(query: Query, spell: Callable[[str], Sequence[str]], tuning: Tuning) -> Query:
    """`query` with the docs' spellings of its code symbols: they count as the same term, and are searched too
    (where `tuning.understand.spellings` says so)."""
    if not tuning.understand.spellings:
        return query
    spellings = tuple((t, tuple(alts)) for t in query.terms if is_identifier(t) and (alts := spell(t)))
    if not spellings:
        return query
    extra = " ".join(a for _, alts in spellings for a in alts[: tuning.understand.searched_spellings])
    return replace(query, spellings=spellings, text=f"{query.text} {extra}")
