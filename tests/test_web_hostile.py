"""An attacker's release notes in a real browser: nothing in them may act on the page.

The hostile corpus (tests/hostile_corpus.py) is ingested for real and served by the real app; Chromium asks
questions that quote every hostile document, while a listener on 127.0.0.1 counts the requests its beacons
would make.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import hostile_corpus
import pytest
from netutil import free_port

from assistant.knowledge_base import KnowledgeBase
from assistant.runtime.settings import Settings
from assistant.text.untrusted import safe_version
from ingest import sync
from interfaces.web import TITLE, build_ui, launch

CHROMIUM = Path("/usr/bin/chromium")
TIMEOUT_MS = 30_000

pytestmark = pytest.mark.slow
if not CHROMIUM.exists():
    pytest.skip("needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")


class Listener(ThreadingHTTPServer):
    """Records every request a beacon makes; answers 200 so nothing retries."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        listener = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                listener.hits.append(self.path)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_POST = do_GET  # noqa: N815

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(("127.0.0.1", free_port()), Handler)


@pytest.fixture(scope="module")
def listener() -> Iterator[Listener]:
    server = Listener()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()


@pytest.fixture(scope="module")
def hostile(
    tmp_path_factory: pytest.TempPathFactory, embedder, listener: Listener, index_fields
) -> tuple[KnowledgeBase, Settings]:
    root = tmp_path_factory.mktemp("hostile")
    beacon = f"http://127.0.0.1:{listener.server_address[1]}/beacon"
    hostile_corpus.write(root / "corpus", beacon)
    settings = Settings(corpus_dir=root / "corpus", data_dir=root / "data", **index_fields("hostile-web"))
    report = sync(settings, progress=False, embedder=embedder)
    assert report.errors == [] and report.files == 3  # hostile metadata is dropped, the documents are indexed
    return KnowledgeBase.open(settings, embedder=embedder), settings


@pytest.fixture(scope="module")
def page(hostile: tuple[KnowledgeBase, Settings]):
    kb, settings = hostile
    demo = launch(build_ui(kb, settings), settings, port=free_port(), block=False)
    requests: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--headless"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(TIMEOUT_MS)
        page.on("request", lambda r: requests.append(r.url))
        page.goto(demo.local_url)
        page.locator("#reldocs-question textarea").wait_for()
        page.requests = requests  # type: ignore[attr-defined]
        yield page
        browser.close()
    demo.close()


def after_the_answers(page) -> None:
    """Returns once Playwright has reported every request the page started before now, rendering included.

    A request the page starts two animation frames from now (style and layout, and the loads they start, are done
    by then) is reported after all of those: the browser reports a page's requests in the order it starts them.
    No wait of a fixed length that a busy machine could outlast.
    """
    marker = "reldocs-after-the-answers"
    with page.expect_request(lambda request: marker in request.url):
        page.evaluate(
            "url => requestAnimationFrame(() => requestAnimationFrame(() => fetch(url).catch(() => null)))",
            f"{page.url.split('?')[0]}?{marker}",
        )


def test_hostile_documents_cannot_act_on_the_page(page, listener: Listener) -> None:
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    cited: set[str] = set()
    for i, question in enumerate(hostile_corpus.QUESTIONS, 1):
        box = page.locator("#reldocs-question textarea")
        box.fill(question)
        box.press("Enter")
        answer = page.locator("#reldocs-chat .bot-row .reldocs-answer, #reldocs-chat .bot-row .reldocs-refusal")
        sync_api.expect(answer).to_have_count(i)
        assert answer.nth(i - 1).locator(".reldocs-sources").count() == 1, f"{question!r} was not answered"
        cited.update(answer.nth(i - 1).locator(".reldocs-path").all_text_contents())
    after_the_answers(page)  # every request the answers could start has been reported
    assert {c.strip() for c in cited} == set(hostile_corpus.documents("x"))  # every hostile document quoted

    chat = page.locator("#reldocs-chat")
    contents = page.locator("#reldocs-chat .message-content")
    # No request left the page for the attacker's listener, and the listener saw none.
    beacon = f"127.0.0.1:{listener.server_address[1]}"
    assert [u for u in page.requests if beacon in u] == []
    assert listener.hits == []
    # No image, frame, script, style or form from content; no element that content positioned.
    for tag in ("img", "iframe", "script", "style", "object", "embed", "svg", "form", "input", "video", "audio"):
        assert contents.locator(tag).count() == 0, tag
    fixed = contents.evaluate_all(
        "els => els.flatMap(e => [e, ...e.querySelectorAll('*')])"
        ".filter(e => ['fixed', 'sticky', 'absolute'].includes(getComputedStyle(e).position)).length"
    )
    assert fixed == 0
    # Links: http(s) sources or the answer's own [n] anchors; none to the attacker's targets.
    hrefs = chat.locator(".message-content a").evaluate_all("els => els.map(e => e.getAttribute('href'))")
    assert hrefs and all(h.startswith(("https://", "http://", "#reldocs-")) for h in hrefs), hrefs
    assert not [h for h in hrefs if "evil.example" in h or "javascript" in h.lower()]
    # No script text shown as prose; the page is as the app made it.
    text = chat.inner_text()
    assert "PWNED" not in text and "document.title" not in text and "background: red" not in text
    assert page.title() == TITLE
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == background
    # Entities decoded once: the docs' &lt;tensor&gt; reads as <tensor>.
    assert "<tensor>" in text or "&lt;tensor&gt;" not in text


def test_versions_from_hostile_metadata_are_not_shown(page) -> None:
    header = page.locator(".reldocs-versions")
    assert header.locator("img").count() == 0 and "<img" not in header.inner_text()
    page.locator("#reldocs-version input").click()
    options = [o.replace("✓", "").strip() for o in page.get_by_role("option").all_inner_texts()]
    page.keyboard.press("Escape")
    assert options[0] == "All versions"
    assert all(safe_version(o) for o in options[1:]), options  # the `<img …>` version was dropped at ingest
