"""Records every regular expression that reldocs' own code (`assistant/`, `ingest/`, `interfaces/`) compiles.

`install()` wraps `re._compile`, which `re.compile`, `re.search`, `re.sub` and the other module functions all go
through, so module-level compiles, inline `re.search(r"…")` calls and patterns built at run time are all seen.
Importing this module starts the recording, so the conftest imports it before any project module;
`tests/test_regex_fuzz.py` then times every recorded pattern on adversarial input.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PROJECT_DIRS = ("assistant", "ingest", "interfaces")
# A site that builds patterns from data (`re.escape(word)`) makes one per word: a few of them show its shape.
PER_SITE = 4

# (pattern, flags) -> "file:line" of the first project code that compiled it.
PATTERNS: dict[tuple[str | bytes, int], str] = {}
_per_site: dict[str, int] = {}
_skipped: set[tuple[str | bytes, int]] = set()  # built at a site that has PER_SITE patterns already
_ours: dict[str, str | None] = {}  # code file -> its path relative to ROOT when it is project code, else None
_prefixes = tuple(str(ROOT / d) + os.sep for d in PROJECT_DIRS)
_re_file = re.__file__
_original: Any = None
CLEAN_START = False  # no project module had been imported when recording started


def _project_path(filename: str) -> str | None:
    path = os.path.abspath(filename)
    return os.path.relpath(path, ROOT) if path.startswith(_prefixes) else None


def _recording_compile(pattern: Any, flags: Any) -> Any:
    # Called on every re.search/re.sub/..., cache hits included: the common case (a pattern already recorded)
    # costs one tuple and one dict lookup.
    if type(pattern) is str or type(pattern) is bytes:
        key = (pattern, flags)
        if key not in PATTERNS and key not in _skipped:
            frame = sys._getframe(1)
            if frame.f_code.co_filename == _re_file and frame.f_back is not None:  # re.search -> _compile
                frame = frame.f_back
            filename = frame.f_code.co_filename
            rel = _ours[filename] if filename in _ours else _ours.setdefault(filename, _project_path(filename))
            if rel is not None:
                site = f"{rel}:{frame.f_lineno}"
                if _per_site.get(site, 0) < PER_SITE:
                    _per_site[site] = _per_site.get(site, 0) + 1
                    PATTERNS[(pattern, int(flags))] = site
                else:
                    _skipped.add(key)
    return _original(pattern, flags)


def install() -> None:
    """Start recording (once; later calls do nothing)."""
    global _original, CLEAN_START
    if _original is None:
        CLEAN_START = not any(name.split(".")[0] in PROJECT_DIRS for name in sys.modules)
        _original = re._compile  # type: ignore[attr-defined]
        re._compile = _recording_compile  # type: ignore[attr-defined]


def installed() -> bool:
    return _original is not None and re._compile is _recording_compile  # type: ignore[attr-defined]


install()
