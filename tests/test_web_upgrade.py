"""The web UI's Upgrade tab: the plan as escaped HTML with the code it hits, and its checklist file, over the
shipped corpus's index (the browser flow is in test_web_browser.py). On the fake embedder: a plan and a scan read
the indexed chunks, never their vectors."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from unittest import mock

import pytest

from assistant.knowledge_base import KnowledgeBase
from assistant.model.records import Citation
from assistant.upgrade.plan import PlannedChange, UpgradePlan
from assistant.upgrade.scan import Finding
from interfaces.web_upgrade import _work, run_upgrade, upgrade_html

CODE = """import torch
from torch.distributed.nn import functional as F

F.all_reduce(t)
"""


def test_pasted_code_is_scanned_and_the_checklist_written(fake_kb: KnowledgeBase) -> None:
    html, checklist = run_upgrade(fake_kb, "PyTorch", "2.11", "2.12", CODE, None)
    assert "PyTorch 2.11 → 2.12: 7 changes in 1 release" in html
    assert "<details><summary>Source</summary>" in html and 'data-kind="breaking"' in html
    assert "pasted.py:4:1" in html  # `F.all_reduce` through the aliased import
    assert checklist is not None and Path(checklist).read_text(encoding="utf-8").count("- [ ] ") == 7
    # Under the process's one work folder, removed at exit; the pasted code is not kept.
    assert Path(checklist).parent.parent == Path(_work().name)
    assert [p.name for p in Path(checklist).parent.iterdir()] == ["upgrade-checklist.md"]


def test_bad_requests_are_one_line_messages_and_leave_nothing(fake_kb: KnowledgeBase) -> None:
    before = set(Path(_work().name).iterdir())
    assert run_upgrade(fake_kb, "PyTorch", "2.12", "2.11", CODE, None)[1] is None
    assert "not before" in run_upgrade(fake_kb, "PyTorch", "2.12", "2.11", "", None)[0]
    assert "no product" in run_upgrade(fake_kb, "nope", "1.0", "2.0", CODE, None)[0]
    assert "Pick the version" in run_upgrade(fake_kb, "PyTorch", "", "2.12", "", None)[0]
    # a failure nobody foresaw is the server's to show
    with mock.patch.object(fake_kb, "scan", side_effect=RuntimeError("no more processes")), pytest.raises(RuntimeError):
        run_upgrade(fake_kb, "PyTorch", "2.11", "2.12", CODE, None)
    assert set(Path(_work().name).iterdir()) == before  # neither the pasted code nor a folder stays


def test_pasted_code_with_a_lone_surrogate_is_still_scanned(fake_kb: KnowledgeBase) -> None:
    """JSON can carry a lone surrogate, which no UTF-8 file can: the event used to fail with a traceback."""
    html, checklist = run_upgrade(fake_kb, "PyTorch", "2.11", "2.12", CODE + 'x = "\ud800"\n', None)
    assert "pasted.py:4:1" in html and checklist is not None


def test_doc_text_and_code_are_escaped() -> None:
    cite = Citation(1, "<b>T</b>", "2.0", "release-notes", "S", "p/2.0/n.md", "javascript:alert(1)", "<img src=x>")
    change = PlannedChange(
        "c1", "2.0", "removed", "<script>x</script>", ("a.b",), "<i>", "", False, -1, (), "", (cite,)
    )
    plan = UpgradePlan("P<", "1.0", "2.0", ("2.0",), (change,))
    hit = Finding("f<.py", 1, 1, "a.b() <svg onload=x>", "a.b", "c1", True)
    html = upgrade_html(plan, [hit])
    assert "<script>" not in html and "<img" not in html and "<svg" not in html and "<i>" not in html
    assert "javascript:" not in html  # an unsafe URL is not linked
    assert "&lt;script&gt;" in html and "f&lt;.py:1:1" in html


def test_code_in_a_change_shows_as_code_and_its_links_stay_text() -> None:
    cite = Citation(1, "T", "2.0", "release-notes", "S", "p/2.0/n.md", "", "q")
    change = PlannedChange(
        "c1",
        "2.0",
        "removed",
        "`a.b` is removed: see [the docs](javascript:alert(1)) <b>now</b>",
        ("a.b",),
        "",
        "",
        False,
        -1,
        (),
        "Use `a.c(x=1)` instead",
        (cite,),
    )
    html = upgrade_html(UpgradePlan("P", "1.0", "2.0", ("2.0",), (change,)))
    assert "<code>a.b</code> is removed" in html and "<em>Fix:</em> Use <code>a.c(x=1)</code> instead" in html
    assert '<a href="javascript' not in html and "&lt;b&gt;now&lt;/b&gt;" in html
    # Only code spans: a bare `__init__` keeps its underscores, and an entity stays text (no bidi override)
    change = replace(change, summary="`X.__init__` and X.__init__ of a&#x202E;gnp.exe")
    html = upgrade_html(UpgradePlan("P", "1.0", "2.0", ("2.0",), (change,)))
    assert "<code>X.__init__</code> and X.__init__ of a&amp;#x202E;gnp.exe" in html and "\u202e" not in html
