"""LLM answers carry only what the passages carry: links they do not hold are plain text on every interface, and a
sentence stating what its passage does not makes the answer fall back to the quoted one, with a notice."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from llm_cli import ask_json
from openai_stub import OpenAIStub, prompt_text

from assistant.answer.llm import UNSUPPORTED, LLMAnswerer
from assistant.knowledge_base import KnowledgeBase
from assistant.model.records import Answer, Passage
from assistant.runtime.settings import Settings
from assistant.understand.query import build_query
from interfaces import web_render
from interfaces.slack import mrkdwn

CUDA_QUESTION = "What is the minimum CUDA version to build PyTorch 2.12 from source?"
FRENCH_QUESTION = "Quelle version minimale de CUDA faut-il pour compiler PyTorch 2.12 ?"
EVIL = "https://evil.example/pwn"
_PASSAGE = re.compile(r'<passage n="(\d+)"[^>]*>\n(.*?)\n</passage>', re.DOTALL)


@pytest.fixture(autouse=True)
def dummy_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def fake(*replies: str) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage(content=r) for r in replies]))


def cuda_passage(request: dict[str, Any]) -> int:
    """The number of the prompt's passage that states the CUDA minimum."""
    return next(int(n) for n, body in _PASSAGE.findall(prompt_text(request)) if "CUDA 12.6" in body)


def linking_reply(request: dict[str, Any]) -> str:
    """A faithful answer with a link planted by an injected instruction."""
    n = cuda_passage(request)
    return f"PyTorch 2.12 needs CUDA 12.6 or newer to build from source; see [the official guide]({EVIL}) [{n}]."


def false_reply(request: dict[str, Any]) -> str:
    """A wrong version under a real citation, then a true sentence, written word by word."""
    return f"PyTorch 2.12 needs CUDA 9.0 [{cuda_passage(request)}]. It also needs a C++20 compiler."


def cuda(kb: KnowledgeBase, question: str = CUDA_QUESTION) -> tuple[Any, list[Passage], int]:
    """The question, the passages the knowledge base hands an answerer, and the number of the CUDA one."""
    query = build_query(question, kb.versions())
    passages = kb.retriever.search(query, 8)
    return query, passages, next(i for i, p in enumerate(passages, 1) if "CUDA 12.6" in p.chunk.text)


def llm_kb(settings: Settings, embedder: Any, stub_url: str, monkeypatch: pytest.MonkeyPatch) -> KnowledgeBase:
    monkeypatch.setenv("OPENAI_BASE_URL", stub_url)
    return KnowledgeBase.open(settings.model_copy(update={"llm": "openai:stub-model"}), embedder=embedder)


def shown_everywhere(answer: Answer) -> tuple[str, str]:
    """The answer as Slack (message text and blocks) and the web chat show it."""
    slack = mrkdwn.answer_text(answer) + json.dumps(mrkdwn.answer_blocks(answer), ensure_ascii=False)
    return slack, web_render.answer_message(answer)


def test_injected_link_is_plain_text_in_slack_web_and_json(settings, embedder, kb, monkeypatch, capsys) -> None:
    with OpenAIStub(linking_reply) as stub:
        answer = llm_kb(settings, embedder, stub.base_url, monkeypatch).ask(CUDA_QUESTION)
        data, _ = ask_json(settings, stub.base_url, CUDA_QUESTION, monkeypatch, capsys)
    assert answer.mode == "llm" and answer.notice is None  # the answer stands, only the link went
    assert answer.text == "PyTorch 2.12 needs CUDA 12.6 or newer to build from source; see the official guide [1]."
    slack, web = shown_everywhere(answer)
    assert "the official guide" in slack and "<https://evil.example" not in slack and "evil.example" not in slack
    assert '<a href="https://evil.example' not in web and "evil.example" not in web
    assert data["mode"] == "llm" and "the official guide [1]" in data["answer"]
    assert "](" not in data["answer"] and "evil.example" not in json.dumps(data)


def test_link_to_a_url_of_the_cited_passage_stays_a_link(kb: KnowledgeBase) -> None:
    query, passages, n = cuda(kb)
    url = passages[n - 1].chunk.url
    assert url.startswith("https://")
    reply = f"PyTorch 2.12 needs CUDA 12.6 or newer to build from source, as [the release notes]({url}) say [{n}]."
    answer = list(LLMAnswerer(fake(reply), fallback=kb.extractive).stream(query, passages))[-1]
    assert answer.mode == "llm" and f"[the release notes]({url})" in answer.text
    assert f"<{url}|the release notes>" in mrkdwn.answer_text(answer)


def test_false_number_under_a_citation_falls_back_with_a_notice(kb: KnowledgeBase) -> None:
    query, passages, n = cuda(kb)
    model = fake(f"PyTorch 2.12 needs CUDA 9.0 [{n}].")
    answer = list(LLMAnswerer(model, fallback=kb.extractive).stream(query, passages))[-1]
    assert answer.final and answer.mode == "extractive" and answer.notice == UNSUPPORTED["en"]
    assert "not supported by the passages" in answer.notice
    assert answer.text == list(kb.extractive.stream(query, passages))[-1].text  # the quoted answer
    assert "9.0" not in answer.text and "12.6" in answer.text
    slack, web = shown_everywhere(answer)
    assert "not supported by the passages" in slack and "not supported by the passages" in web


def test_faithful_paraphrase_stays_the_models_answer(kb: KnowledgeBase) -> None:
    query, passages, n = cuda(kb)
    reply = f"Source builds of PyTorch 2.12 need CUDA 12.6 or newer, with `CUDA_HOME` pointing at it [{n}]."
    answer = list(LLMAnswerer(fake(reply), fallback=kb.extractive).stream(query, passages))[-1]
    assert answer.mode == "llm" and answer.notice is None and answer.text.endswith("pointing at it [1].")


def test_french_answer_with_a_false_number_falls_back_with_a_french_notice(kb: KnowledgeBase) -> None:
    query, passages, n = cuda(kb, FRENCH_QUESTION)
    good = f"Il faut CUDA 12.6 ou plus récent pour compiler PyTorch 2.12 depuis les sources [{n}]."
    kept = list(LLMAnswerer(fake(good), fallback=kb.extractive).stream(query, passages))[-1]
    assert kept.mode == "llm" and kept.notice is None
    bad = f"Il faut CUDA 9.0 pour compiler PyTorch 2.12 [{n}]."
    answer = list(LLMAnswerer(fake(bad), fallback=kb.extractive).stream(query, passages))[-1]
    assert answer.mode == "extractive" and answer.notice == UNSUPPORTED["fr"]


def test_streamed_false_number_ends_in_the_quoted_answer_with_a_notice(settings, embedder, kb, monkeypatch) -> None:
    with OpenAIStub(false_reply) as stub:
        drafts = list(llm_kb(settings, embedder, stub.base_url, monkeypatch).stream(CUDA_QUESTION))
    final = drafts[-1]
    assert final.final and final.mode == "extractive" and final.notice == UNSUPPORTED["en"]
    assert "12.6" in final.text and final.citations
    # The false figure was never on show, not even in a draft before its sentence ended.
    assert not any("9.0" in d.text for d in drafts)
    assert [d.final for d in drafts] == [False] * (len(drafts) - 1) + [True]


def test_streamed_answer_is_checked_before_its_final_form(kb: KnowledgeBase) -> None:
    query, passages, n = cuda(kb)
    model = fake(f"Building PyTorch 2.12 from source needs CUDA 12.6 [{n}]. Older CUDA such as 11.8 still works [{n}].")
    drafts = list(LLMAnswerer(model, fallback=kb.extractive).stream(query, passages))
    llm_drafts = [d for d in drafts if d.mode == "llm"]
    assert llm_drafts and all("11.8" not in d.text for d in llm_drafts)  # the true sentence streamed, not the other
    assert any(d.text.startswith("Building PyTorch 2.12 from source needs CUDA 12.6 [1].") for d in llm_drafts)
    assert drafts[-1].mode == "extractive" and drafts[-1].notice == UNSUPPORTED["en"]
