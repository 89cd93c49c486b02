"""`upgrade --product P --from A --to B` with the releases' code: their sdists from a local registry, unpacked and
diffed (never run), linked to the docs' changes; the code's hits with their evidence, a second run served from the
caches, `--offline` with nothing fetched, and a product whose docs are not indexed (fake embedder).

The made-up product `acme`: 1.0 → 2.0 removes `old_func` (the docs say so), makes `keep`'s `b` keyword-only and
removes `Widget.resize` (the docs do not), and its 1.0 `setup.py` would write a marker if anything ran it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_upgrade_dependencies import run

from tests.fetch_server import FakeHosts, project_json, serve, tar_gz

# The whole command per test (a registry, an index, two releases loaded): CI's slow tier runs them; the fast tier
# has the same paths in parts (tests/test_code_plan.py, test_api_diff.py, test_dependency_sources.py).
pytestmark = pytest.mark.slow

OLD = b"""def old_func():
    pass


def keep(a, b=1):
    pass


class Widget:
    def resize(self, n):
        pass
"""
NEW = b"""def new_func():
    pass


def keep(a, *, b=1):
    pass


class Widget:
    pass
"""
SETUP = b"open('/tmp/reldocs-marker-setup', 'w').write('ran')\n"
NOTES = "# Acme 2.0\n\n## Removed\n\n- Removed `acme.old_func()`; use `acme.new_func()` instead.\n"
CODE = "import acme\nacme.old_func()\nacme.keep(1, 2)\nacme.keep(1, b=2)\nw = acme.Widget()\nw.resize(3)\n"


@pytest.fixture
def hosts() -> Iterator[FakeHosts]:
    for h in serve():
        archives = {}
        for version, source in (("1.0", OLD), ("2.0", NEW)):
            data = tar_gz({"acme/__init__.py": source, "setup.py": SETUP}, top=f"acme-{version}")
            url = f"/files/acme-{version}.tar.gz"
            h.route(url, data)
            archives[version] = (url, data)
        h.route("/pypi/acme/json", project_json("acme", archives))
        yield h


def _project(root: Path, *, docs: bool) -> Path:
    notes = root / "corpus" / ("acme" if docs else "other") / "2.0" / "release-notes.md"
    notes.parent.mkdir(parents=True)
    notes.write_text(NOTES if docs else "# Other 2.0\n\n## Removed\n\n- `other.spin()` is gone.\n")
    (root / "app.py").write_text(CODE)
    return root


def test_the_code_s_changes_are_hit_with_their_evidence_and_served_from_the_cache_again(
    hosts: FakeHosts, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    root = _project(tmp_path, docs=True)
    args = ["upgrade", "--product", "acme", "--from", "1.0", "--to", "2.0", "--json", "app.py"]
    status, out, err = run(args, hosts, root, monkeypatch, capsys)
    assert status == 1, err
    got = json.loads(out)
    assert got["code_releases"] == ["1.0", "2.0"] and got["docs"] is True
    evidence = {f["line"]: f["evidence"] for f in got["findings"] if f["exact"]}
    assert evidence == {2: ["docs", "code"], 3: ["code"], 6: ["code"]}  # not keep(1, b=2)
    changes = {c["id"]: c for c in got["changes"]}
    old = next(c for c in changes.values() if "old_func" in c["summary"])
    assert old["code"]["object"] == "acme.old_func" and old["code"]["kind"] == "removed"
    assert old["code"]["source_a"] == "acme/__init__.py:1" and old["code"]["archives"]["a"]
    assert got["evidence_counts"] == {"docs": 0, "code": 2, "both": 1}
    assert not Path("/tmp/reldocs-marker-setup").exists()  # nothing from an archive ran
    assert not list((root / "data" / "api-sources").rglob("setup.py"))
    asked = len(hosts.log)
    again = run([*args[:-1], "--offline", "app.py"], hosts, root, monkeypatch, capsys)
    assert again[0] == 1 and len(hosts.log) == asked  # the caches answer: nothing asked of the registry
    assert json.loads(again[1])["findings"] == got["findings"]


def test_offline_with_nothing_fetched_says_so_and_plans_from_the_docs(
    hosts: FakeHosts, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    root = _project(tmp_path, docs=True)
    args = ["upgrade", "--product", "acme", "--from", "1.0", "--to", "2.0", "--offline", "app.py"]
    status, out, err = run(args, hosts, root, monkeypatch, capsys)
    assert hosts.log == [] and status == 1  # the docs' change is still hit
    assert "no code diff of acme" in out and "no code diff of acme" in err
    assert "Widget.resize" not in out


def test_a_product_whose_docs_are_not_indexed_is_planned_from_its_code(
    hosts: FakeHosts, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    root = _project(tmp_path, docs=False)
    args = ["upgrade", "--product", "acme", "--from", "1.0", "--to", "2.0", "app.py"]
    status, out, _ = run(args, hosts, root, monkeypatch, capsys)
    assert status == 1 and "release docs of acme are not indexed" in out
    hits = out.split("== What breaks")[0]
    assert all(f"      {n}:" in hits for n in (2, 3, 6)) and "      4:" not in hits


def test_a_lock_diff_plans_each_bump_with_its_releases_code_and_no_code_leaves_it_out(
    hosts: FakeHosts, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    root = _project(tmp_path, docs=True)
    (root / "old.txt").write_text("acme==1.0\n")
    (root / "new.txt").write_text("acme==2.0\n")
    args = ["upgrade", "--lock-diff", "old.txt", "new.txt", "--offline", "--json", "app.py"]
    cold = run([a for a in args if a != "--offline"], hosts, root, monkeypatch, capsys)
    assert cold[0] == 1, cold[2]
    acme = json.loads(cold[1])["packages"][0]
    assert acme["name"] == "acme" and acme["code_releases"] == ["1.0", "2.0"]
    evidence = {f["line"]: f["evidence"] for f in acme["findings"] if f["exact"]}
    assert evidence == {2: ["docs", "code"], 3: ["code"], 6: ["code"]}  # as `upgrade --product acme` has them
    asked = len(hosts.log)
    again = run(args, hosts, root, monkeypatch, capsys)  # the archives and the diff are kept: nothing fetched
    assert len(hosts.log) == asked and json.loads(again[1])["packages"][0]["findings"] == acme["findings"]
    docs_only = run([*args[:-1], "--no-code", "app.py"], hosts, root, monkeypatch, capsys)
    plain = json.loads(docs_only[1])["packages"][0]
    assert {f["line"] for f in plain["findings"] if f["exact"]} == {2} and not plain["code_releases"]
