"""The code scan (issue #11): where Python files and notebooks hit the symbols that changes name."""

from __future__ import annotations

import json
from pathlib import Path
from unittest import mock

import pytest

import assistant.upgrade.scan
from assistant.upgrade.lookup import class_of, receiver_names
from assistant.upgrade.scan import Finding, ScanError, ScanReport, Target, scan, scan_source


def scan_code(tmp_path: Path, code: str, *targets: Target, name: str = "m.py") -> ScanReport:
    """Scan one file; also without the `ast` pre-pass, which must never hide a hit the full analysis finds."""
    path = tmp_path / name
    path.write_text(code)
    report = scan([path], targets)
    with mock.patch.object(assistant.upgrade.scan, "might_hit", lambda tree, index: True):
        assert scan([path], targets) == report
    return report


def places(report: ScanReport) -> list[tuple[int, int, str, bool]]:
    return [(f.line, f.col, f.symbol, f.exact) for f in report.findings]


def notebook(*cells: tuple[str, str | list[str]], language: str = "python") -> str:
    return json.dumps(
        {
            "cells": [{"cell_type": kind, "metadata": {}, "source": source} for kind, source in cells],
            "metadata": {"language_info": {"name": language}},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


FLOAT_ = Target("numpy-float_", "numpy.float_")


def test_an_alias_resolves_and_names_that_merely_match_do_not_hit(tmp_path):
    code = (
        "import numpy as np\n"
        "x = np.float_(1)\n"
        "def f(float_):\n"
        "    return float_\n"
        "class C:\n"
        "    def g(self, obj, np):\n"
        "        y = 1\n"
        "        return obj.float_, y.float_, self.float_, np.float_, dict(float_=1)\n"
    )
    report = scan_code(tmp_path, code, FLOAT_)
    # Once, at the attribute's start; not for `np` alone, nor for the parameter `np` that shadows the module.
    assert report.findings == (
        Finding(str(tmp_path / "m.py"), 2, 5, "x = np.float_(1)", "numpy.float_", "numpy-float_", True),
    )
    assert report.errors == () and report.files == 1


def test_definitions_keywords_and_match_captures_are_no_uses_of_an_imported_name(tmp_path):
    code = (
        "from numpy import float_\n"
        "class K(metaclass=float_, float_=2): pass\n"
        "def float_(): pass\n"
        "class float_: pass\n"
        "match x:\n"
        "    case Point(float_=0): pass\n"
        '    case {"a": float_, **float_}: pass\n'
        "    case [*float_] | (1 as float_): pass\n"
        "    case float_.dtype: pass\n"
    )
    report = scan_code(tmp_path, code, FLOAT_)
    assert [(f.line, f.col) for f in report.findings] == [(1, 19), (2, 19), (9, 10)]


def test_an_imported_module_alias_gives_the_qualified_symbol(tmp_path):
    code = "from torch.distributed.nn import functional as F\n\nF.all_reduce(t)\nF.broadcast(t)\n"
    report = scan_code(tmp_path, code, Target("c", "torch.distributed.nn.functional.all_reduce"))
    assert places(report) == [(3, 1, "torch.distributed.nn.functional.all_reduce", True)]


def test_a_name_imported_from_a_module_hits_at_the_import_and_at_each_use(tmp_path):
    code = "from numpy import trapz\n\ny = trapz([1, 2])\nz = [trapz]\ndef g(trapz):\n    return trapz(1)\n"
    report = scan_code(tmp_path, code, Target("c", "numpy.trapz"))
    assert places(report) == [(1, 19, "numpy.trapz", True), (3, 5, "numpy.trapz", True), (4, 6, "numpy.trapz", True)]
    assert report.findings[0].code == "from numpy import trapz"


def test_a_module_target_hits_every_use_of_the_module_and_its_members_once(tmp_path):
    code = (
        "import torch\n"
        "from torch.ao.quantization import quantize_dynamic\n"
        "import torch.ao.quantization as q\n"
        "m = torch.ao.quantization.fuse_modules(m, [['a', 'b']])\n"
        "quantize_dynamic(m)\n"
        "q.prepare(m)\n"
        "torch.nn.Linear(1, 1)\n"
        "import torch.ao.quantization\n"
        "from torch.ao import quantization\n"
    )
    report = scan_code(tmp_path, code, Target("c", "torch.ao.quantization"))
    assert places(report) == [
        (2, 6, "torch.ao.quantization", True),  # the module the import names, once for the statement
        (3, 8, "torch.ao.quantization", True),
        (4, 5, "torch.ao.quantization.fuse_modules", True),
        # line 5's `quantize_dynamic` came in through line 2's import, already the module's use there
        (6, 1, "torch.ao.quantization.prepare", True),
        (8, 8, "torch.ao.quantization", True),
        (9, 22, "torch.ao.quantization", True),
    ]


def test_a_parameter_target_hits_only_calls_that_pass_it(tmp_path):
    code = (
        "import torch\n"
        'torch.hub.load("x", "y", trust_repo=True)\n'
        'torch.hub.load("x", "y")\n'
        "f = torch.hub.load\n"
        "from torch.hub import load\n"
        'load("x", "y", trust_repo="check")\n'
    )
    report = scan_code(tmp_path, code, Target("c", "torch.hub.load", "trust_repo"))
    assert places(report) == [(2, 1, "torch.hub.load(trust_repo)", True), (6, 1, "torch.hub.load(trust_repo)", True)]


def test_a_changed_default_hits_calls_that_rely_on_it(tmp_path):
    code = (
        "import torch\n"
        "from torch.export import export\n"
        "torch.export.export(m, args)\n"
        "torch.export.export(m, args, strict=False)\n"
        "torch.export.export(m, args, **kw)\n"  # may pass it
        "export(m, args)\n"
        "torch.export.export\n"
    )
    report = scan_code(tmp_path, code, Target("c", "torch.export.export", "strict", omitted=True))
    assert places(report) == [(3, 1, "torch.export.export(strict)", True), (6, 1, "torch.export.export(strict)", True)]


def test_a_constructor_is_a_call(tmp_path):
    code = (
        "from torch.optim.lr_scheduler import ReduceLROnPlateau\n"
        "import torch\n"
        "s = ReduceLROnPlateau(opt, verbose=True)\n"
        't = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min")\n'
        'u = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, "min", verbose=False)\n'
    )
    target = Target("c", "torch.optim.lr_scheduler.ReduceLROnPlateau", "verbose")
    report = scan_code(tmp_path, code, target)
    symbol = "torch.optim.lr_scheduler.ReduceLROnPlateau(verbose)"
    assert places(report) == [(3, 5, symbol, True), (5, 5, symbol, True)]


def test_a_class_member_is_a_possible_hit_on_a_receiver_of_unknown_type(tmp_path):
    code = (
        "import numpy as np\n"
        "arr = np.zeros(3)\n"
        "arr.newbyteorder()\n"
        'np.zeros(3).newbyteorder(">")\n'
        "np.ndarray.newbyteorder(arr)\n"
        '"text".newbyteorder()\n'  # a literal: a str
        "np.linalg.newbyteorder()\n"  # resolved, to something else
        "import os\n"
        "os.newbyteorder\n"
    )
    report = scan_code(tmp_path, code, Target("c", "numpy.ndarray.newbyteorder", member_of="ndarray"))
    symbol = "numpy.ndarray.newbyteorder"
    # Possible hits are placed at the member: the receiver may be any expression.
    assert places(report) == [(3, 5, symbol, False), (4, 13, symbol, False), (5, 1, symbol, True)]


def test_a_builtin_method_name_is_a_possible_hit_only_on_a_receiver_named_after_the_class(tmp_path):
    code = (
        "import pandas as pd\n"
        'df = pd.read_csv("a.csv")\n'
        "df.append(other)\n"
        "train_df.append(other)\n"
        "self.df.append(other)\n"
        "items = []\n"
        "items.append(1)\n"
        'pd.read_csv("b.csv").append(other)\n'
        "pd.DataFrame.append(df, other)\n"
        "dataframe.append(other)\n"
        "pdf.append(other)\n"
    )
    report = scan_code(tmp_path, code, Target("c", "pandas.DataFrame.append"))
    symbol = "pandas.DataFrame.append"
    assert places(report) == [
        (3, 4, symbol, False),
        (4, 10, symbol, False),
        (5, 9, symbol, False),
        (9, 1, symbol, True),
        (10, 11, symbol, False),
    ]


def test_a_short_member_name_is_a_possible_hit_only_on_a_receiver_named_after_the_class(tmp_path):
    code = "import pandas\nframe.pad()\ndf.pad()\n"
    report = scan_code(tmp_path, code, Target("c", "pandas.DataFrame.pad"))
    assert places(report) == [(3, 4, "pandas.DataFrame.pad", False)]


def test_a_parameter_of_a_class_member_passed_by_keyword_is_a_hit_on_an_unknown_receiver(tmp_path):
    # The keyword the docs name is evidence of the class that the member's name alone is not.
    code = 'import pandas\ndf.to_csv("a", line_terminator="\\n")\ndf.to_csv("a")\n'
    target = Target("c", "pandas.DataFrame.to_csv", "line_terminator")
    report = scan_code(tmp_path, code, target)
    assert places(report) == [(2, 4, "pandas.DataFrame.to_csv(line_terminator)", True)]
    # In a module that does not import pandas, a `to_csv` is some other library's: nothing, not even a guess.
    assert scan_code(tmp_path, code.removeprefix("import pandas\n"), target).findings == ()


def test_only_a_class_member_has_possible_hits():
    assert class_of("pandas.DataFrame.append") == "DataFrame"
    assert class_of("numpy.ndarray.newbyteorder") is None  # lower case: a module's member, unless the docs say
    assert class_of("numpy.ndarray.newbyteorder", "ndarray") == "ndarray"
    assert class_of("numpy.linalg.norm") is None
    assert class_of("numpy.trapz") is None
    assert receiver_names("DataFrame") == {"dataframe", "df"}
    assert receiver_names("Series") == {"series"}  # one initial names too much to count


def test_a_module_member_has_no_possible_hits(tmp_path):
    code = "class A:\n    def g(self, x):\n        return self.trapz, x.trapz(1)\n"
    assert scan_code(tmp_path, code, Target("c", "numpy.trapz")).findings == ()


def test_a_file_that_does_not_parse_is_an_error_and_the_others_are_scanned(tmp_path):
    (tmp_path / "a_bad.py").write_text("def f(:\n    pass\n")
    (tmp_path / "b_bad_too.py").write_text("import numpy as np\nx = np.float_(\n")  # within a target's reach
    (tmp_path / "c_latin.py").write_bytes(b"\xff\xfe x = 1\n")
    (tmp_path / "d_good.py").write_text("import numpy as np\nnp.float_\n")
    report = scan([tmp_path], [FLOAT_])
    assert [e.file for e in report.errors] == [str(tmp_path / n) for n in ("a_bad.py", "b_bad_too.py", "c_latin.py")]
    # `def f(:` is set aside, its body read (`assistant/upgrade/recover.py`)
    assert report.errors[0].error == "syntax error at line 1: invalid syntax; the rest of the file was scanned"
    assert report.errors[1].error == "syntax error at line 2: '(' was never closed; the rest of the file was scanned"
    assert report.errors[2].error.startswith("cannot decode: ")
    assert all("\n" not in e.error for e in report.errors)
    assert report.files == 3  # the two read without the line they stop at; the third not at all
    assert [(f.file, f.line) for f in report.findings] == [(str(tmp_path / "d_good.py"), 2)]


def test_code_nested_too_deeply_is_an_error_and_no_crash(tmp_path):
    # CPython's parser refuses these (a recursion or parenthesis limit); the scan's walks are iterative, so a
    # deep tree it did build (a flat boolean chain of 20,000 operands) is read, not a crash.
    hit = "import numpy as np\nnp.float_\n"
    (tmp_path / "a_or.py").write_text(hit + "x = a" + " or a" * 20_000 + "\n")
    (tmp_path / "b_or_bad.py").write_text(hit + "x = a" + " or a" * 20_000 + "\ndef f(:\n")
    (tmp_path / "c_unary.py").write_text(hit + "x = " + "-" * 100_000 + "1\n")
    (tmp_path / "d_brackets.py").write_text(hit + "x = " + "[" * 5_000 + "]" * 5_000 + "\n")
    (tmp_path / "e_good.py").write_text(hit + "x = a" + " or a" * 100 + "\n")
    (tmp_path / "f_sum.py").write_text(hit + "x = 1" + " + 1" * 100_000 + "\n")
    report = scan([tmp_path], [FLOAT_])
    assert [(Path(e.file).name, e.error) for e in report.errors] == [
        ("b_or_bad.py", "syntax error at line 4: invalid syntax"),
        ("c_unary.py", "nested too deeply, or too large to read in the memory allowed"),
        ("d_brackets.py", "nested too deeply to read"),
        ("f_sum.py", "nested too deeply to read"),
    ]
    assert report.files == 2 and [Path(f.file).name for f in report.findings] == ["a_or.py", "e_good.py"]


def test_a_notebook_is_scanned_cell_by_cell_in_one_namespace(tmp_path):
    path = tmp_path / "nb.ipynb"
    path.write_text(
        notebook(
            ("markdown", "# np.float_ in prose is no hit\n"),
            ("code", ["%matplotlib inline\n", "import numpy as np\n", "!pip list\n"]),
            ("code", "x = !ls\ny = np.float_(1)\nfor i in range(2):\n    !echo $i\n"),
            ("code", "%%bash\necho np.float_\n"),  # not Python
            ("code", "%%time\nz = np.float_(2)"),
        )
    )
    report = scan([path], [FLOAT_])
    assert report.errors == () and report.files == 1
    assert [(f.cell, f.line, f.col, f.code) for f in report.findings] == [
        (2, 2, 5, "y = np.float_(1)"),  # the import in cell 1 resolves `np`
        (4, 2, 5, "z = np.float_(2)"),
    ]
    assert all(f.file == str(path) for f in report.findings)


def test_a_notebook_cell_that_does_not_parse_is_an_error_and_the_others_are_scanned(tmp_path):
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook(("code", "import numpy as np\n"), ("code", "def f(:\n"), ("code", "np.float_\n")))
    report = scan([path], [FLOAT_])
    assert len(report.errors) == 1 and report.errors[0].file == str(path)
    assert report.errors[0].error.startswith("cell 1: syntax error at line 1: ")
    assert report.files == 1
    assert [(f.cell, f.line, f.symbol) for f in report.findings] == [(2, 1, "numpy.float_")]


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"cells": [{"cell_type": "code", "source": 3}]}'])
def test_a_malformed_notebook_is_one_error(tmp_path, text):
    path = tmp_path / "nb.ipynb"
    path.write_text(text)
    report = scan([path, tmp_path / "missing.py"], [FLOAT_])
    assert [e.file for e in report.errors] == [str(tmp_path / "missing.py"), str(path)]  # by file
    assert report.errors[0] == ScanError(str(tmp_path / "missing.py"), "no such file or directory")
    assert report.errors[1].error.startswith("malformed notebook: ")
    assert report.files == 0


def test_a_notebook_of_another_language_holds_no_python(tmp_path):
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook(("code", "library(np.float_)\nx <- 1\n"), language="R"))
    assert scan([path], [FLOAT_]) == ScanReport((), (), 1)


def test_a_directory_walk_skips_environments_caches_and_hidden_directories(tmp_path):
    code = "import numpy as np\nnp.float_\n"
    for rel in (".venv/lib/x.py", "__pycache__/y.py", "venv/z.py", "node_modules/n.py", "lib/site-packages/s.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(code)
    (tmp_path / ".ipynb_checkpoints").mkdir()
    (tmp_path / ".ipynb_checkpoints" / "nb-checkpoint.ipynb").write_text(notebook(("code", code)))
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text(code)
    (tmp_path / "src" / "notes.txt").write_text(code)
    (tmp_path / "nb.ipynb").write_text(notebook(("code", code)))
    report = scan([tmp_path], [FLOAT_])
    assert report.files == 2
    assert [f.file for f in report.findings] == [str(tmp_path / "nb.ipynb"), str(tmp_path / "src" / "a.py")]
    # A file given by name is scanned wherever it is, and whatever its suffix.
    assert scan([tmp_path / ".venv/lib/x.py", tmp_path / "src" / "notes.txt"], [FLOAT_]).files == 2


def test_findings_are_ordered_and_each_place_and_change_is_reported_once(tmp_path):
    (tmp_path / "b.py").write_text("import numpy as np\nnp.float_; np.trapz\n")
    (tmp_path / "a.py").write_text("import numpy as np\nnp.trapz\nnp.float_\n")
    targets = [
        FLOAT_,
        FLOAT_,  # the same target twice
        Target("numpy-float_", "numpy"),  # the same change through its module
        Target("numpy-trapz", "numpy.trapz"),
        Target("numpy-2", "numpy"),  # another change at the same places
    ]
    report = scan([tmp_path / "b.py", tmp_path / "a.py", tmp_path / "b.py", tmp_path], targets)
    assert report.files == 2  # each file once, however often it is named
    assert [(Path(f.file).name, f.line, f.col, f.change) for f in report.findings] == [
        ("a.py", 1, 8, "numpy-2"),
        ("a.py", 1, 8, "numpy-float_"),
        ("a.py", 2, 1, "numpy-2"),
        ("a.py", 2, 1, "numpy-float_"),
        ("a.py", 2, 1, "numpy-trapz"),
        ("a.py", 3, 1, "numpy-2"),
        ("a.py", 3, 1, "numpy-float_"),
        ("b.py", 1, 8, "numpy-2"),
        ("b.py", 1, 8, "numpy-float_"),
        ("b.py", 2, 1, "numpy-2"),
        ("b.py", 2, 1, "numpy-float_"),
        ("b.py", 2, 12, "numpy-2"),
        ("b.py", 2, 12, "numpy-float_"),
        ("b.py", 2, 12, "numpy-trapz"),
    ]
    assert scan([tmp_path / "a.py", tmp_path / "b.py"], list(reversed(targets))) == scan(
        [tmp_path / "b.py", tmp_path / "a.py"], targets
    )


def test_files_no_target_can_reach_get_no_scope_analysis(tmp_path):
    for i in range(30):
        (tmp_path / f"m{i:02}.py").write_text("import numpy as np\nx = np.zeros(3)\nx.float_ = 1\n")
    (tmp_path / "z.py").write_text("import numpy as np\nnp.float_\n")
    with mock.patch.object(assistant.upgrade.scan, "HitVisitor", wraps=assistant.upgrade.scan.HitVisitor) as v:
        report = scan([tmp_path], [FLOAT_])  # in this process: many files go to workers only when asked
    assert v.call_count == 1
    assert report.files == 31 and [Path(f.file).name for f in report.findings] == ["z.py"]


def test_many_files_scanned_by_a_process_per_core_give_the_same_report(tmp_path):
    for i in range(30):
        (tmp_path / f"m{i:02}.py").write_text(f"import numpy as np\nx = np.float_({i})\n" + "y = 1\n" * i)
    (tmp_path / "bad.py").write_text("def (:\n")
    (tmp_path / "n.ipynb").write_text(notebook(("code", "import numpy as np\nnp.float_(1)\n")))
    seen: list[Path] = []
    parallel = scan([tmp_path], [FLOAT_], progress=lambda files: (seen.append(f) or f for f in files), parallel=True)
    serial = scan([tmp_path], [FLOAT_])
    assert parallel == serial and parallel.files == 31 and len(parallel.findings) == 31
    assert [e.file for e in parallel.errors] == [str(tmp_path / "bad.py")]
    assert len(seen) == 32  # the progress bar went through every file


def test_pasted_source_is_scanned_like_a_file(tmp_path):
    code = "import numpy as np\nnp.float_(1)\n"
    report = scan_source(code, [FLOAT_], filename="pasted.py")
    assert report == ScanReport(
        (Finding("pasted.py", 2, 1, "np.float_(1)", "numpy.float_", "numpy-float_", True),), (), 1
    )
    assert scan_source("def f(:\n", [FLOAT_]).errors[0].file == "<source>"
    nb = scan_source(notebook(("code", code)), [FLOAT_], filename="pasted.ipynb")
    assert [(f.cell, f.line) for f in nb.findings] == [(0, 2)]


def test_a_target_is_a_dotted_name_and_a_default_needs_a_parameter():
    with pytest.raises(ValueError, match="omitted"):
        Target("c", "torch.export.export", omitted=True)
    with pytest.raises(ValueError, match="dotted"):
        Target("c", "numpy.float_()")
