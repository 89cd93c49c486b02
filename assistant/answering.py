"""Turning passages into answers: the evidence check, the offline extractive answerer, citations."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Protocol

from assistant.bounds import as_said
from assistant.coverage import Terms, coverage
from assistant.instructions import instructs
from assistant.lexical import TermStats
from assistant.models import Answer, Chunk, Citation, Passage
from assistant.query import Query
from assistant.refusals import refusal
from assistant.removals import removals
from assistant.text import is_identifier, tokens
from assistant.units import HEADING_ENTRY, SHOWN_CODE_CHARS, Unit, excerpt, units_of

MAX_UNITS = 5
MAX_GROUPS = 3  # passages quoted in one answer
GROUP_RATIO = 0.8  # a further passage joins when its best sentence scores this close to the best
PRIOR_WEIGHT = 0.25  # how much the passage's retrieval rank lifts its sentences
LEAD_BONUS = 0.05
CONTEXT_WEIGHT = 0.5  # a term in the passage's title or section counts this much for a sentence
LEAD_CONTEXT_WEIGHT = 1.0  # ... and fully for a lead sentence, which the heading speaks for
NO_TERMS_COVERAGE = 0.5  # a question with no content terms ("what's new in 2.11?")
MEMO_SIZE = 8192  # sentence scores and term weights kept; one question takes a few dozen entries
NEIGHBOUR_RATIO = 0.5  # the best passage's further sentences need this share of the best coverage
GROUP_UNITS = 3  # sentences quoted from the best passage
# ... the rest of the best sentence's entry among them: "Fixes a denial of service due to recursion error for
# deeply nested statements." answers only with "Instead of recursion error a generic SQLParseError is raised."
ENTRY_REST = True
CODE_LINES = 2  # lines of an instruction's example quoted with it, those using the code names asked about
FIX_UNITS = 3  # ... with the other instructions of its entry that score as well, up to this many in all
RELEASE_BONUS = 0.1  # sentences of the release a question names rank above other releases' near matches
BUG_FIX_PENALTY = 0.2  # sentences under a "Bug fixes" heading rank below changes, unless the question is about a bug
# A changelog entry is one change: its sentences rank by what the whole entry covers, by this share ("New
# `array_hook` parameter …" then "Called with each decoded JSON array …" answer a question together).
ENTRY_WEIGHT = 0.9
ENTRY_NEIGHBOURS = True  # ... and a further changelog passage quoted brings the rest of its entry's change
GONE_BONUS = 0.1  # a removal's entry ranks above other mentions for a question saying something is gone
# A sentence about how things were ("In V1, …", "Previously …", "… would previously raise …", "… are no longer
# errors") is half an answer: the next one says how they are.
_THEN = re.compile(
    r"^(?:(?:previously|formerly|historically|in the past|until now|auparavant|jusqu'ici)\b|"
    r"before (?:this|now|v?\d)|in (?:[A-Za-z][\w-]* )?v?\d[\w.]*,)|\bused to\b|\bno longer\b|"
    r"\b(?:would|was|were|had|did) (?:previously|formerly)\b",
    re.IGNORECASE,
)
_BUGS = re.compile(r"\bbugs?\b|\bfix(?:es|ed)?\b|\bregressions?\b", re.IGNORECASE)


@lru_cache(maxsize=4096)  # a section is asked about at every question its passages answer
def _about_bugs(section: str) -> bool:
    return bool(_BUGS.search(section))


def _words(unit: Unit, fr: bool, drops: Sequence[str] = (), terms: Sequence[str] = ()) -> frozenset[str]:
    """The words a sentence is matched by: a French question's are matched against its English gloss; where
    the question asks whether a version was dropped (`drops`), as the sentence's version bounds read."""
    words = unit.glossed if fr and unit.glossed is not None else unit.tokens
    return as_said(words, unit.text, drops, terms) if drops else words


def _context(chunk: Chunk) -> frozenset[str]:
    """The words of where a chunk sits (its title and section), which count partly for its sentences."""
    return frozenset(tokens(f"{chunk.title} {chunk.section}"))


class Answerer(Protocol):
    """Writes an answer from retrieved passages, yielding growing drafts; the last one is final."""

    mode: str

    def stream(self, query: Query, passages: Sequence[Passage]) -> Iterator[Answer]: ...


def citation(n: int, passage: Passage, quote: str) -> Citation:
    c = passage.chunk
    return Citation(n, c.title, c.version, c.kind, c.section, c.source, c.url, quote)


class ExtractiveAnswerer:
    """The offline answerer: quotes the few sentences that best answer the question, each cited."""

    mode = "extractive"

    def __init__(
        self, stats: TermStats, *, max_units: int = MAX_UNITS, following: Callable[[Chunk], Chunk | None] | None = None
    ) -> None:
        # The refusal checks and the answer weigh the same question's terms and score the same passages' sentences
        # more than once (the answer adds only the chunks that follow them): both are kept in `_memo`, a few
        # hundred questions' worth, until the index is reloaded (`stats` set again).
        self.stats = stats
        self.max_units = max_units
        self.following = following  # the chunk after one in its section (where its example may continue)

    def scored_units(self, query: Query, passages: Sequence[Passage]) -> list[Scored]:
        """Every sentence of the passages with its term coverage, best first."""
        terms = self._kept(("terms", query.terms, query.spellings), lambda: Terms.of(query, self.stats))
        top = passages[0].score if passages and passages[0].score else 1.0
        # A question naming a release is answered from that release's passages first (all of them when none do).
        own_release = [bool(query.prefer) and query.prefers(p.chunk) for p in passages]
        # A bug fix answers a question about a bug; a user asking why behaviour changed wants the change.
        about_bugs = bool(_BUGS.search(query.question))
        fixes = [not about_bugs and _about_bugs(p.chunk.section) for p in passages]
        out = []
        for p_idx, passage in enumerate(passages):
            prior = passage.score / top
            units = units_of(passage.chunk)
            covs = self._coverages(query, terms, passage.chunk, units)
            removing = removals(passage.chunk) if query.asks_gone else frozenset()
            ranks = self._entry_coverages(query, terms, passage.chunk, units) if ENTRY_WEIGHT else covs
            for u_idx, (unit, cov, whole) in enumerate(zip(units, covs, ranks, strict=True)):
                rank = cov + ENTRY_WEIGHT * (whole - cov)
                score = rank + PRIOR_WEIGHT * prior + (LEAD_BONUS if unit.lead else 0.0)
                if fixes[p_idx]:
                    score -= BUG_FIX_PENALTY
                if own_release[p_idx]:
                    score += RELEASE_BONUS
                if unit.entry in removing:
                    score += GONE_BONUS
                out.append(Scored(score, cov, p_idx, u_idx, unit))
        out.sort(key=lambda s: s.score, reverse=True)
        return out

    @property
    def stats(self) -> TermStats:
        return self._stats

    @stats.setter
    def stats(self, stats: TermStats) -> None:  # a reloaded index weighs terms anew
        self._stats = stats
        self._memo: dict[tuple[object, ...], Any] = {}

    def _kept(self, key: tuple[object, ...], make: Callable[[], Any]) -> Any:
        value = self._memo.get(key)
        if value is None:  # shared across threads: another may clear the memo meanwhile
            if len(self._memo) > MEMO_SIZE:
                self._memo.clear()
            value = self._memo[key] = make()
        return value

    def _coverages(self, query: Query, terms: Terms, chunk: Chunk, units: Sequence[Unit]) -> list[float]:
        """Each sentence's coverage of the question's terms (kept per question and chunk)."""
        key = ("coverage", query.terms, query.spellings, query.drops, query.language == "fr", chunk.id)
        return self._kept(key, lambda: self._covered(query, terms, chunk, units))

    @staticmethod
    def _covered(query: Query, terms: Terms, chunk: Chunk, units: Sequence[Unit]) -> list[float]:
        """Each sentence's coverage of `terms`, the question's terms weighed by some statistics."""
        if not terms.weights:
            return [NO_TERMS_COVERAGE] * len(units)
        fr = query.language == "fr"
        context = _context(chunk)
        # A section heading speaks for its entries' lead sentences ("what breaks" -> "Breaking Changes").
        return [
            coverage(
                terms,
                _words(unit, fr, query.drops, query.terms),
                context,
                LEAD_CONTEXT_WEIGHT if unit.lead else CONTEXT_WEIGHT,
            )
            for unit in units
        ]

    def _entry_coverages(self, query: Query, terms: Terms, chunk: Chunk, units: Sequence[Unit]) -> list[float]:
        """A changelog sentence's coverage counted over its whole entry; other documents' sentences keep their
        own, because a release note's paragraph or list item may discuss several changes."""
        if chunk.kind != "changelog":
            return self._coverages(query, terms, chunk, units)
        fr = query.language == "fr"

        def covered() -> list[float]:
            if not terms.weights:
                return [NO_TERMS_COVERAGE] * len(units)
            context = _context(chunk)
            words: dict[int, set[str]] = {}
            for unit in units:
                words.setdefault(unit.entry, set()).update(_words(unit, fr, query.drops, query.terms))
            whole = {e: coverage(terms, frozenset(w), context, CONTEXT_WEIGHT) for e, w in words.items()}
            return [whole[u.entry] for u in units]

        return self._kept(("entry coverage", query.terms, query.spellings, query.drops, fr, chunk.id), covered)

    def ranked(self, query: Query, passages: Sequence[Passage]) -> list[Scored]:
        """`scored_units`, kept for the refusal checks, which ask it of the same passages more than once."""
        key = ("ranked", query, tuple((p.chunk.id, p.score) for p in passages))
        return self._kept(key, lambda: self.scored_units(query, passages))

    def best_coverage(self, query: Query, passages: Sequence[Passage], stats: TermStats | None = None) -> float:
        """The best sentence coverage of the question's terms, weighed by the index's rarity or by `stats`'."""
        if stats is None:
            return max((s.coverage for s in self.ranked(query, passages)), default=0.0)
        terms = Terms.of(query, stats)  # not kept: asked once per question, of a few passages
        covered = (self._covered(query, terms, p.chunk, units_of(p.chunk)) for p in passages)
        return max((c for coverages in covered for c in coverages), default=0.0)

    def choose(self, query: Query, passages: Sequence[Passage]) -> list[list[Scored]]:
        """Groups of sentences to quote, one group per passage, best group first."""
        ranked = self.scored_units(query, passages)
        if not ranked:
            return []
        best = ranked[0].score
        # Where a passage in the asker's language answers as fully as the best one, it is quoted first.
        top = ranked[0].coverage
        if any(p.chunk.language != query.language for p in passages):
            ranked.sort(key=lambda s: not _own_language(s, query, passages, top, GROUP_RATIO * best))
        groups: dict[int, list[Scored]] = {}
        taken: list[Scored] = []
        for cand in ranked:
            if len(taken) >= self.max_units:
                break
            group = groups.get(cand.p_idx)
            # The best passage adds the rest of its entry (the change told whole) and its other sentences that
            # answer half as well (the fix after the change); others need to be nearly as good as the best.
            if group is not None and cand.p_idx == ranked[0].p_idx:
                same_entry = cand.unit.entry == ranked[0].unit.entry
                fix = query.asks_how and _tells(cand.unit) and same_entry
                near = cand.coverage >= NEIGHBOUR_RATIO * ranked[0].coverage or fix
                keep = (near or (ENTRY_REST and same_entry)) and len(group) < GROUP_UNITS
            elif ENTRY_NEIGHBOURS and group is not None and passages[cand.p_idx].chunk.kind == "changelog":
                # Another changelog entry that answers brings the rest of its change, as the best passage does.
                lead = group[0]
                keep = cand.unit.entry == lead.unit.entry and cand.coverage >= NEIGHBOUR_RATIO * lead.coverage
                keep = keep and len(group) < GROUP_UNITS
            else:
                keep = cand.score >= GROUP_RATIO * best and len(groups) < MAX_GROUPS and group is None
            if not keep:
                continue
            same = next((t for t in taken if t.p_idx != cand.p_idx and _similar(t.unit, cand.unit)), None)
            if same is not None:  # another passage saying the same: cite it, don't repeat it
                same.also.append(cand.p_idx)
                continue
            groups.setdefault(cand.p_idx, []).append(cand)
            taken.append(cand)
        now = self._then_now(ranked[0], passages, why=query.asks_why or query.asks_fixed)
        if now is not None and all(s.u_idx != now.u_idx for s in groups[now.p_idx]):
            groups[now.p_idx].append(now)
        if query.asks_how and not any(_tells(s.unit) for s in taken):
            fixes = self._best_fix(ranked)
            group = groups.setdefault(fixes[0].p_idx, []) if fixes else []
            group.extend(c for c in fixes if all(s.u_idx != c.u_idx for s in group))
        for fix in self._named_fix(query, ranked, best) if query.asks_how else ():
            group = groups.setdefault(fix.p_idx, [])
            if all(s.u_idx != fix.u_idx for s in group):
                group.append(fix)
        return [self._with_leads(sorted(g, key=lambda s: s.u_idx), passages) for g in groups.values()]

    def _code_shown(self, group: Sequence[Scored], chunk: Chunk, symbols: frozenset[str]) -> str:
        """The lines of the example after a quoted instruction that use a code name the question asks about
        ("… may be used directly …::" then `metadata_obj.create_all(engine)`): a how-question's fix is often
        only in the example, which may open the section's next chunk."""
        lines: dict[str, None] = {}
        for s in group:
            code = s.unit.code
            if not code and s.unit.closes and self.following and (nxt := self.following(chunk)) and nxt.entries:
                code = nxt.entries[0].text if nxt.entries[0].kind == "code" else ""
            if not code or not _tells(s.unit):
                continue
            for line in code.splitlines():
                line = line.strip()
                if line and "`" not in line and len(line) <= SHOWN_CODE_CHARS and symbols & set(tokens(line)):
                    lines[line] = None
        return " ".join(f"`{c}`" for c in list(lines)[:CODE_LINES])

    @staticmethod
    def _best_fix(ranked: Sequence[Scored]) -> list[Scored]:
        """A how-question wants the fix: the best-ranked instruction, with the other instructions of its entry
        ("Use `.copy` … The keyword … can be safely removed"). However low it ranks: a fix the chosen sentences
        lack ("If `scale_down` is `True`, they will be at 1x") is what the asker came for."""
        fixes = [c for c in ranked if _tells(c.unit)]
        if not fixes:
            return []
        return [c for c in fixes if c.p_idx == fixes[0].p_idx and c.unit.entry == fixes[0].unit.entry][:FIX_UNITS]

    def _named_fix(self, query: Query, ranked: Sequence[Scored], best: float) -> list[Scored]:
        """A how-question's fix from the entry whose own words name what it asks about (the question's rarest
        term the docs know). Under a heading that names it, every sentence shares that term through the heading,
        so the entry stating the change can rank below its neighbours; its instructions are what the asker needs.
        """
        terms = Terms.of(query.topic, self.stats)
        known = [t for t in terms.weights if self.stats.knows(t) or terms.spellings.get(t)]
        if not known:
            return []
        key = max(known, key=terms.weights.__getitem__)
        spelled = {key} | terms.spellings.get(key, frozenset())
        named = next((c for c in ranked if spelled & c.unit.tokens), None)
        if named is None:
            return []
        entry = [c for c in ranked if c.p_idx == named.p_idx and c.unit.entry == named.unit.entry]
        return [c for c in entry if _tells(c.unit)][:FIX_UNITS]

    @staticmethod
    def _then_now(best: Scored, passages: Sequence[Passage], *, why: bool = False) -> Scored | None:
        """The sentence after the best one in its entry when the best says how things were (the next says how
        they are), or when the question asks why (the next gives the reason: "… were removed. Reason: …") or
        whether a problem was fixed (the entry describes the problem, then "This issue has been rectified")."""
        if not why and not _THEN.search(best.unit.text):
            return None
        units = units_of(passages[best.p_idx].chunk)
        nxt = best.u_idx + 1
        if nxt >= len(units) or units[nxt].entry != best.unit.entry:
            return None
        return Scored(best.score, best.coverage, best.p_idx, nxt, units[nxt])

    def _with_leads(self, group: list[Scored], passages: Sequence[Passage]) -> list[Scored]:
        """A sentence from inside an entry brings the entry's first sentence, which says what changed."""
        units = units_of(passages[group[0].p_idx].chunk)
        have = {s.u_idx for s in group}
        for s in list(group):
            for entry in (HEADING_ENTRY, s.unit.entry):
                lead = next((i for i, u in enumerate(units) if u.entry == entry), None)
                if lead is not None and lead not in have:
                    have.add(lead)
                    group.append(Scored(s.score, s.coverage, s.p_idx, lead, units[lead]))
        return sorted(group, key=lambda s: s.u_idx)

    def _release_label(self, chunk: Chunk) -> str:
        """'pandas 3.0.0' (or '2.11.0' in a one-product index) before each quote, so the answer itself says
        which release it quotes; nothing when the index holds a single release."""
        catalog = getattr(self.stats, "catalog", None)
        if catalog is None or not chunk.version or sum(len(p.versions) for p in catalog.products) < 2:
            return ""
        product = catalog.product(chunk.product) if len(catalog.products) > 1 else None
        return f"{product.name} {chunk.version}" if product else chunk.version

    def stream(self, query: Query, passages: Sequence[Passage]) -> Iterator[Answer]:
        groups = self.choose(query, passages)
        if not groups:
            yield refusal(query)
            return
        numbers: dict[int, int] = {}
        quotes: dict[int, str] = {}
        lines: list[str] = []
        draft = Answer(question=query.question, text="", found=True, language=query.language, final=False)
        symbols = _symbols(query) if query.asks_how else frozenset()
        for group in groups:
            said = " ".join(_full_stop(s.unit.text) for s in group)
            shown = self._code_shown(group, passages[group[0].p_idx].chunk, symbols)
            said = f"{said} {shown}" if shown else said
            marks = ""
            for p_idx in dict.fromkeys([group[0].p_idx] + [o for s in group for o in s.also]):
                numbers.setdefault(p_idx, len(numbers) + 1)
                # The excerpt shows the best sentence; a lead that joined it shares its score and comes first.
                quotes.setdefault(p_idx, max(reversed(group), key=lambda s: (s.score, s.coverage)).unit.text)
                marks += f"[{numbers[p_idx]}]"
            label = self._release_label(passages[group[0].p_idx].chunk)
            said = f"{label}: {said}" if label else said
            lines.append(f"{said} {marks}" if len(groups) == 1 else f"- {said} {marks}")
            text = "\n".join(lines)  # each draft extends the last, so streaming UIs only append
            citations = tuple(
                citation(n, passages[p], excerpt(passages[p].chunk, quotes[p]))
                for p, n in sorted(numbers.items(), key=lambda kv: kv[1])
            )
            draft = replace(draft, text=text, citations=citations)
            yield draft
        yield replace(draft, final=True)


@dataclass
class Scored:
    score: float
    coverage: float
    p_idx: int
    u_idx: int
    unit: Unit
    also: list[int] = field(default_factory=list)  # other passages that say the same


def _own_language(s: Scored, query: Query, passages: Sequence[Passage], coverage: float, score: float) -> bool:
    same = passages[s.p_idx].chunk.language == query.language
    return same and s.coverage >= coverage - 1e-9 and s.score >= score


def _tells(unit: Unit) -> bool:
    """The unit says what to do: an instruction, or a row of a table (of removed names and their
    replacements, of old and new spellings)."""
    return unit.kind == "row" or instructs(unit.text)


def _symbols(query: Query) -> frozenset[str]:
    """The code names a question asks about, as the docs may spell them."""
    names = {t for t in query.terms if is_identifier(t)}
    return frozenset(names.union(*(alts for t, alts in query.spellings if t in names)))


def _similar(a: Unit, b: Unit) -> bool:
    if not a.tokens or not b.tokens:
        return False
    return len(a.tokens & b.tokens) / len(a.tokens | b.tokens) >= 0.6


def _full_stop(sentence: str) -> str:
    """List-entry titles often lack a full stop; joined with the next sentence they would run on."""
    return sentence if sentence.endswith((".", "!", "?", ":", "…")) else sentence + "."
