"""The chat in a real browser: Debian's chromium driven by Playwright, against the app served in-process.

`RELDOCS_SCREENSHOT_DIR=docs pytest tests/test_web_browser.py` also saves the README screenshots (answering and
refusing, at 1280×800 and 390×844).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from netutil import free_port

from assistant.feedback import FeedbackLog
from assistant.runtime.settings import Settings
from interfaces.web import build_ui, launch

CHROMIUM = Path("/usr/bin/chromium")
CUDA_Q = "What is the minimum CUDA version to build PyTorch 2.12 from source?"
FUSED_Q = "And which optimizer gained fused=True?"
REFUSED_Q = "How do I bake sourdough bread?"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
TIMEOUT_MS = 30_000
TIMEOUT_S = TIMEOUT_MS / 1000

pytestmark = pytest.mark.slow
if not CHROMIUM.exists():
    pytest.skip("needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect


@pytest.fixture(scope="module")
def web_settings(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return settings.model_copy(update={"data_dir": tmp_path_factory.mktemp("web-browser")})


@pytest.fixture(scope="module")
def url(kb, web_settings: Settings) -> Iterator[str]:
    demo = launch(build_ui(kb, web_settings), web_settings, port=free_port(), block=False)
    yield demo.local_url
    demo.close()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--headless"])
        yield browser
        browser.close()


def open_page(browser, url: str, viewport: dict[str, int]):
    context = browser.new_context(viewport=viewport)
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(url)
    page.locator("#reldocs-question textarea").wait_for()
    return page


@pytest.fixture(scope="module")
def page(browser, url: str):
    page = open_page(browser, url, DESKTOP)
    yield page
    page.context.close()


def ask(page, question: str) -> None:
    box = page.locator("#reldocs-question textarea")
    box.fill(question)
    box.press("Enter")


def bot_message(page, containing: str):
    """The last answer bubble once it shows `containing` (the answer streams in)."""
    message = page.locator("#reldocs-chat .message-row.bot-row").filter(has_text=containing).last
    message.wait_for()
    return message


def wait_for_entries(log: FeedbackLog, n: int, until: Callable[[list[dict]], bool] = lambda _: True) -> list[dict]:
    """The log's entries once there are `n` of them and `until` holds for them (or after 15 s, as they are)."""
    deadline = time.monotonic() + 15
    while not (len(entries := list(log.entries())) >= n and until(entries)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return entries


def screenshot(page, name: str) -> None:
    """Saved only when RELDOCS_SCREENSHOT_DIR is set (for the README); a plain test run writes nothing."""
    folder = os.environ.get("RELDOCS_SCREENSHOT_DIR")
    if folder:
        page.get_by_role("button", name="Ask").wait_for()  # the answer is whole: Stop turns back into Ask
        page.screenshot(path=str(Path(folder) / name))


def clipboard_once_written(page) -> str:
    """The clipboard's text once the copy has written it (it is written asynchronously), or as it is at the deadline."""
    deadline = time.monotonic() + TIMEOUT_S
    while not (copied := page.evaluate("navigator.clipboard.readText()")) and time.monotonic() < deadline:
        time.sleep(0.05)
    return copied


def clear(page) -> None:
    page.get_by_role("button", name="Clear chat").click()
    expect(page.locator("#reldocs-chat .bot-row")).to_have_count(0)


def test_cited_answer_follow_up_and_feedback(page, web_settings: Settings):
    ask(page, CUDA_Q)
    first = bot_message(page, "12.6")
    assert "[1]" in first.inner_text()
    link = first.locator(".reldocs-sources a").first
    assert link.get_attribute("href", timeout=TIMEOUT_MS).startswith("https://")
    quote = first.locator("details.reldocs-quote").first
    assert not quote.locator("blockquote").is_visible()  # folded until asked for
    quote.locator("summary").click()
    assert "12.6" in quote.locator("blockquote").inner_text()
    screenshot(page, "screenshot-web.png")

    ask(page, FUSED_Q)  # a follow-up: only makes sense with the first question
    second = bot_message(page, "Adagrad")
    assert second.locator(".reldocs-sources").count() == 1

    # Each answer's 👍/👎 sit under its bubble; the last pair belongs to the follow-up.
    likes = page.get_by_role("button", name="Like", exact=True)
    dislikes = page.get_by_role("button", name="Dislike", exact=True)
    assert likes.count() == dislikes.count() == 2
    likes.last.click()
    page.get_by_text("Thanks, your feedback was saved.").first.wait_for()
    entries = wait_for_entries(FeedbackLog(web_settings.feedback_path), 1)
    assert len(entries) == 1
    entry = entries[0]
    assert (entry["vote"], entry["channel"], entry["question"]) == ("up", "web", FUSED_Q)
    assert "Adagrad" in entry["answer"] and entry["citations"]

    dislikes.first.click()
    entries = wait_for_entries(FeedbackLog(web_settings.feedback_path), 2)
    assert (entries[-1]["vote"], entries[-1]["question"]) == ("down", CUDA_Q)

    # Changing one's mind on the follow-up changes its line: still one line per answer of this session.
    dislikes.last.click()
    entries = wait_for_entries(FeedbackLog(web_settings.feedback_path), 2, lambda got: got[0]["vote"] == "down")
    assert [(e["vote"], e["question"]) for e in entries] == [("down", FUSED_Q), ("down", CUDA_Q)]


def test_markers_link_to_their_source_and_copy_is_plain_text(page):
    clear(page)
    ask(page, CUDA_Q)
    answer = bot_message(page, "12.6")
    marker = answer.locator("a.reldocs-ref").first
    marker.click()
    target = page.evaluate("location.hash").lstrip("#")
    entry = answer.locator(f"[id='{target}']")
    assert target.endswith("-1") and entry.count() == 1 and "[1]" in entry.inner_text()

    page.get_by_role("button", name="Copy message").last.click()
    copied = clipboard_once_written(page)
    assert "12.6" in copied and "[1]" in copied and "Sources:" in copied and "https://" in copied
    assert "<" not in copied and "&lt;" not in copied  # readable text, no HTML


def test_refusal_is_styled_apart(browser, url: str):
    page = open_page(browser, url, DESKTOP)  # a page of its own: no feedback toasts over the screenshot
    try:
        ask(page, REFUSED_Q)
        refusal = page.locator("#reldocs-chat .bot-row .reldocs-refusal").last
        refusal.wait_for()
        assert "Not in the release docs" in refusal.text_content()
        color = refusal.evaluate("el => getComputedStyle(el).borderLeftColor")
        assert color not in ("", "rgba(0, 0, 0, 0)")  # the CSS reached the page
        screenshot(page, "screenshot-web-refusal.png")
    finally:
        page.context.close()


def test_overlong_question_says_it_was_cut(page, web_settings: Settings):
    clear(page)
    limit = web_settings.max_question_chars
    ask(page, CUDA_Q + " " + "please " * (limit // 7 + 10))
    note = page.locator("#reldocs-chat .bot-row .reldocs-notice").last
    note.wait_for()
    assert f"cut to its first {limit} characters" in note.inner_text()


def test_examples_and_version_filter(page):
    clear(page)
    # examples drawn from the indexed docs (`KnowledgeBase.examples`), the French one asked at once when picked
    page.get_by_text("What breaks in PyTorch 2.12.0?").wait_for()
    page.get_by_text("Que remplace `torch.distributed.nn.functional` dans PyTorch 2.12.0 ?").click()
    bot_message(page, "functional collectives")
    page.locator("#reldocs-version input").click()
    options = [o.replace("✓", "").strip() for o in page.get_by_role("option").all_inner_texts()]
    assert options[0] == "All versions" and "2.12.0" in options
    page.keyboard.press("Escape")
    assert "Indexed version: 2.12.0" in page.locator(".reldocs-versions").inner_text()  # one version, said so
    page.locator("#reldocs-files").get_by_text("Indexed docs").click()  # each file, its release, where read
    files = page.locator(".reldocs-files")
    files.wait_for()
    assert "pytorch/2.12.0/migration-guide.txt" in files.inner_text() and "(front matter)" in files.inner_text()


def test_phone_layout(browser, url: str):
    """At 390×844 the question box takes the full width, the Version menu sits beneath, and nothing overflows."""
    page = open_page(browser, url, PHONE)
    try:
        chat = page.locator("#reldocs-chat").bounding_box()
        box = page.locator("#reldocs-question").bounding_box()
        menu = page.locator("#reldocs-version").bounding_box()
        assert box["width"] >= chat["width"] - 2 and menu["width"] >= chat["width"] - 2  # the page's full width
        assert menu["y"] >= box["y"] + box["height"] - 1  # beneath, not beside
        ask(page, CUDA_Q)
        bot_message(page, "12.6")
        screenshot(page, "screenshot-phone.png")
        ask(page, REFUSED_Q)
        page.locator("#reldocs-chat .bot-row .reldocs-refusal").last.wait_for()
        screenshot(page, "screenshot-phone-refusal.png")
        long_token = "torch._inductor.config." + "x" * 300  # one unbroken token, in the question and the refusal
        ask(page, f"What does {long_token} do?")
        bot_message(page, "Nothing mentions")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        rights = page.locator("#reldocs-chat .message").evaluate_all(
            "els => els.map(e => e.getBoundingClientRect().right)"
        )
        assert rights and max(rights) <= PHONE["width"]
    finally:
        page.context.close()


class HeldKB:
    """The real knowledge base, holding its answer's first draft until the test lets it go: time to press Stop,
    with no sleep that a slow machine could outlast. It records what it handed on and how its stream ended."""

    def __init__(self, kb) -> None:
        self.kb = kb
        self.held = threading.Event()  # a draft is ready, and waits for `go`
        self.go = threading.Event()
        self.closed = threading.Event()  # the stream is over: run to its end, or closed by a cancel
        self.finished = False  # ... run to its end, its final answer handed on
        self.handed: list = []  # the drafts handed on to the page's event

    def __getattr__(self, name: str):
        return getattr(self.kb, name)

    def stream(self, *args, **kwargs):
        try:
            for draft in self.kb.stream(*args, **kwargs):
                self.held.set()
                self.go.wait(TIMEOUT_S)
                self.handed.append(draft)
                yield draft
            self.finished = True
        finally:
            self.closed.set()


def test_stop_button_while_answering(browser, kb, web_settings: Settings):
    held = HeldKB(kb)
    demo = launch(build_ui(held, web_settings), web_settings, port=free_port(), block=False)
    page = open_page(browser, demo.local_url, DESKTOP)
    try:
        ask(page, CUDA_Q)
        stop = page.get_by_role("button", name="Stop")
        stop.wait_for()
        assert page.get_by_role("button", name="Ask").count() == 0  # no second question while one streams
        assert held.held.wait(TIMEOUT_S)  # the answer is being written: its first draft waits
        with page.expect_response(lambda response: response.url.endswith("/gradio_api/cancel")) as cancelled:
            stop.click()
            page.get_by_role("button", name="Ask").wait_for()
            expect(page.locator("#reldocs-chat .bot-row").last).to_contain_text("Stopped.")
            held.go.set()  # the answer goes on, as a slow one would after Stop ...
        # ... until the cancel closes its stream: the page's cancel request is answered once the server has.
        assert cancelled.value.ok and held.closed.wait(TIMEOUT_S)
        assert held.handed and not held.finished  # cut short after Stop, not run to its end
        # A question after it: its answer reaches the page behind anything the cancelled one sent.
        ask(page, REFUSED_Q)
        page.locator("#reldocs-chat .bot-row .reldocs-refusal").last.wait_for()
        assert "12.6" not in page.locator("#reldocs-chat").inner_text()  # the cancelled answer never arrived
    finally:
        held.go.set()
        page.context.close()
        demo.close()


def test_upgrade_tab_plans_and_scans_pasted_code(browser, url: str):
    page = open_page(browser, url, DESKTOP)
    try:
        page.get_by_role("tab", name="Upgrade").click()
        start = page.locator("#reldocs-upgrade-from input")
        start.fill("2.11")
        start.press("Enter")
        editor = page.locator("#reldocs-upgrade-code .cm-content")
        editor.click()
        page.keyboard.insert_text("from torch.distributed.nn import functional as F\nF.all_reduce(t)\n")
        page.locator("#reldocs-upgrade-go").click()
        result = page.locator("#reldocs-upgrade-result .reldocs-plan")
        result.wait_for()
        assert "PyTorch 2.11 → 2.12.0: 7 changes in 1 release;" in result.text_content()
        hits = page.locator("#reldocs-upgrade-result .reldocs-hit")
        expect(hits.filter(has_text="pasted.py:1:34")).to_have_count(1)  # the import
        expect(hits.filter(has_text="pasted.py:2:1 F.all_reduce(t)")).to_have_count(1)  # the call
        details = page.locator("#reldocs-upgrade-result details").first
        details.locator("summary").click()
        expect(details.locator("blockquote")).to_be_visible()  # the quote unfolds
        expect(
            page.locator("#reldocs-upgrade-checklist a, #reldocs-upgrade-checklist .file-preview")
        ).not_to_have_count(0)
        screenshot(page, "screenshot-web-upgrade.png")
    finally:
        page.context.close()
