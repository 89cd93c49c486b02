"""Whether an answer says only what the passages it cites say: its numbers, names, links and most of its words.

An answer is read as claims: the sentences of a line up to one that carries [n] markers, checked against the
union of the passages those markers name. A claim is carried by them when

* every number it states is in them (9.0 and 9, 2.12 and v2.12.0, 29500 and 29,500 are the same number),
* every name is: code names (`DataFrame.append`; `pd.concat` for `concat`, a module or alias added) and words
  capitalised inside a sentence (RMSprop, Kubernetes, CUDA), which are written alike in every language,
* every URL it shows is,
* and at least half of its content words (stemmed, stopwords and release-doc filler left out) are (the tuned
  `claim_word_share`).

Sentences after a line's last marker cite nothing: all but their words must still be in a passage the answer
cites. Any answer that quotes its passages passes (the extractive one does); a paraphrase passes when it keeps
their facts. Links whose target no cited passage holds lose their target and keep their text (`unlink`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from assistant.model.records import Chunk
from assistant.text.untrusted import safe_url
from assistant.text.words import STOPWORDS, content_terms, fold, is_identifier, sentences, strip_markup, tokens
from assistant.tuning import DEFAULT, Tuning

# A marker as `check_citations` leaves it ([n]); code is skipped, as there: `x[0]` is no citation.
_MARKER = re.compile(r"(?P<code>```.*?(?:```|$)|`[^`\n]*`)|\[(?P<n>\d{1,3})\]", re.DOTALL)
_LEADING_MARKERS = re.compile(r"(?:\[\d{1,3}\][ \t]*)+")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,2}[.)])[ \t]+", re.MULTILINE)  # "1. " numbers a list, not a fact
# A number not inside a word ("float16", "sm_90" are words): digits with dot or comma groups, maybe after "v".
_NUMBER = re.compile(r"(?<![\w.])(?:v|V)?(\d+(?:[.,]\d+)*)")
_URL = re.compile(r"(?i)(?<![\w/])(?:https?://|www\.)[^\s<>\"'`()\[\]]+")
_URL_END = ".,;:!?*_~"  # punctuation of the prose around a URL, not part of it
_ABBREVIATION = re.compile(r"(?:[^\W\d]\.)+[^\W\d]")  # "e.g", "i.e": dotted, but no code name
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_OPENERS = " \t\"'“«(*_-•"  # what may stand between a sentence's end and its first word
# A Markdown link or image: its label, then its target (balanced parentheses inside, one level, as CommonMark).
# A '[' that opens none is matched up to its first ']' or line end by the last branch (no `target`) and left as it
# is: every '[' before that point fails alike, and trying each of them read on to it (quadratic).
_LINK = re.compile(r"(?P<bang>!?)\[(?P<label>[^\]\n]*)\]\((?P<target>(?:[^()\n]|\([^()\n]*\))*)\)|\[[^\]\n]*")


@dataclass(frozen=True)
class Claim:
    """Sentences of an answer and the passage numbers cited for them (none for sentences after the last marker);
    `start` is where they begin in the answer."""

    text: str
    sources: tuple[int, ...]
    start: int = 0


@dataclass(frozen=True)
class Reference:
    """What a passage carries, as claims are compared with it."""

    numbers: frozenset[str]
    words: frozenset[str]
    urls: frozenset[str]
    language: str


@dataclass(frozen=True)
class Review:
    """What may be shown of an answer, and the first claim its passages do not carry (None when they all do)."""

    shown: str
    failed: Claim | None = None


def claims(text: str) -> list[Claim]:
    """The answer's claims, in order: each line's sentences up to one with [n] markers, then any left uncited."""
    marks = {m.start(): int(m.group("n")) for m in _MARKER.finditer(text) if m.group("n")}
    out: list[Claim] = []
    offset = 0

    def claim(begin: int, end: int, sources: tuple[int, ...]) -> None:
        said = line[begin:end]
        if said.strip():
            out.append(Claim(said.strip(), sources, offset + begin + len(said) - len(said.lstrip())))

    for line in text.split("\n"):
        run_start = 0
        for start, end in _sentence_spans(line):
            numbers = sorted({n for at, n in marks.items() if offset + start <= at < offset + end})
            if numbers:
                claim(run_start, end, tuple(numbers))
                run_start = end
        claim(run_start, len(line), ())
        offset += len(line) + 1
    return out


def _sentence_spans(line: str) -> list[tuple[int, int]]:
    """Where each sentence of a line starts and ends; markers that open a sentence ("required. [1] Also") end
    the one before it, where they belong."""
    spans: list[tuple[int, int]] = []
    cursor = 0
    for sentence in sentences(line):
        start = line.find(sentence, cursor)
        end = cursor = start + len(sentence)
        lead = _LEADING_MARKERS.match(line, start)
        if lead and spans:
            spans[-1] = (spans[-1][0], lead.end())
            start = lead.end()
        if start < end:
            spans.append((start, end))
    return spans


def markers(text: str) -> frozenset[int]:
    """The passage numbers `text` cites ([n] outside code)."""
    return frozenset(int(m.group("n")) for m in _MARKER.finditer(text) if m.group("n"))


def review(
    text: str,
    cited: Sequence[Chunk],
    language: str,
    *,
    given: Sequence[Chunk] = (),
    finished: bool = True,
    tuning: Tuning = DEFAULT,
) -> Review:
    """Whether the passages carry `text`'s claims; marker [n] names `cited[n - 1]`.

    A finished answer is read whole. While it is being written (`finished=False`) only its finished claims are
    judged: those with markers that a later sentence follows. The others (the sentence being written, lines
    citing nothing yet, which a later marker may cover) are held back from `shown` while they state a number,
    name or URL that none of the passages the model was `given` holds, so a false figure is not shown even
    for the moment before its sentence ends.
    """
    found = claims(text)
    everything = _union([reference(c) for c in cited])  # what claims citing nothing may draw on
    anywhere = everything if finished else _union([reference(c) for c in given])
    cut: int | None = None
    for i, claim in enumerate(found):
        if not finished and not (claim.sources and i < len(found) - 1):
            if cut is None and not _carried(claim, anywhere, language, tuning, words=False):
                cut = claim.start
            continue
        refs = [reference(cited[n - 1]) for n in claim.sources if 1 <= n <= len(cited)]
        if len(refs) < len(claim.sources) or not _carried(
            claim, _union(refs) if refs else everything, language, tuning, words=bool(refs)
        ):
            return Review(text[: claim.start].rstrip(), claim)
    return Review(text if cut is None else text[:cut].rstrip())


def _carried(claim: Claim, ref: Reference, language: str, tuning: Tuning, *, words: bool) -> bool:
    """Whether `ref` holds the claim's URLs, numbers and names, and (`words`) enough of its other words
    (`tuning.answer.claim_word_share`)."""
    said = _LIST_ITEM.sub("", _MARKER.sub(lambda m: m.group("code") or " ", claim.text))
    if not urls_in(said) <= ref.urls:
        return False
    prose = _URL.sub(" ", strip_markup(said))
    if not numbers_in(prose) <= ref.numbers:
        return False
    terms = [t for t in content_terms(prose) if not re.fullmatch(r"v?[\d.,]+", t)]
    code = [t for t in terms if is_identifier(t) and not _ABBREVIATION.fullmatch(t)]
    named = code + [t for n in names_in(prose) for t in content_terms(n)]
    if not all(t in ref.words or t.rsplit(".", 1)[-1] in ref.words for t in named):
        return False
    # No offline translator (see assistant.text.french): across languages only names, numbers and links compare.
    if not words or language != ref.language:
        return True
    return not terms or sum(t in ref.words for t in terms) / len(terms) >= tuning.answer.claim_word_share


def names_in(text: str) -> list[str]:
    """Words written with a capital where a sentence does not put one: "RMSprop", "CUDA" anywhere, "Adagrad"
    after a sentence's first word."""
    out = []
    for m in _WORD.finditer(text):
        word = m.group(0)
        if len(word) < 2 or fold(word) in STOPWORDS or word.islower():
            continue
        before = text[: m.start()].rstrip(_OPENERS)
        opens = not before or before[-1] in ".!?:;\n"
        if not opens or any(c.isupper() for c in word[1:]):
            out.append(word)
    return out


@lru_cache(maxsize=4096)  # a passage is read at every draft of every answer that cites it
def reference(chunk: Chunk) -> Reference:
    """A passage's numbers, words and URLs: its text, entries and code, and where it sits (product, release,
    title, section, link), all of which the model was shown."""
    parts = [chunk.product, chunk.version, chunk.title, chunk.section, chunk.text, *(e.text for e in chunk.entries)]
    text = "\n".join(parts)
    prose = strip_markup(f"{text}\n{chunk.kind}")
    urls = (
        urls_in(text)
        | urls_in(chunk.url)
        | {u for m in _LINK.finditer(text) if m["target"] is not None and (u := _target(m["target"]))}
    )
    # A hyphenated word's parts count as words too: "OS-assigned" says "OS", "migration-guide" says "guide".
    apart = re.sub(r"(?<=\w)[-/](?=\w)", " ", prose)
    return Reference(
        numbers_in(text) | numbers_in(prose),
        frozenset(tokens(prose)) | frozenset(content_terms(prose)) | frozenset(content_terms(apart)),
        frozenset(urls),
        chunk.language,
    )


def _union(refs: Sequence[Reference]) -> Reference:
    if not refs:
        return Reference(frozenset(), frozenset(), frozenset(), "")
    return Reference(
        frozenset().union(*(r.numbers for r in refs)),
        frozenset().union(*(r.words for r in refs)),
        frozenset().union(*(r.urls for r in refs)),
        refs[0].language if len({r.language for r in refs}) == 1 else "",
    )


def numbers_in(text: str) -> frozenset[str]:
    """The numbers `text` states, each in one spelling: no "v", no thousands commas, no trailing ".0" parts,
    a decimal comma read as a point ("12,6" is 12.6)."""
    out: set[str] = set()
    for m in _NUMBER.finditer(text):
        written = m.group(1)
        groups = written.split(",")
        if len(groups) > 1 and "." not in written and all(len(g) == 3 for g in groups[1:]):
            pieces = ["".join(groups)]  # 29,500
        elif len(groups) == 2 and "." not in written and len(groups[1]) <= 2:
            pieces = [".".join(groups)]  # 12,6
        else:
            pieces = groups  # "1,2,3": a list
        out.update(_plain(p) for p in pieces if p)
    return frozenset(out)


def _plain(number: str) -> str:
    parts = number.split(".")
    parts[0] = parts[0].lstrip("0") or "0"  # not int(): a hostile 5,000-digit number would raise
    while len(parts) > 1 and not parts[-1].strip("0"):
        parts.pop()
    return ".".join(parts)


def urls_in(text: str) -> frozenset[str]:
    """The http(s) URLs written in `text`, as `safe_url` spells them (trailing "/" aside)."""
    found = (_normal(m.group(0).rstrip(_URL_END)) for m in _URL.finditer(text))
    return frozenset(u for u in found if u)


def _normal(url: str) -> str:
    safe = safe_url(url if "://" in url else f"https://{url}")
    return safe.rstrip("/") if safe else ""


def _target(target: str) -> str:
    """A Markdown link's destination (`url`, `<url>`, `url "title"`), normalised; '' when it is no http(s) URL."""
    target = target.strip()
    url = target[1:].split(">", 1)[0] if target.startswith("<") else (target.split() or [""])[0]
    return _normal(url) if "://" in url else ""


def unlink(text: str, cited: Sequence[Chunk]) -> str:
    """`text` with each Markdown link or image whose target no cited passage holds written as its label alone,
    so nothing but the passages' own links can be clicked. Code is left as written."""
    allowed = frozenset().union(*(reference(c).urls for c in cited)) if cited else frozenset()

    def keep(m: re.Match[str]) -> str:
        return m.group(0) if m["target"] is None or _target(m["target"]) in allowed else m.group("label")

    pieces = re.split(r"(```.*?(?:```|$)|`[^`\n]*`)", text, flags=re.DOTALL)
    return "".join(p if i % 2 else _LINK.sub(keep, p) for i, p in enumerate(pieces))
