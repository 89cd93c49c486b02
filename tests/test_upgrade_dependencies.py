"""`upgrade --lock-diff` / `--requirements`: the packages that moved between two revisions, their docs fetched from a
local registry into the fetched-docs folder and indexed with a tiny corpus (fake embedder), each planned with the
code's hits first, in every format; the comment cap, `--offline`, exit statuses, and the CI workflow's command.

The made-up packages: `acme` (1.0 → 2.0: a removal the code hits, a deprecation), `Widget.Tools` (0.1 → 0.2: its
docs announce no change), `bare` (an archive without release docs), `gone` (removed), `fresh` (added), `same`
(unchanged: not listed).
"""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import fake_embedder as fake
import pytest
import yaml
from test_upgrade_cli import assert_valid_sarif

from assistant.runtime.settings import Settings
from assistant.upgrade.bumps import Bump, DependencyPlan, PackagePlan
from ingest.dependencies import Move, moves, prepare_upgrade, read_pins
from interfaces.dependency_render import report_markdown
from tests.fetch_server import FakeHosts, project_json, serve, tar_gz

ROOT = Path(__file__).resolve().parents[1]
ACME = b"""# Changelog

## 2.0 (2026-03-01)

- Removed `acme.old_func()`; use `acme.new_func()` instead.

## 1.1 (2026-02-01)

- `acme.legacy()` is deprecated; use `acme.modern()` instead.

## 1.0 (2026-01-01)

- First release.
"""
WIDGET = b"# History\n\n## 0.2\n\n- Thanks to our contributors.\n\n## 0.1\n\n- First release.\n"
OLD = "acme==1.0\nwidget_tools==0.1\nbare==1.0\ngone==3.0\nsame==1.0\n"
NEW = "acme==2.0\nWidget.Tools==0.2\nbare==2.0\nfresh==1.0\nsame==1.0\n"
CODE = "import acme\n\nacme.old_func()\nacme.legacy()\n"


def publish(hosts: FakeHosts, name: str, versions: tuple[str, ...], files: dict[str, bytes]) -> None:
    """`name` on the registry; its last version's sdist holds `files`."""
    canonical = re.sub(r"[-_.]+", "-", name).lower()
    archive = tar_gz(files, top=f"{canonical}-{versions[-1]}")
    url = f"/files/{canonical}-{versions[-1]}.tar.gz"
    hosts.route(url, archive)
    archives: dict = {v: None for v in versions[:-1]} | {versions[-1]: (url, archive)}
    hosts.route(f"/pypi/{canonical}/json", project_json(name, archives))


def _hosts() -> Iterator[FakeHosts]:
    for h in serve():
        publish(h, "acme", ("1.0", "1.1", "2.0"), {"CHANGES.md": ACME})
        publish(h, "Widget.Tools", ("0.1", "0.2"), {"HISTORY.md": WIDGET})
        publish(h, "bare", ("1.0", "2.0"), {"README.md": b"# Bare\n"})
        yield h


def _project(root: Path) -> Path:
    (root / "old").mkdir()
    (root / "old" / "requirements.txt").write_text(OLD)
    (root / "requirements.txt").write_text(NEW)
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text(CODE)
    notes = root / "corpus" / "other" / "1.0" / "release-notes.md"
    notes.parent.mkdir(parents=True)
    notes.write_text("# Other 1.0\n\n## Removed\n\n- `other.spin()` is gone.\n")
    return root


hosts = pytest.fixture(_hosts)  # a registry of its own, for tests that count what was asked
shared_hosts = pytest.fixture(scope="module")(_hosts)


# The whole command (a registry, a sync, each bump's code fetched and diffed) per test: CI's slow tier runs these;
# the fast tier has the same paths in parts (the inputs here, the plans and renderers in tests/test_code_plan.py).
WHOLE_COMMAND = pytest.mark.slow


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with nothing fetched yet."""
    return _project(tmp_path)


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One project for the tests that only read the report: fetched and indexed by the first of them."""
    return _project(tmp_path_factory.mktemp("shared"))


def run(args: list[str], hosts: FakeHosts, root: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> tuple[int, str, str]:
    """`app.py` in this process on the fake embedder, against the local registry; (status, stdout, stderr)."""
    import app

    settings = Settings(
        corpus_dir=root / "corpus", data_dir=root / "data", registry_url=f"{hosts.url}/pypi", fetch_retries=0
    )
    monkeypatch.setattr(app, "load_settings", lambda: fake.settings_for(settings))
    monkeypatch.chdir(root)
    capsys.readouterr()
    status = app.main(args)
    out = capsys.readouterr()
    return status, out.out, out.err


def test_moves_name_what_moved_was_added_or_removed(project: Path) -> None:
    old, new = read_pins(project / "old" / "requirements.txt"), read_pins(project / "requirements.txt")
    assert moves(old.pins, new.pins) == [
        Move("acme", "1.0", "2.0"),
        Move("widget-tools", "0.1", "0.2"),  # `widget_tools` and `Widget.Tools` are one project
        Move("bare", "1.0", "2.0"),
        Move("fresh", None, "1.0"),
        Move("gone", "3.0", None),
    ]


def test_prepare_upgrade_is_one_library_call_any_interface_makes(hosts: FakeHosts, project: Path) -> None:
    settings = Settings(
        corpus_dir=project / "corpus", data_dir=project / "data", registry_url=f"{hosts.url}/pypi", fetch_retries=0
    )
    old, new = project / "old" / "requirements.txt", project / "requirements.txt"
    offline = prepare_upgrade(settings, old, new, offline=True)
    assert offline.fetched is None and hosts.log == [] and offline.urls == {}
    assert offline.missing == (
        "acme: no fetched docs (--offline)",
        "widget-tools: no fetched docs (--offline)",
        "bare: no fetched docs (--offline)",
    )
    done = prepare_upgrade(settings, old, new)
    assert done.moves == tuple(moves(read_pins(old).pins, read_pins(new).pins)) and done.missing == ()
    assert done.urls == {
        "acme/CHANGES.md": f"{hosts.url}/files/acme-2.0.tar.gz",
        "widget-tools/HISTORY.md": f"{hosts.url}/files/widget-tools-0.2.tar.gz",
    }
    assert done.no_docs == {"bare": "bare-2.0.tar.gz holds no release docs; no changelog link in project_urls"}
    latest = prepare_upgrade(settings, old)  # to each package's newest release: the docs in place are its
    assert [(m.name, m.before, m.after) for m in latest.moves] == [
        ("acme", "1.0", "2.0"),
        ("widget-tools", "0.1", "0.2"),
        ("bare", "1.0", "2.0"),
    ]
    assert latest.missing == tuple(
        f"{n}: its newest release is unknown, the registry named none: not planned" for n in ("gone", "same")
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        done.moves = ()  # type: ignore[misc]


@WHOLE_COMMAND
def test_lock_diff_json_fetches_plans_and_scans(
    hosts: FakeHosts, project: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    args = ["upgrade", "--lock-diff", "old/requirements.txt", "requirements.txt", "--json", "src"]
    status, out, err = run(args, hosts, project, monkeypatch, capsys)
    assert status == 1, err  # the code is hit
    got = json.loads(out)
    assert set(got) == {"packages", "errors", "files"} and got["files"] == 1
    by = {p["name"]: p for p in got["packages"]}
    assert [p["name"] for p in got["packages"]] == ["acme", "widget-tools", "bare", "gone", "fresh"]  # worst first
    assert [by[n]["status"] for n in by] == ["planned", "silent", "no-docs", "removed", "added"]
    acme = by["acme"]
    assert (acme["product"], acme["from"], acme["to"]) == ("acme", "1.0", "2.0")
    assert acme["docs"] == [
        {"file": "acme/CHANGES.md", "url": f"{hosts.url}/files/acme-2.0.tar.gz", "releases": ["1.0", "1.1", "2.0"]}
    ]
    assert acme["sections"][0]["kind"] == "hits"
    kinds = {c["kind"] for c in acme["changes"]}
    assert {"removed", "deprecated"} <= kinds
    hit = {(f["line"], f["symbol"]) for f in acme["findings"]}
    assert (3, "acme.old_func") in hit and (4, "acme.legacy") in hit
    assert all(f["change"] in {c["id"] for c in acme["changes"]} for f in acme["findings"])
    assert set(acme["changes"][0]) >= {"id", "version", "kind", "summary", "citation", "hits"}  # as `upgrade --json`
    assert acme["changes"][0]["citation"]["source"] == "acme/CHANGES.md"
    assert "no change" in by["widget-tools"]["note"] and by["widget-tools"]["changes"] == []
    assert "holds no release docs" in by["bare"]["note"] or any("bare" in e["error"] for e in got["errors"])
    assert "acme 2.0: CHANGES.md from the source distribution" in err  # fetch progress, one line per package
    assert "same" not in by

    again, out2, err2 = run(args, hosts, project, monkeypatch, capsys)  # docs in place: nothing fetched again
    assert again == 1 and hosts.asked("acme-2.0.tar.gz") == 1 and "acme 2.0: CHANGES.md" not in err2
    assert json.loads(out2)["packages"] == got["packages"]


@WHOLE_COMMAND
def test_markdown_is_a_pull_request_comment_with_code_as_code(
    shared_hosts: FakeHosts, shared: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    args = ["upgrade", "--lock-diff", "old/requirements.txt", "requirements.txt", "--format", "markdown", "src"]
    status, md, err = run(args, shared_hosts, shared, monkeypatch, capsys)
    assert status == 1, err
    assert md.startswith("## reldocs: 5 dependencies moved\n")
    assert "| `acme` | `1.0` | `2.0` | 2 |" in md
    assert md.index("### `acme` 1.0 → 2.0") < md.index("#### Your code") < md.index("### Not planned")
    assert "`acme.old_func()`" in md and "`src/app.py:3:1` `acme.old_func()`" in md  # code spans, not escaped
    assert "\\`" not in md
    assert "- `fresh` — → 1.0: added: nothing to upgrade from" in md and "- `gone` 3.0 → —: removed" in md


@WHOLE_COMMAND
def test_sarif_of_every_package_is_valid(
    shared_hosts: FakeHosts, shared: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    args = ["upgrade", "--lock-diff", "old/requirements.txt", "requirements.txt", "--format", "sarif", "src"]
    status, out, _ = run(args, shared_hosts, shared, monkeypatch, capsys)
    sarif = json.loads(out)
    assert_valid_sarif(sarif)
    (results,) = [r["results"] for r in sarif["runs"]]
    assert status == 1 and {r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results} == {3, 4}


@WHOLE_COMMAND
def test_offline_names_the_packages_without_docs_and_exit_statuses(
    hosts: FakeHosts, project: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    args = ["upgrade", "--lock-diff", "old/requirements.txt", "requirements.txt", "--offline", "src"]
    status, out, err = run(args, hosts, project, monkeypatch, capsys)
    assert hosts.log == []  # nothing asked of the registry
    assert status == 0  # no docs, no hits
    assert "acme: no fetched docs (--offline)" in err and "widget-tools: no fetched docs (--offline)" in err
    assert "- acme 1.0 → 2.0: no release docs of it are indexed" in out

    (project / "clean.py").write_text("import acme\nacme.new_func()\n")
    clean = ["upgrade", "--lock-diff", "old/requirements.txt", "requirements.txt", "clean.py"]
    assert run(clean, hosts, project, monkeypatch, capsys)[0] == 0  # fetched and planned, nothing hit
    assert run([*clean[:4], "--offline", "src"], hosts, project, monkeypatch, capsys)[0] == 1  # now in place
    for bad in (
        ["upgrade", "--lock-diff", "old/requirements.txt", "nope.txt"],
        ["upgrade", "--requirements", "requirements.txt", "--from", "1.0"],
        ["upgrade", "--requirements", "requirements.txt", "--against", "old/requirements.txt", "--to-latest"],
        ["upgrade", "--to-latest", "--from", "1", "--to", "2"],
        ["upgrade"],
    ):
        code, _, err = run(bad, hosts, project, monkeypatch, capsys)
        assert code == 2 and "Traceback" not in err, bad


@WHOLE_COMMAND
def test_requirements_to_latest_plans_each_pin_to_the_newest_release(
    shared_hosts: FakeHosts, shared: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    args = ["upgrade", "--requirements", "old/requirements.txt", "--json", "src"]
    status, out, err = run(args, shared_hosts, shared, monkeypatch, capsys)
    got = {p["name"]: (p["from"], p["to"], p["status"]) for p in json.loads(out)["packages"]}
    assert got["acme"] == ("1.0", "2.0", "planned") and got["widget-tools"] == ("0.1", "0.2", "silent")
    assert "gone" not in got and "same" not in got  # not on the registry: its newest release is unknown
    assert "gone: its newest release is unknown" in err and status == 1


def _package(n: int, kind: str, hits: int) -> PackagePlan:
    from assistant.model.records import Citation
    from assistant.upgrade.plan import PlannedChange, UpgradePlan
    from assistant.upgrade.scan import Finding

    changes = tuple(
        PlannedChange(
            f"p{n}-{i}",
            "2.0",
            kind,
            f"`p{n}.f{i}()` changed: " + "x" * 400,
            (f"p{n}.f{i}",),
            "",
            "",
            False,
            -1,
            (),
            "",
            (Citation(1, "T", "2.0", "release-notes", "S", f"p{n}/CHANGES.md", "", "q", f"p{n}"),),
        )
        for i in range(60)
    )
    findings = tuple(
        Finding("src/a.py", i + 1, 1, f"p{n}.f{i}()", f"p{n}.f{i}", f"p{n}-{i}", True) for i in range(hits)
    )
    plan = UpgradePlan(f"p{n}", "1.0", "2.0", ("2.0",), changes)
    return PackagePlan(Bump(f"p{n}", "1.0", "2.0"), "planned", f"p{n}", plan, findings)


def test_the_comment_cap_cuts_the_least_severe_first() -> None:
    # 4 packages x 60 changes of ~450 characters: ~83k of Markdown; one package's changes hit the code.
    packages = [_package(0, "deprecated", 0), _package(1, "removed", 0), _package(2, "removed", 3)]
    packages.append(_package(3, "new", 0))
    report = DependencyPlan(tuple(sorted(packages, key=lambda p: p.severity)), (), 1)
    full = report_markdown(report)
    assert len(full) > 65_536
    cut = report_markdown(report, limit=65_536, full_report="https://ci.example/run/1")
    assert len(cut) <= 65_536 and "not shown: cut to fit" in cut
    assert "[The full report](https://ci.example/run/1)" in cut.splitlines()[-1]
    assert all(f"`p2.f{i}()`" in cut for i in range(60))  # the hits and what breaks kept ...
    assert all(f"`p1.f{i}()`" in cut for i in range(60))
    assert "`p0.f59()`" not in cut  # ... the deprecations cut first
    assert cut.index("### `p2`") < cut.index("### `p1`") < cut.index("### `p0`")  # worst first
    assert "| `p0` |" in cut  # the table names every package


def test_the_workflow_runs_the_command_this_suite_checks(
    shared_hosts: FakeHosts, shared: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    workflow = yaml.safe_load((ROOT / "docs" / "ci" / "reldocs-upgrade.yml").read_text(encoding="utf-8"))
    assert set(workflow[True]["pull_request"]["paths"]) >= {"**/requirements*.txt", "**/uv.lock", "**/poetry.lock"}
    steps = workflow["jobs"]["upgrade"]["steps"]
    (step,) = [s for s in steps if s.get("id") == "reldocs"]
    (comment,) = [s for s in steps if "gh pr comment" in s.get("run", "")]
    (sarif,) = [s for s in steps if "upload-sarif" in s.get("uses", "")]
    # a fork's read-only token: no comment, and neither failing step skips the rest
    assert "head.repo.full_name == github.repository" in comment["if"]
    assert comment["continue-on-error"] is True and sarif["continue-on-error"] is True
    env = {
        **step["env"],
        "BASE": "old",
        "FILE": "requirements.txt",
        "SRC": "src",
        "OUT": "out",
        "RUN_URL": "https://ci.example/1",
    }
    (shared / "out").mkdir()
    lines = [ln for ln in step["run"].splitlines() if ln.startswith("reldocs upgrade")]
    statuses = []
    for line in lines:  # as the shell runs it: variables expanded, stdout to the file after `>`
        expanded = re.sub(r"\$\{?(\w+)\}?", lambda m: env.get(m.group(1), m.group(0)), line.split(" || ")[0])
        *command, redirect, target = shlex.split(expanded)
        assert command[:2] == ["reldocs", "upgrade"] and "--lock-diff" in command and redirect == ">"
        status, out, _ = run(command[1:], shared_hosts, shared, monkeypatch, capsys)
        (shared / target).write_text(out, encoding="utf-8")
        statuses.append(status)
    assert statuses == [1, 1, 1]  # the code is hit; the step passes the first on, after the comment
    comment = (shared / "out" / "comment.md").read_text(encoding="utf-8")
    assert comment.startswith("## reldocs:") and len(comment) <= 65_536 and "`src/app.py:3:1`" in comment
    full = (shared / "out" / "full-report.md").read_text(encoding="utf-8")  # offline: the docs fetched by the first
    assert (
        "--comment-limit" in lines[0]
        and "cut to fit" not in full
        and full.split("### Not planned")[0] == comment.split("### Not planned")[0]
    )
    assert_valid_sarif(json.loads((shared / "out" / "reldocs.sarif").read_text(encoding="utf-8")))
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    (deps,) = [h for h in hooks if h["id"] == "reldocs-dependencies"]
    assert "--lock-diff" in deps["entry"] or "--requirements" in deps["entry"]
    assert re.search(deps["files"], "requirements.txt") and re.search(deps["files"], "uv.lock")
