"""Names a change's sentence only mentions are no targets: the class whose methods went ("A few methods from
`X` … have been removed"), the call of what to use instead, and a keyword written in an example expression
rather than in the call the change is about. A call the docs write with a literal value after other arguments
(`np.array(..., copy=False)`) hits only calls passing that value."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.model.document import Entry
from tests.test_scan_evidence import plan_targets, scan_files, seen


def test_the_class_whose_methods_were_removed_is_not_removed_itself(tmp_path: Path) -> None:
    found = plan_targets(
        Entry(
            "item",
            "A few methods from `acme.ndarray` and `acme.generic` scalar classes have been removed. Use "
            "`arr.view` instead of `newbyteorder`.",
        ),
        section="Removals",
    )
    code = "import acme\nx = acme.ndarray((2,))\nif isinstance(x, acme.ndarray):\n    pass\n"
    assert [f for f in seen(scan_files(tmp_path, {"m.py": code}, *found)) if f[2]] == []
    # the class itself, said to be gone with what replaces it, is still hit
    gone = plan_targets(Entry("item", "`acme.ndarray` has been removed, use `acme.array` instead."), section="Removals")
    assert [t.symbol for t in gone] == ["acme.ndarray"]


@pytest.mark.parametrize(
    ("entry", "section", "call"),
    [
        # the call to use instead shows the new form
        (
            Entry("row", "removed member: `cast` — migration guideline: Use `acme.asarray(arr, dtype=dtype)` instead."),
            "Main namespace",
            "acme.asarray(x, dtype=float)",
        ),
        # an example expression shows what a call now evaluates to
        (
            Entry("item", "`acme.array([3], dtype=acme.float32) + acme.float64(3)` will now return a float64 array."),
            "Changes",
            "acme.array(x, dtype=float)",
        ),
    ],
)
def test_a_keyword_the_entry_only_shows_is_no_parameter(tmp_path: Path, entry: Entry, section: str, call: str) -> None:
    found = plan_targets(entry, section=section)
    assert all(t.parameter != "dtype" for t in found)
    assert [f for f in seen(scan_files(tmp_path, {"m.py": f"import acme\ny = {call}\n"}, *found)) if f[2]] == []


def test_the_call_alone_as_the_subject_still_names_its_parameter() -> None:
    said = plan_targets(Entry("item", "`acme.load(x, mmap=True)` is deprecated."), section="Deprecations")
    assert [(t.symbol, t.parameter) for t in said] == [("acme.load", "mmap")]


def test_a_value_written_after_other_arguments_hits_only_calls_passing_it(tmp_path: Path) -> None:
    found = plan_targets(
        Entry(
            "item",
            "Code using `acme.array(..., copy=False)` can in most cases be changed to `acme.asarray(...)`. Older "
            "code used `acme.array` like this because it had less overhead than the default.",
        ),
        section="Changes to the copy keyword",
    )
    code = (
        "import acme\n"
        "a = acme.array(x)\n"
        "b = acme.array(x, copy=False)\n"  # 3
        "c = acme.array(x, copy=True)\n"
        "d = acme.array(x, dtype=float, copy=False)\n"  # 5
    )
    assert seen(scan_files(tmp_path, {"m.py": code}, *found)) == [("m.py", 3, True), ("m.py", 5, True)]
