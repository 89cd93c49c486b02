"""Run one piece of work on untrusted input in a worker process under a time and a memory ceiling.

A few hundred crafted bytes can make a parser work for minutes or allocate gigabytes (docutils expanding chained
substitutions, a parser on a 50 MB upload). In-process, that holds the interpreter lock of the web server, or the
writer lock of an ingest, or ends the process for every user. In a worker it costs one task: past its time the
worker is killed and replaced, past its memory the allocation fails there, and the caller gets `Overrun`, a
one-line reason to name the input by.

Built on pebble's `ProcessPool` because the standard library's `ProcessPoolExecutor` cannot stop one running
task; the memory ceiling is the worker's `RLIMIT_AS`. Workers start from a fork server, not by forking the
caller, so a server's threads and locks are never copied into them.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from types import TracebackType
from typing import Any, ParamSpec, TypeVar

from assistant.model.errors import ReldocsError

P = ParamSpec("P")
T = TypeVar("T")
MB = 1024 * 1024


class Overrun(ReldocsError):
    """The work took longer or needed more memory than it may; the message says which, in one line."""


def _limit_memory(memory_mb: int) -> None:
    """Worker initializer: cap the address space, so a runaway allocation fails in the worker, not the host."""
    import resource

    limit = memory_mb * MB
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


class BoundedWorker:
    """One worker process (or `workers` of them) that runs functions under `run`'s time limit and a memory
    ceiling; started on first use, replaced after a kill, safe to share between threads."""

    def __init__(self, *, memory_mb: int, workers: int = 1) -> None:
        self.memory_mb = memory_mb
        self.workers = workers
        self._pool: Any = None
        self._lock = threading.Lock()

    def _started(self) -> Any:
        from pebble import ProcessPool

        with self._lock:
            if self._pool is None or not self._pool.active:
                methods = multiprocessing.get_all_start_methods()
                context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
                self._pool = ProcessPool(
                    max_workers=self.workers,
                    initializer=_limit_memory,
                    initargs=(self.memory_mb,),
                    context=context,
                )
            return self._pool

    def run(self, fn: Callable[P, T], *args: P.args, seconds: float, **kwargs: P.kwargs) -> T:
        """`fn(*args, **kwargs)` in the worker; raises `Overrun` past `seconds` or the memory ceiling, and
        whatever `fn` raised otherwise. `fn` and its arguments must pickle (a module-level function)."""
        from pebble import ProcessExpired

        future = self._started().schedule(fn, args=args, kwargs=kwargs, timeout=seconds)
        try:
            return future.result()
        except FutureTimeout:
            raise Overrun(f"took longer than {seconds:g} s") from None
        except MemoryError:
            raise Overrun(f"needed more than {self.memory_mb} MB of memory") from None
        except ProcessExpired as e:
            # A C library that cannot allocate may abort instead of raising MemoryError.
            raise Overrun(f"stopped the worker (exit code {e.exitcode}); out of memory?") from None

    def close(self) -> None:
        """Stop the workers now (a task still running is killed)."""
        with self._lock:
            if self._pool is not None:
                self._pool.stop()
                self._pool.join()
                self._pool = None

    def __enter__(self) -> BoundedWorker:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()
