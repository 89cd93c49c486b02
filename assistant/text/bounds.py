"""Version bounds in release notes ("Python < 3.7", "3.10 or later", ">=3.8", "3.9+") and what they say of
the number a question asks was dropped.

"Dropped support for Python < 3.7" does not drop 3.7; "Require Python 3.10 or later" is the release that
dropped 3.9. Release notes state a supported range by a bound about as often as by naming the version dropped,
while an upgrading user asks by the version they are on. packaging.specifiers reads `>=3.8` in a requirement,
not "3.8 or later" or "Dropped support for Python < 3.7" in a sentence, so the handful of prose forms are
matched here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from assistant.text.words import is_release_number, release_spellings, tokens

# A version number, never started inside another (after a digit, or a digit and '.'): a search would otherwise try
# every digit of a long run of them and read the rest of the run from each (quadratic). Possessive: nothing after
# a number matches a digit or '.', so giving some back never helps.
_NUMBER = r"(?:v|(?<!\d)(?<!\d\.))(\d++(?:\.\d++)++)"
# Each form of a bound, with the comparison it states of the versions it describes.
_FORMS = (
    (r"(<=|>=|=<|=>|<|>|≤|≥)\s*" + _NUMBER, None),
    (_NUMBER + r"\+", ">="),
    (_NUMBER + r",?\s+(?:or|and)\s+(?:later|newer|higher|above|greater|up|upwards?|onwards?)\b", ">="),
    (_NUMBER + r",?\s+(?:or|and)\s+(?:earlier|older|lower|below|before)\b", "<="),
    (r"\b(?:before|prior to|older than|earlier than|lower than|less than|below)\s+(?:\w+\s+)?" + _NUMBER, "<"),
    (r"\b(?:at least|minimum)\s+(?:[\w-]+\s+){0,5}" + _NUMBER, ">="),
    (r"\b(?:newer|later|higher|greater) than\s+(?:\w+\s+)?" + _NUMBER, ">"),
    (r"\brequir\w*\s+(?:\w+\s+)?" + _NUMBER, ">="),
)
_COMPILED = tuple((re.compile(form, re.IGNORECASE), op) for form, op in _FORMS)
_FLIP = {"=<": "<=", "=>": ">=", "≤": "<=", "≥": ">="}
# The versions a bound describes are the ones dropped when a removal states it ("Dropped support for Python
# < 3.7", "Python 2 and earlier are no longer supported"), else the ones supported ("Require Python 3.10+").
_DROPPING = re.compile(
    r"\b(?:drop\w*|remov\w*|end\w*|discontinu\w*|no longer support\w*)\s+"
    r"(?:support\s+(?:for|of)\s+)?(?:[\w-]+\s+){0,2}$",
    re.IGNORECASE,
)
_DROPPED = re.compile(
    r"^\S*\s+(?:(?:is|are|was|were|has been|have been)\s+)?(?:now\s+)?"
    r"(?:no longer supported|dropped|removed|unsupported)\b",
    re.IGNORECASE,
)
# A bound that drops nothing states what is supported only in a sentence about support: "has raised an error on
# Python 3.10+" says nothing of which versions are.
_SUPPORT = re.compile(r"requir|support|minimum|compatib", re.IGNORECASE)
_SAYS_DROPPED = re.compile(r"\b(?:drop|remov|no longer|discontinu|unsupported|end of|eol\b)", re.IGNORECASE)
# A question asks whether or when a version stopped being supported.
_ASKS_DROPPED = re.compile(
    r"\b(?:drop\w*|stop\w*|end\w*|remov\w*|no longer|discontinu\w*|abandon\w*|plus (?:pris en charge|support\w*))",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Bound:
    """A bound a sentence states: `op` ("<", "<=", ">", ">=") of `number`, and whether it says which versions
    were dropped (rather than which are supported)."""

    op: str
    number: str
    dropping: bool


def bounds(text: str) -> list[Bound]:
    """The bounds on supported versions a sentence states, in order; a number is read by its first form only."""
    found: dict[str, tuple[int, Bound]] = {}
    for form, op in _COMPILED:
        for m in form.finditer(text):
            number = m.group(m.lastindex or 1)
            if number in found:
                continue
            stated = op or _FLIP.get(m.group(1), m.group(1))
            dropping = bool(_DROPPING.search(text[: m.start()]) or _DROPPED.search(text[m.end() :]))
            if not dropping and not _SUPPORT.search(text):
                continue
            found[number] = (m.start(), Bound(stated, number, dropping))
    return [b for _, b in sorted(found.values(), key=lambda x: x[0])]


def asks_dropped(question: str) -> bool:
    """The question asks whether or when support for a version ended ("which release dropped Python 3.8?")."""
    return bool(_ASKS_DROPPED.search(question))


def says_so(text: str, number: str) -> bool:
    """The sentence says support for `number` ended, by a bound or in words ("Drop support for Python 3.9", "3.7
    is no longer supported"), not merely that something changed on it ("Raise `TypeError` on Python 3.9")."""
    said = says_dropped(text, number)
    if said is not None:
        return said
    return bool(release_spellings(number) & frozenset(tokens(text))) and bool(_SAYS_DROPPED.search(text))


def following(number: str) -> str:
    """The release after `number` in its series: 3.9 -> 3.10, 3.12.5 -> 3.12.6."""
    parts = _parts(number)
    return ".".join(map(str, (*parts[:-1], parts[-1] + 1)))


def says_dropped(text: str, number: str) -> bool | None:
    """What a sentence's bound says of `number`: dropped (True), still supported (False), or nothing (None).

    Only a bound next to the number speaks of it: "Require Python 3.10 or later" is where 3.9 was dropped, not
    where 3.6 was.
    """
    if not is_release_number(number):
        return None
    asked = _parts(number)
    for bound in bounds(text):
        at = _parts(bound.number)
        if len(at) != len(asked) or at[:-1] != asked[:-1] or abs(at[-1] - asked[-1]) > 1:
            continue
        inside = {
            "<": asked < at,
            "<=": asked <= at,
            ">": asked > at,
            ">=": asked >= at,
        }[bound.op]
        return inside if bound.dropping else not inside
    return None


def _parts(number: str) -> tuple[int, ...]:
    parts = [int(p) for p in number.split(".")]
    while len(parts) > 2 and parts[-1] == 0:  # "3.7.0" is 3.7
        parts.pop()
    return tuple(parts)


def as_said(words: frozenset[str], text: str, numbers: Sequence[str], terms: Sequence[str]) -> frozenset[str]:
    """A sentence's words as its bounds read for the `numbers` a question asks were dropped: with the number and
    the question's words for dropping ("stopped supporting") where a bound says it was dropped ("Require Python
    3.10 or later" for 3.9), without the number where a bound says it is still supported ("Require Python 3.9 or
    later" for 3.9)."""
    said = set(words)
    for number in numbers:
        verdict = says_dropped(text, number)
        if verdict:
            said |= {number, *(t for t in terms if _ASKS_DROPPED.match(t) or t.startswith("support"))}
        elif verdict is False:
            said.discard(number)
    return frozenset(said)
