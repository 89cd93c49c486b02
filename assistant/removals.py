"""Which entries of a chunk say something was removed, for a question saying something is gone.

A user whose import broke ("`TimedJSONWebSignatureSerializer` is gone", "stopped supporting `cache=None`") wants
the entry that removed the name, and its fix, not the entries that added or deprecated it. "Removed", "Drop",
"no longer supported" are English, not any product's vocabulary.
"""

from __future__ import annotations

import re
from functools import lru_cache

from assistant.models import Chunk
from assistant.query import Query
from assistant.text import is_symbol, tokens
from assistant.units import units_of

_REMOVES = re.compile(
    r"\b(?:remov(?:e|ed|es|al|ing)|drop(?:ped|s)?|delet(?:e|ed|es)|(?:is|are|was|were|has been|have been) taken out|"
    r"no longer (?:exists?|available|supported|accepted|accepts?|supports?|provided|included)|"
    r"supprim\w*|retir\w*)\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=8192)
def removals(chunk: Chunk) -> frozenset[int]:
    """The chunk's entries that say something was removed (the whole entry: its fix often follows)."""
    return frozenset(u.entry for u in units_of(chunk) if _REMOVES.search(u.text))


def gone_names(query: Query) -> frozenset[str]:
    """The code names a question says are gone, as the docs' tokens spell them: the names, their other
    spellings, and a member used through the asker's own variable by its own name (`arw.replace` -> `replace`)."""
    if not query.asks_gone:
        return frozenset()
    names = {t for t in query.terms if is_symbol(t)}
    names.update(*(alts for t, alts in query.spellings if t in names))
    for name in list(names):
        head, _, last = name.rpartition(".")
        if head and len(last) >= 4:
            names.update(tokens(last))
    return frozenset(names)


def removes(chunk: Chunk, names: frozenset[str]) -> bool:
    """Some entry of the chunk removes one of `names`: one of the entry's sentences says so and names it."""
    entries = removals(chunk)
    return bool(entries) and any(u.entry in entries and u.tokens & names for u in units_of(chunk))
