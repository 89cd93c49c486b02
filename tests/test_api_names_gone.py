"""Names the user's code takes from a product that the newest release shows gone (`assistant.upgrade.api.namespaces`,
`assistant.upgrade.reach`): what no diff of the two releases can show, when the older one made the name at run
time; never where the newer release may still make it (a star import it cannot follow, a `__getattr__` that
gives any name, `globals()` written, a computed `__all__`, a compiled module)."""

from __future__ import annotations

import ast
import hashlib
import textwrap
from pathlib import Path
from unittest import mock

import pytest

import assistant.upgrade.api.diff
from assistant.knowledge_base import KnowledgeBase
from assistant.model.api import COMPILED_LIST, ApiDiff, ReleaseTree
from assistant.upgrade.api import diff_releases, load_release
from assistant.upgrade.api.namespaces import gone, namespaces_of, with_gone
from assistant.upgrade.reach import reached, taken

PKG = "packaging"  # also installed here: a load that fell back to it would read site-packages


def tree(tmp_path: Path, version: str, files: dict[str, str], compiled: str | None = "") -> ReleaseTree:
    """A release tree of `files` (paths under the package), with its compiled-module list (None: none kept)."""
    root = tmp_path / version
    for name, code in files.items():
        path = root / PKG / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(code))
    if compiled is not None:
        (root / COMPILED_LIST).write_text(compiled)
    digest = hashlib.sha256(repr(sorted(files.items())).encode()).hexdigest()
    return ReleaseTree(PKG, version, digest, root, (PKG,))


def names(tmp_path: Path, files: dict[str, str], compiled: str | None = "") -> dict[str, tuple[str, ...] | None]:
    return namespaces_of(load_release(tree(tmp_path, "1.0", files, compiled)))


OLD = {
    # names copied in at run time, as SciPy 1.9 did from NumPy: nothing static says which
    "__init__.py": """
        import math as _m
        for _k in ("zeros", "ones"):
            globals()[_k] = getattr(_m, "floor")
        from .sub import kept, dropped
    """,
    "sub.py": "def kept(): ...\ndef dropped(): ...\n",
}
NEW = {
    "__init__.py": """
        submodules = ["sub"]
        __all__ = submodules + ["kept"]
        from .sub import kept

        def __getattr__(name):
            if name in submodules:
                import importlib
                return importlib.import_module(f"packaging.{name}")
            try:
                return globals()[name]
            except KeyError:
                raise AttributeError(name) from None
    """,
    "sub.py": "def kept(): ...\n",
}


def test_a_name_made_at_run_time_in_the_old_release_and_gone_in_the_new_is_a_removal(tmp_path: Path) -> None:
    trees = [tree(tmp_path, "1.0", OLD), tree(tmp_path, "2.0", NEW)]
    diff = diff_releases(trees, names=True)
    assert diff.names["1.0"][PKG] is None  # `globals()` written: any name may be there
    assert diff.names["2.0"][PKG] is not None and "kept" in diff.names["2.0"][PKG]
    reach = {f"{PKG}.zeros", f"{PKG}.kept", f"{PKG}.sub.kept", f"{PKG}.sub.dropped", f"{PKG}.__file__"}
    found = with_gone(diff, reach)
    added = {c.object: c for c in found.changes if c not in diff.changes}
    # `sub.dropped` the diff shows already; `zeros` no diff can, `kept` and `__file__` are there
    assert set(added) == {f"{PKG}.zeros"}
    assert added[f"{PKG}.zeros"].kind == "removed" and added[f"{PKG}.zeros"].release == "2.0"
    assert added[f"{PKG}.zeros"].fix == f"`{PKG}` has no `zeros` from {PKG} 2.0 on"
    assert any(f"{PKG}.sub.dropped" in c.paths and c.kind == "removed" for c in diff.changes)


def test_a_name_is_gone_from_the_first_release_from_which_every_release_shows_it_gone(tmp_path: Path) -> None:
    closed = {"__init__.py": "def kept(): ...\n"}
    trees = [tree(tmp_path, v, files) for v, files in (("1.0", OLD), ("1.1", OLD), ("1.2", closed), ("2.0", NEW))]
    found = with_gone(diff_releases(trees, names=True), {f"{PKG}.zeros"})
    (added,) = [c for c in found.changes if c.object == f"{PKG}.zeros"]
    assert added.release == "1.2"  # 1.1 cannot tell (names made at run time); 1.2 and 2.0 show it gone
    opened = with_gone(diff_releases([trees[0], trees[1], trees[3]], names=True), {f"{PKG}.zeros"})
    assert [c.release for c in opened.changes if c.object == f"{PKG}.zeros"] == ["2.0"]


def test_a_package_the_old_release_did_not_have_is_not_this_upgrades_change() -> None:
    tables = {"1.0": {PKG: None}, "2.0": {PKG: ("x",), "utils": ("kept",)}}  # 1.0 made its names at run time
    diff = ApiDiff(PKG, (PKG, "utils"), ("1.0", "2.0"), {}, (), names=tables)
    assert with_gone(diff, {"utils.helpers"}) == diff  # the code took nothing from `utils` before
    assert [c.object for c in with_gone(diff, {f"{PKG}.y"}).changes] == [f"{PKG}.y"]


def test_a_name_the_old_release_lacked_too_is_not_this_upgrades_change(tmp_path: Path) -> None:
    old = {"__init__.py": "def kept(): ...\n"}  # closed, and without `gone`: a guarded import's fallback
    new = {"__init__.py": "def kept(): ...\n"}
    diff = diff_releases([tree(tmp_path, "1.0", old), tree(tmp_path, "2.0", new)], names=True)
    assert gone(diff.names["2.0"], f"{PKG}.gone") == f"{PKG}.gone"
    assert with_gone(diff, {f"{PKG}.gone"}).changes == diff.changes


@pytest.mark.parametrize(
    "init",
    [
        "from os.path import *\n",  # a star import of what the release does not hold
        "def __getattr__(name):\n    return name.upper()\n",  # gives any name
        "import sys\nsys.modules[__name__].x = 1\n",
        "import sys\nsys.modules[__name__ + '.old'] = sys\n",
        "from ._inner import *\n",  # of a module made at run time
        "from . import _impl\ndef __getattr__(name):\n    if hasattr(_impl, name):\n        return 1\n",
        "def __getattr__(name):\n    if name not in ('a',):\n        return 1\n    raise AttributeError(name)\n",
        "from ._impl import MOVED\ndef __getattr__(name):\n    if name in MOVED:\n        return 1\n",
        "OLD = ['a']\nOLD.append('b')\ndef __getattr__(name):\n    if name in OLD:\n        return 1\n",
        "def __getattr__(name):\n    if name.startswith('np_'):\n        return 1\n",
        "__path__.append('/elsewhere')\n",
        "exec('made = 1')\n",
        "import importlib\nsetattr(importlib.import_module(__name__), 'made', 1)\n",
        "import sys\nsetattr(sys.modules[__name__], 'made', 1)\n",
        "_g = globals\n_g()['made'] = 1\n",
        "def f():\n    global made\n    made = 1\nf()\n",
        "def f(): global made; made = 1\n",
        "import sys as _sys\nsetattr(_sys.modules[__name__], 'made', 1)\n",
        "from sys import modules\nmodules[__name__].made = 1\n",
        "setattr(__import__(__name__), 'made', 1)\n",
        "import importlib\nsetattr(importlib.import_module('packaging'), 'made', 1)\n",
        "import packaging as _self\n_self.made = 1\n",
        "exec ('made = 1')\n",
        "import sys\nsys._getframe().f_globals['made'] = 1\n",
        "_g = globals  # kept\n_g()['made'] = 1\n",
        "(globals()['made']\n) = 1\n",
        "def _mk():\n    return (lambda n: 1), list\n__getattr__, __dir__ = _mk()\n",
        "def __getattr__(name):\n    name = {'made': 'x'}.get(name, name)\n    if name == 'x':\n        return 1\n",
        "def __getattr__(name):\n    for _ in ():\n        pass\n    else:\n        return 1\n",
        "S = ['a']\nfrom ._impl import S\ndef __getattr__(name):\n    if name in S:\n        return 1\n",
        "S = ['a']\nT = S\nT += ['made']\ndef __getattr__(name):\n    if name in S:\n        return 1\n",
    ],
)
def test_what_may_still_give_the_name_is_never_shown_gone(tmp_path: Path, init: str) -> None:
    files = {
        "__init__.py": init,
        "_inner.py": "vars()['made'] = 1\n",
        "_impl.py": "MOVED = {'made': 1}\nS = ['made']\n",
    }
    table = names(tmp_path, files)
    assert table[PKG] is None
    assert gone(table, f"{PKG}.made") is None


@pytest.mark.parametrize(
    "made",
    ["__all__ = [n for n in dir() if n != 'x']\n", "__all__ = ['shown']\ndef f():\n    __all__.append('_hidden')\n"],
)
def test_a_star_import_of_a_module_whose_all_is_computed_gives_every_name_it_has(tmp_path: Path, made: str) -> None:
    files = {"__init__.py": "from ._impl import *\n", "_impl.py": "def shown(): ...\ndef _hidden(): ...\n" + made}
    table = names(tmp_path, files)
    assert table[f"{PKG}._impl"] is not None and table[PKG] is not None  # its own names are known all the same
    assert gone(table, f"{PKG}._hidden") is None and gone(table, f"{PKG}.shown") is None
    assert gone(table, f"{PKG}.other") == f"{PKG}.other"


def test_names_griffe_may_drop_and_modules_it_may_not_load_are_there(tmp_path: Path) -> None:
    files = {
        "__init__.py": "a, (b, *c) = 1, (2, 3)\n[d := 4]\nfor e in (): pass\nwith open(__file__) as f: pass\n",
        "newer.py": "type X = int\n",  # syntax this Python may not parse: there all the same
        "folder/mod.py": "x = 1\n",  # a folder without `__init__`
    }
    table = names(tmp_path, files)
    assert table[PKG] is not None and {"a", "b", "c", "d", "e", "f"} <= set(table[PKG])
    for name in ("a", "c", "d", "newer", "folder", "folder.mod"):
        assert gone(table, f"{PKG}.{name}") is None, name
    assert gone(table, f"{PKG}.absent") == f"{PKG}.absent"


def test_a_module_another_one_sets_attributes_on_is_open(tmp_path: Path) -> None:
    files = {
        "__init__.py": "from . import writer\n",
        "writer.py": "import packaging\nfrom . import target as t\npackaging.made = 1\nt.made = 2\n",
        "target.py": "x = 1\n",
        "other.py": "y = 1\n",
    }
    table = names(tmp_path, files)
    assert table[PKG] is None and table[f"{PKG}.target"] is None
    assert gone(table, f"{PKG}.made") is None and gone(table, f"{PKG}.target.made") is None
    assert gone(table, f"{PKG}.other.made") == f"{PKG}.other.made"


def test_match_captures_a_stub_only_module_and_compiled_folders_are_there(tmp_path: Path) -> None:
    files = {
        "__init__.py": "match 1:\n    case [*rest]:\n        pass\n    case made:\n        pass\n",
        "_core.pyi": "def f() -> int: ...\n",
    }
    table = names(tmp_path, files, compiled=f"{PKG}/_speedups/module.c\n")
    assert table[PKG] is not None and gone(table, f"{PKG}.made") is None and gone(table, f"{PKG}.rest") is None
    assert table[f"{PKG}._core"] is None and gone(table, f"{PKG}._core.undocumented") is None
    assert gone(table, f"{PKG}._speedups") is None and gone(table, f"{PKG}._speedups.x") is None


def test_a_stub_s_getattr_and_a_compiled_module_s_stub_leave_names_open(tmp_path: Path) -> None:
    files = {
        "__init__.py": "x = 1\n",
        "typed.pyi": "from typing import Any\ndef __getattr__(name: str) -> Any: ...\n",
        "_ext.pyi": "def helper() -> int: ...\n",
    }
    table = names(tmp_path, files, compiled=f"{PKG}/_ext.pyx\n")
    assert table[f"{PKG}.typed"] is None and gone(table, f"{PKG}.typed.anything") is None
    assert table[f"{PKG}._ext"] is None and gone(table, f"{PKG}._ext._private") is None


def test_a_cut_list_of_compiled_modules_leaves_packages_open(tmp_path: Path) -> None:
    table = names(tmp_path, {"__init__.py": "x = 1\n"}, compiled=f"{PKG}/a.c\n...\n")
    assert table[PKG] is None


def test_star_imports_of_closed_modules_and_tested_getattr_give_their_names(tmp_path: Path) -> None:
    files = {
        "__init__.py": """
            from ._impl import *
            from ._priv import *

            def __getattr__(name):
                if name == "legacy":
                    return 1
                raise AttributeError(name)
        """,
        "_impl.py": "__all__ = ['shown']\ndef shown(): ...\ndef hidden(): ...\n",
        "_priv.py": "def public(): ...\ndef _private(): ...\n",
    }
    table = names(tmp_path, files)
    assert table[PKG] is not None
    assert {"shown", "public", "legacy"} <= set(table[PKG])
    assert gone(table, f"{PKG}.hidden") == f"{PKG}.hidden"  # `__all__` leaves it out of the star import
    assert gone(table, f"{PKG}._private") == f"{PKG}._private"
    assert gone(table, f"{PKG}.legacy.x") is None  # not a module: its members are not judged here


def test_compiled_and_test_modules_are_never_shown_gone(tmp_path: Path) -> None:
    table = names(tmp_path, {"__init__.py": "x = 1\n"}, compiled=f"{PKG}/etree.pyx\n{PKG}/_speed.cpython-312.so\n")
    assert table[f"{PKG}.etree"] is None and table[f"{PKG}._speed"] is None
    assert gone(table, f"{PKG}.etree.XML") is None
    assert gone(table, f"{PKG}.tests") is None  # test suites are not loaded, not gone
    assert gone(table, f"{PKG}.other") == f"{PKG}.other"


def test_a_tree_without_its_compiled_list_shows_no_package_s_name_gone(tmp_path: Path) -> None:
    table = names(tmp_path, {"__init__.py": "x = 1\n", "plain.py": "y = 1\n"}, compiled=None)
    assert table[PKG] is None and gone(table, f"{PKG}.etree") is None  # perhaps a compiled module, unlisted
    assert gone(table, f"{PKG}.plain.z") == f"{PKG}.plain.z"  # a plain module holds no module


def test_names_are_kept_with_the_diff_and_read_back_without_loading(tmp_path: Path) -> None:
    trees = [tree(tmp_path, "1.0", OLD), tree(tmp_path, "2.0", NEW)]
    first = diff_releases(trees, cache_dir=tmp_path / "cache", names=True)
    with mock.patch.object(assistant.upgrade.api.diff, "load_release", side_effect=AssertionError("loaded")):
        second = diff_releases(trees, cache_dir=tmp_path / "cache", names=True)
    assert second.names == first.names and set(first.names) == {"1.0", "2.0"}


def test_the_names_code_takes_from_a_product(tmp_path: Path) -> None:
    source = """
        import packaging as pk, os
        import packaging.sub
        from packaging import zeros as z, kept
        from . import local
        from packaging.sub import *
        pk.a.b(1)
        packaging.sub.kept()
        pk.c = 2
        os.path.join("x")
    """
    got = set(taken(ast.parse(textwrap.dedent(source)), frozenset({PKG})))
    assert got == {
        "packaging",
        "packaging.sub",
        "packaging.zeros",
        "packaging.kept",
        "packaging.a",
        "packaging.a.b",
        "packaging.sub.kept",
    }  # the store `pk.c = 2` is not a use, nor `os.path`, nor a relative import
    (tmp_path / "m.py").write_text(textwrap.dedent(source))
    (tmp_path / "bad.py").write_text("def (:\n")
    assert reached([tmp_path], [PKG]) == frozenset(got)


def test_a_worker_keeps_no_file_s_names_and_reads_no_file_over_its_cap(tmp_path: Path) -> None:
    from assistant.upgrade import reach

    (tmp_path / "m.py").write_text("import packaging.sub\n")
    reach._taken_from.cache_clear()
    assert reached([tmp_path], [PKG], keep_parses=False) == {"packaging.sub"}
    assert reach._taken_from.cache_info().currsize == 0  # a server's worker outlives every request's files
    assert reached([tmp_path], [PKG], max_bytes=10) == frozenset()


def test_the_scan_hits_where_code_takes_a_name_gone_with_its_fix(tmp_path: Path) -> None:
    from assistant.upgrade.code_plan import code_plan
    from assistant.upgrade.scan import scan
    from assistant.upgrade.targeting import targets

    user = tmp_path / "user"
    user.mkdir()
    (user / "app.py").write_text(
        "import packaging\nfrom packaging import ones\n\nx = packaging.zeros(3)\ny = ones(2)\nz = packaging.kept()\n"
    )
    trees = [tree(tmp_path, "1.0", OLD), tree(tmp_path, "2.0", NEW)]
    diff = with_gone(diff_releases(trees, names=True), reached([user], [PKG]))
    plan = code_plan(diff, "1.0", "2.0")
    report = scan([user], targets(plan))
    hits = {(f.line, f.symbol) for f in report.findings if f.exact}
    assert hits == {(2, f"{PKG}.ones"), (4, f"{PKG}.zeros"), (5, f"{PKG}.ones")}
    (change,) = [c for c in plan.changes if c.symbols == (f"{PKG}.zeros",)]
    assert change.kind == "removed" and change.citations[0].kind == "code" and "has no `zeros`" in change.fix


def test_the_web_plan_shows_a_gone_name_the_pasted_code_takes(tmp_path: Path, fake_kb: KnowledgeBase) -> None:
    from ingest.dependencies import SourcesReport
    from interfaces.web_upgrade import run_upgrade

    trees = (tree(tmp_path, "1.0", OLD), tree(tmp_path, "2.0", NEW))
    fake_kb.api_diff(trees, paths=[tmp_path / "1.0"])  # the command line filled the cache; the web loads nothing
    fetched = SourcesReport(PKG, trees, ())  # the registry's side, which the web never asks (`cached_only`)
    # Nothing of the pasted code is parsed in the server's process: the bounded worker, a process of its own, reads it.
    in_server = mock.patch("assistant.upgrade.reach.reached", side_effect=AssertionError("parsed in the server"))
    with mock.patch("ingest.dependencies.fetch_sources", return_value=fetched) as fetch, in_server:
        html, _ = run_upgrade(fake_kb, PKG, "1.0", "2.0", "import packaging\n\nx = packaging.zeros(3)\n", None)
    assert fetch.call_args.kwargs["offline"] is True
    assert "1 hits in your code" in html and "<code>pasted.py:3:5</code>" in html and "has no `zeros`" in html


def test_code_too_much_to_read_for_gone_names_leaves_the_diff_and_says_so(
    tmp_path: Path, fake_kb: KnowledgeBase
) -> None:
    from assistant.runtime.bounded import Overrun
    from ingest.dependencies import SourcesReport
    from interfaces.code_diff import code_diff

    user = tmp_path / "user"
    user.mkdir()
    (user / "app.py").write_text("import packaging\nx = packaging.zeros(3)\n")
    trees = (tree(tmp_path, "1.0", OLD), tree(tmp_path, "2.0", NEW))
    real = fake_kb.api_diff
    real(trees, paths=[user])  # kept with the releases' names

    def api_diff(*args: object, bounded: bool = False, **kw: object) -> ApiDiff:
        if bounded:
            raise Overrun("took longer than 1 s")
        return real(*args, **kw)  # type: ignore[arg-type]

    with (
        mock.patch("ingest.dependencies.fetch_sources", return_value=SourcesReport(PKG, trees, ())),
        mock.patch.object(fake_kb, "api_diff", side_effect=api_diff) as called,
    ):
        diff, notes = code_diff(fake_kb, PKG, "1.0", "2.0", cached_only=True, paths=[user], bounded=True)
    assert diff is not None and f"{PKG}.zeros" not in {c.object for c in diff.changes}  # the code was not read
    assert "paths" not in called.call_args_list[-1].kwargs
    assert notes == (f"the names your code takes from {PKG} were not checked: reading it took longer than 1 s",)


def test_a_diff_kept_without_the_releases_names_says_the_code_was_not_checked(
    tmp_path: Path, fake_kb: KnowledgeBase
) -> None:
    from ingest.dependencies import SourcesReport
    from interfaces.code_diff import code_diff

    # Releases of their own: the session's knowledge base keeps every diff, with names where other tests read code.
    trees = (tree(tmp_path, "1.0", {**OLD, "own.py": ""}), tree(tmp_path, "2.0", {**NEW, "own.py": ""}))
    fake_kb.api_diff(trees)  # `upgrade` without code to scan keeps no names
    (tmp_path / "app.py").write_text("import packaging\nx = packaging.zeros(3)\n")
    with (
        mock.patch("ingest.dependencies.fetch_sources", return_value=SourcesReport(PKG, trees, ())),
        mock.patch("assistant.upgrade.reach.reached", side_effect=AssertionError("read for nothing")),
    ):
        diff, notes = code_diff(fake_kb, PKG, "1.0", "2.0", cached_only=True, paths=[tmp_path / "app.py"])
    assert diff is not None and notes == (
        f"the names your code takes from {PKG} were not checked: the diff was kept without them "
        f"(python app.py upgrade --product {PKG} --from 1.0 --to 2.0 PATH)",
    )
