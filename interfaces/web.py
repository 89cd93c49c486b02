"""The chat UI (Gradio): one knowledge base shared by every session, answers streamed with numbered sources.

`build_ui` makes the Blocks, `launch` starts them (tests use it too), `serve` is what `python app.py web` runs.
Callbacks are module-level functions taking the knowledge base or feedback log as arguments.
"""

# No `from __future__ import annotations`: gradio reads the API functions' type hints at runtime.

import functools
import ipaddress
import logging
from collections.abc import Iterator
from typing import Any

from markupsafe import escape
from starlette.middleware import Middleware

try:
    import gradio as gr
except ImportError as e:  # pragma: no cover - gradio is in requirements.txt
    raise ImportError("The web UI needs gradio: pip install -r requirements.txt") from e

from assistant.feedback import FeedbackLog
from assistant.knowledge_base import KnowledgeBase
from assistant.model.errors import IndexUnavailable, ReldocsError
from assistant.model.records import Answer
from assistant.runtime.settings import Settings
from interfaces import inputs
from interfaces.http_guard import GradioGuard, one_line_gradio_errors
from interfaces.web_assets import COPY_JS, CSS
from interfaces.web_render import (
    ERROR,
    SEARCHING,
    STOPPED,
    answer_message,
    files_html,
    indexed_note,
    message_text,
    user_message,
)
from interfaces.web_upgrade import build_upgrade_tab

logger = logging.getLogger(__name__)

TITLE = "reldocs — ask the release docs"
ALL_VERSIONS = ""
RELEASE_SEP = " @ "  # "pandas @ 3.0.0" in the Version menu's values when several products are indexed
CONCURRENCY = 4  # questions answered at once; more wait in Gradio's queue (the work is CPU-bound)
HEADER = f"""# {TITLE}
Ask what changes when you upgrade. Answers quote the release notes and migration guides, with numbered
sources you can unfold; when the docs don't say, the answer says so. Follow-up questions keep the conversation."""
Turns = list[dict[str, Any]]  # the Chatbot's messages: {"role": ..., "content": ...}
AnswersByTurn = dict[int, Answer]  # index of an assistant message -> the Answer it shows (for feedback)


def user_questions(turns: Turns) -> list[str]:
    return [message_text(t["content"]) for t in turns if t.get("role") == "user"]


def add_question(question: str, turns: Turns | None) -> tuple[str, Turns]:
    """Show the question in the chat at once and clear the box; `answer_turns` answers it next."""
    turns = list(turns or [])
    question = (question or "").strip()
    if question:
        turns.append({"role": "user", "content": user_message(question)})
    return "", turns


def add_example(turns: Turns | None, selected: Any) -> Turns:
    value = selected.get("text", "") if isinstance(selected, dict) else str(selected or "")
    return add_question(value, turns)[1]


def answer_turns(
    kb: KnowledgeBase, turns: Turns | None, version: str | None, answers: AnswersByTurn | None
) -> Iterator[tuple[Turns, AnswersByTurn]]:
    """Stream the answer to the last user message, earlier user messages being its conversation."""
    turns = list(turns or [])
    answers = dict(answers or {})
    if not turns or turns[-1].get("role") != "user":  # an empty question was not added: nothing to answer
        yield turns, answers
        return
    questions = user_questions(turns)
    yield [*turns, _bot(SEARCHING)], answers
    try:
        product, only = release_choice(version)
        for answer in kb.stream(questions[-1], questions[:-1], only, product=product):
            if answer.final:
                answers[len(turns)] = answer
            yield [*turns, _bot(answer_message(answer, len(turns)))], answers
    except IndexUnavailable as e:  # the Chroma server is down: one line; the next question retries
        logger.warning("answering %r failed: %s", questions[-1], e)
        yield [*turns, _bot(str(e))], answers
    except Exception:  # the person sees one friendly line; the log keeps the traceback
        logger.exception("answering %r failed", questions[-1])
        yield [*turns, _bot(ERROR)], answers


def stopped(turns: Turns | None) -> Turns:
    """After Stop: an answer cut short keeps what it had; one that had shown nothing yet says it was stopped,
    also when Stop came before even "Searching…" reached the page (the question is then the last turn)."""
    turns = list(turns or [])
    if turns and turns[-1].get("role") == "user":
        turns.append(_bot(STOPPED))
    elif turns and message_text(turns[-1].get("content")) == message_text(SEARCHING):
        turns[-1] = _bot(STOPPED)
    return turns


def _bot(content: str) -> dict[str, Any]:
    return {"role": "assistant", "content": content}


def record_feedback(
    log: FeedbackLog,
    answers: AnswersByTurn | None,
    index: Any,
    liked: Any,
    *,
    voter: str | None,
    user: str | None = None,
) -> dict[str, Any] | None:
    """Store browser session `voter`'s 👍/👎 on the answer at chat index `index` (voting again on it changes
    that vote); None when there is nothing to judge there."""
    if isinstance(index, list | tuple) and index:
        index = index[0]
    # Not an int (a hand-made event): nothing to judge, rather than a traceback.
    answer = (answers or {}).get(index) if isinstance(index, int) and not isinstance(index, bool) else None
    if answer is None or not isinstance(liked, bool):  # an error message, or a vote taken back
        return None
    return log.record(answer, "up" if liked else "down", channel="web", voter=voter, user=user)


def answer_data(answer: Answer) -> dict[str, Any]:
    """The `ask` endpoint's JSON: the same keys as `python app.py ask --json`."""
    return answer.to_dict()


def api_ask(
    kb: KnowledgeBase, question: Any, version: Any = "", history: Any = (), product: Any = ""
) -> dict[str, Any]:
    """The `ask` endpoint: arguments checked first, so a bad call gets one line saying what to send."""
    try:
        args = inputs.question(question), inputs.history(history), inputs.version(version)
        named = inputs.product(product, list(kb.products()), kb.has_product)
    except inputs.BadInput as e:
        raise gr.Error(str(e), print_exception=False) from None
    try:
        return answer_data(kb.ask(*args, product=named))
    except IndexUnavailable as e:
        raise gr.Error(str(e), print_exception=False) from None
    except Exception as e:
        logger.exception("api ask %r failed", args[0][:200])
        raise gr.Error("Sorry, something went wrong while answering.", print_exception=False) from e


def api_search(kb: KnowledgeBase, query: Any, k: Any = 5, version: Any = "", product: Any = "") -> list[dict[str, Any]]:
    try:
        text, count, only = inputs.question(query, "query"), inputs.count(k), inputs.version(version)
        named = inputs.product(product, list(kb.products()), kb.has_product)
    except inputs.BadInput as e:
        raise gr.Error(str(e), print_exception=False) from None
    try:
        passages = kb.search(text, k=count, version=only, product=named)
    except IndexUnavailable as e:
        raise gr.Error(str(e), print_exception=False) from None
    except Exception as e:
        logger.exception("api search %r failed", text[:200])
        raise gr.Error("Sorry, something went wrong while searching.", print_exception=False) from e
    return [p.to_dict() for p in passages]


def build_ui(kb: KnowledgeBase, settings: Settings) -> gr.Blocks:
    """The chat page, the Upgrade tab, and the `ask` / `search` API endpoints, all over the one `kb`."""
    log = FeedbackLog.from_settings(settings)
    products = kb.products()
    choices = release_choices(products)
    examples = kb.examples()  # drawn from the indexed docs, each answered before it is offered

    # Typed wrappers: gradio derives the API schema and injects LikeData/Request from these signatures.
    def ask(question: str, version: str = "", history: list[str] | None = None, product: str = "") -> dict[str, Any]:
        """Answer a question from the release docs: answer text with [n] markers, found, and citations.

        Args:
            question: the question, in English or French.
            version: only use docs of this version (e.g. "2.12" or "2.12.0"); empty for all.
            history: the earlier questions of this conversation, for follow-ups like "and in 2.11?".
            product: only use docs of this product (its name or import name); empty for all.
        """
        return api_ask(kb, question, version, history, product)

    def search(query: str, k: int = 5, version: str = "", product: str = "") -> list[dict[str, Any]]:
        """The k passages hybrid search finds for a query, with scores and metadata."""
        return api_search(kb, query, k, version, product)

    def on_like(answers: AnswersByTurn, data: gr.LikeData, request: gr.Request) -> None:
        # One vote per answer per browser session: the session is the voter (the user name only when signed in).
        voter, user = getattr(request, "session_hash", None), getattr(request, "username", None)
        entry = record_feedback(log, answers, data.index, data.liked, voter=voter, user=user)
        if entry is not None:
            gr.Info("Thanks, your feedback was saved.")

    with gr.Blocks(title=TITLE, analytics_enabled=False) as demo:  # offline: no telemetry, no version check
        gr.Markdown(HEADER)
        gr.HTML(f'<p class="reldocs-versions"><sub>{escape(indexed_note(products))}</sub></p>')
        with gr.Accordion("Indexed docs", open=False, elem_id="reldocs-files"):
            gr.HTML(files_html(kb.files(), products))  # each product's files, releases and where they were read
        with gr.Tab("Ask", elem_id="reldocs-tab-ask"):
            answers = gr.State({})
            chatbot = gr.Chatbot(
                label="reldocs",
                elem_id="reldocs-chat",
                height="66vh",
                min_height=420,
                feedback_options=("Like", "Dislike"),
                examples=[{"text": q} for q in examples] or None,
                placeholder="Ask about a release, or pick an example.",
                buttons=["copy"],  # copies the message's plain-text twin (COPY_JS), not its HTML
                # Messages are HTML built from escaped parts (web_render); no Markdown, LaTeX or custom tags on top.
                render_markdown=False,
                latex_delimiters=[],
                allow_tags=False,
                sanitize_html=True,
            )
            with gr.Row(equal_height=True, elem_id="reldocs-controls"):
                question = gr.Textbox(
                    placeholder="Ask a question about a release and press Enter",
                    show_label=False,
                    elem_id="reldocs-question",
                    scale=5,
                    autofocus=True,
                    submit_btn="Ask",
                    stop_btn=False,
                    max_lines=6,
                )
                version = gr.Dropdown(
                    choices, value=ALL_VERSIONS, label="Version", elem_id="reldocs-version", scale=1, min_width=140
                )
            clear = gr.Button("Clear chat", elem_id="reldocs-clear", size="sm", variant="secondary", scale=0)
        with gr.Tab("Upgrade", elem_id="reldocs-tab-upgrade"):
            build_upgrade_tab(kb)

        # The page's own events stay off the API page; scripts use `ask` and `search`.
        respond = functools.partial(answer_turns, kb)
        private: dict[str, Any] = {"api_visibility": "private"}
        shown = {"queue": False, **private}  # instant: the question appears before the answer is searched
        answering = {"concurrency_id": "kb", **private}
        # While an answer streams, Ask turns into Stop (as gr.ChatInterface does), so it can't be sent twice.
        busy = {"fn": lambda: gr.Textbox(submit_btn=False, stop_btn="Stop"), "inputs": None, "outputs": [question]}
        idle = {"fn": lambda: gr.Textbox(submit_btn="Ask", stop_btn=False), "inputs": None, "outputs": [question]}
        asked = question.submit(add_question, [question, chatbot], [question, chatbot], **shown)
        picked = chatbot.example_select(_select_example, [chatbot], [chatbot], **shown)
        running = []
        for trigger in (asked, picked):
            trigger.then(**busy, **shown)
            answer = trigger.then(respond, [chatbot, version, answers], [chatbot, answers], **answering)
            answer.then(**idle, **shown)
            running.append(answer)
        question.stop(None, None, None, cancels=running, **private)
        question.stop(stopped, [chatbot], [chatbot], **shown).then(**idle, **shown)
        chatbot.like(on_like, [answers], None, **private)  # queued, so the "thanks" toast reaches the page
        chatbot.clear(lambda: {}, None, [answers], **shown)  # the chat's 🗑 starts a new conversation
        clear.click(lambda: ([], {}), None, [chatbot, answers], **shown)

        gr.api(ask, api_name="ask", concurrency_id="kb")
        gr.api(search, api_name="search", concurrency_id="kb")
    demo.queue(default_concurrency_limit=CONCURRENCY)
    return demo


def release_choices(products: dict[str, list[str]]) -> list[tuple[str, str]]:
    """The Version menu: all, then newest first; with several products, each product's releases by name."""
    if len(products) <= 1:
        return [("All versions", ALL_VERSIONS)] + [(v, v) for vs in products.values() for v in reversed(vs)]
    out = [("All products and versions", ALL_VERSIONS)]
    for name, versions in products.items():
        out.append((f"{name}, all versions", f"{name}{RELEASE_SEP}"))
        out += [(f"{name} {v}", f"{name}{RELEASE_SEP}{v}") for v in reversed(versions)]
    return out


def release_choice(value: str | None) -> tuple[str | None, str | None]:
    """(product, version) of a Version-menu value; None for 'all'."""
    product, sep, version = (value or "").partition(RELEASE_SEP)
    if not sep:
        return None, product or None
    return product or None, version or None


def _select_example(turns: Turns, selected: gr.SelectData) -> Turns:
    return add_example(turns, selected.value)


def web_auth(settings: Settings) -> tuple[str, str] | None:
    """(user, password) from `RELDOCS_WEB_AUTH=user:password`, or None when unset."""
    if not settings.web_auth:
        return None
    user, sep, password = settings.web_auth.partition(":")
    if not sep or not user or not password:
        raise ReldocsError("RELDOCS_WEB_AUTH must look like user:password")
    return user, password


def launch(
    demo: gr.Blocks,
    settings: Settings,
    *,
    host: str = "127.0.0.1",
    port: int = 7860,
    block: bool = True,
    kb: KnowledgeBase | None = None,
) -> gr.Blocks:
    """Start the server; `block=False` returns once it listens (tests close it with `demo.close()`). With `kb`,
    the same server answers MCP at /mcp (streamable HTTP), behind the same password as the page."""
    auth = web_auth(settings)
    if auth is None and not _is_loopback(host):
        logger.warning("serving on %s without a password; set RELDOCS_WEB_AUTH=user:password", host)
    # Bad input to Gradio's API gets a 4xx and one log line, never a traceback (see interfaces.http_guard).
    one_line_gradio_errors()
    app_kwargs: dict[str, Any] = {"middleware": [Middleware(GradioGuard, blocks=demo)]}
    mcp_path = ""
    if kb is not None:
        from interfaces.mcp_server import PATH, http_endpoint

        endpoint = http_endpoint(kb, host=host, auth=auth)
        # The route goes in before gradio's own; gradio runs the lifespan around its server's life.
        app_kwargs |= {"routes": list(endpoint.routes), "lifespan": endpoint.lifespan}
        mcp_path = PATH
    try:
        demo.launch(
            server_name=host,
            server_port=port,
            share=False,
            auth=auth,
            auth_message="reldocs: sign in with the user and password from RELDOCS_WEB_AUTH." if auth else None,
            prevent_thread_lock=True,
            show_error=False,
            css=CSS,
            js=COPY_JS,
            footer_links=["api"],
            ssr_mode=False,
            mcp_server=False,  # gradio's would expose every event; reldocs serves its own tools at /mcp
            app_kwargs=app_kwargs,
            # Refused at upload, by the server: nothing larger is scanned (the scan itself checks again).
            max_file_size=max(settings.scan_max_file_kb, settings.scan_max_notebook_kb) * 1024,
            quiet=True,  # gradio's banner suggests share=True; reldocs never makes a public link
        )
    except OSError as e:
        raise ReldocsError(f"cannot serve on {host}:{port} (is the port in use?); try another --port") from e
    if block:
        mcp = f"; MCP on {demo.local_url.rstrip('/')}{mcp_path}" if mcp_path else ""
        print(f"reldocs chat on {demo.local_url}{mcp} (Ctrl+C to stop)", flush=True)
        demo.block_thread()
    return demo


def serve(kb: KnowledgeBase, settings: Settings, *, host: str = "127.0.0.1", port: int = 7860) -> None:
    """Serve the chat, and MCP at /mcp, until interrupted (what `python app.py web` runs)."""
    launch(build_ui(kb, settings), settings, host=host, port=port, block=True, kb=kb)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
