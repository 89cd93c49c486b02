"""Checks for what API callers send (web API, and any tool interface): types and bounds, one-line errors.

Callers are scripts and agents, so a wrong type is common and must get a message that says what to send,
never a traceback. Each check returns the value in the form the knowledge base takes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from assistant.model.errors import ReldocsError
from assistant.text.untrusted import safe_version

MAX_INPUT_CHARS = 20_000  # beyond the answerer's own cut (RELDOCS_MAX_QUESTION_CHARS): refused, not read
MAX_HISTORY = 50
MAX_K = 50


class BadInput(ReldocsError):
    """An argument of the wrong type or out of bounds; the message names it and says what is expected."""


def question(value: Any, name: str = "question") -> str:
    if not isinstance(value, str):
        raise BadInput(f"{name} must be a string, not {_type(value)}")
    if not value.strip():
        raise BadInput(f"The {name} is empty.")
    if len(value) > MAX_INPUT_CHARS:
        raise BadInput(f"{name} is too long ({len(value)} characters; at most {MAX_INPUT_CHARS})")
    return value


def version(value: Any) -> str | None:
    """An optional version filter: None or '' for all versions."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise BadInput(f"version must be a string such as '2.12' (or empty for all), not {_type(value)}")
    if not value.strip():
        return None
    checked = safe_version(value)
    if checked is None:
        raise BadInput("version must look like a release number such as '2.12' or '2.12.0'")
    return checked


def history(value: Any) -> list[str]:
    """Earlier questions of the conversation: a list of strings (empty ones are skipped)."""
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise BadInput(f"history must be a list of earlier questions (strings), not {_type(value)}")
    if len(value) > MAX_HISTORY:
        raise BadInput(f"history holds {len(value)} questions; at most {MAX_HISTORY} are read")
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise BadInput(f"history[{i}] must be a string, not {_type(item)}")
        if len(item) > MAX_INPUT_CHARS:
            raise BadInput(f"history[{i}] is too long (at most {MAX_INPUT_CHARS} characters)")
    return [h for h in value if h.strip()]


def count(value: Any, name: str = "k", *, low: int = 1, high: int = MAX_K) -> int:
    """A whole number in [low, high]; digit strings ("5") are accepted, as forms send them."""
    if isinstance(value, bool) or not isinstance(value, int | str | float):
        raise BadInput(f"{name} must be a whole number from {low} to {high}, not {_type(value)}")
    try:
        number = int(value) if not isinstance(value, float) or value.is_integer() else None
    except ValueError:
        number = None
    if number is None or not low <= number <= high:
        raise BadInput(f"{name} must be a whole number from {low} to {high}, not {value!r}"[:200])
    return number


def _type(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def product(value: Any, products: Sequence[str], known: Callable[[str], bool] = bool) -> str | None:
    """An optional product filter: None or '' for all; otherwise a product the index holds (`known` says which:
    its name or an import name)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise BadInput(
            f"product must be a string such as {products[0] if products else 'a product name'!r}, not {_type(value)}"
        )
    if not value.strip():
        return None
    if len(value) > 100 or not known(value.strip()):
        raise BadInput(f"no product {value.strip()[:100]!r} is indexed; indexed: {', '.join(products) or 'none'}")
    return value.strip()
