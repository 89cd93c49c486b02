"""The upgrade plan and its chat answers over the real PyTorch 2.7–2.12 docs in ../shared/corpus: every breaking
change of the 2.12 migration guide and every entry of the 2.12 notes' backwards-incompatible and deprecation
sections, each cited (skipped where ../shared is absent)."""

from __future__ import annotations

import json
import re

import pytest

from assistant.knowledge_base import KnowledgeBase
from interfaces.upgrade_render import plan_json
from tests.conftest import SHARED_CORPUS

pytestmark = pytest.mark.slow
NOTES = SHARED_CORPUS / "pytorch" / "2.12.0" / "release-notes.md"
GUIDE = SHARED_CORPUS / "pytorch" / "2.12.0" / "migration-guide.txt"


def words(text: str) -> str:
    """Text to compare by: no Markdown links, PR numbers, code marks or case."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"\((?:#\d+(?:,\s*)?)+\)|[`*]", "", text)
    return " ".join(text.lower().split()).rstrip(".")


def section_items(path, *titles: str) -> list[str]:
    """The top-level list items under the `# Title` sections of a Markdown file, read apart from reldocs."""
    items, inside = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            inside = line[2:].strip() in titles
        elif inside and line.startswith("- "):
            items.append(words(line[2:]))
    return items


def test_the_plan_lists_every_breaking_change_and_deprecation_each_cited(shared_kb: KnowledgeBase) -> None:
    plan = json.loads(plan_json(shared_kb.plan("2.11", "2.12", product="PyTorch")))
    assert plan["versions"] == ["2.12.0"]
    guide = [c for c in plan["changes"] if c["citation"]["kind"] == "migration-guide"]
    assert len(guide) == 7 and all(c["kind"] == "breaking" for c in guide)
    issues = re.findall(r"●Issue #(\d+)", GUIDE.read_text(encoding="utf-8"))
    assert len(issues) == 7
    quoted = [words(c["citation"]["quote"]) for c in plan["changes"]] + [
        words(a["quote"]) for c in plan["changes"] for a in c["also"]
    ]
    expected = section_items(NOTES, "Backwards Incompatible Changes", "Deprecations")
    assert len(expected) >= 12
    missing = [
        e for e in expected if not any(q[:40] and (e.startswith(q[:40]) or q.startswith(e[:40])) for q in quoted)
    ]
    assert missing == []
    for c in plan["changes"]:
        assert c["citation"]["source"].startswith("pytorch/2.12.0/") and c["citation"]["quote"]
    assert all(c["replacement"] or c["fix"] for c in guide)  # each of the guide's 7 with its fix


@pytest.mark.parametrize(
    "question",
    ["What breaks if I upgrade from 2.11 to 2.12?", "Quels sont les changements incompatibles de PyTorch 2.12 ?"],
)
def test_asking_what_breaks_answers_with_all_seven_breaking_changes(shared_kb: KnowledgeBase, question: str) -> None:
    answer = shared_kb.ask(question)
    breaking = [line for line in answer.text.splitlines() if "[breaking]" in line]
    assert len(breaking) == 7 and all(re.search(r"\[\d+\]$", line) for line in breaking)
    cited = {c.n: c for c in answer.citations}
    for line in breaking:
        n = int(re.search(r"\[(\d+)\]$", line).group(1))
        assert cited[n].version == "2.12.0" and cited[n].kind == "migration-guide"
    for topic in ("SVE", "CUDA 12.6", "C++20", "torch.distributed.nn.functional", "torchrun", "MPS", "max_autotune"):
        assert topic in "\n".join(breaking), topic
    # ... each with its fix: what replaces it, or what the guide says to do
    assert all(re.search(r"\((?:use instead|fix|à utiliser|correctif) ?: .+\) \[\d+\]$", line) for line in breaking)
    assert "max_autotune_defer_layout_freezing" in "\n".join(breaking)
