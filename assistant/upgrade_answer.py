"""Answering "what breaks if I go from 2.10 to 2.12?" from the upgrade plan, not from a few passages.

A question that names a version to upgrade from and one to upgrade to gets the plan's breaking and removed
changes first, each cited like any answer's quote; the rest are counted, with the command that lists them
and the code they hit. Any other question, or one whose plan finds nothing, is answered as usual.
"""

from __future__ import annotations

import re

from assistant.catalog import Catalog
from assistant.messages import say
from assistant.models import Answer, Citation
from assistant.plan import KIND_ORDER, PlanError, UpgradePlan, make_plan
from assistant.query import Query

PLAN_LINES = 5  # changes quoted in the answer; the command lists them all
_V = r"v?(\d{1,3}(?:\.\d{1,3}){1,2})"
_UPGRADE = re.compile(
    rf"\b(?:from|de|depuis)\s+(?:[A-Za-z][\w.+-]*\s+)?{_V}\s+(?:to|->|→|à|a|vers|en)\s+(?:[A-Za-z][\w.+-]*\s+)?{_V}\b"
    rf"|{_V}\s*(?:->|→|=>)\s*{_V}",
    re.IGNORECASE,
)


def upgrade_versions(question: str) -> tuple[str, str] | None:
    """The (from, to) versions of an upgrade question ("from 2.10 to 2.12", "2.10 → 2.12"), else None."""
    m = _UPGRADE.search(question)
    if not m:
        return None
    start, end = (g for g in m.groups() if g)
    return start, end


def plan_for(query: Query, chunks: list, catalog: Catalog) -> UpgradePlan | None:
    """The plan an upgrade question asks for, or None (not one, an unclear product, or nothing changes)."""
    asked = upgrade_versions(query.question)
    if asked is None:
        return None
    named = catalog.named_products(query.question)
    product = query.products[0] if query.products else named[0].name if len(named) == 1 else None
    try:
        plan = make_plan(chunks, catalog, *asked, product)
    except PlanError:
        return None
    return plan if plan.changes else None


def plan_answer(question: str, plan: UpgradePlan, language: str = "en") -> Answer:
    """The plan's first changes, worst first, each cited; how many more, and the command listing them."""
    worst = sorted(plan.changes, key=lambda c: (KIND_ORDER[c.kind], plan.versions.index(c.version)))
    shown = worst[:PLAN_LINES]
    lang = language
    lines = [
        say(
            "plan_head",
            lang,
            product=plan.product,
            start=plan.from_version,
            end=plan.to_version,
            releases=", ".join(plan.versions),
            n=len(plan.changes),
        )
    ]
    citations = []
    for n, change in enumerate(shown, start=1):
        use = f" ({say('plan_use', lang, name=f'`{change.replacement}`')})" if change.replacement else ""
        lines.append(f"- {change.version} [{change.kind}]: {change.summary}{use} [{n}]")
        c = change.citation
        citations.append(Citation(n, c.title, c.version, c.kind, c.section, c.source, c.url, c.quote))
    if len(plan.changes) > len(shown):
        product = f" --product {plan.product}" if " " not in plan.product else ""
        lines.append(
            say(
                "plan_more",
                lang,
                rest=len(plan.changes) - len(shown),
                start=plan.from_version,
                end=plan.to_version,
                product=product,
            )
        )
    return Answer(question, "\n".join(lines), True, tuple(citations), language=lang)
