"""Every regular expression reldocs applies to untrusted text runs in linear time (issue 36).

Docs, questions and scanned code are written by others: one pattern that backtracks on a crafted 40 KB heading
stalls an ingest or a worker for minutes. `regex_recorder` (imported by the conftest before any project module)
records each pattern the project's code compiles: module-level ones, inline `re.search(r"…")` calls and patterns
built at run time. The fuzz test runs last, so it sees what the whole suite compiled; it also imports every
module and runs a small workload of its own (ingest, questions, plans, a scan, every renderer) with a stand-in
embedder, so it covers the runtime-built patterns when run alone. A `re` call in the source that nothing ran is
taken from the source when its pattern is a literal, and fails the test when it is not.

Each pattern is timed the ways the source applies it (a pattern only ever `fullmatch`ed need not survive
`search`; one handed on to other code gets every way), on adversarial inputs of up to 100 KB built from the
pattern itself (`regex_fuzz`), and must stay under 100 ms of CPU time on each.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib
import json
import pkgutil
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import regex_recorder
from hostile_corpus import write as write_hostile
from regex_fuzz import BUDGET_SECONDS, OPS, describe, fuzz

from assistant.text.untrusted import safe_version

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
MIN_PATTERNS = 200  # the workload alone reaches over 250: fewer means the recording broke
_RE_CALLS = frozenset({"compile", "search", "match", "fullmatch", "findall", "finditer", "sub", "subn", "split"})
_FLAGS_AT = {"compile": 1, "sub": 4, "subn": 4, "split": 3}  # position of `flags` when not 2


# --- safe_version: parsed, not backtracked ---------------------------------------------------------------------

REAL_VERSIONS = (
    "2.12.0",
    "2.0.0rc1",
    "1!2.0.post1",
    "1.0+local.7",
    "1.2.3-alpha.1+build.5",
    "2.0",
    "3",
    "2.0.0.dev3",
    "1.0.0-beta",
    "4.3_1",
    "2.2.0b1",
)


@pytest.mark.parametrize("n", [32, 64, 200])
def test_safe_version_answers_adversarial_strings_at_once(n: int) -> None:
    for text in ("1" + "a" * (n - 2) + "!", "1" + "a1" * (n // 2) + "!", "1" + ".1a" * (n // 3) + "-", "1" * n + "!"):
        started = time.thread_time()  # CPU time: a busy machine must not fail it
        assert safe_version(text) is None
        assert time.thread_time() - started < 0.010, text


@pytest.mark.parametrize("version", REAL_VERSIONS)
def test_safe_version_accepts_pep440_and_semver(version: str) -> None:
    assert safe_version(version) == version
    assert safe_version(f" v{version} ") == version


@pytest.mark.parametrize("text", ["", "v", "abc", "1..2", "1.0-", "1.0+", "1.0 beta", "1.0--rc", "!1", "1!", "<img>"])
def test_safe_version_still_refuses_what_is_no_version(text: str) -> None:
    assert safe_version(text) is None


def test_a_line_of_brackets_is_read_in_linear_time() -> None:
    """Not a pattern: link brackets are paired by a scan, which read on from every '[' of an unclosed run."""
    from assistant.text.words import strip_markup
    from ingest.markdown_links import check_links

    for text in ("[" * 100_000, "![" * 50_000, "[a](" * 25_000, "[" * 50_000 + "]" + "(" * 50_000):
        started = time.thread_time()
        assert check_links(text) == text
        strip_markup(text)
        assert time.thread_time() - started < 1.0, text[:10]


# --- the workload: what makes the project compile its runtime-built patterns --------------------------------------


class HashEmbedder:
    """Stands in for the model: words hashed into a small vector, so ingest and search run without it."""

    name = "regex-fuzz-hash"

    def encode(self, texts: list[str], *, batch_size: int = 32) -> np.ndarray:
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                out[i, hashlib.blake2b(word.encode(), digest_size=2).digest()[0] % 64] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)


CHANGELOG = """# Changelog

## [Unreleased]

- Nothing yet.

## [1.2.0] - 2024-05-01

### Removed

- `acme.old_api()` is removed; use `acme.new_api()` instead (#12).
- The `timeout` parameter of `acme.connect` now defaults to 30 seconds.

## v1.1.0 (June 4, 2023)

### Deprecated

* `acme.Widget.frob` is deprecated and will be removed in 1.2. Use :func:`acme.Widget.twiddle`.

Version 1.0.0 beta 1
--------------------

- First release, see [the guide](https://example.com/guide) and <https://example.com/x>.
"""

RST = """Release notes for acme 1.2
==========================

.. note::

   Read :ref:`the upgrade guide <upgrade>` and :class:`~acme.Widget` first.

Backwards incompatible changes
------------------------------

* ``acme.old_api`` was removed (:issue:`12`). Use ``acme.new_api``.
* The default of ``strict`` in :meth:`acme.Widget.check` changed from ``False`` to ``True``.

.. code-block:: python

   import acme as ac
   ac.new_api(strict=True)

+-----------+-----------+
| Old       | New       |
+===========+===========+
| old_api   | new_api   |
+-----------+-----------+
"""

HTML = """<html><head><title>acme 1.2 notes</title></head><body>
<h1>acme 1.2</h1><h2>Deprecations</h2>
<ul><li><code>acme.legacy()</code> is deprecated &amp; will be removed; use <a href="https://example.com/n">new</a>.</li>
<li>Python 3.8 support was dropped.</li></ul><script>alert(1)</script>
<table><tr><th>Old</th><th>New</th></tr><tr><td>legacy</td><td>modern</td></tr></table>
</body></html>
"""

MARKDOWN = """---
title: acme 1.2 migration guide
kind: migration-guide
---
# Migrating to acme 1.2

!!! warning "Breaking"
    `acme.old_api()` is gone.

=== "Python"

| Before | After |
|:-------|------:|
| `acme.old_api()` | `acme.new_api()` |

```python
from acme import new_api
new_api(strict=True)  # was old_api()
```

    indented code block

> Note: see [docs][1] and ![img](https://example.com/i.png).

[1]: https://example.com/docs "Docs"

1. Requires Python >= 3.10 or later; CUDA 12.6 or newer; drops support for macOS 12 and earlier.
2. `acme.Widget(color=...)` no longer accepts `None` — pass `"auto"`.
"""

FRENCH = """# Nouveautés d'acme 1.2

- L'optimiseur `acme.optim.Fast` prend désormais en charge `fused=True`.
- La fonction `acme.old_api()` est supprimée ; utilisez `acme.new_api()` à la place.
- Les en-têtes « X-Acme » ne sont plus envoyés.
"""

QUESTIONS = (
    "What is the minimum CUDA version to build PyTorch 2.12 from source?",
    "What breaks if I move to 2.12?",
    "Why does torchrun no longer use port 29500?",
    "How do I get max_autotune_defer_layout_freezing back?",
    "Quel optimiseur supporte fused=True ?",
    "Quelle est la meilleure recette de ratatouille ?",
    "What replaces acme.old_api() in acme 1.2?",
    'What does "strict" default to in acme.Widget.check since v1.2.0 and 1.1?',
    "Which version first added new_api, from 1.0 to 1.2?",
    "Is Python 3.8 still supported by acme >= 1.2 or later?",
    "Does read_csv accept squeeze in pandas 3.0?",
    "What replaces np.float_? {% raw %} `df.append(other)` MetaData(bind=engine)",
    "Which Django REST Framework setting changed in Django 5.0 vs 4.2.x?",
    "Les en-têtes X-Acme sont-ils toujours envoyés depuis la 1.2 ?",
    "what was deprecated in pydantic 2.0? what about GenericModel",
)

CODE = """import acme as ac
from acme import old_api, Widget
import numpy as np
%matplotlib inline
!pip install acme

x = ac.old_api()
w = Widget(color=None)
w.check()
y = np.float_(1)
"""


def _workload(tmp: Path) -> None:
    """Ingest a small mixed corpus, ask, plan, scan and render: every code path that builds patterns at run time."""
    from slack_bolt import App

    from assistant.knowledge_base import KnowledgeBase
    from assistant.runtime.settings import Settings
    from ingest import sync
    from ingest.chunking import chunk_document
    from ingest.entries import entries_of
    from ingest.loader import load_document
    from interfaces import inputs, mcp_server, sarif, terminal, upgrade_render, web, web_render, web_upgrade
    from interfaces.slack import listeners, mrkdwn

    corpus = tmp / "corpus"
    shutil.copytree(ROOT / "corpus", corpus)
    write_hostile(corpus, "http://127.0.0.1:9/beacon")
    docs = {
        "acme/1.2.0/CHANGELOG.md": CHANGELOG,
        "acme/1.2.0/release-notes.rst": RST,
        "acme/1.2.0/notes.html": HTML,
        "acme/1.2.0/migration-guide.md": MARKDOWN,
        "acme/1.2.0/release-news.fr.md": FRENCH,
    }
    for rel, text in docs.items():
        (corpus / rel).parent.mkdir(parents=True, exist_ok=True)
        (corpus / rel).write_text(text, encoding="utf-8")
    for rel in (  # one document of each kind and product from the shared corpora, where they are present
        "corpus/pytorch/2.11.0/release-notes.md",
        "corpus-more/pandas/3.0.0/release-notes.rst",
        "corpus-more/django/5.0.0/release-notes.txt",
        "corpus-more/pydantic/2.0.0/migration-guide.md",
        "corpus-more/sqlalchemy/2.0.0/whats-new.rst",
    ):
        source = SHARED / rel
        if source.is_file():
            dest = corpus / Path(rel).relative_to(Path(rel).parts[0])
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, dest)

    for path in sorted(p for p in corpus.rglob("*") if p.is_file()):  # in this process: sync reads in a worker
        chunk_document(load_document(path, corpus))
    embedder = HashEmbedder()
    settings = Settings(corpus_dir=corpus, data_dir=tmp / "data")
    sync(settings, progress=False, embedder=embedder)  # type: ignore[arg-type]
    kb = KnowledgeBase.open(settings, embedder=embedder)  # type: ignore[arg-type]
    answers = []
    for i, question in enumerate(QUESTIONS):
        answers.append(kb.ask(question, history=QUESTIONS[max(0, i - 1) : i]))
    answers.append(kb.ask("and in 2.11?", history=[QUESTIONS[0]], version="2.11"))
    answers.append(kb.ask("What was removed?", product="acme"))
    passages = kb.search("acme.old_api removed", k=5)
    for answer in answers:
        terminal.answer_text(answer)
        terminal.answer_json(answer)
        web_render.answer_message(answer)
        web_render.plain_answer(answer)
        web.answer_data(answer)
        mrkdwn.answer_blocks(answer, show_question=True)
        mrkdwn.answer_from_value(mrkdwn.feedback_value(answer))
    terminal.passages_text(passages)
    terminal.passages_json(passages)
    listeners.strip_mentions("<@U024BE7LH> what changed in *2.12*? <https://x.example|x>")
    mrkdwn.to_mrkdwn("**bold** [link](https://example.com) `code` ```block``` # Heading\n- item")
    for value in ("2.12", "v1.2.0", "<img>", "1" + "a" * 12 + "!"):
        with contextlib.suppress(Exception):  # a bad version is refused, which is all that is run for
            inputs.version(value)
    web.release_choices(kb.products())
    web.indexed_note(kb.products())
    code = tmp / "code"
    code.mkdir()
    (code / "m.py").write_text(CODE.replace("%matplotlib inline\n!pip install acme\n", ""), encoding="utf-8")
    cells = [{"cell_type": "code", "metadata": {}, "source": CODE, "outputs": [], "execution_count": None}]
    notebook = {"cells": cells, "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    (code / "n.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    for start, end, product in (("2.10", "2.12", "pytorch"), ("1.0", "1.2", "acme"), ("2.2", "3.0", "pandas")):
        try:
            plan = kb.plan(start, end, product=product)
        except Exception:  # a product the shared corpora did not bring
            continue
        report = kb.scan([code], plan)
        upgrade_render.plan_text(plan, report.findings, report.errors)
        upgrade_render.plan_markdown(plan, report.findings, report.errors)
        upgrade_render.plan_json(plan, report.findings, report.errors)
        sarif.plan_sarif(plan, report.findings, report.errors)
        web_upgrade.upgrade_html(plan, report.findings, report.errors)
        mcp_server.plan_result(kb, start, end, product)
    mcp_server.ask_result(kb, QUESTIONS[0])
    mcp_server.search_result(kb, "torchrun port")
    listeners.register(App(token="xoxb-fuzz", signing_secret="fuzz", token_verification_enabled=False), kb)
    entries_of("- Use this:\n\n  ```python\n  x = 1\n  ```\n- ~~~~\n  y\n  ~~~~\n")


# --- the fuzz test ---------------------------------------------------------------------------------------------

# How a pattern is applied decides what it must stand: `match`/`fullmatch` try one position, `search` every
# one, and the calls below search again after each match.
_METHOD_OPS = {
    "search": ("search",),
    "match": ("match",),
    "fullmatch": ("fullmatch",),
    **{m: ("findall",) for m in ("findall", "finditer", "sub", "subn", "split")},
}


@dataclass(frozen=True)
class Call:
    """A `re.<function>(pattern, …)` call in the source; `pattern`/`flags` are set when they are literals, `ops`
    are how the pattern is applied (every way when the compiled pattern is handed on)."""

    file: str
    first: int
    last: int
    pattern: str | bytes | None
    flags: int | None
    ops: tuple[str, ...]


def _flags(node: ast.expr | None) -> int | None:
    if node is None:
        return 0
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "re":
        value = getattr(re, node.attr, None)
        return int(value) if isinstance(value, int) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = _flags(node.left), _flags(node.right)
        return None if left is None or right is None else left | right
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    return None


def _is_re_call(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _RE_CALLS
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "re"
    )


def _module(file: str) -> str:
    return file.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def re_calls() -> list[Call]:
    """Every call of a `re` function in `assistant/`, `ingest/` and `interfaces/`, with how its pattern is used.

    A compiled pattern bound to a name is applied by the methods called on that name in its module and in the
    modules that import it (or its module); one used any other way, or not found used, gets every op.
    """
    trees = {
        str(path.relative_to(ROOT)): ast.parse(path.read_text(encoding="utf-8"))
        for package in regex_recorder.PROJECT_DIRS
        for path in sorted((ROOT / package).rglob("*.py"))
    }
    parents: dict[ast.AST, ast.AST] = {}
    for tree in trees.values():
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                parents[child] = node

    def method(node: ast.AST) -> str:
        parent = parents.get(node)
        return parent.attr if isinstance(parent, ast.Attribute) and parent.value is node else "*"

    # Per file: the methods called on each name, on each `x.attr` (with x's name), and what it imports.
    named: dict[str, dict[str, set[str]]] = {}
    attributes: dict[str, dict[str, list[tuple[str | None, str]]]] = {}
    imported: dict[str, list[ast.ImportFrom | ast.Import]] = {}
    for file, tree in trees.items():
        named[file], attributes[file], imported[file] = {}, {}, []
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom | ast.Import):
                imported[file].append(node)
            elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
                named[file].setdefault(node.id, set()).add(method(node))
            elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Store):
                owner = node.value.id if isinstance(node.value, ast.Name) else None
                attributes[file].setdefault(node.attr, []).append((owner, method(node)))

    def uses(file: str, name: str) -> set[str]:
        """The methods called on `name` (bound in `file`) wherever it is reachable; "*" for any other use."""
        found: set[str] = set()
        module = _module(file)
        package, _, leaf = module.rpartition(".")
        for other in trees:
            names = {name} if other == file else set()  # the name itself, or what it is imported as
            modules: set[str] = set()  # local names of `module`
            for node in imported[other]:
                for a in node.names:
                    if isinstance(node, ast.Import):
                        if a.name == module and a.asname:
                            modules.add(a.asname)
                    elif node.module == module and a.name == name:
                        names.add(a.asname or a.name)
                    elif node.module == package and a.name == leaf:
                        modules.add(a.asname or a.name)
            for n in names:
                found |= named[other].get(n, set())
            for owner, m in attributes[other].get(name, ()):
                if other == file or owner in modules:
                    found.add(m)
        return found or {"*"}

    def ops_of(file: str, call: ast.Call, fn: str) -> tuple[str, ...]:
        if fn != "compile":
            return _METHOD_OPS[fn]
        parent = parents.get(call)
        if isinstance(parent, ast.Attribute):  # re.compile(…).search(…)
            return _METHOD_OPS.get(parent.attr, OPS)
        if isinstance(parent, ast.Assign | ast.AnnAssign | ast.NamedExpr):
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            names = [
                t.id if isinstance(t, ast.Name) else t.attr for t in targets if isinstance(t, ast.Name | ast.Attribute)
            ]
            used = set().union(*(uses(file, n) for n in names)) if names else {"*"}
            if "*" not in used:
                return tuple(op for op in OPS if any(op in _METHOD_OPS.get(m, ()) for m in used)) or OPS
        return OPS

    calls = []
    for file, tree in trees.items():
        for node in ast.walk(tree):
            if not _is_re_call(node):
                continue
            assert isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            fn = node.func.attr
            kw = {k.arg: k.value for k in node.keywords}
            pattern_node = node.args[0] if node.args else kw.get("pattern")
            at = _FLAGS_AT.get(fn, 2)
            flags_node = node.args[at] if len(node.args) > at else kw.get("flags")
            pattern = pattern_node.value if isinstance(pattern_node, ast.Constant) else None
            calls.append(
                Call(
                    file,
                    node.lineno,
                    node.end_lineno or node.lineno,
                    pattern if isinstance(pattern, str | bytes) else None,
                    _flags(flags_node),
                    ops_of(file, node, fn),
                )
            )
    return calls


def _docs_sample() -> str:
    """Real docs text, the "ordinary input" every pattern also gets at size."""
    files = sorted((ROOT / "corpus").rglob("*.txt"))
    return "\n".join(f.read_text(encoding="utf-8") for f in files)[:20_000]


def collected_patterns() -> tuple[dict[tuple[str | bytes, int], str], dict[tuple[str | bytes, int], set[str]]]:
    """What to fuzz: each recorded pattern with its first site, plus the literal patterns of `re` calls nothing
    ran; and how each is applied. Fails naming any `re` call with a run-time pattern that nothing ran."""
    calls = re_calls()
    by_file: dict[str, list[Call]] = {}
    for call in calls:
        by_file.setdefault(call.file, []).append(call)
    patterns = dict(regex_recorder.PATTERNS)
    ops: dict[tuple[str | bytes, int], set[str]] = {}
    ran: set[Call] = set()
    for key, site in patterns.items():
        file, line = site.rsplit(":", 1)
        around = [c for c in by_file.get(file, ()) if c.first <= int(line) <= c.last]
        ran.update(around)
        innermost = min(around, key=lambda c: c.last - c.first, default=None)
        ops.setdefault(key, set()).update(innermost.ops if innermost else OPS)
    never_run = []
    for call in calls:
        if call.pattern is not None and call.flags is not None:
            key = (call.pattern, call.flags)
            if key not in patterns:  # not run here, but its pattern is in the source
                patterns[key] = f"{call.file}:{call.first} (from the source)"
            ops.setdefault(key, set()).update(call.ops)  # the same pattern may be applied elsewhere another way
        elif call not in ran:
            never_run.append(f"{call.file}:{call.first}")
    assert not never_run, f"re calls with a pattern built at run time that nothing ran; extend _workload: {never_run}"
    return patterns, ops


# Slow, though it loads no model: ~20 s of fuzzing on two cores, a third of the fast tier's minute. It imports every
# project module, runs its own workload and reads the literal patterns from the source, so in the slow tier it still
# fuzzes every pattern, not only those the slow tests compiled.
@pytest.mark.slow
def test_every_pattern_runs_in_linear_time(tmp_path: Path) -> None:
    assert regex_recorder.installed() and regex_recorder.CLEAN_START, (
        "regex_recorder must be imported by the conftest before any project module, or it misses their patterns"
    )
    for package in regex_recorder.PROJECT_DIRS:
        for module in pkgutil.walk_packages([str(ROOT / package)], f"{package}."):
            importlib.import_module(module.name)
    _workload(tmp_path)
    patterns, ops = collected_patterns()
    assert len(patterns) >= MIN_PATTERNS, f"only {len(patterns)} patterns recorded"

    keys = list(patterns)
    started = time.monotonic()
    results = fuzz(keys, [tuple(op for op in OPS if op in ops[k]) for k in keys], _docs_sample())
    took = time.monotonic() - started
    slow = [(r.get("seconds", 0.0), key, r) for key, r in zip(keys, results, strict=True) if not r or r.get("over")]
    lines = [
        f"{patterns[key]}: {describe(key[0])} (flags {key[1]}): "
        + (
            r.get("error")
            or ("hung" if r.get("hung") else f"{r['op']} of {r['shape']} at {r['size']:,} chars: {seconds:.3f}s")
            if r
            else "no result"
        )
        for seconds, key, r in sorted(slow, key=lambda s: -s[0])
    ]
    assert not lines, (
        f"{len(lines)} of {len(keys)} patterns take over {BUDGET_SECONDS * 1e3:.0f} ms on adversarial input "
        f"(fuzzed in {took:.0f}s):\n" + "\n".join(lines)
    )


test_every_pattern_runs_in_linear_time.runs_last = True  # type: ignore[attr-defined]  # see the conftest
