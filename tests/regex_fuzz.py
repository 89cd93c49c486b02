"""Times regular expressions on adversarial input, in worker processes that cannot hang the caller.

`fuzz(patterns, ops)` gives each pattern inputs built from the pattern itself: its literal characters, a
representative of each character class and its multi-character literals (plus space, newline, `[`, a letter and
a digit), each repeated, a run of one after another ("1" + "a"*N + "\\0": what makes a nested repetition fail
slowly), pairs alternated, literals repeated with something between and a character after that fails a
lookahead, and strings matched by each repeated part of the pattern repeated after a string matched by what
precedes it (" - (2020-01-01)"*N after "1.0": a repetition whose body matches two ways); and real docs text.

Each input is tried the ways the pattern is applied (`ops`): `match`/`fullmatch` try one position, `search`
every one, and `findall` stands for every call that searches again after each match (finditer, sub, split).
All inputs are screened at 150 characters, the slowest 32 at 2,000, and the slowest 8 of those timed at 10,000
and 100,000 characters, best of three once one nears the budget. Times are CPU time of the worker, so other
processes on the machine do not count. A trial that runs past `KILL_SECONDS` is stopped by a CPU timer signal
(`re` checks for signals while it matches) and counts as that long; a worker that still stops answering is
killed from outside and its pattern reported as hung.

Run as a script, this file is the worker: patterns as JSON on stdin, one JSON line per pattern on stdout.
"""

from __future__ import annotations

import gc
import json
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from typing import Any

BUDGET_SECONDS = 0.100  # per pattern and input, at the largest size
KILL_SECONDS = 1.0  # CPU seconds: a trial stopped here counts as this slow (far past the budget)
# Every input at 150 characters (where exponential backtracking already shows, even in a pattern that caps the
# length it reads), the slowest 32 at 2,000 (where quadratic shows), the slowest 8 of those at SIZES.
SCREENS = ((150, 32), (2_000, 8))
SIZES = (10_000, 100_000)
SCREEN_STOP = 0.020  # a screening trial this slow is superlinear already: the others need not be tried
MAX_ALPHABET = 12
MAX_TOKENS = 6
STOP = "\x00"  # matched by nothing but negated classes: makes a match fail after a long run
ENDS = (STOP, "a", "-", ".", " ")  # what may follow a repeated run: each fails some other pattern's lookahead
BASE = " \n[a1"
HUNG_SECONDS = 60.0  # a worker that prints nothing for this long is killed
# `search` stands for itself; `findall` for every call that searches again after each match (finditer, sub, split).
OPS = ("search", "match", "fullmatch", "findall")

_CATEGORY = {
    sre.CATEGORY_DIGIT: "1",
    sre.CATEGORY_NOT_DIGIT: "a",
    sre.CATEGORY_SPACE: " ",
    sre.CATEGORY_NOT_SPACE: "a",
    sre.CATEGORY_WORD: "a",
    sre.CATEGORY_NOT_WORD: ".",
    sre.CATEGORY_LINEBREAK: "\n",
    sre.CATEGORY_NOT_LINEBREAK: "a",
}


def alphabet(pattern: str | bytes, flags: int) -> tuple[list[str], list[str]]:
    """The characters worth repeating against `pattern` and its literal strings of two or more characters."""
    chars: list[str] = []
    tokens: list[str] = []

    def walk(items: Any) -> None:
        run: list[str] = []
        for op, av in items:
            if op is sre.LITERAL:
                run.append(chr(av))
                chars.append(chr(av))
                continue
            if len(run) > 1:
                tokens.append("".join(run))
            run = []
            if op is sre.NOT_LITERAL:
                chars.extend((chr(av), "a" if av != ord("a") else "b"))
            elif op is sre.ANY:
                chars.extend(("a", "\n"))
            elif op is sre.IN:
                for iop, iav in av:
                    if iop is sre.LITERAL:
                        chars.append(chr(iav))
                    elif iop is sre.RANGE:
                        chars.extend((chr(iav[0]), chr(iav[1])))
                    elif iop is sre.CATEGORY:
                        chars.append(_CATEGORY.get(iav, "a"))
                    elif iop is sre.NEGATE:
                        chars.append("a")
            elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
                walk(av[2])
            elif op is sre.SUBPATTERN:
                walk(av[3])
            elif op is sre.BRANCH:
                for branch in av[1]:
                    walk(branch)
            elif op in (sre.ASSERT, sre.ASSERT_NOT):
                walk(av[1])
            elif op is sre.ATOMIC_GROUP:
                walk(av)
            elif op is sre.GROUPREF_EXISTS:
                walk(av[1])
                if av[2] is not None:
                    walk(av[2])
        if len(run) > 1:
            tokens.append("".join(run))

    text = pattern.decode("latin-1") if isinstance(pattern, bytes) else pattern
    walk(_parser.parse(text, flags & ~re.ASCII if isinstance(pattern, bytes) else flags))
    # Punctuation and spacing shape a pattern more than letters do: keep those first, then one of each kind.
    distinct = list(dict.fromkeys(chars))
    structural = [c for c in distinct if not c.isalnum()]
    words = [c for c in distinct if c.isalnum()]
    picked = list(dict.fromkeys(structural + list(BASE) + words))[:MAX_ALPHABET]
    return picked, list(dict.fromkeys(t for t in tokens if len(t) <= 40))[:MAX_TOKENS]


_CATEGORY_TESTS = {
    sre.CATEGORY_DIGIT: str.isdigit,
    sre.CATEGORY_NOT_DIGIT: lambda c: not c.isdigit(),
    sre.CATEGORY_SPACE: str.isspace,
    sre.CATEGORY_NOT_SPACE: lambda c: not c.isspace(),
    sre.CATEGORY_WORD: lambda c: c.isalnum() or c == "_",
    sre.CATEGORY_NOT_WORD: lambda c: not (c.isalnum() or c == "_"),
    sre.CATEGORY_LINEBREAK: lambda c: c == "\n",
    sre.CATEGORY_NOT_LINEBREAK: lambda c: c != "\n",
}
_CANDIDATES = "a1 .-_:/,(x)\"'[]<>#=+*!?`~|\n\t\u00e9"


def _member(items: Any) -> str:
    """A character of a character class."""

    def inside(c: str) -> bool:
        negate = False
        found = False
        for op, av in items:
            if op is sre.NEGATE:
                negate = True
            elif op is sre.LITERAL:
                found |= c == chr(av)
            elif op is sre.RANGE:
                found |= av[0] <= ord(c) <= av[1]
            elif op is sre.CATEGORY:
                found |= _CATEGORY_TESTS.get(av, lambda _: False)(c)
        return found != negate

    firsts = [chr(av) if op is sre.LITERAL else chr(av[0]) for op, av in items if op in (sre.LITERAL, sre.RANGE)]
    return next((c for c in [*firsts, *_CANDIDATES] if inside(c)), "a")


def _example(items: Any, fuller: bool, branch: int) -> str:
    """A string `items` match (roughly: lookarounds and backreferences are not honoured): optional parts left
    out, or with `fuller` put in once; alternatives taken by `branch` (the first when there are fewer)."""
    out = []
    for op, av in items:
        if op is sre.LITERAL:
            out.append(chr(av))
        elif op is sre.NOT_LITERAL:
            out.append("a" if av != ord("a") else "b")
        elif op is sre.ANY:
            out.append("a")
        elif op is sre.IN:
            out.append(_member(av))
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            low, high = av[0], av[1]
            times = min(high, max(low, 1)) if fuller else low
            out.append(_example(av[2], fuller, branch) * times)
        elif op is sre.SUBPATTERN:
            out.append(_example(av[3], fuller, branch))
        elif op is sre.ATOMIC_GROUP:
            out.append(_example(av, fuller, branch))
        elif op is sre.BRANCH:
            out.append(_example(av[1][min(branch, len(av[1]) - 1)], fuller, branch))
        elif op is sre.GROUPREF_EXISTS:
            out.append(_example(av[1], fuller, branch))
    return "".join(out)


def repeated_parts(pattern: str | bytes, flags: int) -> list[tuple[str, str]]:
    """(prefix, body) pairs: a string matched by the body of each repetition in `pattern` (several ways), with
    one matched by what precedes the repetition when it is at the top level. Repeating a body that can be
    matched two ways, then failing, is what makes nested repetitions backtrack exponentially."""
    text = pattern.decode("latin-1") if isinstance(pattern, bytes) else pattern
    top = list(_parser.parse(text, flags & ~re.ASCII if isinstance(pattern, bytes) else flags))
    found: list[tuple[str, str]] = []

    def walk(items: Any, at_top: bool) -> None:
        for k, (op, av) in enumerate(items):
            if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
                if av[1] > 1:
                    for fuller in (False, True):
                        prefix = _example(items[:k], False, 0) if at_top else ""
                        for branch in range(3):
                            found.append((prefix, _example(av[2], fuller, branch)))
                walk(av[2], False)
            elif op is sre.SUBPATTERN:
                walk(av[3], False)
            elif op is sre.ATOMIC_GROUP:
                walk(av, False)
            elif op is sre.BRANCH:
                for b in av[1]:
                    walk(b, False)
            elif op in (sre.ASSERT, sre.ASSERT_NOT):
                walk(av[1], False)

    walk(top, True)
    return list(dict.fromkeys((p, b) for p, b in found if b))[: 4 * MAX_TOKENS]


@dataclass(frozen=True)
class Shape:
    """One family of inputs: `build(n)` makes one of about `n` characters; `text` says how, for reports."""

    text: str
    build: Callable[[int], str]


def _run(c: str, n: int) -> str:
    return c * max(1, n)


def shapes(pattern: str | bytes, flags: int, sample: str) -> list[Shape]:
    """The adversarial input families for `pattern`."""
    chars, tokens = alphabet(pattern, flags)
    out: list[Shape] = []
    for c in chars:
        out.append(Shape(f"{c!r}*N", lambda n, c=c: _run(c, n)))
        out.append(Shape(f"{c!r}*N + {STOP!r}", lambda n, c=c: _run(c, n - 1) + STOP))
    for a in chars:
        for b in chars:
            if a == b:
                continue
            out.append(Shape(f"{a!r} + {b!r}*N + {STOP!r}", lambda n, a=a, b=b: a + _run(b, n - 2) + STOP))
            out.append(Shape(f"{b!r}*N + {a!r}", lambda n, a=a, b=b: _run(b, n - 1) + a))
            out.append(Shape(f"{a + b!r}*N", lambda n, ab=a + b: _run(ab, n // 2)))
            for e in ENDS:
                out.append(Shape(f"{a + b!r}*N + {e!r}", lambda n, ab=a + b, e=e: _run(ab, n // 2) + e))
    for t in tokens:
        out.append(Shape(f"{t!r}*N", lambda n, t=t: _run(t, n // len(t))))
        for c in chars:
            out.append(Shape(f"{t!r} + {c!r}*N + {STOP!r}", lambda n, t=t, c=c: t + _run(c, n - len(t)) + STOP))
            out.append(Shape(f"({t!r} + {c!r})*N", lambda n, t=t, c=c: _run(t + c, n // (len(t) + 1))))
            for e in ENDS:
                out.append(
                    Shape(
                        f"({t!r} + {c!r})*N + {t!r} + {e!r}",
                        lambda n, t=t, c=c, e=e: _run(t + c, n // (len(t) + 1)) + t + e,
                    )
                )
    for prefix, body in repeated_parts(pattern, flags):
        for e in ENDS:
            out.append(
                Shape(
                    f"{prefix!r} + {body!r}*N + {e!r}",
                    lambda n, p=prefix, b=body, e=e: p + _run(b, (n - len(p)) // len(b)) + e,
                )
            )
    if sample:
        out.append(Shape("real docs text", lambda n: (sample * (n // len(sample) + 1))[:n]))
        one_line = " ".join(sample.split())
        out.append(Shape("real docs text on one line", lambda n: (one_line * (n // len(one_line) + 1))[:n]))
    return out


class _Killed(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Killed


def _call(compiled: re.Pattern[Any], op: str, text: Any) -> float:
    """CPU seconds one call takes (so other processes on the machine do not count), at most about KILL_SECONDS."""
    signal.setitimer(signal.ITIMER_VIRTUAL, KILL_SECONDS)  # CPU time too: a busy machine stops no fast trial
    start = time.thread_time()
    try:
        if op == "findall":
            compiled.findall(text)
        else:
            getattr(compiled, op)(text)
        return time.thread_time() - start
    except _Killed:
        return KILL_SECONDS
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)


def _timed(compiled: re.Pattern[Any], op: str, text: Any) -> float:
    """Best of up to three calls once the first is near the budget (another process may have had the core)."""
    best = _call(compiled, op, text)
    for _ in range(2):
        if best < BUDGET_SECONDS / 2 or best >= KILL_SECONDS:
            break
        best = min(best, _call(compiled, op, text))
    return best


def check(pattern: str | bytes, flags: int, ops: tuple[str, ...], sample: str) -> dict[str, Any]:
    """The slowest trial of `pattern` (called as `ops`) at the largest size it was run at, and whether it was over
    the budget."""
    compiled = re.compile(pattern, flags)
    encode: Callable[[str], Any] = (
        (lambda s: s.encode("latin-1", "replace")) if isinstance(pattern, bytes) else (lambda s: s)
    )
    family = shapes(pattern, flags, sample)
    trials = [(i, op) for i in range(len(family)) for op in ops]
    size = 0
    for size, keep in SCREENS:
        timed: list[tuple[float, int, str]] = []
        built: dict[int, Any] = {}
        for i, op in trials:
            text = built.get(i)
            if text is None:
                text = built[i] = encode(family[i].build(size))
            timed.append((_call(compiled, op, text), i, op))
            if timed[-1][0] > SCREEN_STOP:
                break
        worst = max(timed)
        if worst[0] > BUDGET_SECONDS:  # already over at a screening size: no need to try more
            return _result(worst[0], family[worst[1]].text, worst[2], size)
        slowest_first = sorted(timed, reverse=True)
        trials = [(i, op) for _, i, op in slowest_first[: 1 if worst[0] > SCREEN_STOP else keep]]
    slowest = _result(0.0, "", "", size)
    for i, op in trials:
        for size in SIZES:
            seconds = _timed(compiled, op, encode(family[i].build(size)))
            if seconds > slowest["seconds"] or seconds > BUDGET_SECONDS:
                slowest = _result(seconds, family[i].text, op, size)
            if seconds > BUDGET_SECONDS:
                return slowest
    return slowest


def _result(seconds: float, shape: str, op: str, size: int) -> dict[str, Any]:
    return {"seconds": seconds, "shape": shape, "op": op, "size": size, "over": seconds > BUDGET_SECONDS}


def _worker() -> None:
    job = json.load(sys.stdin)
    signal.signal(signal.SIGVTALRM, _alarm)
    gc.disable()  # a collection inside a timed call is noise, not the pattern's cost
    for item in job["patterns"]:
        print(json.dumps({"start": item["id"]}), flush=True)
        pattern = item["pattern"].encode("latin-1") if item["bytes"] else item["pattern"]
        try:
            result = check(pattern, item["flags"], tuple(item["ops"]), job["sample"])
        except Exception as exc:  # a pattern that cannot be analysed is reported, not skipped
            result = {"error": f"{type(exc).__name__}: {exc}", "over": True}
        print(json.dumps({"id": item["id"], **result}), flush=True)


def fuzz(
    patterns: list[tuple[str | bytes, int]],
    ops: list[tuple[str, ...]] | None = None,
    sample: str = "",
    workers: int = 2,
) -> list[dict[str, Any]]:
    """One result per pattern (same order): `seconds`, `shape`, `op`, `size`, `over`, or `error`/`hung`.

    `ops[i]` are the calls pattern i is timed with (default: all of `OPS`)."""
    results: list[dict[str, Any]] = [{} for _ in patterns]
    items = [
        {
            "id": i,
            "pattern": p.decode("latin-1") if isinstance(p, bytes) else p,
            "bytes": isinstance(p, bytes),
            "flags": int(f),
            "ops": list(ops[i] if ops else OPS),
        }
        for i, (p, f) in enumerate(patterns)
    ]
    pending = list(reversed(items))
    lock = threading.Lock()

    def run_one(batch: list[dict[str, Any]]) -> None:
        """Runs `batch` in one worker; when it hangs, the pattern it was on is reported and the rest re-queued."""
        proc = subprocess.Popen(
            [sys.executable, __file__], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps({"patterns": batch, "sample": sample}))
        proc.stdin.close()
        current: list[int] = [-1]
        last = [time.monotonic()]
        done = threading.Event()

        def watch() -> None:
            while not done.wait(0.5):
                if time.monotonic() - last[0] > HUNG_SECONDS:
                    proc.kill()
                    return

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        for line in proc.stdout:
            last[0] = time.monotonic()
            msg = json.loads(line)
            if "start" in msg:
                current[0] = msg["start"]
            else:
                results[msg.pop("id")] = msg
        done.set()
        proc.wait()
        finished = {b["id"] for b in batch if results[b["id"]]}
        if current[0] >= 0 and current[0] not in finished:
            results[current[0]] = {"hung": True, "over": True, "seconds": HUNG_SECONDS}
            finished.add(current[0])
        with lock:
            pending.extend(b for b in batch if b["id"] not in finished)

    def lane(k: int) -> None:
        while True:
            with lock:
                if not pending:
                    return
                # Each lane takes a share of what is left, so a hung worker re-queues few patterns.
                take = max(1, len(pending) // (2 * workers))
                batch = [pending.pop() for _ in range(min(take, len(pending)))]
            run_one(batch)

    lanes = [threading.Thread(target=lane, args=(k,)) for k in range(workers)]
    for t in lanes:
        t.start()
    for t in lanes:
        t.join()
    return results


def describe(pattern: str | bytes, limit: int = 160) -> str:
    text = repr(pattern)
    return text if len(text) <= limit else text[: limit - 1] + "…"


if __name__ == "__main__":
    _worker()
