"""Which names of a change's summary it is about, and whether it is about the names themselves: the text side of
what the scan looks for (`assistant.upgrade.targeting` makes the targets; the plan merges changes by subjects).

A summary's subjects are the first code name its subject part writes and those listed with it ("`a()` and `b()`
now raise …" is about `a` and `b`, not the `RuntimeError` it names). A change is about a name itself when it says
the name is removed, deprecated, renamed or moved ("Removed `Int64Index`", "The `x()` method is deprecated",
"Migrate calls from `x(...)` to `y(...)`", "Please use `y` instead of `x`", an item under "The following settings
have been removed:", "`x` (which is now deprecated)", "Remove deprecated `x` method", "Removed legacy `x` after its
long deprecation period"), or what every use of it now does ("`load()` now returns a list"); not when it holds
under a condition the code does not show ("Changed behavior of `concat` when …").

Written by hand: these are English patterns of release notes, which no library reads; they name no product.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from assistant.model.changes import subject_part

# What comes before and after a name when a change is about the name itself: "Removed (the deprecated) `X`
# (class)", "The `X()` method (of `Y`) is deprecated", "`X`, `Y` and `Z` were removed", "`X` (use `Y`)".
_NOUNS = (
    r"the|a|an|deprecated|legacy|unused|internal-only|internal|obsolete|undocumented|public|private|model|class|"
    r"classes|type|types|alias|aliases|object|objects|method|methods|function|functions|module|modules|submodules?|"
    r"package|subpackages?|setting|settings|option|options|attribute|attributes|property|properties|field|fields|"
    r"argument|arguments|decorators?|constant|constants|helper|helpers|config|configs|keys?|variable|variables|"
    r"interfaces?|"
    r"extensions?"
)
_ITSELF_BEFORE = re.compile(
    # at the start (after a label such as "Issue #4:", or a noun phrase opening a parenthesis: "The PT2E flow
    # (`a` and `b`) has been removed"), or after the verb that says it
    r"(?:^(?:[^:`]{0,24}+:\s*+)?(?:[A-Za-z][\w -]{0,60}+\(\s*+|(?:the|a|an)\s++"
    # "The stub image plugin `X` has been deprecated": words describing it, none relating it to another
    r"(?:(?!(?:of|in|on|for|when|with|to|by|from|at|and|or)\b)[a-z][a-z-]*+\s++){1,4}+)?|"
    r"\b(?:removed|deprecated|renamed|moved|dropped|"
    r"removal of|deprecation of|deprecate|remove|drop|expired?|stop using)"
    r"(?:\s++(?:in|from|since)\b[^:`]{0,40}+:)?)"  # "Removed in Pydantic V2: `x`"
    rf"[\s`'\"@]{{0,8}}+(?:(?:[A-Za-z]++'s|{_NOUNS})\b[\s`'\"@]{{0,8}}+){{0,6}}+$",  # "The model's `x`"
    re.IGNORECASE,
)
_ITSELF_AFTER = re.compile(
    # the names listed with it (each in code marks, or dotted), then what it is, then what happened to it
    r"^(?:\([^()]{0,20}+\))?`?+(?:\s*+(?:,|&|\band\b|\bor\b)(?:\s*+(?:and|or)\b)?\s*+"
    rf"(?:the\s++(?:{_NOUNS})\s++)?+"  # "`a` and `b`, and the constant `c` have been removed"
    r"(?:`[^`]++`|@[\w.]++|[A-Za-z_][A-Za-z0-9]*+(?:[._][A-Za-z0-9]++)++(?:\(\))?+))*+"
    # one word may say which kind ("`x` Dynamo config", "`X` transitional setting", "`Y` exception class")
    rf"[\s`'\")]*+(?:[A-Za-z]++\s++(?=(?:{_NOUNS})\b))?(?:(?:{_NOUNS})\b[\s`'\"]*+)*+"
    r"(?:\b(?:of|on)\b(?:[^.;]|\.(?=\w)){0,80}?|(?<=alias )(?:to|for)\b(?:[^.;]|\.(?=\w)){0,80}?)?"
    r"(?:$|\.(?!\w)|;|,\s*+(?:use|in favou?r of|see|please)\b|\(\s*+(?:#|GH\b|gh-|issue|see|use|\d)|"
    r"(?:\s*+[—:-]\s*+(?:this|it)\b)?\s*+(?:is|are|was|were|has been|have been|will be|is now|are now|"
    r"(?:so )?has been|(?:so )?have been|should be|must be)\s++"
    r"(?:(?:now|also|fully|being|officially|completely|entirely|permanently|finally|similarly)\s++)?"
    r"(?:removed|deprecated|renamed|replaced|moved|dropped|gone|private|"
    r"no longer (?:available|public|supported|exported|importable))|\b(?:use|in favou?r of|instead)\b|→|->|"
    # "`X`, used internally as the return type of tests, is now deprecated"
    r",(?!\s*+(?:when|if|unless|where|with|without|for|in|on)\b)[^,.;]{1,120}+,\s*+"  # not "`x`, when given y,"
    r"(?:is|are|was|were|has been|have been)\s++(?:now\s++|also\s++|similarly\s++)?"
    r"(?:removed|deprecated)\b|"
    # "`X` is no longer necessary, and has been removed"
    r"(?:is|are)\s++no longer\s++\w++,?\s++and\s++(?:has|have)\s++been\s++(?:removed|deprecated)\b|"
    r"(?:(?:does|do)\s++)?no\s++longer\s++exists?\b|"  # "The `extVersion` variable does no longer exist"
    # "`load()` now returns a list": every call; not "… now raises if …", which holds under a condition
    r"(?:will\s++)?(?:now|no longer)\s++(?:returns?|raises?|uses?|gives?|yields?)\b"
    r"(?!(?:[^.;]|\.(?=\w)){0,200}?\b(?:if|when|whenever|unless|under|with|where|for)\b))",  # `.fit` ends nothing
    re.IGNORECASE,
)


# "#12643: Renamed `x` to `y`", "Rename the `x` module to `y`": the old name is to go.
_RENAMED_BEFORE = re.compile(rf"^(?:[^:`]{{0,24}}+:\s*+)?renamed?\s++(?:(?:{_NOUNS})\s++)*+[`'\"]*+$", re.IGNORECASE)
_RENAMED_AFTER = re.compile(rf"^(?:\(\))?+`?+\s*+(?:(?:{_NOUNS})\s++)*+(?:to|as|into)\s++`", re.IGNORECASE)
# An item under a list's intro that says what happened to each ("The following settings have been removed:"),
# the item's name alone or followed by a dash and why.
_LISTED_UNDER = re.compile(r"\b(?:removed|deprecated|renamed|dropped)\s*+:[\s`'\"]*+$", re.IGNORECASE)
# A relative clause saying the names just written are gone, its verb agreeing with them: "`x` and `y` (which are now
# deprecated)", "`x`, which was removed in 1.0", "a `x` object, which was a quasi-internal class that no longer
# exists"; not "functions in `x`, which were deprecated".
_WHICH_GONE = re.compile(
    r"^`?+(?:\s++(?:object|class|function|module)s?+)?+(?:(?P<more>(?:\s*+(?:,|\band\b|\bor\b)\s*+`[^`]++`)++)|)"
    r"[\s,(]*+which\s++(?:"
    r"(?:(?P<one>is|was|has\s++been)|are|were|have\s++been)\s++(?:now\s++)?(?:deprecated|removed)\b|"
    r"(?:(?P<single>(?:is|was)\s++an?\s++(?:[\w-]++\s++){1,4}?that\s++)?no\s++longer\s++exists|"
    r"(?:are|were)\s++(?:[\w-]++\s++){1,4}?that\s++no\s++longer\s++exist|no\s++longer\s++exist)\b)",
    re.IGNORECASE,
)
_LISTED_BEFORE = re.compile(r"`[^`]++`\s*+(?:,|\band\b|\bor\b)[\s,]*+(?:and\s++|or\s++)?`?+$", re.IGNORECASE)
_EXPLAINED = re.compile(r"^`?+\s*+(?:$|[—–]\s|-\s)")


# Where the names the sentence then removes or deprecates live: "In `skimage.morphology`, deprecate `binary_erosion` …"
PLACE = re.compile(
    r"^(?:[^:`]{0,24}+:\s*+)?in\s++`~?+([\w.]++)`\s*+,\s*+(?=(?:deprecat|remov|drop|renam)\w*+\s)", re.IGNORECASE
)


# After a name its removal or deprecation opens with ("Removed legacy `x` …", "Remove `x` method …"): why or when
# ("after its long deprecation period", "due to lack of use"), or the class or module it was a member of ("`x`
# method on `Map`", "`a` and `b` methods in `pkg.io`").
_LISTED_NAMES = r"^(?:\([^()]{0,20}+\))?`?+(?:\s*+(?:,|\band\b|\bor\b)(?:\s*+(?:and|or)\b)?\s*+`[^`]++`)*+[\s`'\")]*+"
# What the names a change lists are members of a place as ("functions `a` and `b` from `m`"): their kind, before them
MEMBER_KINDS = r"\b(?:method|function|class|attribute|propert(?:y|ie))(?:s|es)?"
_MEMBER_NOUN_BEFORE = re.compile(rf"{MEMBER_KINDS}\s++`?+$", re.I)
_FROM_PLACE = re.compile(rf"{_LISTED_NAMES}(?:from|in)\s++`", re.IGNORECASE)
_GONE_BEFORE = re.compile(r"\b(?:remov|deprecat|drop)\w*+", re.IGNORECASE)  # only after such a verb
_WHY_OR_WHOSE = re.compile(
    rf"{_LISTED_NAMES}(?:(?:(?:{_NOUNS})\b[\s`'\"]*+)*+"
    r"(?:(?:after|due\s++to|because|since|as\s++part\s++of|without\s++(?:a\s++)?replacement)\b|,?\s*+(?:which|that)\b|"
    r",\s*+as\s++(?:it|they)\b)|"  # "Deprecated `x`, as it has no obvious use"
    r"(?:method|function|attribute|property|properties|class|module|submodule|subpackage)(?:s|es)?\s++"
    r"(?:(?:on|in|from)\b|and\s++(?:the\s++)?`))",  # "`x` method on `Map`", "`x` method and the `y`"
    re.IGNORECASE,
)


def first_code(summary: str) -> str:
    """The summary's first code span; for a heading written without code marks, its subject."""
    m = re.search(r"`([^`]++)`", summary)
    return m.group(1) if m else subject_part(summary)


# "Migrate calls from `x(...)` to `y(...)`", "Replace `x` with `y`": the name itself is to go.
_MIGRATE_BEFORE = re.compile(r"\b(?:replace|migrate(?:\s++\w++)?\s++(?:from|off))[\s`'\"]*+$", re.IGNORECASE)
_MIGRATE_AFTER = re.compile(r"^(?:\([^()]{0,20}+\))?`?+\s*+(?:to|with)\s++`", re.IGNORECASE)
# "(Please) use `x` instead of `y`" as what the change says to do (a label may lead: "Export: "): `y` is to go.
_USE_INSTEAD = re.compile(
    r"^(?:[^:`]{0,24}+:\s*+)?(?:please\s++)?use\s++`?+[\w.]++(?:\(\))?+`?+\s++instead\s++of\s++", re.IGNORECASE
)


def says_use_instead(summary: str) -> bool:
    """The summary opens with what to use instead of a name ("Please use `x` instead of `y` …")."""
    return _USE_INSTEAD.match(summary) is not None


def is_class(symbol: str) -> bool:
    """A class, by its name's form (PEP 8's `CamelCase`; an all-capitals constant is none)."""
    last = symbol.rsplit(".", 1)[-1]
    return last[:1].isupper() and not last.isupper()


def names_itself(symbol: str, summary: str) -> bool:
    """Whether the summary is about `symbol` itself (removed, deprecated, renamed), not something it does."""
    span = spelled_at(symbol, summary)
    if span is None:
        return False
    before, after = summary[: span[0]], summary[span[1] :]
    if _MIGRATE_BEFORE.search(before) and _MIGRATE_AFTER.match(after):
        return True
    if (use := _USE_INSTEAD.match(before)) and not before[use.end() :].strip("`'\" "):
        return True
    if _RENAMED_BEFORE.search(before) and _RENAMED_AFTER.match(after):  # "Renamed `x` to `y`"
        return True
    if place := PLACE.match(before):  # "In `m`, deprecate `x` in favor of `y`"
        before = before[place.end() :]
    if _LISTED_UNDER.search(before) and _EXPLAINED.match(after):  # "… removed: `x` — it was the source of bugs"
        return True
    if _which_gone(before, after):  # "a replacement for `x` and `y` (which are now deprecated)"
        return True
    if not _ITSELF_BEFORE.search(before):
        return False
    if _ITSELF_AFTER.match(after):
        return True
    # "Remove deprecated functions `x` and `y` from `skimage.feature`": members of the place named after them
    members = _MEMBER_NOUN_BEFORE.search(before) and _FROM_PLACE.match(after)
    return bool(_GONE_BEFORE.search(before) and (_WHY_OR_WHOSE.match(after) or members))


# "`a` and `@b`", "`a`, and the constant `b`"
_LISTED = re.compile(rf"^[`()\s]*(?:,|/|&|\band\b|\bor\b|,\s*and\b|,\s*or\b)[`@\s]*(?:the\s++(?:{_NOUNS})\s++`?)?$")


ADDS = re.compile(r"^\W*(?:added|adds|introduced|introduces)\b", re.IGNORECASE)


def gone_by_clause(symbols: Sequence[str], summary: str) -> list[str]:
    """The first of `symbols` a relative clause says is gone, wherever the sentence writes it: "`field`: this
    argument used to be a `ModelField` object, which was a quasi-internal class that no longer exists"."""
    for symbol in symbols:
        span = spelled_at(symbol, summary)
        if span is not None and _which_gone(summary[: span[0]], summary[span[1] :]):
            return [symbol]
    return []


def _which_gone(before: str, after: str) -> bool:
    """Whether a relative clause after a name says it is gone, its verb agreeing with the names listed."""
    which = _WHICH_GONE.match(after)
    if which is None:
        return False
    one = which.group("one") or which.group("single") or which.group(0).lower().endswith("exists")
    return bool(which.group("more") or _LISTED_BEFORE.search(before)) != bool(one)


# A summary that opens with its verb ("Removed `x`", "Enforced deprecation of `y`") has its subject after it;
# any other has it before its verb ("`x` is deprecated", "DeviceMesh now stores …, enabling `torch.compile`").
def subjects(symbols: Sequence[str], summary: str) -> list[str]:
    """The first name the summary's subject writes, and those listed with it ("`a()` and `b()`", "`a` / `b`")."""
    subject = subject_part(summary)
    lead, colon, items = summary.partition(": ")
    if colon and "`" not in lead and "`" in items:  # "The following settings have been renamed: `a` → `b`"
        subject = subject_part(items) if not items.lstrip().startswith("`") else items
    if use := _USE_INSTEAD.match(summary):  # "Please use `x` instead of `y` to …" is about `y`
        subject = subject_part(summary[use.end() :])
    elif place := PLACE.match(summary):  # "In `skimage.measure`, deprecate `x` …" is about `x`
        subject = subject_part(summary[place.end() :])
    found = sorted((at, end, s) for s in symbols if (span := spelled_at(s, subject)) for at, end in [span])
    if not found:
        return []
    out, last_end = [found[0][2]], found[0][1]
    for at, end, symbol in found[1:]:
        if not _LISTED.match(subject[last_end:at]):
            break
        out.append(symbol)
        last_end = end
    return out


def spelled_at(symbol: str, text: str) -> tuple[int, int] | None:
    """Where the qualified `symbol` is written in `text`, in full or as the docs shorten it (its last parts)."""
    parts = symbol.split(".")
    for i in range(len(parts)):
        short = ".".join(parts[i:])
        if m := re.search(rf"(?<![\w.]){re.escape(short)}(?!\w|\.\w)", text):  # `Series` is not `Series.dt`
            return m.start(), m.end()
    # through a short alias of its module (`nx.info` for `networkx.info`)
    if len(parts) > 1 and (
        m := re.search(rf"(?<![\w.])[a-z]{{1,4}}\.{re.escape('.'.join(parts[1:]))}(?!\w|\.\w)", text)
    ):
        return m.start(), m.end()
    return None


def leads_to(before: str) -> bool:
    """Whether the text before a name leaves it the subject: nothing, a label, articles and nouns, or the verb
    saying what happened to it ("Issue #4: ", "The ", "Removed the deprecated ")."""
    return bool(_ITSELF_BEFORE.search(before))
