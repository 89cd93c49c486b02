"""The worker that parses untrusted input: past its time or memory it answers `Overrun`, and it keeps serving."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from assistant.runtime.bounded import BoundedWorker, Overrun


def _sleep(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def _allocate(mb: int) -> int:
    return len(bytearray(mb * 1024 * 1024))


def _fail() -> None:
    raise ValueError("not a document")


@pytest.fixture(scope="module")
def worker() -> Iterator[BoundedWorker]:
    with BoundedWorker(memory_mb=512) as w:
        yield w


def test_result_comes_back(worker: BoundedWorker) -> None:
    assert worker.run(_allocate, 10, seconds=30) == 10 * 1024 * 1024


def test_past_its_time_the_task_is_killed_and_the_worker_replaced(worker: BoundedWorker) -> None:
    started = time.perf_counter()
    with pytest.raises(Overrun, match=r"longer than 0\.5 s"):
        worker.run(_sleep, 60, seconds=0.5)
    assert time.perf_counter() - started < 10
    assert worker.run(_sleep, 0, seconds=30) == 0


def test_past_its_memory_the_allocation_fails_in_the_worker(worker: BoundedWorker) -> None:
    with pytest.raises(Overrun, match="more than 512 MB"):
        worker.run(_allocate, 1024, seconds=30)
    assert worker.run(_allocate, 1, seconds=30) == 1024 * 1024


def test_the_functions_own_error_is_raised_as_is(worker: BoundedWorker) -> None:
    with pytest.raises(ValueError, match="not a document"):
        worker.run(_fail, seconds=30)
