"""`/reldocs upgrade 2.10 2.12 [product]`: the upgrade plan in Slack.

The first reply is the plan's worst changes, cited, as any answer is shown (`answer_blocks`). The whole plan,
as the Markdown checklist `upgrade --format markdown` prints, goes to the person's DM with the bot as a `.md`
file (private, like every `/reldocs` reply), and a second reply links to it. Where Slack refuses the upload
(no `files:write` or `im:write` scope, DMs closed), the checklist is shown instead in code blocks to copy.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from slack_sdk import WebClient

from assistant.answer.upgrade import plan_answer
from assistant.knowledge_base import KnowledgeBase
from assistant.upgrade.plan import PlanError
from interfaces.code_diff import code_diff, product_to_diff
from interfaces.slack.mrkdwn import SECTION_LIMIT, answer_blocks, answer_text, escape, link, safe_text, split
from interfaces.upgrade_render import counted, plan_markdown

logger = logging.getLogger(__name__)

UPGRADE = re.compile(r"^upgrade\b\s*(?P<args>.*)$", re.IGNORECASE | re.DOTALL)
USAGE = "Usage: `/reldocs upgrade FROM TO [PRODUCT]`, e.g. `/reldocs upgrade 2.10 2.12`"
CHECKLIST_BLOCKS = 45  # Slack allows 50 blocks in a message


@dataclass(frozen=True)
class Checklist:
    """The whole plan as a Markdown file, and the code-block message shown when it cannot be uploaded."""

    filename: str
    title: str
    markdown: str
    changes: int
    fallback: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class UpgradeReplies:
    """Ephemeral messages (keyword arguments for `respond`), then the checklist when there is a plan."""

    messages: list[dict[str, Any]]
    checklist: Checklist | None = None


def is_upgrade(text: str) -> bool:
    return bool(UPGRADE.match(text.strip()))


def upgrade_replies(text: str, kb: KnowledgeBase) -> UpgradeReplies:
    """The replies to `/reldocs upgrade …`: the usage or the plan's error, or the plan and its checklist."""
    args = UPGRADE.match(text.strip())
    words = args.group("args").split() if args else []
    if len(words) not in (2, 3):
        return UpgradeReplies([{"text": USAGE, "response_type": "ephemeral"}])
    start, end, *product = words
    named = product[0] if product else None
    try:
        diff, notes = code_diff(kb, product_to_diff(kb, named), start, end, cached_only=True)
        plan = kb.plan(start, end, product=named or (diff.product if diff else None), code=diff, notes=notes)
    except PlanError as e:
        return UpgradeReplies([{"text": f"{safe_text(str(e))}. {USAGE}", "response_type": "ephemeral"}])
    if not plan.changes:
        note = f"No change is indexed for {plan.product} between {start} and {end}."
        return UpgradeReplies([{"text": safe_text(note), "response_type": "ephemeral"}])
    *_, answer = plan_answer(f"upgrade {start} → {end}", plan)
    top = {"text": answer_text(answer), "blocks": answer_blocks(answer, feedback=False), "response_type": "ephemeral"}
    markdown = plan_markdown(plan)
    # The fallback is Markdown to paste elsewhere: shown verbatim in code blocks, where Slack formats nothing.
    pieces = split(escape(markdown.replace("```", "'''")), SECTION_LIMIT - 8)
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": f"```{p}```"}} for p in pieces[:CHECKLIST_BLOCKS]]
    if len(pieces) > CHECKLIST_BLOCKS:
        more = f"… the rest: `python app.py upgrade --from {start} --to {end} --format markdown`"
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": safe_text(more)}]})
    fallback = {"text": "The whole plan as a Markdown checklist", "blocks": blocks, "response_type": "ephemeral"}
    name = re.sub(r"[^a-z0-9._]+", "-", f"upgrade-{plan.product}-{start}-{end}".lower()).strip("-.")
    title = f"Upgrade {plan.product} {start} → {end}"
    return UpgradeReplies([top], Checklist(f"{name}.md", title, markdown, len(plan.changes), fallback))


def send_upgrade(replies: UpgradeReplies, *, respond: Any, client: WebClient, user: str | None) -> None:
    """Send the replies; the checklist as a file in the user's DM with the bot, or in code blocks if refused."""
    for message in replies.messages:
        respond(**message)
    checklist = replies.checklist
    if checklist is None:
        return
    try:
        if not user:
            raise ValueError("the command names no user")
        dm = client.conversations_open(users=user)["channel"]["id"]
        uploaded = client.files_upload_v2(
            channel=dm, filename=checklist.filename, title=checklist.title, content=checklist.markdown
        )
        permalink = str((uploaded.get("file") or {}).get("permalink") or "")
    except Exception as e:  # no scope, DMs closed, Slack down: the checklist still reaches the person
        logger.info("checklist not uploaded (%s); sent in code blocks", _error(e))
        respond(**checklist.fallback)
        return
    where = link(permalink, checklist.filename) if permalink else safe_text(checklist.filename)
    intro = safe_text(f"The whole plan ({counted(checklist.changes, 'change')}) as a Markdown checklist: ")
    respond(text=f"{intro}{where}, in our direct messages.", response_type="ephemeral")


def _error(e: Exception) -> str:
    response = getattr(e, "response", None)
    return str((response.get("error") if hasattr(response, "get") else None) or e)
