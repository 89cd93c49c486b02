"""The Bolt app and how it is served: Socket Mode, or the Events API over HTTP at /slack/events."""

from __future__ import annotations

import logging
import re
import secrets
import socketserver
import sys
import threading
from collections.abc import Iterable
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer
from wsgiref.simple_server import make_server as make_wsgi_server
from wsgiref.types import StartResponse, WSGIApplication, WSGIEnvironment

import click
from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict
from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_bolt.error import BoltError
from slack_bolt.logger.messages import warning_client_prioritized_and_token_skipped
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from assistant.feedback import FeedbackLog
from assistant.knowledge_base import KnowledgeBase
from assistant.model.errors import ReldocsError
from assistant.runtime.settings import Settings
from assistant.text.untrusted import one_line
from interfaces.slack.listeners import register

logger = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
SLACK_API_URL = "https://slack.com/api/"
MISSING_BOT_TOKEN = "SLACK_BOT_TOKEN is not set: copy the Bot User OAuth Token (xoxb-…) of your Slack app"


class SlackSetupError(ReldocsError):
    """The Slack bot cannot start: a token or secret is missing or was refused."""


class SlackSettings(BaseSettings):
    """Slack's own variable names, unprefixed, as Slack's docs and app settings pages call them."""

    model_config = SettingsConfigDict(extra="ignore")

    slack_bot_token: SecretStr | None = Field(None, description="Bot token (xoxb-…) for Web API calls.")
    slack_app_token: SecretStr | None = Field(None, description="App-level token (xapp-…); enables Socket Mode.")
    slack_signing_secret: SecretStr | None = Field(None, description="Verifies Events API requests over HTTP.")
    slack_api_url: str = Field(SLACK_API_URL, description="Web API base URL (an enterprise proxy, or a test stub).")

    @property
    def api_url(self) -> str:
        return self.slack_api_url.rstrip("/") + "/"


class Redact(logging.Filter):
    """Masks Slack tokens, including the legacy verification token inside payloads, in every log record.

    It also drops Bolt's warning that `client` wins over `token`: Bolt reads SLACK_BOT_TOKEN itself, while
    our client carries that same token and the SLACK_API_URL that Bolt's own client could not be given.
    """

    _PATTERNS = (
        (re.compile(r"\b(xox[a-z]|xapp)-[\w-]+"), r"\1-***"),
        (re.compile(r"(\"token\"\s*:\s*\")[^\"]*\""), r'\1***"'),
        (re.compile(r"(\btoken=)[^&\s'\"]+"), r"\1***"),
    )

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if message == warning_client_prioritized_and_token_skipped():
            return False
        redacted = message
        for pattern, replacement in self._PATTERNS:
            redacted = pattern.sub(replacement, redacted)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True


REDACT = Redact()


def bolt_logger() -> logging.Logger:
    """The logger given to Bolt; Bolt copies its filters onto every logger it makes."""
    log = logging.getLogger("interfaces.slack.bolt")
    if REDACT not in log.filters:
        log.addFilter(REDACT)
    return log


def build_app(kb: KnowledgeBase, slack: SlackSettings, *, feedback: FeedbackLog | None = None) -> App:
    """The Bolt app with every listener registered; calls auth.test once to learn the bot's own ids."""
    if slack.slack_bot_token is None:
        raise SlackSetupError(MISSING_BOT_TOKEN)
    log = bolt_logger()
    client = WebClient(token=slack.slack_bot_token.get_secret_value(), base_url=slack.api_url, logger=log)
    # Socket Mode needs no signing secret; a random one then makes every HTTP request fail verification.
    secret = slack.slack_signing_secret.get_secret_value() if slack.slack_signing_secret else secrets.token_hex(32)
    try:
        app = App(name="reldocs", client=client, signing_secret=secret, logger=log)
    except BoltError as e:
        raise SlackSetupError(f"Slack refused SLACK_BOT_TOKEN (auth.test at {slack.api_url}): {e}") from e
    except OSError as e:
        raise SlackSetupError(f"cannot reach Slack at {slack.api_url}: {e}") from e
    register(app, kb, feedback=feedback)
    return app


class _ThreadingServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True
    request_queue_size = 128  # socketserver's 5 drops connections when Slack sends a burst of events


class _Handler(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        logger.debug("%s " + format, self.address_string(), *args)


class _RefuseUnreadable:
    """WSGI wrapper around Bolt's handler. Bolt parses a request's body before it checks the signature, so an
    unsigned body that is not JSON, not UTF-8 or nested too deep raises inside it, and wsgiref then logs a
    traceback and answers 500; here it is a 400 and one log line."""

    def __init__(self, app: WSGIApplication) -> None:
        self.app = app

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        try:
            return self.app(environ, start_response)
        except (ValueError, RecursionError) as e:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            logger.warning("refused a request to %s: %s", EVENTS_PATH, one_line(f"{type(e).__name__}: {e}")[:300])
            start_response("400 Bad Request", [("Content-Type", "text/plain; charset=utf-8")], sys.exc_info())
            return [b"reldocs: not a Slack request\n"]


def make_server(app: App, *, host: str, port: int) -> WSGIServer:
    """A threaded WSGI server for the Events API at /slack/events; `port=0` picks a free port."""
    handler = _RefuseUnreadable(SlackRequestHandler(app, path=EVENTS_PATH))
    return make_wsgi_server(host, port, handler, server_class=_ThreadingServer, handler_class=_Handler)


def preflight(*, http: bool) -> SlackSettings:
    """The Slack settings from the environment; raises SlackSetupError, before anything slow, when one is missing."""
    slack = SlackSettings()
    if not http and slack.slack_app_token is None:
        raise SlackSetupError("set SLACK_APP_TOKEN (xapp-…) for Socket Mode, or pass --http to serve the Events API")
    if http and slack.slack_signing_secret is None:
        raise SlackSetupError("SLACK_SIGNING_SECRET is not set: the Events API needs it to verify requests")
    if slack.slack_bot_token is None:
        raise SlackSetupError(MISSING_BOT_TOKEN)
    return slack


def run(kb: KnowledgeBase, settings: Settings, *, http: bool, port: int, host: str = "127.0.0.1") -> None:
    """Serve until interrupted: Socket Mode when SLACK_APP_TOKEN is set, the Events API when `http`."""
    slack = preflight(http=http)
    app = build_app(kb, slack, feedback=FeedbackLog.from_settings(settings))
    if http:
        server = make_server(app, host=host, port=port)
        click.echo(f"Slack Events API on http://{host}:{server.server_port}{EVENTS_PATH} (Ctrl+C stops)", err=True)
        try:
            server.serve_forever()
        finally:
            server.server_close()
        return

    assert slack.slack_app_token is not None
    handler = connect_socket_mode(app, slack.slack_app_token.get_secret_value())
    click.echo("Connected to Slack over Socket Mode (Ctrl+C stops)", err=True)
    try:
        threading.Event().wait()
    finally:
        handler.close()


def connect_socket_mode(app: App, app_token: str) -> SocketModeHandler:
    """Open the Socket Mode WebSocket (apps.connections.open gives its URL); events then arrive on it."""
    handler = SocketModeHandler(app, app_token)
    try:
        handler.connect()
    except SlackApiError as e:
        raise SlackSetupError(f"Slack refused SLACK_APP_TOKEN: {e.response.get('error')}") from e
    except OSError as e:
        raise SlackSetupError(f"cannot reach Slack at {app.client.base_url}: {e}") from e
    if not handler.client.is_connected():
        handler.close()
        raise SlackSetupError("the Socket Mode WebSocket did not open (see the log above)")
    return handler
