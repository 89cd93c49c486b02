"""Installs the fast tier's no-model guard (`tests/no_model.py`) in a Python subprocess started by a test.

Only on PYTHONPATH while the fast tier runs, and then only active with its log named in the environment.
"""

from __future__ import annotations

import os


def _install() -> None:
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "_reldocs_no_model", Path(__file__).resolve().parents[1] / "no_model.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.install(Path(os.environ["PYTEST_NO_MODEL_LOG"]))


if os.environ.get("PYTEST_NO_MODEL_LOG"):
    _install()
