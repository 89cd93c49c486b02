"""The fast tier's guard: importing what loads the embedding model fails loudly, here and in subprocesses.

conftest installs it when the run selects no slow test (`pytest -m "not slow"`, or a file of fast tests): from
then on, importing onnxruntime, onnx, torch, transformers or sentence-transformers raises `ModelForbidden`, in
this process and in every Python subprocess a test starts (`no_model_site/sitecustomize.py`, put on their
PYTHONPATH), and each attempt is written to a log that `test_fast_tier.py` reads at the end of the run: an
attempt some code caught and hid still fails the run, naming the test that made it.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType

MODEL_MODULES = ("onnxruntime", "onnx", "torch", "transformers", "sentence_transformers")
LOG_ENV = "PYTEST_NO_MODEL_LOG"  # not RELDOCS_*: the tests' subprocess helpers drop those from the environment
SITE = Path(__file__).resolve().parent / "no_model_site"
ARMED: Path | None = None  # the log, once `install` has armed the guard in this process


class ModelForbidden(RuntimeError):
    """Raised on importing a model library in the fast tier (not an ImportError, which callers take for a
    missing package and fall back from)."""


class _Refuser(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the model libraries first, and fails to load them, writing the attempt down."""

    def __init__(self, log: Path) -> None:
        self.log = log

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname.partition(".")[0] not in MODEL_MODULES:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        test = os.environ.get("PYTEST_CURRENT_TEST", "no test (collection or a session fixture)")
        record = {"module": spec.name, "test": test, "pid": os.getpid(), "argv": sys.argv[:3]}
        with self.log.open("a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
        raise ModelForbidden(
            f"the fast tier loaded no model, yet {test} imported {spec.name} (pid {os.getpid()}): give it the fake "
            "embedder (conftest's `fake_embedder`, `fake_kb`) or mark it slow"
        )

    def exec_module(self, module: ModuleType) -> None:
        """Never reached: `create_module` raised."""


def install(log: Path) -> None:
    """Refuse the model libraries in this process from now on, writing attempts to `log` (a second call changes
    nothing)."""
    global ARMED
    if ARMED is None:
        sys.meta_path.insert(0, _Refuser(log))
        ARMED = log


def subprocess_env(log: Path) -> dict[str, str]:
    """The environment variables that install the guard in every Python subprocess started with them."""
    path = os.pathsep.join(p for p in (str(SITE), os.environ.get("PYTHONPATH", "")) if p)
    return {LOG_ENV: str(log), "PYTHONPATH": path}


def attempts(log: Path) -> list[dict[str, object]]:
    """Every model import refused so far, in any process."""
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]


def loaded() -> list[str]:
    """The model libraries this process holds (imported before the guard, or past it)."""
    return [m for m in MODEL_MODULES if m in sys.modules]
