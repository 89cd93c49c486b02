"""The fast tier (`pytest -m "not slow"`) ran without the embedding model, in this process and in subprocesses."""

from __future__ import annotations

import no_model
import pytest


def test_the_fast_tier_never_loaded_the_model() -> None:
    if no_model.ARMED is None:
        pytest.skip("this run selected slow tests: the model was allowed")
    attempts = no_model.attempts(no_model.ARMED)
    assert attempts == [], "model libraries imported in the fast tier (mark these tests slow):\n" + "\n".join(
        f"  {a['test']}: {a['module']} (pid {a['pid']}, {' '.join(map(str, a['argv']))})" for a in attempts
    )
    # Imported before the guard was armed (at collection), or by a path around it.
    assert no_model.loaded() == []


# Last: every other test of the run has had its chance to load the model (see the conftest's collection hook).
test_the_fast_tier_never_loaded_the_model.runs_last = True  # type: ignore[attr-defined]
