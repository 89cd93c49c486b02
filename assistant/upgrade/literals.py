"""String values a change does away with: "Deprecated strings `T`, `L` … denoting units in `to_timedelta`", a table
row "deprecated aliases: `M` — new aliases: `ME`". What the scan looks for is then a value in a call, not a name:
`pd.to_timedelta(x, unit="T")`, `pd.date_range(…, freq="M")`, `df.resample("30T")`.

Which keyword arguments carry such values is learned from the product's own examples: the keywords its docs' code
passes one of the old or new values to (`freq="QE-NOV"`). Any argument of a function the change names counts too
(`to_timedelta(x, "T")`); a value by position to any other call does not: `groupby("M")` names a column, and
`exchange.ohlcv_candle_limit("1d")` a project's own timeframe, as often as `resample("M")` a frequency.

Written by hand: no library reads release notes for deprecated values; the words are English, never a product's.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

# "strings `T`, `t`, `L` and `l` denoting units", "aliases `M`, `Q`, `Y`, etc. in favour of", "string `A` denoting"
_LISTED = r"((?:`[^`\s]{1,12}`(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+)?)+)(?:,?\s*etc\.?)?"
_OLD = re.compile(rf"\b(?:strings?|aliases)\s+{_LISTED}\s*(?:,\s*)?(?=denoting|for|in favou?r)", re.IGNORECASE)
# a table's row: "deprecated aliases: `M` — new aliases: `ME`"
_OLD_ROW = re.compile(r"\b(?:deprecated|old|removed)\s+(?:aliases|strings|values)\s*:\s*((?:`[^`]+`[\s,]*)+)", re.I)
_NEW = re.compile(rf"\b(?:in favou?r of|new (?:aliases|strings|values)\s*:)\s*{_LISTED}", re.IGNORECASE)
_SPAN = re.compile(r"`([^`\s]+)`")
_COUNTED = re.compile(r"(\d+)?([A-Za-z]+(?:-[A-Za-z]+)?)")  # "30T", "A-DEC", "1d"
_PROMPT = re.compile(r"^(?:>>> ?|\.\.\. ?|In \[\d++\]: ?|[^\S\n]++\.\.\.: ?)", re.MULTILINE)


def old_values(summary: str) -> tuple[str, ...]:
    """The string values a change's summary says are deprecated or removed (its new ones left out)."""
    found = [v for m in [*_OLD.finditer(summary), *_OLD_ROW.finditer(summary)] for v in _SPAN.findall(m.group(1))]
    new = set(new_values(summary))
    return tuple(v for v in dict.fromkeys(found) if v not in new and _COUNTED.fullmatch(v))


def new_values(summary: str) -> tuple[str, ...]:
    """The string values a change's summary gives in place of old ones ("in favour of `D`, `B` and `C`")."""
    return tuple(dict.fromkeys(v for m in _NEW.finditer(summary) for v in _SPAN.findall(m.group(1))))


def matched(value: str, values: Iterable[str]) -> tuple[str, bool] | None:
    """Which of `values` a string in code is, as a count and an alias with its anchor ("30T" is "T", "Q-NOV" is
    "Q"), and whether it has a count; None when it is none of them."""
    m = _COUNTED.fullmatch(value)
    if m is None:
        return None
    wanted = set(values)
    alias = m.group(2)
    head = alias.split("-", 1)[0]
    found = alias if alias in wanted else head if head in wanted and head != alias else None
    return (found, m.group(1) is not None) if found else None


def value_keywords(codes: Iterable[str], values: Iterable[str]) -> tuple[str, ...]:
    """The keyword arguments the docs' code passes one of `values` to (`freq="QE-NOV"` -> "freq"), in order."""
    wanted = set(values)
    found: dict[str, None] = {}
    for code in codes:
        if not wanted or not any(v in code for v in wanted):
            continue
        try:
            tree = ast.parse(_PROMPT.sub("", code))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for node in ast.walk(tree):
            if not (isinstance(node, ast.keyword) and node.arg and isinstance(node.value, ast.Constant)):
                continue
            if isinstance(node.value.value, str) and matched(node.value.value, wanted):
                found[node.arg] = None
    return tuple(found)
