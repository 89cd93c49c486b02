"""Which entries of a chunk say something was removed, for a question saying something is gone.

A user whose import broke ("`TimedJSONWebSignatureSerializer` is gone", "stopped supporting `cache=None`") wants
the entry that removed the name, and its fix, not the entries that added or deprecated it. "Removed", "Drop",
"no longer supported" are English, not any product's vocabulary.
"""

from __future__ import annotations

import builtins
import re
from functools import lru_cache

from assistant.model.query import Query
from assistant.model.records import Chunk
from assistant.model.units import entries, numbered, units_of
from assistant.text.words import GENERIC, is_symbol, tokens
from assistant.tuning import Tuning

_CAMEL = re.compile(r"[a-z][A-Z]")  # a class or function name: `LegacyVersion`, `operatorPrecedence`
_BUILTINS = frozenset(dir(builtins))
_IMPORTED = re.compile(r"\bimport\s+([A-Za-z_]\w*)(?![\w.])")


@lru_cache(maxsize=8192)
def removals(chunk: Chunk, tuning: Tuning) -> frozenset[int]:
    """The chunk's entries that say something was removed (`tuning.search.removes`; the whole entry: its fix often
    follows), with the items nested in one ("Remove previously deprecated code." over "`contextfilter` is replaced
    by …"); every entry under a "Removed" heading."""
    units = units_of(chunk, tuning)
    removes = tuning.search.removes
    if removes.search(chunk.section.rsplit(" › ", 1)[-1]):
        return frozenset(u.entry for u in units)
    said = {u.entry for u in units if removes.search(u.text)}
    out, parents = set(said), []
    for entry, part in numbered(entries(chunk)):
        if part.continues:
            continue  # a further paragraph is its entry's
        while parents and parents[-1][0] >= part.depth:
            parents.pop()
        removed = entry in said or any(r for _, r in parents)
        parents.append((part.depth, removed))
        if removed:
            out.add(entry)
    return frozenset(out)


def gone_names(query: Query, tuning: Tuning) -> frozenset[str]:
    """The code names a question says are gone, as the docs' tokens spell them: its symbols and their other
    spellings, a member used through the asker's own variable by its own name (`arw.replace` -> `replace`),
    its CamelCase names (`LegacyVersion`) and what it imports (`from jinja2 import contextfilter`). Python's own
    names (`ImportError`, `None`) say how it failed."""
    if not query.asks_gone:
        return frozenset()
    names = {t for t in query.terms if is_symbol(t)}
    names.update(*(alts for t, alts in query.spellings if t in names))
    for name in list(names):
        head, _, last = name.rpartition(".")
        if head and len(last) >= tuning.text.member_chars:
            names.update(t for t in tokens(last) if t not in GENERIC)  # `packaging.version` is no `version`
    camel = [n for n in query.names if _CAMEL.search(n) and n not in _BUILTINS]
    imported = [n for n in _IMPORTED.findall(query.question) if n not in _BUILTINS]  # `from jinja2 import Markup`
    names.update(t for n in camel + imported for t in tokens(n))
    return frozenset(names)


def removes(chunk: Chunk, names: frozenset[str], tuning: Tuning) -> bool:
    """Some entry of the chunk removes one of `names`: one of the entry's sentences says so and names it."""
    removed = removals(chunk, tuning)
    return bool(removed) and any(u.entry in removed and u.tokens & names for u in units_of(chunk, tuning))
