"""The Slack bot: the real Bolt app served over HTTP, fed signed payloads, talking to a Web API stub on 127.0.0.1."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
import yaml
from chroma_server import index_env
from netutil import free_port
from slack_sdk import WebClient
from slack_stub import BOT_ID, BOT_USER_ID, TEAM_ID, SlackStub, SocketModeStub

from assistant.feedback import FeedbackLog
from assistant.knowledge_base import KnowledgeBase
from assistant.runtime.settings import Settings
from interfaces.slack import SlackSettings, SlackSetupError, build_app, make_server, preflight, run
from interfaces.slack.bot import connect_socket_mode
from interfaces.slack.listeners import (
    APOLOGY,
    COMMAND,
    EVENTS,
    PLACEHOLDER,
    USAGE,
    Seen,
    answer_event,
    thread_history,
)
from interfaces.slack.mrkdwn import answer_blocks, answer_text

ROOT = Path(__file__).resolve().parents[1]
BOT_TOKEN = "xoxb-1111-2222-botTokenValue"
APP_TOKEN = "xapp-1-A0001-3333-appTokenValue"
SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
VERIFICATION_TOKEN = "legacyVerificationToken42"
SECRETS = (BOT_TOKEN, APP_TOKEN, SECRET, VERIFICATION_TOKEN)
CUDA_QUESTION = "What is the minimum CUDA version to build PyTorch 2.12 from source?"
COMPILE_QUESTION = "What replaces torch.distributed.nn.functional under torch.compile?"
FOLLOW_UP = "what should I migrate to?"
RELEASE_URL = "https://github.com/pytorch/pytorch/releases/tag/v2.12.0"


@dataclass
class Served:
    url: str
    feedback: FeedbackLog


@pytest.fixture(scope="module")
def slack() -> Iterator[SlackStub]:
    with SlackStub(bot_token=BOT_TOKEN, app_token=APP_TOKEN) as stub:
        yield stub


@pytest.fixture(scope="module")
def server(kb: KnowledgeBase, slack: SlackStub, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The bot as `run(http=True)` serves it, on a free port of 127.0.0.1."""
    feedback = FeedbackLog(tmp_path_factory.mktemp("slack") / "feedback.jsonl")
    settings = SlackSettings(slack_bot_token=BOT_TOKEN, slack_signing_secret=SECRET, slack_api_url=slack.api_url)
    httpd = make_server(build_app(kb, settings, feedback=feedback), host="127.0.0.1", port=0)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield Served(f"http://127.0.0.1:{httpd.server_port}/slack/events", feedback)
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def plain_server(
    fake_kb: KnowledgeBase, slack: SlackStub, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    """`server` over the fake embedder's index: for the tests of signatures and payloads, which read no answer."""
    feedback = FeedbackLog(tmp_path_factory.mktemp("slack-plain") / "feedback.jsonl")
    settings = SlackSettings(slack_bot_token=BOT_TOKEN, slack_signing_secret=SECRET, slack_api_url=slack.api_url)
    httpd = make_server(build_app(fake_kb, settings, feedback=feedback), host="127.0.0.1", port=0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield Served(f"http://127.0.0.1:{httpd.server_port}/slack/events", feedback)
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def bot(server: Served, slack: SlackStub, caplog: pytest.LogCaptureFixture) -> Served:
    slack.reset()
    caplog.set_level(logging.DEBUG)
    return server


@pytest.fixture
def plain_bot(plain_server: Served, slack: SlackStub, caplog: pytest.LogCaptureFixture) -> Served:
    slack.reset()
    caplog.set_level(logging.DEBUG)
    return plain_server


def sign(body: str, timestamp: str, secret: str = SECRET) -> str:
    """Slack's v0 request signature, written from its documentation."""
    return "v0=" + hmac.new(secret.encode(), f"v0:{timestamp}:{body}".encode(), hashlib.sha256).hexdigest()


def post(
    url: str,
    body: str,
    *,
    content_type: str = "application/json",
    timestamp: int | None = None,
    secret: str = SECRET,
    headers: dict[str, str] | None = None,
    signed: bool = True,
) -> tuple[int, str]:
    ts = str(int(time.time()) if timestamp is None else timestamp)
    all_headers = {"Content-Type": content_type, **(headers or {})}
    if signed:
        all_headers |= {"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": sign(body, ts, secret)}
    request = urllib.request.Request(url, data=body.encode(), method="POST", headers=all_headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def envelope(event: dict[str, Any], event_id: str) -> str:
    return json.dumps(
        {
            "token": VERIFICATION_TOKEN,
            "team_id": TEAM_ID,
            "api_app_id": "A0001",
            "type": "event_callback",
            "event_id": event_id,
            "event_time": int(time.time()),
            "event": event,
            "authorizations": [{"team_id": TEAM_ID, "user_id": BOT_USER_ID, "is_bot": True}],
        }
    )


def mention(slack: SlackStub, text: str, *, channel: str = "C1", thread_ts: str | None = None) -> dict[str, Any]:
    """An app_mention event for a message the stub now holds, as Slack would send it."""
    full = f"<@{BOT_USER_ID}> {text}"
    ts = slack.add_message(channel, full, thread_ts=thread_ts)
    event = {"type": "app_mention", "user": "U1", "text": full, "ts": ts, "channel": channel, "event_ts": ts}
    return event | ({"thread_ts": thread_ts} if thread_ts else {})


def direct_message(slack: SlackStub, text: str, *, channel: str = "D1") -> dict[str, Any]:
    ts = slack.add_message(channel, text)
    return {"type": "message", "channel_type": "im", "user": "U1", "text": text, "ts": ts, "channel": channel}


def wait_until(check: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def final_text(slack: SlackStub, channel: str, ts: str) -> str:
    return slack.messages[(channel, ts)].text


# --- the acceptance criteria


def test_mention_gets_one_threaded_answer_even_when_slack_retries(
    bot: Served, slack: SlackStub, caplog: pytest.LogCaptureFixture
) -> None:
    event = mention(slack, CUDA_QUESTION)
    body = envelope(event, "Ev0001")
    started = time.monotonic()
    status, _ = post(bot.url, body)
    acked_at = time.monotonic()
    retry = post(bot.url, body, headers={"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"})

    assert status == 200 and retry[0] == 200
    assert acked_at - started < 3.0
    update = slack.wait_for("chat.update")[0]
    wait_until(lambda: "skipped a repeated delivery" in caplog.text)
    posted = slack.calls_to("chat.postMessage")
    assert len(posted) == 1 and len(slack.calls_to("chat.update")) == 1
    assert posted[0].args["channel"] == "C1" and posted[0].args["thread_ts"] == event["ts"]
    assert posted[0].args["text"] == PLACEHOLDER
    assert update.at > acked_at  # the answer came after the ack
    answer_ts = slack.thread("C1", event["ts"])[-1].ts
    assert update.args["ts"] == answer_ts
    text = final_text(slack, "C1", answer_ts)
    assert "12.6" in text
    assert re.search(r"\[1\]", text) and f"<{RELEASE_URL}|Migrating to PyTorch v2.12.0 › " in text
    assert all(call.token == BOT_TOKEN for call in slack.calls)


def test_forged_and_stale_signatures_get_401(
    plain_bot: Served, slack: SlackStub, caplog: pytest.LogCaptureFixture
) -> None:
    body = envelope(mention(slack, CUDA_QUESTION), "Ev0002")
    six_minutes_ago = int(time.time()) - 6 * 60

    assert post(plain_bot.url, body, secret="not-the-signing-secret")[0] == 401
    assert post(plain_bot.url, body, timestamp=six_minutes_ago)[0] == 401  # correctly signed, but stale
    assert post(plain_bot.url, body, signed=False)[0] == 401
    tampered = body.replace("minimum", "maximum")
    ts = str(int(time.time()))
    assert post(plain_bot.url, tampered, headers={"X-Slack-Signature": sign(body, ts)}, signed=False)[0] == 401
    assert slack.calls_to("chat.postMessage") == []
    assert "Invalid request signature" in caplog.text
    assert not any(s in caplog.text for s in SECRETS)

    assert post(plain_bot.url, body)[0] == 200  # the same body, signed now with the right secret
    slack.wait_for("chat.update")


def test_thread_follow_up_is_answered_with_the_thread_as_context(
    bot: Served, slack: SlackStub, kb: KnowledgeBase
) -> None:
    first = mention(slack, COMPILE_QUESTION)
    assert post(bot.url, envelope(first, "Ev0003"))[0] == 200
    slack.wait_for("chat.update")
    slack.add_message("C1", "thanks, checking our training code", user="U2", thread_ts=first["ts"])
    follow_up = mention(slack, FOLLOW_UP, thread_ts=first["ts"])
    assert post(bot.url, envelope(follow_up, "Ev0004"))[0] == 200
    slack.wait_for("chat.update", 2)

    replies = slack.calls_to("conversations.replies")
    assert [(c.args["channel"], c.args["ts"]) for c in replies] == [("C1", first["ts"])]
    thread = slack.thread("C1", first["ts"])
    assert [m.user for m in thread] == ["U1", BOT_USER_ID, "U2", "U1", BOT_USER_ID]
    expected = kb.ask(FOLLOW_UP, history=[COMPILE_QUESTION])
    assert thread[-1].text == answer_text(expected)
    assert "torch.distributed._functional_collectives" in thread[-1].text
    assert answer_text(kb.ask(FOLLOW_UP)) != thread[-1].text  # without the thread it answers something else


# --- the rest of the contract


def test_direct_message_is_answered_in_a_thread_once(
    bot: Served, slack: SlackStub, caplog: pytest.LogCaptureFixture
) -> None:
    event = direct_message(slack, CUDA_QUESTION)
    assert post(bot.url, envelope(event, "Ev0010"))[0] == 200
    # The same DM delivered again as an app_mention (other event id) must not be answered twice: the second
    # delivery's own handling is observed (it says it skipped), so a late duplicate cannot pass unseen.
    assert post(bot.url, envelope(event | {"type": "app_mention"}, "Ev0011"))[0] == 200
    slack.wait_for("chat.update")
    wait_until(lambda: "skipped a repeated delivery" in caplog.text)
    posted = slack.calls_to("chat.postMessage")
    assert [(c.args["channel"], c.args["thread_ts"]) for c in posted] == [("D1", event["ts"])]
    assert "12.6" in slack.thread("D1", event["ts"])[-1].text


def test_bots_own_and_other_messages_are_ignored(
    bot: Served, slack: SlackStub, caplog: pytest.LogCaptureFixture
) -> None:
    ignored = [
        direct_message(slack, CUDA_QUESTION) | {"bot_id": "B999", "subtype": "bot_message"},
        mention(slack, CUDA_QUESTION) | {"bot_id": "B999"},
        direct_message(slack, CUDA_QUESTION) | {"user": BOT_USER_ID, "bot_id": BOT_ID},
        direct_message(slack, "edited") | {"subtype": "message_changed"},
        direct_message(slack, CUDA_QUESTION, channel="C1") | {"channel_type": "channel"},
    ]
    for i, event in enumerate(ignored):
        assert post(bot.url, envelope(event, f"Ev002{i}"))[0] == 200
    real = direct_message(slack, CUDA_QUESTION)
    assert post(bot.url, envelope(real, "Ev0029"))[0] == 200
    slack.wait_for("chat.update")
    # Each ignored event's handling has ended, so none of them can still post after this: the bot's own were
    # dropped by Bolt before the 200 ("Skipped self event"), the others by the listener, which says so.
    wait_until(
        lambda: (
            caplog.text.count("not a question for the bot") + caplog.text.count("Skipped self event") >= len(ignored)
        )
    )
    assert [c.args["thread_ts"] for c in slack.calls_to("chat.postMessage")] == [real["ts"]]


def command_form(slack: SlackStub, text: str, response: str) -> dict[str, str]:
    """A slash command as Slack posts it, answered through the response URL named `response`."""
    return {
        "token": VERIFICATION_TOKEN,
        "team_id": TEAM_ID,
        "channel_id": "C1",
        "user_id": "U1",
        "command": COMMAND,
        "text": text,
        "response_url": slack.response_url(response),
        "trigger_id": "1.2.3",
    }


def test_slash_command_answers_privately(bot: Served, slack: SlackStub) -> None:
    form = command_form(slack, CUDA_QUESTION, "cmd1")
    status, body = post(bot.url, urlencode(form), content_type="application/x-www-form-urlencoded")
    assert status == 200 and body == ""
    reply = slack.wait_for("response_url")[0]
    assert reply.path == "/response/cmd1"
    assert reply.args["response_type"] == "ephemeral" and "12.6" in reply.args["text"]
    assert f"*Q:* {CUDA_QUESTION}" in json.dumps(reply.args["blocks"], ensure_ascii=False)
    assert slack.calls_to("chat.postMessage") == []

    status, body = post(bot.url, urlencode(form | {"text": " "}), content_type="application/x-www-form-urlencoded")
    assert status == 200 and body == USAGE  # a plain-text ack shows only to the person who typed it


def test_slash_upgrade_posts_the_plan_and_sends_its_checklist_as_a_file(bot: Served, slack: SlackStub) -> None:
    form = command_form(slack, "upgrade 2.11 2.12", "up1")
    status, _ = post(bot.url, urlencode(form), content_type="application/x-www-form-urlencoded")
    assert status == 200
    plan, note = slack.wait_for("response_url", 2)[:2]
    assert all(r.args["response_type"] == "ephemeral" for r in (plan, note))
    assert plan.args["text"].startswith("Upgrading PyTorch 2.11 → 2.12 (2.12.0): 7 changes")
    assert "migration-guide.txt" in json.dumps(plan.args["blocks"]) or "Migrating" in json.dumps(plan.args["blocks"])
    # The whole checklist went to the user's DM (private, as the command's replies are), as one Markdown file.
    assert slack.calls_to("conversations.open")[0].args["users"] == "U1"
    (file,) = slack.files.values()
    assert file["channel"] == "DU1" and file["filename"] == "upgrade-pytorch-2.11-2.12.md"
    markdown = file["data"].decode()
    assert len(file["data"]) == file["length"]
    assert markdown.startswith("## Upgrade PyTorch 2.11 → 2.12") and markdown.count("- [ ] **breaking**") == 7
    assert "<https://example.slack.com/files/" in note.args["text"] and "7 changes" in note.args["text"]
    assert slack.calls_to("chat.postMessage") == []  # nothing shown in the channel the command came from

    slack.reset()
    bad = form | {"text": "upgrade 2.12 2.11", "response_url": slack.response_url("up2")}
    assert post(bot.url, urlencode(bad), content_type="application/x-www-form-urlencoded")[0] == 200
    (reply,) = slack.wait_for("response_url")
    assert "not before" in reply.args["text"] and "Usage" in reply.args["text"]
    assert slack.calls_to("files.getUploadURLExternal") == []


def test_slash_upgrade_shows_the_checklist_in_code_blocks_when_slack_refuses_the_file(
    bot: Served, slack: SlackStub
) -> None:
    slack.errors["files.getUploadURLExternal"] = "missing_scope"  # an app installed without files:write
    form = command_form(slack, "upgrade 2.11 2.12", "up3")
    assert post(bot.url, urlencode(form), content_type="application/x-www-form-urlencoded")[0] == 200
    plan, checklist = slack.wait_for("response_url", 2)[:2]
    assert plan.args["text"].startswith("Upgrading PyTorch 2.11 → 2.12")
    shown = "".join(b["text"]["text"] for b in checklist.args["blocks"] if b["type"] == "section")
    assert shown.startswith("```## Upgrade PyTorch 2.11 → 2.12") and shown.count("- [ ] **breaking**") == 7
    assert slack.files == {} or all("data" not in f for f in slack.files.values())


def test_feedback_buttons_record_votes_like_the_web_ui(bot: Served, slack: SlackStub) -> None:
    event = mention(slack, CUDA_QUESTION)
    assert post(bot.url, envelope(event, "Ev0030"))[0] == 200
    slack.wait_for("chat.update")
    message = slack.thread("C1", event["ts"])[-1]
    buttons = next(b for b in message.blocks if b["type"] == "actions")["elements"]
    assert [b["action_id"] for b in buttons] == ["feedback_up", "feedback_down"]
    assert all(len(b["value"]) <= 2000 for b in buttons)

    payload = {
        "type": "block_actions",
        "token": VERIFICATION_TOKEN,
        "team": {"id": TEAM_ID},
        "user": {"id": "U2"},
        "channel": {"id": "C1"},
        "container": {"type": "message", "message_ts": message.ts, "channel_id": "C1", "is_ephemeral": False},
        "message": message.to_dict(),
        "response_url": slack.response_url("act1"),
        "trigger_id": "1.2.4",
        "actions": [{**buttons[1], "block_id": "feedback", "action_ts": "1.5"}],
    }
    body = urlencode({"payload": json.dumps(payload)})
    assert post(bot.url, body, content_type="application/x-www-form-urlencoded")[0] == 200
    thanks = slack.wait_for("response_url")[0]
    assert thanks.args["response_type"] == "ephemeral" and thanks.args["replace_original"] is False
    assert thanks.args["thread_ts"] == event["ts"]

    [entry] = bot.feedback.entries()
    assert (entry["vote"], entry["channel"], entry["user"]) == ("down", "slack", "U2")
    assert entry["question"] == CUDA_QUESTION and entry["found"] is True and "12.6" in entry["answer"]
    assert entry["citations"][0]["url"] == RELEASE_URL and entry["citations"][0]["n"] == 1


def click(url: str, slack: SlackStub, button: dict[str, Any], user: str, n: int) -> None:
    """User `user` clicks `button` of a message in C1, as Slack posts it (signed, form-encoded)."""
    payload = {
        "type": "block_actions",
        "token": VERIFICATION_TOKEN,
        "team": {"id": TEAM_ID},
        "user": {"id": user},
        "channel": {"id": "C1"},
        "container": {"type": "message", "message_ts": "1700000000.000100", "channel_id": "C1"},
        "response_url": slack.response_url(f"click{n}"),
        "trigger_id": f"1.2.{n}",
        "actions": [{**button, "block_id": "feedback", "action_ts": f"{n}.5"}],
    }
    body = urlencode({"payload": json.dumps(payload)})
    assert post(url, body, content_type="application/x-www-form-urlencoded")[0] == 200


def test_three_hundred_clicks_leave_one_line_per_user(kb: KnowledgeBase, slack: SlackStub, tmp_path: Path) -> None:
    """The real Bolt app over HTTP: 300 👎 from one user on one answer, then a 👍 from them and one from
    another user: two lines, each user's last vote."""
    slack.reset()
    feedback = FeedbackLog(tmp_path / "feedback.jsonl")
    settings = SlackSettings(slack_bot_token=BOT_TOKEN, slack_signing_secret=SECRET, slack_api_url=slack.api_url)
    httpd = make_server(build_app(kb, settings, feedback=feedback), host="127.0.0.1", port=0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_port}/slack/events"
    try:
        up, down = next(b for b in answer_blocks(kb.ask(CUDA_QUESTION)) if b["type"] == "actions")["elements"]
        for n in range(300):
            click(url, slack, down, "U2", n)
        slack.wait_for("response_url", 300, timeout=120)  # every click was thanked: all were recorded
        click(url, slack, up, "U2", 300)
        slack.wait_for("response_url", 301)
        click(url, slack, up, "U3", 301)
        slack.wait_for("response_url", 302)
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert len(feedback.path.read_text(encoding="utf-8").splitlines()) == 2
    assert sorted((e["user"], e["vote"]) for e in feedback.entries()) == [("U2", "up"), ("U3", "up")]


GARBAGE = {  # bodies Bolt parses before it checks the signature
    "not JSON": ("{not json", "application/json"),
    "nested too deep": ("[" * 100_000 + "]" * 100_000, "application/json"),
    "a payload that is not JSON": ("payload=%7Bnope", "application/x-www-form-urlencoded"),
    "bytes that are not UTF-8": ("\udcff\udcfe", "application/json"),
}


@pytest.mark.parametrize(("body", "content_type"), GARBAGE.values(), ids=GARBAGE.keys())
def test_unsigned_garbage_is_refused_in_one_log_line(
    plain_bot: Served, body: str, content_type: str, capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    data = body.encode("utf-8", "surrogateescape")  # the last one: bytes as they came, not text
    request = urllib.request.Request(plain_bot.url, data=data, method="POST", headers={"Content-Type": content_type})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code in (400, 401)
    logged = caplog.text + "".join(capfd.readouterr())
    assert "Traceback" not in logged and len([r for r in caplog.records if r.levelno >= logging.WARNING]) <= 1


def test_url_verification_challenge(plain_bot: Served) -> None:
    status, body = post(
        plain_bot.url, json.dumps({"token": VERIFICATION_TOKEN, "type": "url_verification", "challenge": "c4"})
    )
    assert status == 200 and "c4" in body


def test_errors_become_an_apology_and_a_log_line(
    fake_kb: KnowledgeBase, slack: SlackStub, caplog: pytest.LogCaptureFixture
) -> None:
    class BrokenModel:  # a hosted model that times out
        mode = "llm"

        def stream(self, query: object, passages: object) -> Iterator[Any]:
            raise TimeoutError("the model did not answer in time")

    slack.reset()
    broken = KnowledgeBase(fake_kb.settings, fake_kb.retriever, answerer=BrokenModel())
    client = WebClient(token=BOT_TOKEN, base_url=slack.api_url)
    event = mention(slack, CUDA_QUESTION)
    with caplog.at_level(logging.ERROR, logger="interfaces.slack"):
        answer_event(event, client=client, kb=broken, seen=Seen(), bot_user_id=BOT_USER_ID)
    assert slack.thread("C1", event["ts"])[-1].text == APOLOGY
    [record] = [r for r in caplog.records if r.name == "interfaces.slack.listeners"]
    assert record.levelno == logging.ERROR and isinstance(record.exc_info[1], TimeoutError)

    # Slack itself failing (the placeholder cannot be posted) is logged, not raised.
    slack.errors["chat.postMessage"] = "not_in_channel"
    answer_event(mention(slack, CUDA_QUESTION), client=client, kb=fake_kb, seen=Seen(), bot_user_id=BOT_USER_ID)
    assert "could not post the apology" in caplog.text


def test_thread_history_keeps_the_questions_put_to_the_bot(slack: SlackStub) -> None:
    slack.reset()
    client = WebClient(token=BOT_TOKEN, base_url=slack.api_url)
    parent = slack.add_message("C2", "We are moving to 2.12 next week, anything about CUDA?", user="U1")
    slack.add_message("C2", "no idea", user="U2", thread_ts=parent)
    slack.add_message("C2", f"<@{BOT_USER_ID}> {CUDA_QUESTION}", user="U2", thread_ts=parent)
    client.chat_postMessage(channel="C2", thread_ts=parent, text="Updated the minimum CUDA version … [1]")
    current = slack.add_message("C2", f"<@{BOT_USER_ID}> and C++?", user="U1", thread_ts=parent)
    slack.add_message("C2", f"<@{BOT_USER_ID}> later one", user="U1", thread_ts=parent)

    in_channel = thread_history(client, "C2", parent, before=current, bot_user_id=BOT_USER_ID, direct=False)
    assert in_channel == ["We are moving to 2.12 next week, anything about CUDA?", CUDA_QUESTION]
    in_dm = thread_history(client, "C2", parent, before=current, bot_user_id=BOT_USER_ID, direct=True)
    assert in_dm == [in_channel[0], "no idea", CUDA_QUESTION]

    slack.errors["conversations.replies"] = "missing_scope"
    assert thread_history(client, "C2", parent, before=current, bot_user_id=BOT_USER_ID, direct=False) == []


def test_seen_is_bounded_and_remembers_every_key() -> None:
    seen = Seen(limit=3)
    assert seen.first("event:E1", "message:C:1")
    assert not seen.first("event:E2", "message:C:1")  # same message, other delivery
    assert not seen.first("event:E1", None)
    for i in range(5):
        seen.first(f"event:F{i}")
    assert seen.first("event:E1")  # forgotten: the memory holds the most recent keys only


def test_manifest_asks_for_exactly_what_the_bot_uses() -> None:
    manifest = yaml.safe_load((ROOT / "interfaces" / "slack" / "manifest.yaml").read_text(encoding="utf-8"))
    assert set(manifest["oauth_config"]["scopes"]["bot"]) == {
        "app_mentions:read",
        "channels:history",
        "groups:history",
        "im:history",
        "mpim:history",
        "chat:write",
        "commands",
        "im:write",  # conversations.open, for the upgrade checklist's DM
        "files:write",  # files_upload_v2, the checklist itself
    }
    events = manifest["settings"]["event_subscriptions"]["bot_events"]
    assert sorted(events) == ["app_mention", "message.im"]
    assert {e.split(".")[0] for e in events} == set(EVENTS)
    assert [c["command"] for c in manifest["features"]["slash_commands"]] == [COMMAND]
    assert manifest["settings"]["interactivity"]["is_enabled"] is True
    assert manifest["settings"]["socket_mode_enabled"] is True
    assert manifest["features"]["app_home"]["messages_tab_enabled"] is True


# --- starting up


def test_run_explains_missing_and_refused_credentials(
    fake_kb: KnowledgeBase, fake_settings: Settings, slack: SlackStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SLACK_API_URL", slack.api_url)
    with pytest.raises(SlackSetupError, match="SLACK_APP_TOKEN"):
        run(fake_kb, fake_settings, http=False, port=0)
    with pytest.raises(SlackSetupError, match="SLACK_APP_TOKEN"):
        preflight(http=False)  # what app.py can check before loading the knowledge base
    with pytest.raises(SlackSetupError, match="SLACK_SIGNING_SECRET"):
        run(fake_kb, fake_settings, http=True, port=0)
    monkeypatch.setenv("SLACK_SIGNING_SECRET", SECRET)
    with pytest.raises(SlackSetupError, match="SLACK_BOT_TOKEN is not set"):
        run(fake_kb, fake_settings, http=True, port=0)
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-revoked-token")
    with pytest.raises(SlackSetupError, match="refused SLACK_BOT_TOKEN") as refused:
        run(fake_kb, fake_settings, http=True, port=0)
    assert "xoxb-revoked-token" not in str(refused.value)

    slack.reset()
    monkeypatch.setenv("SLACK_BOT_TOKEN", BOT_TOKEN)
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-revoked-token")
    with pytest.raises(SlackSetupError, match="refused SLACK_APP_TOKEN: invalid_auth"):
        run(fake_kb, fake_settings, http=False, port=0)  # Socket Mode: asks the (stub) API for a WebSocket URL
    [opened] = slack.calls_to("apps.connections.open")
    assert opened.token == "xapp-revoked-token"


def test_socket_mode_answers_events_once(
    kb: KnowledgeBase, slack: SlackStub, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """No public URL: events arrive over the WebSocket whose URL apps.connections.open hands out."""
    slack.reset()
    caplog.set_level(logging.INFO)
    settings = SlackSettings(slack_bot_token=BOT_TOKEN, slack_app_token=APP_TOKEN, slack_api_url=slack.api_url)
    app = build_app(kb, settings, feedback=FeedbackLog(tmp_path / "feedback.jsonl"))
    with SocketModeStub() as socket_mode:
        slack.socket_url = socket_mode.url
        handler = connect_socket_mode(app, APP_TOKEN)
        try:
            event = mention(slack, CUDA_QUESTION)
            payload = json.loads(envelope(event, "Ev0200"))
            for n, envelope_id in enumerate(("env-1", "env-2")):  # the second is Slack retrying
                socket_mode.deliver(
                    {"envelope_id": envelope_id, "type": "events_api", "payload": payload, "retry_attempt": n}
                )
            assert socket_mode.wait_for_ack("env-1") == {"envelope_id": "env-1"}
            socket_mode.wait_for_ack("env-2")
            slack.wait_for("chat.update")
            wait_until(lambda: "skipped a repeated delivery" in caplog.text)
        finally:
            handler.close()
            slack.socket_url = None
    [opened] = slack.calls_to("apps.connections.open")
    assert opened.token == APP_TOKEN
    assert [c.args["thread_ts"] for c in slack.calls_to("chat.postMessage")] == [event["ts"]]
    assert "12.6" in slack.thread("C1", event["ts"])[-1].text
    assert not any(s in caplog.text for s in SECRETS)


def test_cli_serves_the_events_api(kb: KnowledgeBase, settings: Settings, slack: SlackStub, tmp_path: Path) -> None:
    """`python app.py slack --http --port P` end to end, with verbose logs that must not show a token."""
    slack.reset()
    data = tmp_path / "data"  # a copy of the session's index (built by `kb`), so startup skips ingest
    shutil.copytree(settings.data_dir, data, ignore=shutil.ignore_patterns("feedback.jsonl"))
    index = index_env(settings)
    port = free_port()
    env = {
        **os.environ,
        "RELDOCS_CORPUS_DIR": str(settings.corpus_dir),
        "RELDOCS_DATA_DIR": str(data),
        **index,
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_URL": slack.api_url,
    }
    env.pop("SLACK_APP_TOKEN", None)
    command = [sys.executable, "app.py", "-v", "slack", "--http", "--port", str(port)]
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True)  # type: ignore[arg-type]
    reader.start()
    url = f"http://127.0.0.1:{port}/slack/events"
    try:
        deadline = time.monotonic() + 90
        while True:
            assert proc.poll() is None, "".join(lines)
            try:
                status = post(url, "{}", signed=False)[0]
                break
            except OSError:
                assert time.monotonic() < deadline, "the bot did not start listening"
                time.sleep(0.2)
        assert status == 401
        event = mention(slack, CUDA_QUESTION)
        assert post(url, envelope(event, "Ev0100"), secret="forged")[0] == 401
        assert post(url, envelope(event, "Ev0101"))[0] == 200
        slack.wait_for("chat.update")
        assert "12.6" in slack.thread("C1", event["ts"])[-1].text
        wait_until(lambda: any("answered C1/" in line for line in lines))
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        reader.join(timeout=5)
    stderr = "".join(lines)
    assert "Indexing" not in stderr and "Invalid request signature" in stderr
    assert not any(s in stderr for s in SECRETS), stderr
    assert "WARNING" not in stderr, stderr
