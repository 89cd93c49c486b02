"""A module some statements of which this Python does not parse is still scanned (`assistant/upgrade/recover.py`):
the statements are set aside and reported with their lines, every other hit keeps its place; a module with more
of them than a few stays unreadable, as before."""

from __future__ import annotations

import warnings
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.upgrade.recover import MAX_SKIPPED, recovered
from assistant.upgrade.scan import ScanReport, Target
from tests.test_scan import scan_code

OLD = Target("old", "acme.old")


def scan_one(tmp_path: Path, code: str) -> ScanReport:
    """Scan one module for `acme.old` (with and without the pre-pass, as `scan_code` does)."""
    return scan_code(tmp_path, code, OLD)


def test_a_statement_an_older_python_accepted_is_set_aside_and_the_rest_scanned(tmp_path: Path) -> None:
    code = (
        "import acme\n"
        "def f(groups):\n"
        "    rows = concat(\n"  # 3: a generator as a sole argument with a trailing comma: Python < 3.8 only
        "        load(g) for g in groups,\n"
        "    )\n"
        "    return acme.old(rows)\n"  # 6
        "acme.old()\n"  # 7
    )
    report = scan_one(tmp_path, code)
    assert [(f.line, f.exact) for f in report.findings] == [(6, True), (7, True)]
    assert report.files == 1
    ((error),) = report.errors
    assert error.error == (
        "syntax error at lines 3-5: Generator expression must be parenthesized; the rest of the file was scanned"
    )


def test_python_2_prints_are_set_aside_and_a_block_header_keeps_its_block(tmp_path: Path) -> None:
    code = 'import acme\nprint "start"\nfor x in range(3):\n    print x\n    acme.old(x)\n'
    report = scan_one(tmp_path, code)
    assert [f.line for f in report.findings] == [5]
    assert [e.error.split(":")[0] for e in report.errors] == ["syntax error at line 2", "syntax error at line 4"]
    code = "import acme\nwhile True print 1:\n    acme.old()\n"  # a header the parser stops at: its body is read
    assert [f.line for f in scan_one(tmp_path, code).findings] == [3]


def test_a_module_with_more_bad_statements_than_a_few_stays_unreadable(tmp_path: Path) -> None:
    code = "import acme\n" + 'print "x"\n' * (MAX_SKIPPED + 1) + "acme.old()\n"
    report = scan_one(tmp_path, code)
    assert report.findings == () and report.files == 0
    ((error),) = report.errors
    assert error.error.startswith("syntax error at line 2")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="a( )[]{}:,=\n\t #'\"\\x1", max_size=80))
def test_recovery_never_raises_on_any_text(text: str) -> None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes: the scan ignores them too
            compile(text, "m.py", "exec", dont_inherit=True)
    except SyntaxError as e:
        if e.lineno:
            recovered(text.split("\n"), e)  # a module or None, never an exception
    except ValueError:
        pass  # null bytes: not this module's to read
