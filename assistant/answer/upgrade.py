"""Answering "what breaks if I go from 2.10 to 2.12?" from the upgrade plan, not from a few passages.

A question that names a version to upgrade from and one to upgrade to gets the plan's breaking and removed
changes first, each cited like any answer's quote; the rest are counted, with the command that lists them
and the code they hit. Any other question, or one whose plan finds nothing, is answered as usual.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from assistant.index.catalog import Catalog
from assistant.model.messages import say
from assistant.model.records import Answer, Citation
from assistant.tuning import DEFAULT, Tuning
from assistant.upgrade.plan import KIND_ORDER, PlanError, UpgradePlan, make_plan


def plan_for(asked: tuple[str, str, str | None], chunks: list, catalog: Catalog) -> UpgradePlan | None:
    """The plan `asked` (a `Query.upgrade`), or None (an unclear product, or nothing changes in between)."""
    try:
        plan = make_plan(chunks, catalog, *asked)
    except PlanError:
        return None
    return plan if plan.changes else None


def plan_answer(question: str, plan: UpgradePlan, language: str = "en", tuning: Tuning = DEFAULT) -> Iterator[Answer]:
    """The plan's first changes, worst first (`tuning.answer.plan_lines` of them), each cited; how many more, and
    the command listing them. Yields a growing draft per line, as the answerers do, the last one final. An answer
    quotes the docs: a change only the releases' code shows is not among its lines."""
    plan = replace(plan, changes=tuple(c for c in plan.changes if "docs" in c.evidence))
    worst = sorted(plan.changes, key=lambda c: (KIND_ORDER[c.kind], plan.versions.index(c.version)))
    shown = worst[: tuning.answer.plan_lines]
    lang = language
    head = {"product": plan.product, "end": plan.to_version, "n": len(plan.changes)}
    if plan.from_version == "0":  # "what breaks in 2.12?" with no earlier release indexed
        lines = [say("release_head", lang, **head)]
    else:
        lines = [say("plan_head", lang, start=plan.from_version, releases=", ".join(plan.versions), **head)]
    citations: list[Citation] = []
    draft = Answer(question, lines[0], True, (), language=lang, final=False)
    for n, change in enumerate(shown, start=1):
        if change.replacement:
            use = f" ({say('plan_use', lang, name=f'`{change.replacement}`')})"
        else:
            use = f" ({say('plan_fix', lang, text=change.fix.rstrip('.'))})" if change.fix else ""
        lines.append(f"- {change.version} [{change.kind}]: {change.summary}{use} [{n}]")
        c = change.citation
        citations.append(replace(c, n=n))
        draft = replace(draft, text="\n".join(lines), citations=tuple(citations))
        yield draft
    if len(plan.changes) > len(shown):
        product = f" --product {plan.product}" if " " not in plan.product else ""
        rest = len(plan.changes) - len(shown)
        more = say("plan_more", lang, rest=rest, start=plan.from_version, end=plan.to_version, product=product)
        draft = replace(draft, text="\n".join([*lines, more]))
    yield replace(draft, final=True)
