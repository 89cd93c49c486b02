"""The offline extractive answerer: quotes the best-scored sentences of the passages, each cited; how many, and
which, is tuned (`AnswerTuning`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Protocol

from assistant.answer.refusal import refusal
from assistant.index.lexical import TermStats
from assistant.model.query import Query, topic
from assistant.model.records import Answer, Chunk, Citation, Passage
from assistant.model.units import HEADING_ENTRY, Unit, excerpt, units_of
from assistant.search.coverage import Terms
from assistant.search.sentences import Scored, SentenceRanker
from assistant.text.instructions import instructs
from assistant.text.words import is_identifier, tokens
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
    `max_units` sentences (`tuning.answer.max_units` when None)."""

    mode = "extractive"

    def __init__(
        self,
        stats: TermStats,
        tuning: Tuning = DEFAULT,
        *,
        max_units: int | None = None,
        following: Callable[[Chunk], Chunk | None] | None = None,
    ) -> None:
        super().__init__(stats, tuning)
        self.max_units = tuning.answer.max_units if max_units is None else max_units
        self.following = following  # the chunk after one in its section (where its example may continue)

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
            if len(taken) >= self.max_units:
                break
            group = groups.get(cand.p_idx)
            # The best passage adds the rest of its entry (the change told whole) and its other sentences that
            # answer half as well (the fix after the change); others need to be nearly as good as the best.
            if group is not None and cand.p_idx == ranked[0].p_idx:
                same_entry = cand.unit.entry == ranked[0].unit.entry
                fix = query.asks_how and _tells(cand.unit, tuning) and same_entry
                near = cand.coverage >= tuned.neighbour_ratio * ranked[0].coverage or fix
                keep = (near or (tuned.entry_rest and same_entry)) and len(group) < tuned.group_units
            elif tuned.entry_neighbours and group is not None and passages[cand.p_idx].chunk.kind == "changelog":
                # Another changelog entry that answers brings the rest of its change, as the best passage does.
                lead = group[0]
                keep = cand.unit.entry == lead.unit.entry and cand.coverage >= tuned.neighbour_ratio * lead.coverage
                keep = keep and len(group) < tuned.group_units
            else:
                keep = cand.score >= tuned.group_ratio * best and len(groups) < tuned.max_groups and group is None
            if not keep:
                continue
            same = next((t for t in taken if t.p_idx != cand.p_idx and _similar(t.unit, cand.unit, tuning)), None)
            if same is not None:  # another passage saying the same: cite it, don't repeat it
                same.also.append(cand.p_idx)
                continue
            groups.setdefault(cand.p_idx, []).append(cand)
            taken.append(cand)
        now = self._then_now(ranked[0], passages, fixed=query.asks_fixed)
        if now is not None and all(s.u_idx != now.u_idx for s in groups[now.p_idx]):
            groups[now.p_idx].append(now)
        if query.asks_how and tuned.best_fix and not any(_tells(s.unit, tuning) for s in taken):
            fixes = self._best_fix(ranked)
            group = groups.setdefault(fixes[0].p_idx, []) if fixes else []
            group.extend(c for c in fixes if all(s.u_idx != c.u_idx for s in group))
        for fix in self._named_fix(query, ranked, best) if query.asks_how and tuned.named_fix else ():
            group = groups.setdefault(fix.p_idx, [])
            if all(s.u_idx != fix.u_idx for s in group):
                group.append(fix)
        return [self._with_leads(sorted(g, key=lambda s: s.u_idx), passages) for g in groups.values()]

    def _code_shown(self, group: Sequence[Scored], chunk: Chunk, symbols: frozenset[str]) -> str:
        """The lines of the example after a quoted instruction that use a code name the question asks about
        ("… may be used directly …::" then `metadata_obj.create_all(engine)`): a how-question's fix is often
        only in the example, which may open the section's next chunk."""
        tuned = self.tuning.answer
        lines: dict[str, None] = {}
        for s in group:
            code = s.unit.code
            if not code and s.unit.closes and self.following and (nxt := self.following(chunk)) and nxt.entries:
                code = nxt.entries[0].text if nxt.entries[0].kind == "code" else ""
            if not code or not _tells(s.unit, self.tuning):
                continue
            for line in code.splitlines():
                line = line.strip()
                if line and "`" not in line and len(line) <= tuned.code_line_chars and symbols & set(tokens(line)):
                    lines[line] = None
        return " ".join(f"`{c}`" for c in list(lines)[: tuned.code_lines])

    def _best_fix(self, ranked: Sequence[Scored]) -> list[Scored]:
        """A how-question wants the fix: the best-ranked instruction, with the other instructions of its entry
        ("Use `.copy` … The keyword … can be safely removed"). However low it ranks: a fix the chosen sentences
        lack ("If `scale_down` is `True`, they will be at 1x") is what the asker came for."""
        fixes = [c for c in ranked if _tells(c.unit, self.tuning)]
        if not fixes:
            return []
        entry = [c for c in fixes if c.p_idx == fixes[0].p_idx and c.unit.entry == fixes[0].unit.entry]
        return entry[: self.tuning.answer.fix_units]

    def _named_fix(self, query: Query, ranked: Sequence[Scored], best: float) -> list[Scored]:
        """A how-question's fix from the entry whose own words name what it asks about (the question's rarest
        term the docs know). Under a heading that names it, every sentence shares that term through the heading,
        so the entry stating the change can rank below its neighbours; its instructions are what the asker needs.
        """
        terms = Terms.of(topic(query, self.tuning), self.stats, self.tuning)
        known = [t for t in terms.weights if self.stats.knows(t) or terms.spellings.get(t)]
        if not known:
            return []
        key = max(known, key=terms.weights.__getitem__)
        spelled = {key} | terms.spellings.get(key, frozenset())
        named = next((c for c in ranked if spelled & c.unit.tokens), None)
        if named is None:
            return []
        entry = [c for c in ranked if c.p_idx == named.p_idx and c.unit.entry == named.unit.entry]
        return [c for c in entry if _tells(c.unit, self.tuning)][: self.tuning.answer.fix_units]

    def _then_now(self, best: Scored, passages: Sequence[Passage], *, fixed: bool = False) -> Scored | None:
        """The sentence after the best one in its entry when the best says how things were (the next says how
        they are), or when the question asks whether a problem was fixed (the entry describes the problem, then
        "This issue has been rectified")."""
        if not fixed and not self.tuning.answer.then.search(best.unit.text):
            return None
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

    def _release_label(self, chunk: Chunk) -> str:
        """'pandas 3.0.0' (or '2.11.0' in a one-product index) before each quote, so the answer itself says
        which release it quotes; nothing when the index holds a single release (or `tuning.answer.release_label`
        is off)."""
        catalog = getattr(self.stats, "catalog", None)
        if not self.tuning.answer.release_label:
            return ""
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
            said = " ".join(_full_stop(s.unit.text, self.tuning) for s in group)
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
                citation(n, passages[p], excerpt(passages[p].chunk, quotes[p], self.tuning))
                for p, n in sorted(numbers.items(), key=lambda kv: kv[1])
            )
            draft = replace(draft, text=text, citations=citations)
            yield draft
        yield replace(draft, final=True)


def _tells(unit: Unit, tuning: Tuning) -> bool:
    """The unit says what to do: an instruction, or a row of a table (of removed names and their
    replacements, of old and new spellings) where `tuning.answer.rows_instruct`."""
    return (tuning.answer.rows_instruct and unit.kind == "row") or instructs(unit.text, tuning)


def _symbols(query: Query) -> frozenset[str]:
    """The code names a question asks about, as the docs may spell them."""
    names = {t for t in query.terms if is_identifier(t)}
    return frozenset(names.union(*(alts for t, alts in query.spellings if t in names)))


def _similar(a: Unit, b: Unit, tuning: Tuning) -> bool:
    """The two sentences share most of their words (`tuning.answer.similar_share`): they say the same."""
    if not a.tokens or not b.tokens:
        return False
    return len(a.tokens & b.tokens) / len(a.tokens | b.tokens) >= tuning.answer.similar_share


def _full_stop(sentence: str, tuning: Tuning) -> str:
    """List-entry titles often lack a full stop; joined with the next sentence they would run on."""
    ends = not tuning.answer.full_stop or sentence.endswith((".", "!", "?", ":", "…"))
    return sentence if ends else sentence + "."
