"""The Slack bot (Bolt): answers mentions and DMs in threads, `/reldocs` privately, and records 👍/👎.

Imported only by `python app.py slack`, so slack_bolt is never loaded by the other commands.
"""

from interfaces.slack.bot import SlackSettings, SlackSetupError, build_app, make_server, preflight, run
from interfaces.slack.listeners import register

__all__ = ["SlackSettings", "SlackSetupError", "build_app", "make_server", "preflight", "register", "run"]
