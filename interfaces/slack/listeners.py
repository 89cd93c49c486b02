"""What the bot does with Slack events: mentions and DMs, `/reldocs`, and the 👍/👎 buttons.

`register(app, kb)` wires module-level functions that take their collaborators as arguments, so tests can
call them directly. Events are acknowledged by Bolt before a listener runs (its worker threads answer after
the ack); commands and button clicks call `ack()` first, then work.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

from slack_bolt import App, BoltRequest
from slack_sdk import WebClient

from assistant.feedback import FeedbackLog
from assistant.index.claims import Claims, shared_claims
from assistant.knowledge_base import KnowledgeBase
from assistant.model.errors import IndexUnavailable
from interfaces.slack.mrkdwn import FEEDBACK_ACTIONS, answer_blocks, answer_from_value, answer_text
from interfaces.slack.upgrade import is_upgrade, send_upgrade, upgrade_replies

logger = logging.getLogger(__name__)

COMMAND = "/reldocs"
EVENTS = ("app_mention", "message")  # message: only direct messages (message.im) reach the bot
PLACEHOLDER = "_Looking it up…_"
APOLOGY = "Sorry, something went wrong while answering. Please try again in a moment."
EMPTY_QUESTION = "Ask me about the release docs, e.g. _What is the minimum CUDA version to build PyTorch 2.12?_"
USAGE = (
    f"Usage: `{COMMAND} QUESTION`, e.g. `{COMMAND} What is the minimum CUDA version to build PyTorch 2.12?`, "
    f"or `{COMMAND} upgrade FROM TO [PRODUCT]` for an upgrade plan"
)
THANKS = {"up": "Thanks, noted that this answer helped. 👍", "down": "Thanks, noted that this answer missed. 👎"}
HISTORY_TURNS = 6  # earlier questions of a thread passed as context
ANSWERED_SUBTYPES = (None, "file_share", "thread_broadcast")  # edits, joins and deletions are not questions

_MENTION = re.compile(r"<@[UW][A-Z0-9]+(?:\|[^>]*)?>")

Ack = Callable[..., Any]
Respond = Callable[..., Any]


class Seen:
    """What was already answered, so retries and duplicates stay silent: a bounded, thread-safe memory in
    front of `shared` claims (when given), which every replica of the bot sees."""

    def __init__(self, limit: int = 5000, *, shared: Claims | None = None) -> None:
        self.limit = limit
        self.shared = shared
        self._keys: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def first(self, *keys: str | None) -> bool:
        """Remember `keys`; True when none of them was seen before, here or by another replica."""
        keys_given = [k for k in keys if k]
        with self._lock:
            new = not any(k in self._keys for k in keys_given)
            for k in keys_given:
                self._keys[k] = None
                self._keys.move_to_end(k)
            while len(self._keys) > self.limit:
                self._keys.popitem(last=False)
        if new and self.shared is not None and keys_given:
            try:
                return self.shared.claim(keys_given)
            except Exception as e:  # the store is down: answering twice beats not answering at all
                logger.warning("could not claim %s in the shared store: %s", keys_given[-1], e)
        return new


def strip_mentions(text: str) -> str:
    return " ".join(_MENTION.sub(" ", text).split())


def is_from_bot(message: dict[str, Any], bot_user_id: str | None) -> bool:
    """Any bot's message, this one's included: answering them could start a loop between bots."""
    return bool(
        message.get("bot_id")
        or message.get("bot_profile")
        or message.get("subtype") == "bot_message"
        or (bot_user_id and message.get("user") == bot_user_id)
    )


def is_question(event: dict[str, Any], bot_user_id: str | None) -> bool:
    """A person's new message addressed to the bot: a mention anywhere, or any direct message."""
    if is_from_bot(event, bot_user_id) or event.get("subtype") not in ANSWERED_SUBTYPES:
        return False
    if event.get("type") == "message" and event.get("channel_type") != "im":
        return False
    return bool(event.get("user") and event.get("channel") and event.get("ts"))


def answer_event(
    event: dict[str, Any],
    *,
    client: WebClient,
    kb: KnowledgeBase,
    seen: Seen,
    bot_user_id: str | None,
    event_id: str | None = None,
    retry_num: str | None = None,
) -> None:
    """Answer a mention or DM once, in its thread, with the thread's earlier questions as context."""
    if not is_question(event, bot_user_id):
        logger.debug("not a question for the bot: %s event (subtype %s)", event.get("type"), event.get("subtype"))
        return
    channel, ts = event["channel"], event["ts"]
    # A DM that mentions the bot can arrive as both app_mention and message.im: key on the message too.
    if not seen.first(event_id and f"event:{event_id}", f"message:{channel}:{ts}"):
        logger.info("skipped a repeated delivery of message %s/%s (retry %s)", channel, ts, retry_num or "none")
        return
    thread_ts = event.get("thread_ts") or ts
    question = strip_mentions(event.get("text", ""))
    placeholder: str | None = None
    try:
        if not question:
            client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=EMPTY_QUESTION)
            return
        placeholder = client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=PLACEHOLDER)["ts"]
        history: list[str] = []
        if event.get("thread_ts"):
            direct = event.get("channel_type") == "im" or channel.startswith("D")
            history = thread_history(client, channel, thread_ts, before=ts, bot_user_id=bot_user_id, direct=direct)
        answer = kb.ask(question, history=history)
        client.chat_update(channel=channel, ts=placeholder, text=answer_text(answer), blocks=answer_blocks(answer))
        logger.info(
            "answered %s/%s (found=%s, %d earlier questions, %.0f ms)",
            channel,
            ts,
            answer.found,
            len(history),
            answer.timings_ms.get("total", 0.0),
        )
    except IndexUnavailable as e:  # the Chroma server is down: say so in one line; the next question retries
        logger.warning("could not answer message %s/%s: %s", channel, ts, e)
        apologize(client, channel, thread_ts, placeholder, text=str(e))
    except Exception:  # any failure becomes an apology in the thread, never a dead worker
        logger.exception("could not answer message %s/%s", channel, ts)
        apologize(client, channel, thread_ts, placeholder)


def thread_history(
    client: WebClient, channel: str, thread_ts: str, *, before: str, bot_user_id: str | None, direct: bool
) -> list[str]:
    """Earlier questions in a thread, oldest first: in a DM every message of the person; elsewhere the
    thread's opening message and the messages that mention the bot (the rest is conversation between people)."""
    try:
        messages = client.conversations_replies(channel=channel, ts=thread_ts, limit=200)["messages"]
    except Exception as e:  # the answer can still be given, just without context
        logger.warning("no thread context for %s/%s: %s", channel, thread_ts, _slack_error(e))
        return []
    mention = f"<@{bot_user_id}" if bot_user_id else None
    end = _ts(before)
    turns = []
    for m in messages:
        if _ts(m.get("ts", "")) >= end or is_from_bot(m, bot_user_id) or m.get("subtype") not in ANSWERED_SUBTYPES:
            continue
        text = m.get("text", "")
        if direct or m.get("ts") == thread_ts or (mention and mention in text):
            question = strip_mentions(text)
            if question:
                turns.append(question)
    return turns[-HISTORY_TURNS:]


def answer_command(
    command: dict[str, Any], *, ack: Ack, respond: Respond, kb: KnowledgeBase, client: WebClient
) -> None:
    """`/reldocs QUESTION`: a private (ephemeral) answer, sent after the ack through the command's response_url."""
    question = command.get("text", "").strip()
    if not question:
        ack(text=USAGE)
        return
    ack()
    try:
        if is_upgrade(question):
            send_upgrade(upgrade_replies(question, kb), respond=respond, client=client, user=command.get("user_id"))
            logger.info("sent an upgrade plan privately")
            return
        answer = kb.ask(question)
        blocks = answer_blocks(answer, show_question=True)
        respond(text=answer_text(answer), blocks=blocks, response_type="ephemeral")
        logger.info("answered %s privately (found=%s)", COMMAND, answer.found)
    except Exception as e:
        if isinstance(e, IndexUnavailable):
            logger.warning("could not answer %s: %s", COMMAND, e)
        else:
            logger.exception("could not answer %s", COMMAND)
        try:
            respond(text=str(e) if isinstance(e, IndexUnavailable) else APOLOGY, response_type="ephemeral")
        except Exception as e:
            logger.error("could not send the apology either: %s", _slack_error(e))


def record_feedback(body: dict[str, Any], *, ack: Ack, respond: Respond, feedback: FeedbackLog) -> None:
    """A 👍/👎 click: log the voter's vote on the answer the button carries, and thank the voter privately."""
    ack()
    action = (body.get("actions") or [{}])[0]
    vote = FEEDBACK_ACTIONS.get(action.get("action_id", ""))
    try:
        answer = answer_from_value(action.get("value", ""))
    except ValueError:
        vote = None
    if vote is None:
        logger.warning("ignored a click that is not a vote on an answer")
        return
    user = (body.get("user") or {}).get("id")
    try:
        # One vote per answer per Slack user: clicking again changes that vote, it adds no line.
        feedback.record(answer, vote, channel="slack", voter=user, user=user)  # type: ignore[arg-type]
        message = body.get("message") or {}
        thread_ts = message.get("thread_ts") or (body.get("container") or {}).get("thread_ts")
        respond(text=THANKS[vote], response_type="ephemeral", replace_original=False, thread_ts=thread_ts)
    except Exception:
        logger.exception("could not record feedback")


def apologize(client: WebClient, channel: str, thread_ts: str, placeholder: str | None, *, text: str = APOLOGY) -> None:
    try:
        if placeholder:
            client.chat_update(channel=channel, ts=placeholder, text=text, blocks=[])
        else:
            client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=text)
    except Exception as e:
        logger.error("could not post the apology in %s/%s: %s", channel, thread_ts, _slack_error(e))


def log_error(error: Exception) -> None:
    """Bolt's error handler: one log line, without the request body."""
    logger.error("Slack listener failed: %s", error, exc_info=error)


def register(app: App, kb: KnowledgeBase, *, feedback: FeedbackLog | None = None, seen: Seen | None = None) -> None:
    """Register every listener on `app`; feedback goes to the same log as the web UI's unless given, and
    what was answered is claimed in the index's shared store, so replicas answer each message once."""
    feedback = feedback or FeedbackLog.from_settings(kb.settings)
    seen = seen or Seen(shared=shared_claims(kb.retriever.store))

    def on_event(event: dict, body: dict, client: WebClient, context: dict, request: BoltRequest) -> None:
        answer_event(
            event,
            client=client,
            kb=kb,
            seen=seen,
            bot_user_id=context.get("bot_user_id"),
            event_id=body.get("event_id"),
            retry_num=(request.headers.get("x-slack-retry-num") or [None])[0],
        )

    def on_command(command: dict, ack: Ack, respond: Respond, client: WebClient) -> None:
        answer_command(command, ack=ack, respond=respond, kb=kb, client=client)

    def on_feedback(body: dict, ack: Ack, respond: Respond) -> None:
        record_feedback(body, ack=ack, respond=respond, feedback=feedback)

    for name in EVENTS:
        app.event(name)(on_event)
    app.command(COMMAND)(on_command)
    app.action(re.compile("^(" + "|".join(FEEDBACK_ACTIONS) + ")$"))(on_feedback)
    app.error(log_error)


def _ts(value: str) -> Decimal:
    try:
        return Decimal(value)
    except InvalidOperation:
        return Decimal(0)


def _slack_error(e: Exception) -> str:
    response = getattr(e, "response", None)
    error = response.get("error") if hasattr(response, "get") else None
    return str(error or type(e).__name__)
