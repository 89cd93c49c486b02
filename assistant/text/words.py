"""Text helpers shared by indexing and answering: markup stripping, tokens, language, sentences."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from assistant.tuning import Tuning

# "([#1234](https://...))". Its blanks are taken from their first (not retried from each); a "([#1](" that is no
# reference is matched up to its first ')' by the second branch and kept (`_kept_unless_ref`): every such opening
# before that ')' fails alike, and retrying each of them read on to it (quadratic).
_PR_REF = re.compile(r"(?<!\s)\s*\((?:\[#\d+\]\([^)]*\)(?:,\s*)?)+\)|\((?=\[#\d+\]\()[^)]*")
# A link's target may hold balanced parentheses (`javascript:alert(1)`): consumed whole, one level deep. A '[' that
# opens no link is matched up to its first ']' by the second branch and kept (`_label_or_kept`), for the same reason.
_LINK = re.compile(r"!?\[([^\]]*)\]\((?:[^()\n]|\([^()\n]*\))*\)|\[[^\]]*")
# A name's version after a slash: "HTTP/2" is one name, not "HTTP/1.1" (a path's or a URL's parts are not).
VERSION_AFTER_SLASH = r"/\d+(?:\.\d+)?(?![\w/])"
# A decorator keeps its "@": `@validator` is not the word "validator" (nor `@root_validator`).
_TOKEN = re.compile(
    r"c\+\+\d*|(?<![\w@])@[^\W\d]\w*(?:\.\w+)*|(?<![\w/])[^\W\d_]{2,}" + VERSION_AFTER_SLASH + "|"
    r"[^\W_][\w]*(?:[.\-][\w]+)*|_[\w]+(?:\.[\w]+)*",
    re.UNICODE | re.IGNORECASE,
)
_SPLIT = re.compile(r"[._\-]+")
_CODE_SPAN = re.compile(r"(`[^`\n]+`)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[`\"'(\[]?[A-Z0-9À-Ý])")

STOPWORDS = frozenset(
    """a about above after again all also am an and any are as at be been before being below between both
    but by can could did do does doing down during each few for from further had has have having he her here
    how i if in into is it its itself just me more most my no nor not now of off on once only or other our out
    over own same she should so some such than that the their them then there these they this those through to
    too under until up very was we were what when where which while who whom why will with would you your
    yours hi hello please thanks tell know get got use used using make made new
    le la les un une des du de d l au aux et ou est sont été être a ont avec pour par sur dans en que qui quoi
    quel quelle quels quelles ce cet cette ces son sa ses leur leurs mon ma mes ton ta tes je tu il elle nous
    vous ils elles on ne pas plus moins comment pourquoi quand où y s se sans sous entre depuis donc mais car
    si lorsque dont chez vers ça cela ceci est-ce qu c j m n t fait faut peut doit avoir combien
    lequel laquelle lesquels""".split()
)
# Words so common in release docs that a question is not "about" them. Not "default": "did the default method
# change?" asks about the default, and the entry that answers says "by default".
GENERIC = frozenset(
    """version versions release releases change changes changed new now support supports
    supported feature features work works working happen happens happened need needs upgrade upgrading
    move moving doc docs documentation note notes""".split()
)
_FRENCH_HINTS = frozenset(
    "le la les des du une est sont avec pour quel quelle quels quelles pourquoi comment dans sur qui que "
    "nouveau nouvelle nouveautés ne pas plus à où ça".split()
)
_ENGLISH_HINTS = frozenset("the is are what which how does do did why to of in and for with was were".split())


# `*emphasis*` outside code: a star run opening before a word and closing after one (`*args`, `a * b` stay).
_EMPHASIS = re.compile(r"(?<![\w*\\])\*(?=[^\s*])([^*\n]*?[^\s*\\])\*(?![\w*])")
_HELD = re.compile("\ue000(\\d+)\ue001")


def strip_markup(text: str, *, keep_code: bool = True, keep_refs: bool = True) -> str:
    """Chunk text (Markdown) to readable text: link targets and emphasis removed; "(#123)" PR refs kept
    unless `keep_refs` is False (the model's few tokens are better spent on words).

    Tags are not removed: ingest turned the HTML into text already, so what looks like one (`<tensor>`,
    `List<T>`) is a word of the docs and stays."""
    if not keep_refs:
        text = _PR_REF.sub(_kept_unless_ref, text)
    # Link targets, bold and emphasis marks go, but not inside code (a "[" in "`[`" opens no link); `__` and `_`
    # are left alone: in release notes they are far likelier `__init__` and snake_case than emphasis.
    # Code at odd positions (`**kwargs`, `*args` stay as written), held out by private-use marks.
    parts = _CODE_SPAN.split(text.replace("\ue000", "").replace("\ue001", ""))
    held = "".join(p if i % 2 == 0 else f"\ue000{i}\ue001" for i, p in enumerate(parts))
    held = _LINK.sub(_label_or_kept, held).replace("**", "")
    text = _HELD.sub(lambda m: parts[int(m.group(1))], _EMPHASIS.sub(r"\1", held))
    if not keep_code:
        text = text.replace("`", "")
    text = _ESCAPED_HEADING.sub("", text)
    return re.sub(r"[ \t]+", " ", text).strip()


_ESCAPED_HEADING = re.compile(r"^\\(?=#)", re.MULTILINE)  # "\# add a tag": a paragraph kept from being a heading


def _kept_unless_ref(m: re.Match[str]) -> str:
    """`_PR_REF`'s replacement: a reference goes, an opening that starts none stays."""
    return "" if m.group(0).endswith(")") else m.group(0)


def _label_or_kept(m: re.Match[str]) -> str:
    """`_LINK`'s replacement: a link becomes its label, a '[' that opens none stays as written."""
    return m.group(0) if m.group(1) is None else m.group(1)


@lru_cache(maxsize=65536)  # every word of every question is folded several times (products, versions, terms)
def fold(word: str) -> str:
    """Lowercase without accents, so 'dépréciée' and 'depreciee' meet."""
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@lru_cache(maxsize=1)
def _stemmer():
    import Stemmer

    return Stemmer.Stemmer("english")


# British spellings meet American ones ("behaviour" and "behavior", "serialise" and "serialize"): docs and
# askers use either, often both. Applied to both sides, so a word it bends wrongly ("promise") still meets itself.
_BRITISH = re.compile(r"(?<=[a-z]{3})our(?=s?$|ed$|ing$|ite$|ites$)|(?<=[a-z]{4})is(?=e$|ed$|es$|ing$|ations?$)")


# What can be done meets doing it ("pickleable" and "pickle", "hashable" and "hash"): Snowball keeps "-able"
# when the word is short before it.
_ABLE = re.compile(r"(?<=[a-z]{4})e?ab(?:le|ility)$")


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    word = _ABLE.sub("", _BRITISH.sub(lambda m: "or" if m.group(0) == "our" else "iz", word))
    return _stemmer().stemWord(word)


def raw_tokens(text: str) -> list[str]:
    """Folded word and symbol tokens, before stopwords and stemming."""
    return [fold(t) for t in _TOKEN.findall(text)]


def is_symbol(token: str) -> bool:
    """Code-like tokens (`torch.cond`, `max_autotune`, `fused=True` parts) are matched exactly."""
    return bool(re.search(r"^@|[._]|\d[a-z]|[a-z]/?\d", token)) and not re.fullmatch(r"[\d.]+", token)


def is_identifier(token: str) -> bool:
    """A dotted or snake_case code name (`torch.cond`, `max_autotune`): matched verbatim, never guessed."""
    return is_symbol(token) and ("." in token or "_" in token) and "/" not in token  # "http/1.1" is a name


_RELEASE_NUMBER = re.compile(r"\d+\.\d+(?:\.\d+)?")  # "Python 3.8", "TOML 1.1": a number a release is named by


def is_acronym(word: str, tuning: Tuning) -> bool:
    """A short all-capitals word: "CI", "LAN", "GPUs", "REST" (`tuning.text.acronym`)."""
    return bool(tuning.text.acronym.fullmatch(word))


def is_release_number(token: str) -> bool:
    return bool(_RELEASE_NUMBER.fullmatch(token))


def release_spellings(number: str) -> frozenset[str]:
    """How docs write the release a number names: "1.1" is also "1.1.0", "v1.1" and "v1.1.0"."""
    forms = {number, number.removesuffix(".0") if number.count(".") == 2 else f"{number}.0"}
    return frozenset(forms | {f"v{f}" for f in forms})


def tokens(text: str) -> list[str]:
    """Index tokens: stemmed words, whole symbols plus their parts (so `a.b_c` meets 'b c')."""
    return list(_short_tokens(text)) if len(text) <= _SHORT else _tokenize(text)


_SHORT = 300  # a question, a title or a section: what recurs at every answer (chunks are tokenised once)


@lru_cache(maxsize=16384)
def _short_tokens(text: str) -> tuple[str, ...]:
    return tuple(_tokenize(text))


def _tokenize(text: str) -> list[str]:
    out: list[str] = []
    for tok in raw_tokens(text):
        if tok in STOPWORDS:
            continue
        if "/" in tok:  # "http/2" meets "HTTP" and "2"
            word, number = tok.split("/")
            out.extend((tok, _stem(word), number))
        elif is_symbol(tok) or re.fullmatch(r"[\d.]+", tok):
            out.append(tok)
            if "." in tok and not re.fullmatch(r"[\d.]+", tok):
                out.extend(p for p in tok.split(".") if is_symbol(p))  # `cfg.max_autotune` meets `max_autotune`
            out.extend(_stem(p) for p in _SPLIT.split(tok.lstrip("@")) if len(p) > 1 and p not in STOPWORDS)
        elif len(tok) > 1:
            out.append(_stem(tok))
    return out


def content_terms(text: str) -> list[str]:
    """The distinct tokens that say what a question is about (no stopwords, no release-doc filler)."""
    seen: dict[str, None] = {}
    for tok in raw_tokens(text):
        if tok in STOPWORDS or tok in GENERIC or len(tok) < 2:
            continue
        seen.setdefault(tok if is_symbol(tok) or re.fullmatch(r"[\d.]+", tok) else _stem(tok), None)
    return list(seen)


_FRENCH_FOLDED = frozenset(fold(h) for h in _FRENCH_HINTS)


def detect_language(text: str) -> str:
    """'fr' or 'en' from function words; enough to phrase refusals in the asker's language."""
    words = [fold(w) for w in re.findall(r"[^\W\d_]+", text)]
    french = sum(w in _FRENCH_FOLDED for w in words) + len(re.findall(r"[éèêàùçôîû]", text.lower()))
    english = sum(w in _ENGLISH_HINTS for w in words)
    return "fr" if french > english else "en"


_ABBREVIATIONS = frozenset(
    "e.g i.e etc vs cf approx no fig jan feb mar apr jun jul aug sep sept oct nov dec mr dr st".split()
)


def sentences(text: str) -> list[str]:
    """Split prose into sentences, not after "e.g." or "Sept." nor inside parentheses or backticks."""
    out: list[str] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        left = text[start : m.start()]
        last_word = re.findall(r"(?<![\w.])[\w.]+$", left.rstrip("."))  # from the run's start only: linear
        if last_word and last_word[-1].lower().rstrip(".") in _ABBREVIATIONS:
            continue
        if left.count("(") > left.count(")") or left.count("`") % 2:
            continue
        out.append(left.strip())
        start = m.end()
    out.append(text[start:].strip())
    return [s for s in out if s]
