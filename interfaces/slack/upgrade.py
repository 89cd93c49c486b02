"""`/reldocs upgrade 2.10 2.12 [product]`: the upgrade plan in Slack.

The first reply is the plan's worst changes, cited, as any answer is shown (`answer_blocks`); the second is
the whole plan as the Markdown checklist `upgrade --format markdown` prints, in code blocks to copy into an
issue. Both are private (ephemeral), like every `/reldocs` reply.
"""

from __future__ import annotations

import re
from typing import Any

from assistant.knowledge_base import KnowledgeBase
from assistant.plan import PlanError
from assistant.upgrade_answer import plan_answer
from interfaces.slack.mrkdwn import SECTION_LIMIT, answer_blocks, answer_text, escape, safe_text, split
from interfaces.upgrade_render import plan_markdown

UPGRADE = re.compile(r"^upgrade\b\s*(?P<args>.*)$", re.IGNORECASE | re.DOTALL)
USAGE = "Usage: `/reldocs upgrade FROM TO [PRODUCT]`, e.g. `/reldocs upgrade 2.10 2.12`"
CHECKLIST_BLOCKS = 45  # Slack allows 50 blocks in a message


def is_upgrade(text: str) -> bool:
    return bool(UPGRADE.match(text.strip()))


def upgrade_replies(text: str, kb: KnowledgeBase) -> list[dict[str, Any]]:
    """The messages answering `/reldocs upgrade …` (keyword arguments for `respond`)."""
    args = UPGRADE.match(text.strip())
    words = args.group("args").split() if args else []
    if len(words) not in (2, 3):
        return [{"text": USAGE, "response_type": "ephemeral"}]
    start, end, *product = words
    try:
        plan = kb.plan(start, end, product=product[0] if product else None)
    except PlanError as e:
        return [{"text": f"{safe_text(str(e))}. {USAGE}", "response_type": "ephemeral"}]
    if not plan.changes:
        note = f"No change is indexed for {plan.product} between {start} and {end}."
        return [{"text": safe_text(note), "response_type": "ephemeral"}]
    *_, answer = plan_answer(f"upgrade {start} → {end}", plan)
    replies = [
        {"text": answer_text(answer), "blocks": answer_blocks(answer, feedback=False), "response_type": "ephemeral"}
    ]
    # The checklist is Markdown to paste elsewhere: shown verbatim in code blocks, where Slack formats nothing.
    pieces = split(escape(plan_markdown(plan).replace("```", "'''")), SECTION_LIMIT - 8)
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": f"```{p}```"}} for p in pieces[:CHECKLIST_BLOCKS]]
    if len(pieces) > CHECKLIST_BLOCKS:
        more = f"… the rest: `python app.py upgrade --from {start} --to {end} --format markdown`"
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": safe_text(more)}]})
    replies.append({"text": "The whole plan as a Markdown checklist", "blocks": blocks, "response_type": "ephemeral"})
    return replies
