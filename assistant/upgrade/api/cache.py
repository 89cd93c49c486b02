"""The diff of one pair of archives, kept as JSON under a key of (archive sha256 A, archive sha256 B, analyser
version): a new analyser version is a new key, never a stale answer."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any, TypeVar

from assistant.model.api import CODE_KINDS, CodeChange

logger = logging.getLogger(__name__)
T = TypeVar("T")


def cache_path(cache_dir: Path, sha_a: str, sha_b: str, analyser: str) -> Path:
    """Where the diff of archives `sha_a` → `sha_b` by `analyser` is kept."""
    key = hashlib.sha256(f"{sha_a}\n{sha_b}\n{analyser}".encode()).hexdigest()
    return cache_dir / f"api-diff-{key}.json"


def read_pair(path: Path) -> tuple[list[CodeChange], list[str], list[str]] | None:
    """(changes, not analysable in A, in B) from a kept diff, or None when it is missing or unreadable."""

    def pair(data: Any) -> tuple[list[CodeChange], list[str], list[str]]:
        changes = [
            CodeChange(**{**c, "paths": tuple(c["paths"]), "related": tuple(c.get("related", ()))})
            for c in data["changes"]
            if c["kind"] in CODE_KINDS
        ]
        return changes, list(data["not_analysable_a"]), list(data["not_analysable_b"])

    return _kept(path, "API diff", pair)


def write_pair(path: Path, changes: list[CodeChange], not_a: list[str], not_b: list[str]) -> None:
    """Keep a pair's diff; written to a temporary file and renamed, so a reader sees all of it or none."""
    data = {"changes": [asdict(c) for c in changes], "not_analysable_a": not_a, "not_analysable_b": not_b}
    _write(path, json.dumps(data, ensure_ascii=False, separators=(",", ":")))


def returns_path(cache_dir: Path, sha: str, analyser: str) -> Path:
    """Where what one archive's functions return (`returns.returns_of`) is kept."""
    key = hashlib.sha256(f"{sha}\nreturns\n{analyser}".encode()).hexdigest()
    return cache_dir / f"api-returns-{key}.json"


def read_returns(path: Path) -> dict[str, str] | None:
    """A kept `returns_of`, or None when it is missing or unreadable."""
    return _kept(
        path, "return types", lambda data: {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else None
    )


def write_returns(path: Path, returns: dict[str, str]) -> None:
    """Keep one archive's `returns_of`, as `write_pair` keeps a diff."""
    _write(path, json.dumps(returns, ensure_ascii=False, separators=(",", ":")))


def names_path(cache_dir: Path, sha: str, analyser: str) -> Path:
    """Where one archive's module namespaces (`namespaces.namespaces_of`) are kept."""
    key = hashlib.sha256(f"{sha}\nnames\n{analyser}".encode()).hexdigest()
    return cache_dir / f"api-names-{key}.json"


def read_names(path: Path) -> dict[str, tuple[str, ...] | None] | None:
    """Kept module namespaces, or None when they are missing or unreadable."""

    def names(data: Any) -> dict[str, tuple[str, ...] | None] | None:
        if not isinstance(data, dict):
            return None
        return {str(k): tuple(str(n) for n in v) if isinstance(v, list) else None for k, v in data.items()}

    return _kept(path, "module names", names)


def write_names(path: Path, names: dict[str, tuple[str, ...] | None]) -> None:
    """Keep one archive's module namespaces, as `write_pair` keeps a diff."""
    body = {k: list(v) if v is not None else None for k, v in names.items()}
    _write(path, json.dumps(body, ensure_ascii=False, separators=(",", ":")))


def _kept(path: Path, what: str, convert: Callable[[Any], T | None]) -> T | None:
    """What `convert` makes of the JSON kept at `path`, or None when it is missing or unreadable (said once)."""
    try:
        return convert(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as e:
        logger.warning("ignoring the unreadable %s %s: %s", what, path, e)
        return None


def _write(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".api-diff-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(body)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
