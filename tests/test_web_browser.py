"""The chat in a real browser: Debian's chromium driven by Playwright, against the app served in-process.

`RELDOCS_SCREENSHOT=docs/screenshot-web.png pytest tests/test_web_browser.py` also saves the README screenshot.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from netutil import free_port

from assistant.feedback import FeedbackLog
from assistant.settings import Settings
from interfaces.web import build_ui, launch

CHROMIUM = Path("/usr/bin/chromium")
CUDA_Q = "What is the minimum CUDA version to build PyTorch 2.12 from source?"
FUSED_Q = "And which optimizer gained fused=True?"
TIMEOUT_MS = 30_000

pytestmark = pytest.mark.slow
if not CHROMIUM.exists():
    pytest.skip("needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def web_settings(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return settings.model_copy(update={"data_dir": tmp_path_factory.mktemp("web-browser")})


@pytest.fixture(scope="module")
def url(kb, web_settings: Settings) -> Iterator[str]:
    demo = launch(build_ui(kb, web_settings), web_settings, port=free_port(), block=False)
    yield demo.local_url
    demo.close()


@pytest.fixture(scope="module")
def page(url: str):
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--headless"])
        page = browser.new_page(viewport={"width": 1100, "height": 1100})
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(url)
        yield page
        browser.close()


def ask(page, question: str) -> None:
    box = page.locator("#reldocs-question textarea")
    box.fill(question)
    box.press("Enter")


def bot_message(page, containing: str):
    """The last answer bubble once it shows `containing` (the answer streams in)."""
    message = page.locator("#reldocs-chat .message-row.bot-row").filter(has_text=containing).last
    message.wait_for()
    return message


def wait_for_entries(log: FeedbackLog, n: int) -> list[dict]:
    deadline = time.monotonic() + 15
    while len(log.entries()) < n and time.monotonic() < deadline:
        time.sleep(0.2)
    return log.entries()


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

    ask(page, FUSED_Q)  # a follow-up: only makes sense with the first question
    second = bot_message(page, "Adagrad")
    assert second.locator(".reldocs-sources").count() == 1

    if os.environ.get("RELDOCS_SCREENSHOT"):  # for the README; never written by a plain test run
        page.set_viewport_size({"width": 1100, "height": 1450})  # room for the whole conversation
        page.wait_for_timeout(500)
        page.locator("#reldocs-chat [role=log]").evaluate("el => el.scrollTo(0, 0)")
        bottom = page.locator("#reldocs-question").bounding_box()
        height = bottom["y"] + bottom["height"] + 24 if bottom else 1450
        page.screenshot(path=os.environ["RELDOCS_SCREENSHOT"], clip={"x": 0, "y": 0, "width": 1100, "height": height})
        page.set_viewport_size({"width": 1100, "height": 1100})

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


def test_refusal_is_styled_apart(page):
    ask(page, "How do I bake sourdough bread?")
    refusal = page.locator("#reldocs-chat .bot-row .reldocs-refusal").last
    refusal.wait_for()
    assert "Not in the release docs" in refusal.text_content()
    color = refusal.evaluate("el => getComputedStyle(el).borderLeftColor")
    assert color not in ("", "rgba(0, 0, 0, 0)")  # the CSS reached the page


def test_examples_and_version_filter(page):
    page.locator("#reldocs-chat button[aria-label='Clear']").click()
    page.get_by_text("Quel optimiseur supporte fused=True ?").click()  # an example, asked at once
    bot_message(page, "Adagrad")
    page.locator("#reldocs-version input").click()
    options = [o.replace("✓", "").strip() for o in page.get_by_role("option").all_inner_texts()]
    assert options[0] == "All versions" and "2.12.0" in options
    page.keyboard.press("Escape")
