"""What the API diff does not call a change (issue 44): a default or an annotation spelled otherwise, a parameter
moved only related an earlier one left, and a catch-all `*args`/`**kwargs` traded for the named parameters it
took; on small made-up packages, as `tests/test_api_diff.py` writes them."""

from __future__ import annotations

from pathlib import Path

from tests.test_api_diff import PKG, diff, kinds


def test_equivalent_spellings_of_a_default_or_a_return_type_are_no_change(tmp_path: Path) -> None:
    a = {
        "__init__.py": "from typing import Optional, Set, Type\nfrom . import _sql\n"
        "def expr(default=_sql.null()) -> Type[Set[int]]: ...\n"
        "def opt(x: int = 1) -> Optional[int]: ...\n",
        "_sql.py": "def null(): ...\n",
        "sql.py": "def null(): ...\n",
    }
    b = {
        "__init__.py": "from . import sql\ndef expr(default=sql.null()) -> type[set[int]]: ...\n"
        "def opt(x: int = 2) -> int | None: ...\n",
        "_sql.py": "def null(): ...\n",
        "sql.py": "def null(): ...\n",
    }
    assert kinds(diff(tmp_path, a, b)) == {(f"{PKG}.opt", "default_changed", "x")}


def test_a_return_type_alias_shares_the_type_it_stands_for(tmp_path: Path) -> None:
    a = {"__init__.py": "from typing import Any\nclass ndarray: ...\ndef sort() -> ndarray[Any, Any]: ...\n"}
    b = {
        "__init__.py": "from typing import Any\nfrom ._typing import NDArray\nclass ndarray: ...\n"
        "def sort() -> NDArray[Any]: ...\n",
        "_typing.py": "from typing import Any\nfrom . import ndarray\nNDArray = ndarray[Any, Any]\n",
    }
    assert kinds(diff(tmp_path, a, b)) == set()


def test_a_move_says_which_removed_parameters_alone_caused_it(tmp_path: Path) -> None:
    a = {
        "__init__.py": "def connect(bind=None, close=False, options=None): ...\n"
        "def post(path, data=None, secure=False): ...\n"
    }
    b = {
        "__init__.py": "def connect(bind=None, options=None): ...\n"
        "def post(path, data=None, follow=False, secure=False): ...\n"
    }
    changes = {(c.object, c.kind, c.parameter): c for c in diff(tmp_path, a, b).changes}
    assert changes[(f"{PKG}.connect", "parameter_moved", "options")].related == ("close",)
    assert (f"{PKG}.connect", "parameter_removed", "close") in changes
    # a parameter inserted before another shifts what positional callers pass: a move of its own
    assert changes[(f"{PKG}.post", "parameter_moved", "secure")].related == ()


def test_a_catch_all_traded_for_the_named_parameters_is_no_removal(tmp_path: Path) -> None:
    a = {
        "__init__.py": "def endswith(other, **kwargs): ...\ndef key(*args, **kwargs): ...\n"
        "def find(path, all=False): ...\ndef mean(numeric_only=False, *args, **kwargs): ...\n"
        "def prepare(engine): ...\n"
    }
    b = {
        "__init__.py": "def endswith(other, escape=None): ...\ndef key(class_=None, *, row=None): ...\n"
        "def find(path, find_all=False, **kwargs):\n    return kwargs.pop('all', find_all)\n"
        "def mean(numeric_only=False): ...\ndef prepare(bind, **reflect_kw): ...\n"
    }
    found = {(o, k, p) for o, k, p in kinds(diff(tmp_path, a, b)) if k == "parameter_removed"}
    # `mean` added nothing: its catch-alls are gone, and any extra argument now fails; `prepare` passes an
    # `engine=` on to what `**reflect_kw` feeds, since nothing reads it there
    assert found == {
        (f"{PKG}.mean", "parameter_removed", "*args"),
        (f"{PKG}.mean", "parameter_removed", "**kwargs"),
        (f"{PKG}.prepare", "parameter_removed", "engine"),
    }


def test_a_stub_is_not_compared_with_the_runtime_it_does_not_spell(tmp_path: Path) -> None:
    """A stub's `= ...` default is unknown, and a stub constructor given by overloads alone is not the base's."""
    runtime = "def poly(c, variable=None): ...\n"
    a = {
        "__init__.py": "from ._poly import poly\nfrom ._chars import ch, nd\n",
        "__init__.pyi": "from ._chars import ch, nd\ndef poly(c, variable: str | None = ...): ...\n",
        "_poly.py": runtime,
        "_chars.pyi": "class nd:\n    def __new__(cls, shape, dtype=...): ...\n"
        "class ch(nd):\n    def __new__(cls, shape, itemsize=..., buffer=...): ...\n",
    }
    b = {
        "__init__.py": "from ._poly import poly\nfrom ._chars import ch, nd\n",
        "_poly.py": runtime,
        "_chars.pyi": "from typing import overload\nclass nd:\n    def __new__(cls, shape, dtype=...): ...\n"
        "class ch(nd):\n    @overload\n    def __new__(cls, shape, itemsize=...): ...\n"
        "    @overload\n    def __new__(cls, shape, itemsize: int = ..., buffer=...): ...\n",
    }
    assert kinds(diff(tmp_path, a, b)) == set()


def test_a_stub_default_is_no_value_to_compare() -> None:
    from assistant.upgrade.api.compare import _default_changed

    assert not _default_changed("...", "None")
    assert not _default_changed("_sql.null()", "sql.null()")
    assert _default_changed("True", "False")


def test_a_base_gone_names_every_public_path_of_it_for_the_plan_to_judge(tmp_path: Path) -> None:
    a = {
        "__init__.py": "from .core.mixins import Cached\nfrom .core import Widget\n",
        "core/__init__.py": "from .mixins import Cached\nclass Widget(Cached): ...\n",
        "core/mixins.py": "class Cached: ...\n",
    }
    b = {**a, "core/__init__.py": "from .mixins import Cached\nclass Widget: ...\n"}
    (change,) = [c for c in diff(tmp_path, a, b).changes if c.kind == "base_removed"]
    assert change.fix == f"no longer a subclass of {PKG}.Cached"
    assert set(change.related) == {f"{PKG}.Cached", f"{PKG}.core.Cached", f"{PKG}.core.mixins.Cached"}


def test_optional_is_rewritten_past_a_longer_name_that_ends_with_it() -> None:
    from assistant.upgrade.api.spelling import _optional

    assert _optional("MyOptional[int] | Optional[str]") == "MyOptional[int] | str | None"
    assert _optional("Optional[Dict[str, Optional[int]]]") == "Dict[str, int | None] | None"
