"""The offline extractive answerer: quotes the best-scored sentences of the passages, each cited; how many, and
which, is tuned (`AnswerTuning`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Protocol

from assistant.answer.refusal import refusal
from assistant.index.lexical import TermStats
from assistant.model.query import Query
from assistant.model.records import Answer, Chunk, Citation, Passage
from assistant.model.units import HEADING_ENTRY, Unit, excerpt, units_of
from assistant.search.sentences import Scored, SentenceRanker
from assistant.text.instructions import instructs
from assistant.tuning import DEFAULT, Tuning


class Answerer(Protocol):
    """Writes an answer from retrieved passages, yielding growing drafts; the last one is final."""

    mode: str

    def stream(self, query: Query, passages: Sequence[Passage]) -> Iterator[Answer]: ...


def citation(n: int, passage: Passage, quote: str) -> Citation:
    c = passage.chunk
    return Citation(n, c.title, c.version, c.kind, c.section, c.source, c.url, quote, c.product)


class ExtractiveAnswerer(SentenceRanker):
    """The offline answerer: quotes the few sentences that best answer the question, each cited. At most
    `max_units` sentences, when given (the knowledge base gives `Settings.top_k`)."""

    mode = "extractive"

    def __init__(
        self,
        stats: TermStats,
        tuning: Tuning = DEFAULT,
        *,
        max_units: int | None = None,
    ) -> None:
        super().__init__(stats, tuning)
        self.max_units = max_units

    def choose(self, query: Query, passages: Sequence[Passage]) -> list[list[Scored]]:
        """Groups of sentences to quote, one group per passage, best group first."""
        tuning, tuned = self.tuning, self.tuning.answer
        ranked = self.scored_units(query, passages)
        if not ranked:
            return []
        best = ranked[0].score
        groups: dict[int, list[Scored]] = {}
        taken: list[Scored] = []
        for cand in ranked:
            if self.max_units is not None and len(taken) >= self.max_units:
                break
            group = groups.get(cand.p_idx)
            # The best passage adds the rest of its entry (the change told whole) and its other sentences that
            # answer half as well (the fix after the change); others need to be nearly as good as the best.
            if group is not None and cand.p_idx == ranked[0].p_idx:
                same_entry = cand.unit.entry == ranked[0].unit.entry
                fix = query.asks_how and instructs(cand.unit.text, tuning) and same_entry
                near = cand.coverage >= tuned.neighbour_ratio * ranked[0].coverage or fix
                keep = near or (tuned.entry_rest and same_entry)
            else:  # the best sentence always: with a negative weight in the model its score may be below 0
                near = not groups or cand.score >= tuned.group_ratio * best
                keep = near and len(groups) < tuned.max_groups and group is None
            if not keep:
                continue
            same = next((t for t in taken if t.p_idx != cand.p_idx and _similar(t.unit, cand.unit)), None)
            if same is not None:  # another passage saying the same: cite it, don't repeat it
                same.also.append(cand.p_idx)
                continue
            groups.setdefault(cand.p_idx, []).append(cand)
            taken.append(cand)
        now = self._then_now(ranked[0], passages) if query.asks_fixed else None
        if now is not None and all(s.u_idx != now.u_idx for s in groups[now.p_idx]):
            groups[now.p_idx].append(now)
        if query.asks_how and tuned.best_fix and not any(instructs(s.unit.text, tuning) for s in taken):
            fixes = self._best_fix(ranked)
            group = groups.setdefault(fixes[0].p_idx, []) if fixes else []
            group.extend(c for c in fixes if all(s.u_idx != c.u_idx for s in group))
        return [self._with_leads(sorted(g, key=lambda s: s.u_idx), passages) for g in groups.values()]

    def _best_fix(self, ranked: Sequence[Scored]) -> list[Scored]:
        """A how-question wants the fix: the best-ranked instruction, however low it ranks. A fix the chosen
        sentences lack ("If `scale_down` is `True`, they will be at 1x") is what the asker came for."""
        fixes = [c for c in ranked if instructs(c.unit.text, self.tuning)]
        return fixes[:1]

    def _then_now(self, best: Scored, passages: Sequence[Passage]) -> Scored | None:
        """The sentence after the best one in its entry, for a question asking whether a problem was fixed (the
        entry describes the problem, then "This issue has been rectified")."""
        units = units_of(passages[best.p_idx].chunk, self.tuning)
        nxt = best.u_idx + 1
        if nxt >= len(units) or units[nxt].entry != best.unit.entry:
            return None
        return Scored(best.score, best.coverage, best.p_idx, nxt, units[nxt])

    def _with_leads(self, group: list[Scored], passages: Sequence[Passage]) -> list[Scored]:
        """A sentence from inside an entry brings the entry's first sentence, which says what changed."""
        if not self.tuning.answer.with_leads:
            return sorted(group, key=lambda s: s.u_idx)
        units = units_of(passages[group[0].p_idx].chunk, self.tuning)
        have = {s.u_idx for s in group}
        for s in list(group):
            for entry in (HEADING_ENTRY, s.unit.entry):
                lead = next((i for i, u in enumerate(units) if u.entry == entry), None)
                if lead is not None and lead not in have:
                    have.add(lead)
                    group.append(Scored(s.score, s.coverage, s.p_idx, lead, units[lead]))
        return sorted(group, key=lambda s: s.u_idx)

    def _said(self, unit: Unit) -> str:
        """A quoted sentence, with the short code block it introduces."""
        shown = _code(unit.shows) if len(unit.shows) <= self.tuning.answer.code_chars else ""
        return f"{unit.text} {shown}" if shown else _full_stop(unit.text)

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
        for group in groups:
            said = " ".join(self._said(s.unit) for s in group)
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
                citation(n, passages[p], excerpt(passages[p].chunk, quotes[p], self.tuning))
                for p, n in sorted(numbers.items(), key=lambda kv: kv[1])
            )
            draft = replace(draft, text=text, citations=citations)
            yield draft
        yield replace(draft, final=True)


def _code(text: str) -> str:
    """A short code block as inline code, one span a line; "" for one that would not read right so: a line
    indented under another (Python's or YAML's nesting would be lost) or holding a backtick (which would close
    the span early, and no chat renders nested ones alike)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if any("`" in line for line in lines) or any(line[:1].isspace() for line in lines[1:]):
        return ""
    return " ".join(f"`{line.strip()}`" for line in lines)


def _similar(a: Unit, b: Unit) -> bool:
    """Every word of one sentence is in the other: quoting both would say nothing more than the fuller one."""
    return bool(a.tokens and b.tokens) and (a.tokens <= b.tokens or b.tokens <= a.tokens)


def _full_stop(sentence: str) -> str:
    """List-entry titles often lack a full stop; joined with the next sentence they would run on."""
    return sentence if sentence.endswith((".", "!", "?", ":", "…")) else sentence + "."
