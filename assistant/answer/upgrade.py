"""Answering "what breaks if I go from 2.10 to 2.12?" from the upgrade plan, not from a few passages.

A question that names a version to upgrade from and one to upgrade to gets the plan's breaking and removed
changes first, each cited like any answer's quote; the rest are counted, with the command that lists them
and the code they hit. Any other question, or one whose plan finds nothing, is answered as usual.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from assistant.index.catalog import Catalog, Product, version_key
from assistant.model.messages import say
from assistant.model.records import Answer, Citation
from assistant.text.words import is_symbol
from assistant.understand.query import Query
from assistant.understand.upgrade_range import upgrade_versions
from assistant.upgrade.plan import KIND_ORDER, PlanError, UpgradePlan, make_plan

PLAN_LINES = 10  # changes quoted in the answer, worst first; the command lists them all
# "What breaks in 2.12?", "Quels sont les changements incompatibles de PyTorch 2.12 ?": a release's whole plan.
_BREAKS = re.compile(
    r"\b(?:break\w*|incompatib\w*|cass(?:e|es|ent|ant|ants|é|ée|és)|backwards?[- ]incompatible)\b", re.I
)
_BREAK_TERMS = ("break", "broken", "incompat", "cass", "backward")


def planned(query: Query, catalog: Catalog) -> tuple[str, str, str | None] | None:
    """The (from, to, product) a question asks the plan of: an upgrade between two versions, or what breaks in
    one release (from the release before it) when the question asks about nothing more specific. The product
    is the one the question names, or the one the release it names belongs to; None when that is unclear."""
    asked = upgrade_versions(query.question)
    if asked is not None and _specific(query):
        return None  # "after going from 2.5 to 2.6, my test raises X": answered from those releases' notes
    if asked is not None:
        asked = _series_end(asked[0], catalog), _series_end(asked[1], catalog)
        if not all(asked):
            return None
    asked = asked or _one_release(query, catalog)
    if asked is None:
        return None
    named = catalog.named_products(query.question)
    product = query.products[0] if query.products else named[0].name if len(named) == 1 else None
    if product is None and len(query.prefer) == 1:
        owners = _owners(catalog, query.prefer[0])
        product = owners[0].name if len(owners) == 1 else None
    return (*asked, product)


def _series_end(version: str, catalog: Catalog) -> str:
    """'2.x' as the last 2.* release indexed ('' when none is); any other version as written."""
    if not version.lower().endswith(".x"):
        return version
    major = int(version.split(".")[0].lower().removeprefix("v"))
    series = [v for p in catalog.products for v in p.versions if version_key(v)[:1] == (major,)]
    return max(series, key=version_key, default="")


def _specific(query: Query) -> bool:
    """The question asks about one thing, not a whole upgrade: a code name, or more than one word besides "break"
    ("What breaks if I go from 1.0 to 2.0?" asks the plan; "does my except ValueError still catch it?" does not)."""
    rest = [t for t in query.topic.terms if not t.startswith(_BREAK_TERMS)]
    return len(rest) > 1 or any(is_symbol(t) for t in rest)


def _one_release(query: Query, catalog: Catalog) -> tuple[str, str] | None:
    if not _BREAKS.search(query.question) or len(query.prefer) != 1:
        return None
    if [t for t in query.topic.terms if not t.startswith(_BREAK_TERMS)]:
        return None  # "Does torch.compile break under FSDP2 in 2.12?" asks about one thing
    (to,) = query.prefer
    owners = _owners(catalog, to)
    if len(owners) != 1:
        return None
    earlier = [v for v in owners[0].versions if version_key(v) < version_key(to)]
    return (earlier[-1] if earlier else "0", to)


def _owners(catalog: Catalog, version: str) -> list[Product]:
    return [p for p in catalog.products if version in p.versions]


def plan_for(asked: tuple[str, str, str | None], chunks: list, catalog: Catalog) -> UpgradePlan | None:
    """The plan `asked` (from `planned`), or None (an unclear product, or nothing changes in between)."""
    try:
        plan = make_plan(chunks, catalog, *asked)
    except PlanError:
        return None
    return plan if plan.changes else None


def plan_answer(question: str, plan: UpgradePlan, language: str = "en") -> Iterator[Answer]:
    """The plan's first changes, worst first, each cited; how many more, and the command listing them. Yields
    a growing draft per line, as the answerers do, the last one final."""
    worst = sorted(plan.changes, key=lambda c: (KIND_ORDER[c.kind], plan.versions.index(c.version)))
    shown = worst[:PLAN_LINES]
    lang = language
    head = {"product": plan.product, "end": plan.to_version, "n": len(plan.changes)}
    if plan.from_version == "0":  # "what breaks in 2.12?" with no earlier release indexed
        lines = [say("release_head", lang, **head)]
    else:
        lines = [say("plan_head", lang, start=plan.from_version, releases=", ".join(plan.versions), **head)]
    citations: list[Citation] = []
    draft = Answer(question, lines[0], True, (), language=lang, final=False)
    for n, change in enumerate(shown, start=1):
        use = f" ({say('plan_use', lang, name=f'`{change.replacement}`')})" if change.replacement else ""
        lines.append(f"- {change.version} [{change.kind}]: {change.summary}{use} [{n}]")
        c = change.citation
        citations.append(Citation(n, c.title, c.version, c.kind, c.section, c.source, c.url, c.quote))
        draft = replace(draft, text="\n".join(lines), citations=tuple(citations))
        yield draft
    if len(plan.changes) > len(shown):
        product = f" --product {plan.product}" if " " not in plan.product else ""
        rest = len(plan.changes) - len(shown)
        more = say("plan_more", lang, rest=rest, start=plan.from_version, end=plan.to_version, product=product)
        draft = replace(draft, text="\n".join([*lines, more]))
    yield replace(draft, final=True)


def plan_asked(query: Query, chunks: list, catalog: Catalog) -> UpgradePlan | None:
    """The plan a question asks for ("What breaks if I go from 2.10 to 2.12?" is the whole plan's question), or
    None when it asks something more specific (or the plan is unclear or empty)."""
    asked = planned(query, catalog)
    return plan_for(asked, chunks, catalog) if asked else None
