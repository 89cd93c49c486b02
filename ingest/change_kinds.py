"""Which kind of change an entry announces, from the name of its section ("Deprecations", "Backwards incompatible
changes", "What's new") or from its own words ("… has been removed", "Deprecated …", "… now defaults to …"), and a
later sentence of an entry that states a removal or deprecation its first sentence does not.

Written by hand: no library reads release notes into changes. The patterns are English grammar and the
conventions of release notes, never a product's names.
"""

from __future__ import annotations

import re

from assistant.model.changes import ChangeKind, subject_part
from assistant.model.document import Entry
from assistant.text.words import sentences

CODE = re.compile(r"`([^`\n]{1,120})`")  # a code span, its text the group
# Section names, most specific first: "Removal of prior version deprecations" is about removals.
_SECTION_KINDS: tuple[tuple[ChangeKind | None, re.Pattern[str]], ...] = (
    (
        None,
        re.compile(
            r"bug ?fix|performance|documentation|developers|security|contributors|internal|maintenance|infrastructure",
            re.I,
        ),
    ),
    ("removed", re.compile(r"\bremov(?:al|als|ed|es|e)?\b|\bexpired\b|\bdropped\b", re.I)),  # not "RemovedIn20Warnings"
    ("deprecated", re.compile(r"deprecat", re.I)),
    ("breaking", re.compile(r"incompatib|(?<!non-)(?<!non )\bbreaking\b", re.I)),  # not "Non-Breaking Changes"
    ("behaviour", re.compile(r"\bbehaviou?r(?:al)? changes?\b|\bchanges? (?:in|of) behaviou?r\b", re.I)),
    ("new", re.compile(r"\bnew features?\b|\bwhat'?s new\b|\benhancements?\b|\bhighlights\b|^added$|\bnew in\b", re.I)),
)
_WORDING_KINDS: tuple[tuple[ChangeKind, re.Pattern[str]], ...] = (
    # a changelog's imperative says what it does first: "Remove deprecated function `x`" removes `x`
    # when what it removes is code or support for something ("Remove deprecated function nx.info", "Drop support
    # for …"; not "Remove reference cycle in `torch.save`"), not its docs ("Remove `offset` from `f` docstring")
    (
        "removed",
        re.compile(
            r"^\W*+(?:[\w .-]{0,24}+:\s*+)?(?:removes?|drops?|expires?)\s++"  # "ONNX: Remove `x`"
            r"(?:(?:the|a|an|deprecated|unused|old|outdated|legacy|obsolete|undocumented|internal|private)\s++)*+"
            r"(?:(?:functions?|methods?|class(?:es)?|modules?|attributes?|arguments?|parameters?|options?|"
            r"decorators?|aliases|alias|env var|settings?)\s++)?+"
            r"(?:`|[A-Za-z_][A-Za-z0-9]*+(?:[._][A-Za-z0-9]++)++|support\b)"
            r"(?![^\n]*?\b(?:docstrings?|documentation|docs|comments?|typos?|tests?|test suite|CI)\b)",
            re.I,
        ),
    ),
    (
        "removed",
        re.compile(
            # "can be removed" tells the reader what to do, "will be removed" is a deprecation.
            r"(?<!be )(?<!been )\b(?:removed|removal of|has been dropped|dropped support|"
            r"no longer (?:exists?|available|public|supported|accepts?|allowed)|disallow(?:ed|s)?|"
            r"enforced deprecation)\b",
            re.I,
        ),
    ),
    ("removed", re.compile(r"\b(?:has|have) been removed\b", re.I)),
    ("deprecated", re.compile(r"\bdeprecat|\bwill be removed\b|\bshould be replaced\b", re.I)),
    (
        "behaviour",
        re.compile(
            r"\b(?:now (?:defaults?|returns?|raises?|uses?|requires?|infers?)|"
            r"default (?:value |dtype )?(?:of|for|is|will)|changed|no longer|renamed|moved|instead of|will now|"
            r"(?<=` )becomes(?= `))\b",  # "`__modify_schema__` becomes `__get_pydantic_json_schema__`"
            re.I,
        ),
    ),
)
_NON_BREAKING = re.compile(r"\bnon[- ]breaking\b", re.I)
_ADDS = re.compile(
    r"^\W*(?:add|adds|added|introduc\w*)\b", re.I
)  # a topic that adds ("Add `reply.trailers`"), not "New default …"


def topic_kind(group: str, topic: str) -> ChangeKind:
    """A guide topic's kind when its section's name says none: its wording's, else what a guide's change is,
    breaking, unless it adds something ("Add `reply.trailers` methods") or its group says its changes are not
    ("Non-Breaking Changes")."""
    if _ADDS.match(topic):
        return "new"
    return wording_kind(topic) or ("behaviour" if _NON_BREAKING.search(group) else "breaking")


def shows_change(entry: Entry, following: tuple[Entry, ...]) -> bool:
    """Whether a paragraph ending with ":" states a removal or deprecation of the code its subject names and
    shows it in the code block after it, rather than introducing a list."""
    if entry.kind != "paragraph" or not following or following[0].kind != "code":
        return False
    first = next(iter(sentences(entry.text)), "")
    return wording_kind(first) in ("removed", "deprecated") and bool(CODE.search(subject_part(first)))


def kind_of_section(parts: list[str]) -> tuple[ChangeKind | None, bool]:
    """The kind the innermost telling section name gives, and whether any section name told one."""
    for part in reversed(parts):
        for kind, pattern in _SECTION_KINDS:
            if pattern.search(part):
                return kind, True
    return None, False


# What a later sentence's verb says of its subject ("`x` and `y` are now deprecated", "… (which are now deprecated)")
_STATED = re.compile(r"(?:is|are|was|were|has been|have been)\s++(?:now\s++|also\s++)?(deprecated|removed)\b", re.I)


def later_statement(text: str) -> tuple[str, ChangeKind | None]:
    """The text from the first sentence after the first whose subject names code and whose words say it is removed
    or deprecated, with that kind; else the text and None."""
    said = sentences(text)
    for n, sentence in enumerate(said[1:], 1):
        subject = subject_part(sentence)
        if CODE.search(subject) and (stated := _STATED.match(sentence[len(subject) :])):
            return " ".join(said[n:]), "removed" if stated.group(1).lower() == "removed" else "deprecated"
    return text, None


def wording_kind(text: str) -> ChangeKind | None:
    """The kind the first sentence's words give ("… has been removed", "Deprecated …", "… now defaults to …")."""
    said = sentences(text)
    first = said[0] if said else ""
    return next((kind for kind, pattern in _WORDING_KINDS if pattern.search(first)), None)
