"""Understanding a question before search: versions it names, follow-ups, French terms."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from assistant.index.catalog import Catalog, Product, release_key, version_key
from assistant.model.records import Chunk
from assistant.text.french import expand_french, translate_french
from assistant.text.words import (
    GENERIC,
    STOPWORDS,
    VERSION_AFTER_SLASH,
    content_terms,
    detect_language,
    fold,
    is_acronym,
    is_identifier,
    is_release_number,
)
from assistant.understand.asker_code import asker_values
from assistant.understand.bounds import asks_dropped, following
from assistant.understand.upgrade_range import releases_between, upgrade_versions

_MAJOR = re.compile(r"(?<![\w.])[vV]?(\d{1,2})(?![\w.]|\.\d)")
_SERIES = re.compile(r"(?<![\w.])v?\d{1,3}\.x(?![\w.])", re.IGNORECASE)
_VERSION = re.compile(r"(?<![\w.])v?(\d{1,2})\.(\d{1,2})(?:\.(\d{1,2}))?(?![\w]|\.\d)")


@dataclass(frozen=True)
class Query:
    """A question made ready for search."""

    question: str  # as asked (truncated if overlong)
    text: str  # what is searched: the question, or a follow-up made standalone
    language: str
    terms: tuple[str, ...]  # content terms of `text`, for coverage and refusal checks
    versions: tuple[str, ...] = ()  # hard filter (the caller's --version)
    prefer: tuple[str, ...] = ()  # versions the question names; their passages rank higher
    unknown_versions: tuple[str, ...] = ()  # "PyTorch 1.13" when 1.13 is not indexed
    names: tuple[str, ...] = ()  # proper names and literals the question hinges on ("TensorFlow", "hyperdrive")
    asks_how: bool = False  # wants a fix or replacement ("how do I…", "what instead"), not just a fact
    asks_why: bool = False  # wants the reason for a change
    asks_gone: bool = False  # says something is gone ("disappeared", "no longer exists", "ModuleNotFoundError")
    # A symbol term and the other ways the docs write it (`np.float_` -> `numpy.float_`, `df.append` ->
    # `DataFrame.append`): filled in by the knowledge base from its index, see `with_spellings`.
    spellings: tuple[tuple[str, tuple[str, ...]], ...] = ()
    products: tuple[str, ...] = ()  # hard filter (the caller's --product), as chunks spell the product
    prefer_products: tuple[str, ...] = ()  # products the question names; their passages rank higher
    truncated: bool = False  # the question was longer than `max_chars` and was cut
    product_terms: tuple[str, ...] = ()  # terms that name a product the question names ("pydant", "panda")
    values: tuple[str, ...] = ()  # the asker's own names, passed to a call in the question (`app=my_app`, `f(x)`)
    drops: tuple[str, ...] = ()  # versions the question asks whether or when support ended for ("Python 3.9")
    asks_fixed: bool = False  # asks which release after the one it names fixed a problem met there
    asks_after: bool = False  # asks of the releases after the one it names: that fixed it, or "in later releases"
    # Terms of the thing the question asks the release that added or removed it of ("a timeout argument").
    subject: tuple[str, ...] = ()

    @property
    def topic(self) -> Query:
        """The query without the terms naming its products: they say which docs to read, not what in them."""
        if not self.product_terms:
            return self
        return replace(self, terms=tuple(t for t in self.terms if t not in self.product_terms), product_terms=())

    def prefers_product(self, chunk: Chunk) -> bool:
        """The chunk is of a product the question names (or it names none)."""
        return not self.prefer_products or chunk.product in self.prefer_products

    def prefers(self, chunk: Chunk) -> bool:
        """The chunk is of the release and product the question names (where it names them)."""
        release = not self.prefer or chunk.version in self.prefer
        return release and (not self.prefer_products or chunk.product in self.prefer_products)


def _catalog(available: Sequence[str] | Catalog) -> Catalog:
    return available if isinstance(available, Catalog) else Catalog.of_versions(available)


def named_versions(text: str, available: Sequence[str] | Catalog) -> tuple[list[str], list[str]]:
    """Indexed versions a text names, and product versions it names that are not indexed."""
    found, unknown, _ = _scan_versions(text, _catalog(available))
    return found, unknown


def without_versions(text: str, available: Sequence[str] | Catalog) -> str:
    """The text minus its product-version mentions (they steer ranking, they are not topic words)."""
    return _scan_versions(text, _catalog(available))[2]


_AND = r"\s*(?:,|/|&|\band\b|\bor\b|\bet\b|\bou\b)\s*"
# A list of numbers, and whether a conjunction ends the searched text after it ("3.7 and"): read by `_list_before`,
# which passes over a list that does not end so; its other numbers start lists that end where it does, and trying
# each of them read the rest of the list again (quadratic). Possessive: giving back any of a list never helps.
_LISTED = re.compile(rf"(?<![\w.])v?\d++(?:\.\d++)++(?:{_AND}v?\d++(?:\.\d++)++)*+(?P<ends>{_AND}$)?", re.IGNORECASE)


def _list_before(text: str, end: int) -> re.Match[str] | None:
    """The list of numbers that `text[:end]` ends with, a conjunction after it ("Python 3.7, 3.8 and"), if any."""
    at = 0
    while m := _LISTED.search(text, at, end):
        if m.group("ends") is not None:
            return m
        at = m.end()
    return None


def _scan_versions(text: str, catalog: Catalog) -> tuple[list[str], list[str], str]:
    """Release numbers a text names: indexed ones, ones of an indexed product that are not indexed, and the
    text without them. A number after a product's name ("pandas 2.0") is that product's; after a name the docs
    use for something else ("CUDA 12.6"), nobody's; a bare one, a release of the products the text names (or
    of any product, when it names none) whose major version it shares."""
    found: list[str] = []
    unknown: list[str] = []
    named = catalog.named_products(text) or list(catalog.products)
    rest = text
    for m in reversed(list(_VERSION.finditer(text))):
        # A number listed after others ("Python 3.7 and 3.8") is read by the word before the list.
        start = listed.start() if (listed := _list_before(text, m.start())) else m.start()
        before = re.findall(r"[\w+]+", text[max(0, start - 24) : start].lower())
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
            found += [v for v in matches if v not in found]
        elif (
            owner or m.group(0).startswith("v") or any(v.split(".")[0] == major for p in candidates for v in p.versions)
        ):
            # "in 2.11" reads as a release of an indexed product when its major version matches.
            unknown.append(m.group(0).lstrip("v"))
        else:
            continue
        rest = rest[: m.start()] + " " + rest[m.end() :]
    # A bare major right after a product's name ("Pydantic V3", "pandas 3", "Django 6") is that product's too.
    for m in reversed(list(_MAJOR.finditer(rest))):
        before = re.findall(r"[\w+]+", rest[max(0, m.start() - 24) : m.start()].lower())
        owner = catalog.product(before[-1]) if before else None
        if owner is None:
            continue
        matches = [v for v in owner.versions if version_key(v)[:1] == (int(m.group(1)),)]
        if matches:
            found += [v for v in matches if v not in found]
        else:
            unknown.append(m.group(1))
        rest = rest[: m.start()] + " " + rest[m.end() :]
    # "2.x" names a series of releases, no topic.
    return found[::-1], unknown[::-1], _SERIES.sub(" ", rest)


_HOW = re.compile(
    r"\b(how|where|instead|replac\w*|migrat\w*|alternative|what should|what do i|should i|can i|do i need|fix|"
    r"supposed to|recommend\w*|advi[cs]\w*|suggest\w*|the new (?:method|function|way|name|api|spelling)|"
    r"comment|conseill\w*|recommand\w*|où|remplac\w*|par quoi|faut-il|à la place|dois-je|devrais-je|puis-je)\b",
    re.IGNORECASE,
)
# Asks whether a problem met in the release it names was fixed since ("Has greenlet fixed this?", "Existe-t-il une
# version corrigée ?"), not whether that release fixed something ("Was it fixed in 2.1?").
_FIXED_LATER = re.compile(
    r"\b(?:(?:which|what)\s+(?:[\w-]+\s+)?(?:release|version)\s+(?:\w+\s+)?(?:fix(?:e[sd])?|made\s+it\s+(?:\w+\s+)?work)|"
    r"(?:a|any)\s+(?:later\s+|newer\s+)?(?:release|version)\s+that\s+(?:fix|resolve)\w*|has\s+(?:[\w-]+\s+){0,3}"
    r"(?:been\s+)?fixed|(?:is|was)\s+(?:this|it|that)\s+(?:\w+\s+)?fixed|is there a fix|fixed (?:release|version)|"
    r"version corrig\w*|corrig\w* (?:depuis|ensuite|plus tard)|a-t-(?:il|elle) été corrig\w*)",
    re.IGNORECASE,
)
# Asks what releases after the one it names did ("With 3.9 my footnotes changed. What is the default in later
# releases?"): the release it names is where the asker stands, not what is asked of.
_LATER_RELEASES = re.compile(
    r"\b(?:(?:in|on|with|of|for|from)\s+(?:the\s+)?(?:later|subsequent|newer|following|future)\s+(?:releases?|"
    r"versions?)|(?:releases?|versions?)\s+(?:after|since)\s+(?:that|this|then)|"
    r"(?:releases?|versions?)\s+(?:ultérieures?|suivantes?|plus récentes?))\b",
    re.IGNORECASE,
)
_FIXED_IN = re.compile(r"\b(?:fix\w*|corrig\w*)\s+(?:in|dans|en)\s+(?:version\s+|release\s+)?v?\d", re.IGNORECASE)
# Asks for the reason of a change, which release notes give after the change, in the same entry.
_WHY = re.compile(r"\b(?:why|how come|pourquoi)\b", re.IGNORECASE)
# Says a name, option or platform went away: the user wants the entry that removed it, not one that changed it.
_GONE = re.compile(
    r"\b(?:disappear\w*|gone|(?:no longer|not) (?:exists?|there|available|supported|accepted)|"
    r"(?:took|taken|take|taking) (?:it |them )?out|stopp?(?:ed|s)? (?:supporting|accepting|working)|"
    r"drop(?:ped|s)? (?:support|it|them)|remov(?:ed|es|al)|deleted|ModuleNotFoundError|ImportError|AttributeError|"
    r"n'existe plus|disparu\w*|supprim\w*|retir\w*|n'est plus)\b",
    re.IGNORECASE,
)
_NOT_NAMES = frozenset(["ok", "okay", "faq", "api", "apis"])


# Asks which release brought a thing in or took it out: "Which AnyIO release added a per-task timeout argument
# to TaskGroup.start_soon()?", "When was X added?", "In which version were X introduced?", "Which release finally
# removed X?" (the thing, not where it went, is what a group holds).
_RELEASE = r"(?:[\w.+-]+\s+){0,3}(?:release|version)s?"
_CHANGED = r"(?:first\s+|finally\s+)?(?:added|introduced|removed|deprecated)"
_ASKS_WHEN = re.compile(
    rf"\b(?:which|what)\s+{_RELEASE}\s+{_CHANGED}\s+(.+?)(?:,[^?]*|\s+(?:to|into|in|for|on|from)\s+[^?]*)?\?"
    rf"|\bwhen\s+(?:was|were)\s+(.+?)\s+{_CHANGED}\b"
    rf"|\bin\s+(?:which|what)\s+{_RELEASE}\s+(?:was|were)\s+(.+?)\s+{_CHANGED}\b",
    re.IGNORECASE,
)


def asks_when(question: str) -> str:
    """The thing an English question asks the release that added or removed it of ('' if it asks no such thing)."""
    m = _ASKS_WHEN.search(question)
    return next((g for g in m.groups() if g), "") if m else ""


def call_values(question: str) -> list[str]:
    """What the question's code passes to calls (`AsyncClient(app=my_asgi_app)`, `sns.scatterplot(df.x, df.y)`,
    `executor=AsyncioExecutor()`, `'Europe/Paris'`): the asker's own variables and data, which no release doc names."""
    return asker_values(question)


# The blanks after the opening quote are taken at once, giving back at most the two the text needs (atomic), and
# a quote whose 40 characters after hold no closing quote nor blank is passed over at once: trying every split of
# the blanks before the words, and every length of the words, took time cubic in a run of blanks.
_QUOTED = re.compile(
    r"[\"“«](?>\s*(?=[^\"”»]{2}))(?=[^\"”»]{0,40}+[\s\"”»])([^\"”»]{2,40}?)\s*+[\"”»]|\{%-?\s*(\w{2,40})"
)
# What a question asks the versions of is a name even in lower case ("the minimum version of polars").
_VERSIONS_OF = re.compile(r"\bversions?\s+(?:minimale?s?\s+)?(?:of|de|d')\s*([^\W\d_][\w+-]*)", re.IGNORECASE)


_COMPOUND = re.compile(r"(?<![\w-])[A-Za-z][\w+]*(?:-[A-Za-z][\w+]*)+")
# A word of a question, a dotted name whole, a name's version after a slash with it ("HTTP/3"); or a sentence end.
_NAME_WORD = re.compile(rf"[A-Za-z][\w+]*(?:\.\w+)*(?:{VERSION_AFTER_SLASH})?|[.?!:;]")


def proper_names(question: str) -> list[str]:
    """CamelCase words, acronyms, capitalised words mid-sentence and quoted literals of a question."""
    # Quoted literals and template tag names (`{% partialdef … %}`) are names the docs must contain;
    # a `{{ var }}` names the user's own data.
    names = [m.group(1) or m.group(2) for m in _QUOTED.finditer(question)]
    names = [n for n in names if re.search(r"\w", n)]  # `align="..."` quotes a placeholder, not a name
    names += [w for w in _VERSIONS_OF.findall(question) if fold(w) not in STOPWORDS | GENERIC]
    sentence_start = True
    within = 0  # the end of the compound just named: its further words are in it
    for m in _NAME_WORD.finditer(question):
        word = m.group(0)
        if m.start() < within:
            continue
        if word in ".?!:;":
            sentence_start = True
            continue
        if ("_" in word or "." in word) and "/" not in word:  # code symbols are checked whole, by `missing_symbols`
            sentence_start = False
            continue
        inner_caps = any(c.isupper() for c in word[1:])
        capitalised = word[0].isupper() and not sentence_start and len(word) > 2
        if (inner_caps or capitalised) and fold(word) not in STOPWORDS and fold(word) not in _NOT_NAMES:
            # A capitalised word of a hyphenated compound is the compound's name ("Title-Cased"); an acronym
            # in one stays itself ("Non-ASCII").
            compound = _COMPOUND.match(question, m.start()) if not word.isupper() else None
            names.append(compound.group(0) if compound else word)
            within = compound.end() if compound else within
        sentence_start = False
    names += _acronym_names(question, names)
    return list(dict.fromkeys(names))


def _acronym_names(question: str, names: Sequence[str]) -> list[str]:
    """Names written side by side, one an acronym and one not ("Django REST Framework"): the acronym is a word of
    that name, which the docs must hold, not of the asker's setting ("CI")."""
    words = [n for n in names if re.fullmatch(r"[\w+-]+", n)]
    if len(words) < 2:
        return []
    word = "|".join(sorted(map(re.escape, words), key=len, reverse=True))
    runs = re.finditer(rf"(?<![\w-])(?:{word})(?:\s+(?:{word}))+(?![\w-])", question)
    return [r.group(0) for r in runs if 0 < sum(map(is_acronym, r.group(0).split())) < len(r.group(0).split())]


def is_follow_up(terms: Sequence[str]) -> bool:
    """A question too thin to search alone leans on the conversation ("and in 2.11?", "et pour MPS ?")."""
    return len(terms) < 2


def build_query(
    question: str,
    available: Sequence[str] | Catalog,
    *,
    history: Sequence[str] = (),
    version: str | None = None,
    product: str | None = None,
    max_chars: int = 2000,
) -> Query:
    """Turn a question (and earlier user turns) into what the retriever searches for.

    `available` is the index's catalog (or just its versions); `version` and `product` are hard filters.
    """
    catalog = _catalog(available)
    question = " ".join(question.split())
    truncated, question = len(question) > max_chars, question[:max_chars]
    language = detect_language(question)
    text = expand_french(question) if language == "fr" else question
    prefer, unknown, bare_question = _scan_versions(question, catalog)
    named = catalog.named_products(question)
    named += [p for p in _package_products(question, catalog) if p not in named]
    upgrade = upgrade_versions(question)
    if upgrade:  # what changed for someone upgrading is in the releases they went through, not the one they left
        prefer = [v for p in named or catalog.products for v in releases_between(*upgrade, p.versions)] or prefer
    asks_fixed = bool(prefer) and bool(_FIXED_LATER.search(question)) and not _FIXED_IN.search(question)
    asks_after = asks_fixed or (bool(prefer) and bool(_LATER_RELEASES.search(question)))
    if asks_after:
        # "On 25.2.0 this fails: which release fixed it?" and "what is it in later releases?" ask of the releases
        # after the one they name.
        last = max(map(release_key, prefer))
        prefer = [v for p in named or catalog.products for v in p.versions if release_key(v) > last] or prefer
    prefer_here = bool(prefer)
    previous = [h for h in history if h.strip()]
    if previous:
        terms = content_terms(bare_question)
        last = previous[-1]
        if not prefer and not unknown:  # "and which optimizer gained fused=True?" keeps the version talked about
            prefer, _ = named_versions(" ".join(previous[-3:]), catalog)
        if not named:  # "and what replaces it?" stays with the product talked about
            named = catalog.named_products(" ".join(previous[-3:]))
        if is_follow_up(terms):
            last_text = expand_french(last) if detect_language(last) == "fr" else last
            # Only the topic of the last question is carried over, not the version it named.
            text = f"{text} {without_versions(last_text, catalog) if prefer_here else last_text}"
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
    english = translate_french(text) if language == "fr" else text
    terms = content_terms(bare_question if english == question else without_versions(english, catalog))
    naming = _naming(frozenset(w for p in named for w in p.words))
    drops = tuple(t for t in terms if is_release_number(t)) if asks_dropped(english) else ()
    subject = content_terms(asks_when(english))
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
        names=tuple(proper_names(question)),
        asks_how=bool(_HOW.search(question)),
        asks_why=bool(_WHY.search(question)),
        asks_gone=bool(_GONE.search(question)),
        asks_fixed=asks_fixed,
        asks_after=asks_after,
        products=products,
        prefer_products=prefer_products,
        truncated=truncated,
        product_terms=tuple(t for t in terms if t in naming or _of_product(t, catalog)),
        values=tuple(call_values(question)),  # each once, as read
        drops=drops,
        subject=tuple(t for t in subject if t in terms),
    )


_PACKAGE = re.compile(r"\b([A-Za-z]\w*)-[A-Za-z]\w*")


def _package_products(question: str, catalog: Catalog) -> list[Product]:
    """Products a package the question names is named after (`pydantic-core`, `django-admin`): their docs are the
    ones to read, as for the product itself."""
    heads = " ".join(m.group(1) for m in _PACKAGE.finditer(question))
    return catalog.named_products(heads) if heads else []


def _of_product(term: str, catalog: Catalog) -> bool:
    """A package named after an indexed product (`pydantic-core`, `django-admin`) names its product: it says
    whose docs to read, not what in them ("make pydantic-core validate with several threads" is about threads)."""
    head = content_terms(term.split("-", 1)[0]) if "-" in term else []
    return bool(head) and head[0] in _naming(catalog.product_words)


@lru_cache(maxsize=256)
def _naming(words: frozenset[str]) -> frozenset[str]:
    """The terms of the words that name products (the same few sets recur at every question)."""
    return frozenset(content_terms(" ".join(sorted(words))))


def with_spellings(query: Query, spell: Callable[[str], Sequence[str]]) -> Query:
    """`query` with the docs' spellings of its code symbols: they count as the same term, and are searched too."""
    spellings = tuple((t, tuple(alts)) for t in query.terms if is_identifier(t) and (alts := spell(t)))
    if not spellings:
        return query
    extra = " ".join(a for _, alts in spellings for a in alts[:3])
    return replace(query, spellings=spellings, text=f"{query.text} {extra}")
