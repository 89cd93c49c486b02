"""`python app.py upgrade` as users run it: a real index over a small product's release notes, the user's code
scanned, every output format, and exit codes that mean something (0 nothing hit, 1 hit, 2 bad usage)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml
from chroma_server import index_env
from sarif_pydantic import Sarif

from assistant.embed.embedder import Embedder
from assistant.runtime.settings import Settings
from ingest import sync

ROOT = Path(__file__).resolve().parents[1]

NOTES = {
    "1.1.0": """---
title: Acme 1.1 release notes
product: Acme
version: 1.1.0
kind: release-notes
url: https://example.org/acme/1.1
---
# Acme 1.1

## Deprecations

- `acme.old_func()` is deprecated; use `acme.new_func()` instead.

```python
import acme
```

## New features

- Added `acme.fast()`.
""",
    "2.0.0": """---
title: Acme 2.0 release notes
product: Acme
version: 2.0.0
kind: release-notes
url: https://example.org/acme/2.0
---
# Acme 2.0

## Backwards incompatible changes

- Removed `acme.old_func()`; use `acme.new_func()` instead.
- The default of the `strict` argument of `acme.export()` changed to `False`.
- The `verbose` parameter of `acme.io.Loader` was removed.
""",
}

CODE = """import acme
from acme import old_func
from acme.io import Loader

old_func()
acme.export(model)
acme.export(model, strict=True)
Loader("x", verbose=True)
Loader("y")
"""


@pytest.fixture(scope="module")
def acme(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder, index_fields) -> Settings:
    corpus = tmp_path_factory.mktemp("acme-corpus")
    for version, text in NOTES.items():
        (corpus / "acme" / version).mkdir(parents=True)
        (corpus / "acme" / version / "release-notes.md").write_text(text, encoding="utf-8")
    settings = Settings(corpus_dir=corpus, data_dir=tmp_path_factory.mktemp("acme-data"), **index_fields("acme"))
    sync(settings, progress=False, embedder=embedder)
    return settings


def upgrade(settings: Settings, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "RELDOCS_CORPUS_DIR": str(settings.corpus_dir), "RELDOCS_DATA_DIR": str(settings.data_dir)}
    env |= index_env(settings)
    return subprocess.run(
        [sys.executable, "app.py", "upgrade", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )


def test_json_plan_and_findings(acme: Settings, tmp_path: Path) -> None:
    code = tmp_path / "app.py"
    code.write_text(CODE, encoding="utf-8")
    (tmp_path / "broken.py").write_text("def (:\n", encoding="utf-8")
    out = upgrade(acme, "--from", "1.0", "--to", "2.0", "--json", str(tmp_path))
    assert out.returncode == 1, out.stderr  # the code is hit
    got = json.loads(out.stdout)
    assert set(got) == {"product", "from", "to", "versions", "sections", "changes", "findings", "errors"} | {
        "docs",
        "code_releases",
        "evidence_counts",
        "notes",
        "timings_ms",
    }
    assert got["code_releases"] == [] and got["notes"]  # the registry cannot be reached here: said, docs only
    assert got["sections"][0]["kind"] == "hits" and got["changes"][0]["hits"] >= 1  # the code's hits first
    assert (got["product"], got["from"], got["to"], got["versions"]) == ("Acme", "1.0", "2.0", ["1.1.0", "2.0.0"])
    removed = next(c for c in got["changes"] if "old_func" in c["summary"])
    assert removed["kind"] == "removed" and removed["version"] == "2.0.0"
    assert removed["replacement"] == "acme.new_func" and "acme.old_func" in removed["symbols"]
    assert removed["citation"]["source"] == "acme/2.0.0/release-notes.md"
    assert removed["citation"]["url"] == "https://example.org/acme/2.0"
    assert [a["version"] for a in removed["also"]] == ["1.1.0"]  # deprecated first: one line, both cited
    hits = {(f["line"], f["symbol"], f["change"]) for f in got["findings"]}
    ids = {c["id"]: c for c in got["changes"]}
    assert {(line, symbol) for line, symbol, _ in hits} >= {
        (2, "acme.old_func"),  # the import
        (5, "acme.old_func"),  # the call
        (6, "acme.export(strict)"),  # relies on the changed default
        (8, "acme.io.Loader(verbose)"),  # passes the removed parameter
    }
    assert (7, "acme.export(strict)") not in {(line, s) for line, s, _ in hits}  # passes it: not hit
    assert (9, "acme.io.Loader(verbose)") not in {(line, s) for line, s, _ in hits}
    assert all(change in ids for _, _, change in hits)
    assert [e["file"].endswith("broken.py") for e in got["errors"]] == [True]


def test_text_markdown_and_sarif(acme: Settings, tmp_path: Path) -> None:
    code = tmp_path / "app.py"
    code.write_text(CODE, encoding="utf-8")
    text = upgrade(acme, "--from", "1.0", "--to", "2.0", str(code))
    assert text.returncode == 1 and "== Your code" in text.stdout and "use instead: acme.new_func" in text.stdout
    assert text.stdout.splitlines()[2].startswith("== Your code (")  # first, under the one-line head
    assert "acme.fast" not in text.stdout and "--include-new" in text.stdout  # new features only when asked
    every = upgrade(acme, "--from", "1.0", "--to", "2.0", "--include-new", str(code))
    assert "== New features" in every.stdout and "Added `acme.fast()`" in every.stdout
    assert f"{code}" in text.stdout and "5:1" in text.stdout
    md = upgrade(acme, "--from", "1.0", "--to", "2.0", "--format", "markdown", str(code))
    assert md.returncode == 1 and "- [ ] **removed**" in md.stdout
    assert "(https://example.org/acme/2.0)" in md.stdout
    sarif = json.loads(upgrade(acme, "--from", "1.0", "--to", "2.0", "--format", "sarif", str(code)).stdout)
    assert_valid_sarif(sarif)
    assert sarif["version"] == "2.1.0" and sarif["$schema"].endswith("sarif-2.1.0.json")
    (run,) = sarif["runs"]
    rule_ids = {r["id"] for r in run["tool"]["driver"]["rules"]}
    assert run["results"] and all(r["ruleId"] in rule_ids for r in run["results"])
    location = run["results"][0]["locations"][0]["physicalLocation"]
    assert location["region"]["startLine"] >= 1 and location["region"]["startColumn"] >= 1
    assert location["artifactLocation"] == {"uri": code.as_uri()}  # an absolute path: a file:// URI


def test_sarif_names_relative_paths_from_the_source_root(acme: Settings, tmp_path: Path) -> None:
    src = tmp_path / "my src"
    src.mkdir()
    (src / "app.py").write_text(CODE, encoding="utf-8")
    (src / "broken.py").write_text("def (:\n", encoding="utf-8")
    env = {**os.environ, "RELDOCS_CORPUS_DIR": str(acme.corpus_dir), "RELDOCS_DATA_DIR": str(acme.data_dir)}
    out = subprocess.run(
        [
            sys.executable,
            str(ROOT / "app.py"),
            "upgrade",
            "--from",
            "1.0",
            "--to",
            "2.0",
            "--format",
            "sarif",
            "my src",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 1, out.stderr
    sarif = json.loads(out.stdout)
    assert_valid_sarif(sarif)
    (run,) = sarif["runs"]
    # Relative to %SRCROOT%, percent-encoded, so a code-scanning service resolves it against the repository.
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.as_uri() + "/"
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
    assert uris == {"my%20src/app.py"}
    (failed,) = run["invocations"][0]["toolExecutionNotifications"]
    assert failed["locations"][0]["physicalLocation"]["artifactLocation"] == {
        "uri": "my%20src/broken.py",
        "uriBaseId": "%SRCROOT%",
    }


def assert_valid_sarif(sarif: dict) -> None:
    """Valid against the OASIS SARIF 2.1.0 schema (formats checked too), and the object model's types."""
    schema = json.loads((ROOT / "tests" / "data" / "sarif-2.1.0.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    problems = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(sarif)]
    assert problems == []
    Sarif.model_validate(sarif)


def test_exit_codes(acme: Settings, tmp_path: Path) -> None:
    clean = tmp_path / "clean.py"
    clean.write_text("import acme\nacme.new_func()\n", encoding="utf-8")
    assert upgrade(acme, "--from", "1.0", "--to", "2.0", str(clean)).returncode == 0
    assert upgrade(acme, "--from", "1.0", "--to", "2.0").returncode == 0  # a plan alone hits nothing
    for args in (["--from", "2.0", "--to", "1.0"], ["--from", "1.0", "--to", "2.0", "--product", "nope"]):
        out = upgrade(acme, *args)
        assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    missing = upgrade(acme, "--from", "1.0", "--to", "2.0", str(tmp_path / "nope.py"))
    assert missing.returncode == 2 and "Traceback" not in missing.stderr


def test_pre_commit_hook_runs_the_upgrade_command() -> None:
    (hook,) = [
        h
        for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
        if h["id"] == "reldocs-upgrade"
    ]
    assert hook["entry"].split()[:2] == ["reldocs", "upgrade"] and hook["language"] == "python"
    assert {"python", "jupyter"} <= set(hook["types_or"])
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'reldocs = "app:run"' in pyproject  # the console script the hook's entry names


def test_asking_what_breaks_between_two_versions_answers_from_the_plan(acme: Settings, embedder: Embedder) -> None:
    from assistant.knowledge_base import KnowledgeBase

    kb = KnowledgeBase.open(acme, embedder=embedder)
    answer = kb.ask("What breaks if I go from 1.0 to 2.0?")
    assert answer.found and answer.text.startswith("Upgrading Acme 1.0 → 2.0 (1.1.0, 2.0.0): 4 changes")
    first = answer.text.splitlines()[1]
    assert first.startswith("- 2.0.0 [breaking]") and first.endswith("[1]")  # what breaks comes first
    assert "(use instead: `acme.new_func`)" in answer.text
    assert [c.version for c in answer.citations] == ["2.0.0", "2.0.0", "2.0.0", "1.1.0"]  # new features last
    french = kb.ask("Qu'est-ce qui casse si je passe de 1.0 à 2.0 ?")
    assert french.text.startswith("Passer de Acme 1.0 à 2.0") and french.language == "fr"
    assert not kb.ask("Does acme.new_func() accept a timeout?").text.startswith("Upgrading")


def test_a_baseline_silences_the_findings_it_holds_and_no_others(acme: Settings, tmp_path: Path) -> None:
    code = tmp_path / "app.py"
    code.write_text(CODE, encoding="utf-8")
    first = upgrade(acme, "--from", "1.0", "--to", "2.0", "--json", str(code))
    assert first.returncode == 1 and json.loads(first.stdout)["findings"]
    baseline = tmp_path / "baseline.json"
    baseline.write_text(first.stdout, encoding="utf-8")
    code.write_text("\n" + CODE, encoding="utf-8")  # every line moved down one: still the baseline's
    again = upgrade(acme, "--from", "1.0", "--to", "2.0", "--json", "--baseline", str(baseline), str(code))
    assert again.returncode == 0 and json.loads(again.stdout)["findings"] == []
    code.write_text(CODE + "old_func(1)\n", encoding="utf-8")  # a new use of a change the baseline holds
    new = upgrade(acme, "--from", "1.0", "--to", "2.0", "--json", "--baseline", str(baseline), str(code))
    assert new.returncode == 1 and [f["code"] for f in json.loads(new.stdout)["findings"]] == ["old_func(1)"]
    baseline.write_text("{not json", encoding="utf-8")
    bad = upgrade(acme, "--from", "1.0", "--to", "2.0", "--baseline", str(baseline), str(code))
    assert bad.returncode == 2 and "--baseline" in bad.stderr and "Traceback" not in bad.stderr
