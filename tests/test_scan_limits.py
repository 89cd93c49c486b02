"""The scan's bounds (issue 36): a file over the size cap is named and skipped in one line, a real 500 KB module
still scans within the server's time and memory budget, a file past the memory ceiling is one error, and valid
code with 100,000 adjacent string literals is scanned, not called a syntax error."""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path

from assistant.knowledge_base import KnowledgeBase
from assistant.upgrade.scan import Target, scan, scan_source

LOAD = Target("torch-load", "torch.load")
KB = 1024
# Large modules of the standard library, as real code is written: classes, docstrings, comprehensions, f-strings.
STDLIB = ("_pydecimal.py", "typing.py", "argparse.py", "inspect.py", "pathlib.py", "subprocess.py", "tarfile.py")
HITS = "from torch.distributed.nn import functional as F\n\n\ndef reduce(t):\n    return F.all_reduce(t)\n"


def real_module(size: int) -> str:
    """About `size` characters of real Python: whole standard-library modules, one after the other, the last
    cut before a top-level definition; then a use of what PyTorch 2.12 changed."""
    lib = Path(sysconfig.get_paths()["stdlib"])
    parts: list[str] = []
    total = 0
    for name in STDLIB:
        # `from __future__` may only open a module; the features it turns on are this Python's defaults anyway.
        text = "".join(line for line in (lib / name).read_text().splitlines(True) if "from __future__" not in line)
        if total + len(text) > size:
            text = text[: text.rfind("\ndef ", 0, size - total) + 1]
        parts.append(text)
        total += len(text)
        if total >= size * 0.95:
            break
    return "".join(parts) + HITS


def test_a_file_over_the_cap_is_named_and_skipped_and_the_others_are_scanned(tmp_path: Path) -> None:
    big, small = tmp_path / "big.py", tmp_path / "small.py"
    big.write_text("import torch\ntorch.load(x)\n" + "#" * 100 * KB + "\n")
    small.write_text("import torch\ntorch.load(x)\n")
    report = scan([big, small], [LOAD], max_bytes=64 * KB)
    assert [(e.file, e.error) for e in report.errors] == [(str(big), "not scanned: over the 64 KB limit per file")]
    assert [(f.file, f.line) for f in report.findings] == [(str(small), 2)] and report.files == 1
    assert len(scan([big], [LOAD]).findings) == 1  # no cap given, none applied (a library call)


def test_a_notebook_is_capped_by_its_code_not_its_outputs(tmp_path: Path) -> None:
    def notebook(code: str, output: str) -> str:
        cell = {"cell_type": "code", "metadata": {}, "source": code, "outputs": [{"data": {"image/png": output}}]}
        return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})

    plots = tmp_path / "plots.ipynb"  # a small cell with a large plot under it: scanned
    plots.write_text(notebook("import torch\ntorch.load(x)\n", "A" * 200 * KB))
    code = tmp_path / "code.ipynb"
    code.write_text(notebook("import torch\n" + "torch.load(x)\n" * 10 * KB, ""))
    huge = tmp_path / "huge.ipynb"
    huge.write_text(notebook("", "A" * 600 * KB))
    report = scan([plots, code, huge], [LOAD], max_bytes=64 * KB, max_notebook_bytes=512 * KB)
    assert [(f.file, f.line, f.cell) for f in report.findings] == [(str(plots), 2, 0)]
    assert [(e.file, e.error) for e in report.errors] == [
        (str(code), "not scanned: its code is over the 64 KB limit per file"),
        (str(huge), "not scanned: over the 512 KB limit per notebook"),
    ]


def test_the_settings_caps_apply_on_the_command_lines_path(kb: KnowledgeBase, tmp_path: Path) -> None:
    """`app.py upgrade` scans in-process through `KnowledgeBase.scan`, with the caps of its Settings."""
    path = tmp_path / "m.py"
    path.write_text(HITS + "#" * 40 * KB + "\n")
    plan = kb.plan("2.11", "2.12", product="PyTorch")
    assert [f.line for f in kb.scan([path], plan).findings] == [1, 5]  # the import and the call
    small = KnowledgeBase(kb.settings.model_copy(update={"scan_max_file_kb": 16}), kb.retriever)
    report = small.scan([path], plan)
    assert report.findings == () and [e.error for e in report.errors] == ["not scanned: over the 16 KB limit per file"]


def test_a_real_500_kb_module_still_scans_within_the_servers_budget(kb: KnowledgeBase, tmp_path: Path) -> None:
    """With the default caps, time budget and memory ceiling, in the worker the web UI scans in."""
    path = tmp_path / "big_module.py"
    path.write_text(real_module(500 * KB))
    assert path.stat().st_size >= 480 * KB
    report = kb.scan([path], kb.plan("2.11", "2.12", product="PyTorch"), bounded=True)
    assert report.errors == () and report.files == 1
    assert [f.code for f in report.findings if f.symbol.endswith("all_reduce")] == ["return F.all_reduce(t)"]


def test_a_file_past_the_memory_ceiling_is_one_error_in_the_worker(kb: KnowledgeBase, tmp_path: Path) -> None:
    """Under a ceiling too low for one file, CPython's parser fails to allocate in the worker: that file is named,
    the others are still scanned, and the host process never held the memory."""
    path = tmp_path / "a_names.py"
    # ~880 KB, under the 1 MB cap: 450,000 one-name statements take CPython's parser some 800 MB.
    path.write_text("import torch\n" + "a\n" * 450_000)
    small = tmp_path / "b_small.py"
    small.write_text(HITS)
    plan = kb.plan("2.11", "2.12", product="PyTorch")
    tight = KnowledgeBase(kb.settings.model_copy(update={"scan_memory_mb": 256}), kb.retriever)
    report = tight.scan([path, small], plan, bounded=True)
    assert [(e.file, e.error) for e in report.errors] == [
        (str(path), "nested too deeply, or too large to read in the memory allowed")
    ]
    assert [(f.file, f.line) for f in report.findings] == [(str(small), 1), (str(small), 5)]


def test_100000_adjacent_string_literals_are_scanned_not_called_a_syntax_error() -> None:
    """CPython reads any number of adjacent literals as one constant (LibCST, which the scan used before, stopped
    at 3,000). Lines and columns of the code around them, and the f-string among them, are found as written."""
    literals = " ".join(['"a"'] * 100_000)
    one_line = f"import torch\nx = {literals}; torch.load(y)\ntorch.load(z)\n"
    report = scan_source(one_line, [LOAD])
    assert report.errors == ()
    assert [(f.line, f.col) for f in report.findings] == [(2, len(literals) + 7), (3, 1)]
    lines = "\n".join(["    'b'"] * 100_000)
    over_lines = f"import torch\nx = (\n{lines} f'{{torch.load(w)}}'\n    'c'); torch.load(y)\ntorch.load(z)\n"
    report = scan_source(over_lines, [LOAD])
    assert report.errors == ()
    assert [(f.line, f.col, f.code) for f in report.findings] == [
        (100_002, 12, "'b' f'{torch.load(w)}'"),
        (100_003, 11, "'c'); torch.load(y)"),
        (100_004, 1, "torch.load(z)"),
    ]


def test_code_that_does_not_parse_is_still_a_syntax_error() -> None:
    literals = " ".join(['"a"'] * 5000)
    report = scan_source(f"import torch\nx = {literals} +\n", [LOAD])
    assert len(report.errors) == 1 and report.errors[0].error.startswith("syntax error at line 2")
