"""Two Slack replicas on one index: Slack's deliveries of one message (to both, and its retries) answered once."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from chroma_server import ChromaServer
from slack_stub import SlackStub
from test_slack import BOT_TOKEN, CUDA_QUESTION, SECRET, envelope, mention, post, wait_until

from assistant.feedback import FeedbackLog
from assistant.knowledge_base import KnowledgeBase
from assistant.runtime.settings import Settings
from ingest import sync
from interfaces.slack import SlackSettings, build_app, make_server
from interfaces.slack.listeners import PLACEHOLDER

SHIPPED = Path(__file__).resolve().parents[1] / "corpus"


@pytest.fixture
def slack() -> Iterator[SlackStub]:
    with SlackStub(bot_token=BOT_TOKEN) as stub:
        yield stub


def serve(kb: KnowledgeBase, slack: SlackStub, tmp: Path) -> tuple[str, object]:
    """One replica: its own KnowledgeBase and Bolt app, on its own port."""
    settings = SlackSettings(slack_bot_token=BOT_TOKEN, slack_signing_secret=SECRET, slack_api_url=slack.api_url)
    httpd = make_server(build_app(kb, settings, feedback=FeedbackLog(tmp / "feedback.jsonl")), host="127.0.0.1", port=0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{httpd.server_port}/slack/events", httpd


@pytest.mark.parametrize("mode", ["folder", pytest.param("server", marks=pytest.mark.server_e2e)])
def test_two_replicas_answer_a_message_once(
    mode: str,
    chroma: ChromaServer,
    slack: SlackStub,
    tmp_path: Path,
    embedder,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    if mode == "server":
        settings = chroma.settings("slack-replicas", corpus_dir=SHIPPED, data_dir=tmp_path / "data")
    else:
        settings = Settings(
            corpus_dir=SHIPPED, data_dir=tmp_path / "data", chroma_url=None
        )  # also under --chroma-server
    sync(settings, progress=False, embedder=embedder)
    replicas = [serve(KnowledgeBase.open(settings, embedder=embedder), slack, tmp_path) for _ in range(2)]
    try:
        event = mention(slack, CUDA_QUESTION)
        body = envelope(event, "EvReplica1")
        (first, _), (second, _) = replicas
        sent = [threading.Thread(target=post, args=(url, body)) for url in (first, second)]  # at the same time
        for t in sent:
            t.start()
        for t in sent:
            t.join()
        assert post(second, body, headers={"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"})[0] == 200
        slack.wait_for("chat.update")
        wait_until(lambda: caplog.text.count("skipped a repeated delivery") == 2)
    finally:
        for _, httpd in replicas:
            httpd.shutdown()  # type: ignore[attr-defined]
            httpd.server_close()  # type: ignore[attr-defined]
    posted = slack.calls_to("chat.postMessage")
    assert [c.args["text"] for c in posted] == [PLACEHOLDER] and len(slack.calls_to("chat.update")) == 1
    assert "12.6" in slack.thread("C1", event["ts"])[-1].text
