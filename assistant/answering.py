"""Turning passages into answers: the evidence check, the offline extractive answerer, citations."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Protocol

from assistant.models import Answer, Chunk, Citation, Passage
from assistant.query import Query
from assistant.text import is_symbol, sentences, strip_markup, tokens

NOT_COVERED = {
    "en": "The release docs don't cover this.",
    "fr": "Les notes de version ne couvrent pas cette question.",
}
MIN_COVERAGE = 0.45  # share of the question's weighted terms the best sentence must carry
MAX_UNITS = 5
QUOTE_CHARS = 600
_FENCE_BLOCK = re.compile(r"^\s*(`{3,}|~{3,}).*?^\s*\1\s*$", re.MULTILINE | re.DOTALL)
_BULLET = re.compile(r"^\s*(?:[-*+●•]|\d{1,3}[.)])\s*")
_LABEL = re.compile(r"^[✓✔➜→]\s*\w+(?: \w+)?:?$")
_GLUED_NUMBER = re.compile(r"^\d{1,2}(?=[A-Z])")  # "1If building…" from a flattened numbered list


class TermStats(Protocol):
    """Corpus statistics the answerer weighs terms with (the retriever provides them)."""

    def idf(self, token: str) -> float: ...

    def knows(self, token: str) -> bool: ...


class Answerer(Protocol):
    """Writes an answer from retrieved passages, yielding growing drafts; the last one is final."""

    mode: str

    def stream(self, query: Query, passages: Sequence[Passage]) -> Iterator[Answer]: ...


@dataclass(frozen=True)
class Unit:
    """A sentence or list entry: the smallest piece of a passage an answer quotes."""

    text: str
    tokens: frozenset[str]
    lead: bool  # first sentence of a list entry or paragraph: usually its summary


@lru_cache(maxsize=8192)
def units_of(chunk: Chunk) -> tuple[Unit, ...]:
    """Readable sentences of a chunk, code blocks and 'Version 2.11:' labels left out."""
    text = _FENCE_BLOCK.sub("\n", chunk.text)
    out: list[Unit] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            for i, sentence in enumerate(sentences(strip_markup(" ".join(paragraph)))):
                if len(sentence) >= 15 and not (sentence.endswith(":") and len(sentence) < 60):
                    out.append(Unit(sentence, frozenset(tokens(sentence)), i == 0))
            paragraph.clear()

    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped or _LABEL.match(stripped):
            flush()  # "✓Solution" heads the next sentences; it is not part of them
        elif _BULLET.match(line) and not stripped.startswith(("`", "*")):
            flush()
            paragraph.append(_GLUED_NUMBER.sub("", _BULLET.sub("", line).strip()))
        else:
            paragraph.append(stripped)
    flush()
    return tuple(out)


def term_weights(query: Query, stats: TermStats) -> dict[str, float]:
    return {t: stats.idf(t) for t in query.terms}


def coverage(
    weights: dict[str, float], toks: frozenset[str], context: frozenset[str] = frozenset(), context_weight: float = 0.5
) -> float:
    """Weighted share of query terms found; symbols count partly when only their parts are there."""
    total = sum(weights.values())
    if not total:
        return 0.0
    got = 0.0
    for term, w in weights.items():
        if term in toks:
            got += w
        elif term in context:
            got += context_weight * w
        elif is_symbol(term):
            parts = set(tokens(term)) - {term}
            if parts:
                got += 0.6 * w * len(parts & toks) / len(parts)
    return got / total


def missing_symbols(query: Query, stats: TermStats) -> list[str]:
    """Code-like terms of the question that the corpus never mentions (e.g. an invented API)."""
    missing = []
    for term in query.terms:
        if not is_symbol(term) or not ("." in term or "_" in term) or stats.knows(term):
            continue
        parts = [p for p in term.split(".") if p]
        # `cfg.max_autotune_x` is known when its distinctive last part is; `torch.made.up` is not.
        if not (is_symbol(parts[-1]) and stats.knows(parts[-1])) and not all(stats.knows(p) for p in parts):
            missing.append(term)
    return missing


def refusal(query: Query, *, reason: str | None = None, mode: str = "extractive") -> Answer:
    text = NOT_COVERED.get(query.language, NOT_COVERED["en"])
    if reason:
        text = f"{text} {reason}"
    return Answer(question=query.question, text=text, found=False, mode=mode, language=query.language)  # type: ignore[arg-type]


def citation(n: int, passage: Passage, quote: str) -> Citation:
    c = passage.chunk
    return Citation(n, c.title, c.version, c.kind, c.section, c.source, c.url, quote)


def excerpt(chunk: Chunk, around: str = "", limit: int = QUOTE_CHARS) -> str:
    """The passage as readable text, cut to `limit` characters while keeping `around` inside."""
    text = strip_markup(_FENCE_BLOCK.sub(" ", chunk.text))
    text = re.sub(r"\s*\n\s*", " ", text)
    if len(text) <= limit:
        return text
    start = max(0, text.find(around) - 80) if around and text.find(around) > limit - len(around) else 0
    cut = text[start : start + limit].rsplit(" ", 1)[0]
    return ("…" if start else "") + cut + "…"


class ExtractiveAnswerer:
    """The offline answerer: quotes the few sentences that best answer the question, each cited."""

    mode = "extractive"

    def __init__(self, stats: TermStats, *, max_units: int = MAX_UNITS) -> None:
        self.stats = stats
        self.max_units = max_units

    def select(self, query: Query, passages: Sequence[Passage]) -> list[tuple[float, int, Unit]]:
        """Scored sentences, best first: term coverage, lifted by the passage's rank."""
        weights = term_weights(query, self.stats)
        if not passages:
            return []
        top = passages[0].score or 1.0
        scored = []
        for p_idx, passage in enumerate(passages):
            context = frozenset(tokens(f"{passage.chunk.title} {passage.chunk.section}"))
            prior = passage.score / top
            for unit in units_of(passage.chunk):
                # A section heading speaks for its entries' lead sentences ("what breaks" -> "Breaking Changes").
                cov = coverage(weights, unit.tokens, context, 1.0 if unit.lead else 0.5) if weights else 0.5
                scored.append((cov + 0.25 * prior + (0.05 if unit.lead else 0.0), cov, p_idx, unit))
        scored.sort(key=lambda s: s[0], reverse=True)
        return [(score, p_idx, unit) for score, cov, p_idx, unit in scored if cov >= 0 and score > 0]

    def best_coverage(self, query: Query, passages: Sequence[Passage]) -> float:
        weights = term_weights(query, self.stats)
        best = 0.0
        for passage in passages:
            context = frozenset(tokens(f"{passage.chunk.title} {passage.chunk.section}"))
            for unit in units_of(passage.chunk):
                best = max(best, coverage(weights, unit.tokens, context, 1.0 if unit.lead else 0.5))
        return best

    def stream(self, query: Query, passages: Sequence[Passage]) -> Iterator[Answer]:
        ranked = self.select(query, passages)
        if not ranked:
            yield refusal(query)
            return
        best = ranked[0][0]
        chosen: list[tuple[int, Unit]] = []
        per_passage: dict[int, int] = {}
        merged_into: dict[int, list[int]] = {}  # index in chosen -> other passages saying the same
        for score, p_idx, unit in ranked:
            if score < 0.75 * best or len(chosen) >= self.max_units:
                break
            dup = next((i for i, (_, u) in enumerate(chosen) if _similar(u, unit)), None)
            if dup is not None:
                if chosen[dup][0] != p_idx and p_idx not in merged_into.setdefault(dup, []):
                    merged_into[dup].append(p_idx)
                continue
            if per_passage.get(p_idx, 0) >= 2:
                continue
            per_passage[p_idx] = per_passage.get(p_idx, 0) + 1
            chosen.append((p_idx, unit))

        numbers: dict[int, int] = {}
        quotes: dict[int, list[str]] = {}
        lines: list[str] = []
        # Sentences of one passage stay together and in document order, so they read as the doc does.
        groups: dict[int, list[int]] = {}
        for i, (p_idx, _) in enumerate(chosen):
            groups.setdefault(p_idx, []).append(i)
        draft = Answer(question=query.question, text="", found=True, language=query.language, final=False)
        for p_idx, members in groups.items():
            order = {u: n for n, u in enumerate(units_of(passages[p_idx].chunk))}
            members.sort(key=lambda i: order.get(chosen[i][1], 0))
            refs = [p_idx] + [o for i in members for o in merged_into.get(i, [])]
            marks = ""
            for ref in dict.fromkeys(refs):
                numbers.setdefault(ref, len(numbers) + 1)
                quotes.setdefault(ref, []).append(" ".join(chosen[i][1].text for i in members))
                marks += f"[{numbers[ref]}]"
            lines.append(" ".join(_full_stop(chosen[i][1].text) for i in members) + f" {marks}")
            text = lines[0] if len(lines) == 1 else "\n".join(f"- {line}" for line in lines)
            draft = replace(draft, text=text, citations=self._citations(numbers, quotes, passages))
            yield draft
        yield replace(draft, final=True)

    def _citations(
        self, numbers: dict[int, int], quotes: dict[int, list[str]], passages: Sequence[Passage]
    ) -> tuple[Citation, ...]:
        return tuple(
            citation(n, passages[p_idx], excerpt(passages[p_idx].chunk, quotes[p_idx][0]))
            for p_idx, n in sorted(numbers.items(), key=lambda kv: kv[1])
        )


def _similar(a: Unit, b: Unit) -> bool:
    if not a.tokens or not b.tokens:
        return False
    return len(a.tokens & b.tokens) / len(a.tokens | b.tokens) >= 0.6


def _full_stop(sentence: str) -> str:
    """List-entry titles often lack a full stop; joined with the next sentence they would run on."""
    return sentence if sentence.endswith((".", "!", "?", ":", "…")) else sentence + "."
