"""The API diff (issue 44, items 1-3): each rule of what is public and each kind of change, on small packages the
tests write (two or three versions of each, as unpacked release trees), and that nothing from a tree runs or is
read from outside it."""

from __future__ import annotations

import hashlib
import textwrap
from pathlib import Path
from unittest import mock

import pytest

import assistant.upgrade.api.diff
from assistant.model.api import ApiDiff, CodeChange, ReleaseTree
from assistant.upgrade.api import UnsafeTree, diff_releases, load_release

PKG = "packaging"  # also installed in this environment: a load that fell back to it would read site-packages


def tree(tmp_path: Path, version: str, files: dict[str, str], package: str = PKG) -> ReleaseTree:
    """Write `files` (paths under the package) into a release tree of its own."""
    root = tmp_path / version
    for name, code in files.items():
        path = root / package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(code))
    digest = hashlib.sha256(repr(sorted(files.items())).encode()).hexdigest()
    return ReleaseTree(package, version, digest, root, (package,))


def diff(tmp_path: Path, *versions: dict[str, str], cache_dir: Path | None = None) -> ApiDiff:
    trees = [tree(tmp_path, f"1.{i}", files) for i, files in enumerate(versions)]
    return diff_releases(trees, cache_dir=cache_dir)


def kinds(result: ApiDiff) -> set[tuple[str, str, str | None]]:
    return {(c.object, c.kind, c.parameter) for c in result.changes}


def one(result: ApiDiff, obj: str, kind: str) -> CodeChange:
    (change,) = [c for c in result.changes if c.object == obj and c.kind == kind]
    return change


INIT = "from .core import Frame, read\nfrom .core import Frame as Table\n__all__ = ['Frame', 'Table', 'read']\n"


# --- item 2: public means reachable


def test_removed_function_and_method_once_per_object_with_every_path(tmp_path: Path) -> None:
    a = {"__init__.py": INIT, "core.py": "class Frame:\n    def append(self, other): ...\n\ndef read(path): ...\n"}
    b = {"__init__.py": "from .core import Frame\n__all__ = ['Frame']\n", "core.py": "class Frame:\n    pass\n"}
    result = diff(tmp_path, a, b)
    assert kinds(result) == {
        (f"{PKG}.Frame.append", "removed", None),
        (f"{PKG}.read", "removed", None),
        (f"{PKG}.Table", "removed", None),
    }
    append = one(result, f"{PKG}.Frame.append", "removed")
    assert append.paths == (f"{PKG}.Frame.append", f"{PKG}.core.Frame.append")  # `Table`'s removal covers its own
    assert (append.release, append.source_a, append.source_b) == ("1.1", f"{PKG}/core.py:2", None)
    assert append.fix == "removed in 1.1; no replacement in code"
    assert one(result, f"{PKG}.read", "removed").paths == (f"{PKG}.read", f"{PKG}.core.read")
    # `Table` is gone but its object is still `Frame`: a removed path, saying where the object still is
    assert one(result, f"{PKG}.Table", "removed").fix == f"removed in 1.1; still reachable as {PKG}.Frame"


def test_method_moved_to_a_base_class_is_not_removed(tmp_path: Path) -> None:
    a = {"__init__.py": "from .core import Frame\n", "core.py": "class Frame:\n    def head(self, n=5): ...\n"}
    b = {
        "__init__.py": "from .core import Frame\n",
        "core.py": "class Base:\n    def head(self, n=5): ...\n\nclass Frame(Base):\n    pass\n",
    }
    assert diff(tmp_path, a, b).changes == ()


def test_what_the_static_load_cannot_follow_is_not_a_removal(tmp_path: Path) -> None:
    # B imports `concat` from a module whose names come from a compiled one (a star import of nothing readable),
    # and its `Frame` derives from a class in a namespace package (no `__init__.py`) the load does not enter.
    a = {
        "__init__.py": "from .core import Frame, concat\n",
        "core.py": "def concat(objs): ...\n\nclass Frame:\n    def head(self, n=5): ...\n    def gone(self): ...\n",
    }
    b = {
        "__init__.py": "from .core import Frame, concat\n",
        "core.py": "from ._core import concat\nfrom .sansio.base import Base\n\nclass Frame(Base):\n    pass\n",
        "_core/__init__.py": "from ._compiled import *\n",
        "sansio/base.py": "class Base:\n    def head(self, n=5): ...\n",
    }
    assert kinds(diff(tmp_path, a, b)) == set()  # not even `gone`: a base it may live in was not read
    # PEP 562: a package's `__getattr__` still gives `concat`, which a mapping says B keeps in `core`; not a name
    # its mapping says is gone, nor one B has nowhere
    init = "from .core import Frame\n_lazy = {'concat': (__spec__.parent, '.core')}\ndef __getattr__(name): ...\n"
    lazy = {"__init__.py": init, "core.py": a["core.py"]}
    assert kinds(diff(tmp_path / "lazy", a, lazy)) == set()
    expired = {**lazy, "__init__.py": init.replace("(__spec__.parent, '.core')", "'Use merge instead.'")}
    gone = {**lazy, "core.py": a["core.py"].replace("concat", "merge")}
    # a package whose `__all__` names it exports it, though from a star import the static load cannot follow
    starred = {"__init__.py": "from .core import Frame\nfrom ._native import *\n__all__ = ['Frame', 'concat']\n"}
    assert kinds(diff(tmp_path / "starred", a, {**starred, "core.py": a["core.py"]})) == set()
    for changed in (expired, gone):
        assert (f"{PKG}.concat", "removed", None) in kinds(diff(tmp_path / str(id(changed)), a, changed))
    c = {**b, "core.py": "from ._core import concat\n\nclass Frame:\n    def head(self, n=5): ...\n"}
    assert kinds(diff(tmp_path / "c", a, c)) == {(f"{PKG}.Frame.gone", "removed", None)}


def test_a_package_that_became_a_namespace_package_is_not_removed(tmp_path: Path) -> None:
    # Matplotlib 3.9's `mpl_toolkits` lost its `__init__.py`: its import names no longer list it, the load does not
    # enter it, and yet `import mpl_toolkits.mplot3d` works as before
    a, b = tree(tmp_path, "1.0", {"__init__.py": "x = 1\n"}), tree(tmp_path, "2.0", {"__init__.py": "x = 1\n"})
    for root, init in ((a.root, True), (b.root, False)):
        (root / "kit" / "sub").mkdir(parents=True)
        (root / "kit" / "sub" / "__init__.py").write_text("def f(): ...\n")
        if init:
            (root / "kit" / "__init__.py").write_text("")
    a = ReleaseTree(a.product, a.version, a.sha256, a.root, (PKG, "kit"))
    assert kinds(diff_releases([a, b])) == set()
    (b.root / "kit" / "sub" / "__init__.py").unlink()
    (b.root / "kit" / "sub").rmdir()
    (b.root / "kit").rmdir()
    assert ("kit", "removed", None) in kinds(diff_releases([a, b]))  # gone from disk: removed


def test_alias_still_resolving_to_the_same_object_is_not_a_change(tmp_path: Path) -> None:
    a = {"__init__.py": "from .core import read\n", "core.py": "def read(path): ...\n"}
    b = {"__init__.py": "from .io import read\n", "io.py": "def read(path): ...\n", "core.py": "from .io import read\n"}
    assert diff(tmp_path, a, b).changes == ()  # `core.read` is an import now, but still the same function


def test_constructor_moved_from_new_to_init_is_one_signature(tmp_path: Path) -> None:
    a = {
        "__init__.py": "from .core import Table\n",
        "core.py": "class Table:\n    def __new__(cls, name, bind=None): ...\n",
    }
    b = {"__init__.py": "from .core import Table\n", "core.py": "class Table:\n    def __init__(self, name): ...\n"}
    result = diff(tmp_path, a, b)
    assert kinds(result) == {(f"{PKG}.Table", "parameter_removed", "bind")}
    assert one(result, f"{PKG}.Table", "parameter_removed").fix == "Table(name)"


def test_underscore_modules_and_members_are_ignored(tmp_path: Path) -> None:
    a = {
        "__init__.py": "",
        "_impl.py": "def gone(): ...\n",
        "api.py": "def _helper(): ...\nclass C:\n    def _private(self): ...\n",
        "tests/__init__.py": "",
        "tests/test_x.py": "def test_gone(): ...\n",
    }
    b = {"__init__.py": "", "api.py": "class C:\n    pass\n"}
    assert diff(tmp_path, a, b).changes == ()


# --- item 3: the kinds


SIG_A = "def f(a, b, c=1, d=None, e=None, sep=','): ...\n"


@pytest.mark.parametrize(
    ("new", "expected"),
    [
        ("def f(a, b, c=1, d=None, e=None): ...\n", {("sep", "parameter_removed")}),
        ("def f(a, x, c=1, d=None, e=None, sep=','): ...\n", {("b", "parameter_renamed")}),
        (
            "def f(a, b, *, c=1, d=None, e=None, sep=','): ...\n",
            {(p, "parameter_keyword_only") for p in "cde"} | {("sep", "parameter_keyword_only")},
        ),
        ("def f(a, b, c, d=None, e=None, sep=','): ...\n", {("c", "parameter_required")}),
        ("def f(a, b, c=1, d=None, e=None, sep=',', *, key): ...\n", {("key", "parameter_added_required")}),
        ("def f(a, b, c=2, d=None, e=None, sep=','): ...\n", {("c", "default_changed")}),
        ('def f(a, b, c=1, d=_NoDefault, e=lib.no_default, sep=","): ...\n', set()),  # sentinel, quotes only
        ("def f(a, b, c: int = 1, d=None, e=None, sep=','): ...\n", set()),  # annotation only
        ("def f(b, a, c=1, d=None, e=None, sep=','): ...\n", {("a", "parameter_moved"), ("b", "parameter_moved")}),
    ],
)
def test_parameter_kinds(tmp_path: Path, new: str, expected: set[tuple[str, str]]) -> None:
    result = diff(tmp_path, {"__init__.py": SIG_A}, {"__init__.py": new})
    assert {(c.parameter, c.kind) for c in result.changes} == expected
    assert all(c.object == f"{PKG}.f" and c.source_b == f"{PKG}/__init__.py:1" for c in result.changes)


def test_renamed_parameter_fix_names_the_new_one(tmp_path: Path) -> None:
    result = diff(tmp_path, {"__init__.py": SIG_A}, {"__init__.py": "def f(a, x, c=1, d=None, e=None, sep=','): ...\n"})
    assert one(result, f"{PKG}.f", "parameter_renamed").fix == "renamed to x: f(a, x, c=1, d=None, e=None, sep=',')"


def test_abstract_method_added_and_base_removed(tmp_path: Path) -> None:
    a = {"__init__.py": "import abc\nclass Mixin: ...\nclass Reader(Mixin, abc.ABC):\n    def read(self): ...\n"}
    b = {
        "__init__.py": (
            "import abc\nclass Mixin: ...\nclass Reader(abc.ABC):\n"
            "    def read(self): ...\n    @abc.abstractmethod\n    def close(self, force=False): ...\n"
        )
    }
    result = diff(tmp_path, a, b)
    assert kinds(result) == {(f"{PKG}.Reader.close", "abstract_added", None), (f"{PKG}.Reader", "base_removed", None)}
    assert (
        one(result, f"{PKG}.Reader.close", "abstract_added").fix
        == "subclasses of Reader must implement Reader.close(force=False)"
    )
    assert one(result, f"{PKG}.Reader", "base_removed").fix == f"no longer a subclass of {PKG}.Mixin"


DEPRECATED_B = """
import warnings
from typing_extensions import deprecated
from .errors import OldApiWarning

@deprecated("use load() instead")
def read(path): ...

def fill(value=None, method=None):
    if method is not None:
        warnings.warn(f"fill with 'method' is deprecated; use ffill", OldApiWarning, stacklevel=2)

def keep(x):
    warnings.warn("keep is slow", UserWarning)

def pad(x, downcast=None):
    downcast = _deprecate_downcast(downcast)

def deprecate_nonkeyword_arguments(**kwargs):
    return lambda f: f

@deprecate_nonkeyword_arguments(version=None, allowed_args=["x"], name="group")
def group(x, by=None): ...

def opt(sort=None):
    if sort is None:
        warnings.warn("leaving sort out is deprecated", DeprecationWarning)

def frame(data=None, copy=None):
    if isinstance(data, dict) and copy:
        warnings.warn("a dict with copy is deprecated", DeprecationWarning)
    if data == "T":
        warnings.warn("the alias 'T' is deprecated", DeprecationWarning)
"""


def test_deprecated_by_decorator_by_a_warning_subclass_and_under_a_condition_on_one_parameter(tmp_path: Path) -> None:
    errors = "class PandasLikeWarning(FutureWarning): ...\nclass OldApiWarning(PandasLikeWarning): ...\n"
    a = {
        "__init__.py": (
            "def read(path): ...\ndef fill(value=None, method=None): ...\n"
            "def keep(x): ...\ndef pad(x, downcast=None): ...\ndef frame(data=None, copy=None): ...\n"
            "def deprecate_nonkeyword_arguments(**kwargs): ...\ndef group(x, by=None): ...\ndef opt(sort=None): ...\n"
        ),
        "errors.py": errors,
    }
    b = {"__init__.py": DEPRECATED_B, "errors.py": errors}
    result = diff(tmp_path, a, b)
    assert kinds(result) == {
        (f"{PKG}.read", "deprecated", None),
        (f"{PKG}.fill", "deprecated", "method"),
        (f"{PKG}.pad", "deprecated", "downcast"),
    }
    # `frame`'s warnings test the value of what is passed (a kind of input), not whether it is: nothing a call shows;
    # `group`'s helper deprecates passing `by` by position, a call form, not `group`; `opt` warns when `sort` is
    # left out (a default to change), which passing it does not do
    assert one(result, f"{PKG}.read", "deprecated").fix == "use load() instead"
    fill = one(result, f"{PKG}.fill", "deprecated")
    assert (fill.fix, fill.source_b) == ("fill with 'method' is deprecated; use ffill", f"{PKG}/__init__.py:11")
    # already deprecated in the older release: not new
    assert diff(tmp_path / "again", b, b).changes == ()


def test_release_attribution_across_three_versions(tmp_path: Path) -> None:
    v0 = {"__init__.py": "def f(a, b=1): ...\ndef g(): ...\n"}
    v1 = {
        "__init__.py": (
            "import warnings\ndef f(a, b=1):\n    warnings.warn('f is going', DeprecationWarning)\ndef g(): ...\n"
        )
    }
    v2 = {"__init__.py": "def f(a): ...\n"}
    result = diff(tmp_path, v0, v1, v2)
    assert {(c.object, c.kind, c.parameter, c.release) for c in result.changes} == {
        (f"{PKG}.f", "deprecated", None, "1.1"),
        (f"{PKG}.f", "parameter_removed", "b", "1.2"),
        (f"{PKG}.g", "removed", None, "1.2"),
    }
    assert result.releases == ("1.0", "1.1", "1.2")


def test_a_cached_diff_loads_nothing(tmp_path: Path) -> None:
    a = {"__init__.py": "def f(a, b=1): ...\n"}
    b = {"__init__.py": "def f(a): ...\n"}
    first = diff(tmp_path, a, b, cache_dir=tmp_path / "cache")
    with mock.patch.object(assistant.upgrade.api.diff, "load_release", side_effect=AssertionError("loaded")):
        second = diff(tmp_path, a, b, cache_dir=tmp_path / "cache")
    assert second.changes == first.changes and len(first.changes) == 1
    assert second.timings_ms["load"] == 0 and first.timings_ms["load"] > 0
    assert not list((tmp_path / "cache").glob(".api-diff-*"))  # no temporary file left


# --- item 1: static, from the tree only


def test_a_package_also_installed_loads_from_the_tree_and_nothing_runs(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    files = {
        "__init__.py": f"open({str(marker)!r}, 'w').write('imported')\nfrom .version import Version\n",
        "version.py": "class Version:\n    def __init__(self, text): ...\n",
        "sub/__init__.py": "",
        "sub/mod.py": f"import pathlib\npathlib.Path({str(marker)!r}).write_text('x')\n",
        "_speedups.pyi": "def fast() -> int: ...\n",
    }
    release = tree(tmp_path, "1.0", files)
    (release.root / "evil.pth").write_text(f"{Path(__import__(PKG).__file__).parent.parent}\n")
    loaded = load_release(release)
    root = release.root.resolve()
    modules = [loaded.packages[PKG], *loaded.packages[PKG].modules.values()]
    assert {m.path for m in modules} == {PKG, f"{PKG}.version", f"{PKG}.sub", f"{PKG}._speedups"}
    assert all(Path(m.filepath).resolve().is_relative_to(root) for m in modules)
    assert "Version" in loaded.packages[PKG].members and not marker.exists()


def test_a_tree_without_the_package_never_falls_back_to_the_installed_copy(tmp_path: Path) -> None:
    release = ReleaseTree(PKG, "1.0", "0" * 64, tmp_path, (PKG,))
    with pytest.raises(ModuleNotFoundError):
        load_release(release)


def test_a_module_read_from_outside_the_tree_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "sub" / "__init__.py").write_text("def f(): ...\n")
    release = tree(tmp_path, "1.0", {"__init__.py": ""})
    (release.root / PKG / "sub").symlink_to(outside / "sub")
    with pytest.raises(UnsafeTree):
        load_release(release)


def test_compiled_only_modules_are_listed_as_not_analysable(tmp_path: Path) -> None:
    files = {
        "__init__.py": "from ._libs import lib, stubbed\nfrom ._libs.window import aggregations\n",
        "_libs/__init__.py": "",
        "_libs/stubbed.pyi": "def f() -> int: ...\n",
        "_libs/window/__init__.py": "",
        "core.py": "from . import NotAModule\n",
    }
    result = diff_releases([tree(tmp_path, "1.0", files), tree(tmp_path, "1.1", files)])
    assert result.not_analysable == (f"{PKG}._libs.lib", f"{PKG}._libs.window.aggregations")


def test_a_module_the_static_load_cannot_parse_is_not_removed(tmp_path: Path) -> None:
    a = {"__init__.py": "from . import sub\n", "sub.py": "def f(): ...\n"}
    b = {"__init__.py": "from . import sub\n", "sub.py": "type Alias = int\nclass(:\n"}  # no Python parses it
    assert (f"{PKG}.sub", "removed", None) not in kinds(diff(tmp_path, a, b))
