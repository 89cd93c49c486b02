"""Change entries from a chunk's entries: which kind of change each announces, the code names it is about,
the parameter it concerns and what replaces it (`assistant.model.changes.Change`).

The documents' own structure decides first: a section named "Backwards incompatible changes", "Deprecations",
"Removal of prior version deprecations", "Features removed in 5.0" or "What's new" says what its entries
are. Where the section says nothing (a migration guide's topics, "Other API changes"), the entry's wording
does ("… has been removed", "Deprecated …", "… now defaults to …"): `ingest.change_kinds`. A heading that itself
states a change ("`get_control_flow_submodules` is no longer public") is one change, its entries the detail; so is
a subsection of a telling section whose entries announce nothing but whose heading names code or whose example
shows an old call form ("Deprecations › Chained assignment"), as a migration guide's topic is.

Written by hand: no library reads release notes into changes. The patterns are English grammar and the
conventions of release notes, never a product's names.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import replace
from itertools import pairwise
from keyword import iskeyword

from assistant.model.changes import Change, ChangeKind, subject_part
from assistant.model.document import Entry
from assistant.model.records import Chunk
from assistant.text.words import sentences
from ingest.call_forms import old_forms
from ingest.change_kinds import CODE, kind_of_section, later_statement, shows_change, topic_kind, wording_kind
from ingest.fixes import detail, fix

SUMMARY_CHARS = 240
TOPIC = -2  # `Change.entry` of a guide's topic, named by its heading alone (-1: a heading stating a change)
SHORT_ITEM_CHARS = 60  # an item this short ("`pydantic.typing.is_finalvar`") is read with what introduces it
LABEL_CHARS = 30  # an item this short ending in ":" ("Version 2.11:") labels the code after it

_HEADING_CHANGE = re.compile(
    r"^(?=(?:\S+\s+){2,}).*\b(?:is|are|was|were|now|no longer|removed|deprecated|renamed|moved|changed|dropped)\b",
    re.I,
)
_GUIDE = re.compile(r"\b(?:migrat\w*+|upgrad\w*+|porting)\b", re.I)  # "Migrate to v9.x", "Migration Guide"
_GROUPS = re.compile(r"\bchanges\b", re.I)  # a guide's section grouping its changes: "API Changes", "Changes to config"
# A code name in a heading whose marks are gone: dotted (`eslint.config.js`), called (`from_self()`), snake_case
_CODE_LIKE = re.compile(r"[A-Za-z_]\.[A-Za-z_]|\w\(\)|\b[a-z]++_[a-z_]++\b|(?<![\w-])--?[a-z][\w-]++")
_NAMED_ITEM = re.compile(r"`[^`\n]{1,120}`\s*+[—–]\s")  # "`getter_dict` — why it went"
_DOTTED = re.compile(r"(?<![\w.`])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?![\w`])")
_NAME = re.compile(r"@?[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*")
# A code name a changelog line writes without marks, where it marks none ("Remove to_numpy_matrix &
# from_numpy_matrix (#5746)", "Remove deprecated function nx.info"): dotted or snake_case, not a file or a link.
_UNMARKED = re.compile(
    r"(?<![\w.`/@-])(?:[A-Za-z_]\w*+(?:\.[A-Za-z_]\w*+)++|[A-Za-z][A-Za-z0-9]*+_\w++)(?![\w`/-]|\.\w)"
)
_FILE = re.compile(r"\.(?:py[ixd]?|rst|txt|md|cfg|toml|ini|json|ya?ml|[ch]|cpp|js|html?|in|com|org|io|net)$", re.I)
_LINK = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]{0,15}+://\S*+|<[^<>\s]++>")
_CALL_KEYWORD = re.compile(r"^(@?[A-Za-z_][\w.]*)\((?:[^()]*,\s*)?([A-Za-z_]\w*)\s*=")
# "… in favour of `name` in `X`": what replaces the parameter, between it and its callable
_FAVOUR = r"(?:in\s++favou?r\s++of\s++(?:the\s++)?(?:new\s++)?`[^`]++`\s++)?"
# "the `verbose` parameter of `ReduceLROnPlateau`", "`strict` argument to `torch.export.export`"
_PARAM_OF = re.compile(
    # "the `method` and `limit` keywords on `X`": the first of those listed; "`is_dst` argument is removed from: `X`"
    r"`([A-Za-z_]\w*+)`(?:\s*+(?:,|and|or)(?:\s++(?:and|or))?\s*+`[A-Za-z_]\w*+`){0,6}+\s+(?:keyword\s+)?"
    r"(?:argument|parameter|keyword|kwarg|option|flag)s?\s+(?:(?:is|are|was|were|has been|have been)\s++\w++\s++)?"
    rf"{_FAVOUR}"
    # "… of the PostgreSQL specific aggregation functions `ArrayAgg`, …": after "of the", words naming what it is of
    r"(?:of\s++the\s++(?:[A-Za-z-]++\s++){1,5}+|(?:of|in|to|for|from|on)\s*+:?\s*+(?:the\s+)?)`([^`]+)`",
    re.I,
)
_PARAM_OF_2 = re.compile(
    # "Parameter `as_grey` has been removed from `skimage.data.load`"
    r"(?:argument|parameter|keyword|kwarg|option|flag)s?\s+`([A-Za-z_]\w*)`\s+"
    r"(?:(?:is|are|was|were|has been|have been)\s++(?:now\s++)?\w++\s++)?"
    rf"{_FAVOUR}(?:of|in|to|for|from|on)\s+(?:the\s+)?`([^`]+)`",
    re.I,
)
# "Switched default to `strict=False` in `torch.export.export`", "the default of `x` for `f`": the callable marked,
# or dotted where a heading's marks are gone ("in various `X` methods" names none)
_DEFAULT_IN = re.compile(
    r"\bdefault\s++(?:value\s++)?(?:of|to|for)\s++`?([A-Za-z_]\w*+)(?:\s*+=\s*+[\w.'\"-]++)?`?\s++(?:in|of|for|on)\s++"
    r"(?:the\s++)?`?((?<=`)[A-Za-z_][\w.]*+|[A-Za-z_]\w*+(?:\.[A-Za-z_]\w*+)++)",
    re.I,
)
_PARAM_WORD = r"(?:keyword\s++)?(?:argument|parameter|keyword|kwarg)s?"
# "`metrics.brier_score_loss` deprecated the keyword argument `y_prob`", "`f` and `g` no longer accepts the `x`
# keyword": the callable first, then what it did to its parameter
_PARAM_BY = re.compile(
    r"`([^`]++)`(?:\s*+(?:,|and|or)\s*+`[^`]++`){0,4}+\s++(?:has\s++|have\s++)?"
    r"(?:deprecated|removed|renamed|dropped|no\s++longer\s++accepts?)\s++(?:the\s++)?"
    rf"(?:{_PARAM_WORD}\s++`([A-Za-z_]\w*+)`|`([A-Za-z_]\w*+)`\s++{_PARAM_WORD}\b)",
    re.I,
)
# "In `skimage.morphology.remove_small_objects`, deprecate the `min_size` parameter"
_PARAM_IN = re.compile(
    r"^In\s++`([^`]++)`\s*+,\s*+(?:deprecate|remove|rename|drop)\w*+\s++(?:the\s++)?`([A-Za-z_]\w*+)`\s++"
    rf"{_PARAM_WORD}\b",
    re.I,
)
_PARAM_AFTER = re.compile(
    r"`([^`]+)`(?:'s)?\s+`([A-Za-z_]\w*)`\s+(?:keyword\s+)?(?:argument|parameter|keyword|kwarg)", re.I
)
# The patterns naming a parameter and its callable, in the order tried, each with its callable's group (the
# parameter is its first other group that matched)
_PARAMETER_OF = ((_PARAM_OF, 2), (_PARAM_OF_2, 2), (_DEFAULT_IN, 2), (_PARAM_AFTER, 1), (_PARAM_BY, 1), (_PARAM_IN, 1))
_DEFAULT = re.compile(r"\bdefaults?\b|\bdefault value\b", re.I)
_REPLACEMENT = re.compile(
    r"(?<!no longer )(?<!not )(?<!n't )\b(?:use|call|pass|in favou?r of|replaced (?:by|with)|renamed to|"
    r"(?<=` )becomes|moved to|superseded by|alias(?:es)? (?:of|for)|switch to|migrate to|"
    r"opt(?:-|\s)in(?:\s+\w+)?\s+(?:via|with|using|by setting)|"  # "opt in explicitly via `config.x = True`"
    # "Migrate calls from `a(...)` to `b(...)`", "switch from `a` to `b`"
    r"(?:migrate|switch|move)(?:\s++\w++)?\s++from\s++`[^`]++`\s++to)\s+(?:the\s+)?(?:new\s+)?`([^`]+)`",
    re.I,
)
_ARROW = re.compile(r"`[^`]++`\s*+(?:→|->)\s*+`([^`]++)`")  # "`orm_mode` → `from_attributes`"
_ROW_CELLS = re.compile(r"(?<!\s)\s+—\s+")  # blanks taken from their first: not retried from each (quadratic)
_LATIN = frozenset({"e.g", "i.e", "etc", "cf", "vs"})  # `e.g.` is no code name
_NOT_NAMES = frozenset("true false none null nan self cls object int str float bool list dict".split())


def list_intro(entries: Sequence[Entry]) -> str:
    """The paragraph introducing the list these entries end with ("The following properties have been removed:"),
    for a chunk that goes on with the same list; "" when they end otherwise."""
    for entry in reversed(entries):
        if entry.kind == "paragraph" and not entry.continues:
            return entry.text if entry.text.endswith(":") else ""
        if entry.kind != "item":
            return ""
    return ""


def changes_of(chunk: Chunk, intro: str = "") -> tuple[Change, ...]:
    """The changes a chunk announces, in document order; `intro` introduces the list it opens with (`list_intro`)."""
    parts = chunk.section.split(" › ") if chunk.section else []
    section_kind, kinded = kind_of_section(parts)
    if kinded and section_kind is None:
        return ()  # bug fixes, performance, documentation: nothing to change in the reader's code
    heading = parts[-1] if parts else ""
    # A migration guide's topics are what to change, each named by its heading ("execute() method more strict").
    named = [t for t in (chunk.title, parts[0] if parts else "") if _GUIDE.search(t)]  # its title or top section
    guide = bool(named) and heading not in named
    worded = wording_kind(heading)
    if len(parts) > 1 and _HEADING_CHANGE.search(heading):
        # The heading is the change; the entries say what to do about it.
        kind = section_kind or worded or ("breaking" if guide else None)
        return (_heading_change(chunk, heading, kind),) if kind else ()
    out = _entry_changes(chunk, heading, section_kind, intro)
    # A heading that states a change of code ("Switched default to strict=False in torch.export.export"), not one
    # naming a module to group its items ("django.contrib.gis"); paragraphs that name no code ("This differs from
    # the previous release default.") are its detail, not changes of their own.
    stated = len(heading.split()) >= 3 and bool(_CODE_LIKE.search(heading))
    detail_only = all(not c.symbols and not c.parameter and chunk.entries[c.entry].kind == "paragraph" for c in out)
    if section_kind and len(parts) > 1 and (not out or (detail_only and stated)):
        examples = _example_forms(chunk)
        if stated or any(not f.startswith("~") for f in examples):
            # "Deprecations › Chained assignment": a notable change its text words as a story, its example as code
            return (_heading_change(chunk, heading, section_kind, entry=TOPIC, forms=examples),)
    if not out and guide and (_HEADING_CHANGE.search(heading) or _CODE_LIKE.search(heading)):
        # A topic whose text announces nothing in release-note words ("New default config format
        # (`eslint.config.js`)", "Selecting from the query itself as a subquery, e.g. "from_self()"").
        group = parts[-2] if len(parts) > 1 else ""
        return (_heading_change(chunk, heading, section_kind or topic_kind(group, heading), entry=TOPIC),)
    if not out and guide and (found := _topic(parts)):
        # "Breaking Changes › 2. JSON Parsing Changes › 0.x Behavior": the topic under a grouping section is the
        # change, whichever of its parts ("0.x Behavior", "1.x Behavior") this chunk is.
        group, topic = found
        return (_heading_change(chunk, topic, section_kind or topic_kind(group, topic), entry=TOPIC),)
    return out


def _topic(parts: list[str]) -> tuple[str, str] | None:
    """In a guide, the heading that groups changes ("Breaking Changes", "API Changes", "Deprecations") and the one
    right under it, when the chunk is under that; None when none groups."""
    for group, topic in pairwise(parts):
        # a heading that itself states a change ("… "Autocommit" removed from both Core and ORM") is a topic, its
        # subsections its detail
        if not _HEADING_CHANGE.search(group) and (_GROUPS.search(group) or kind_of_section([group])[0]):
            return group, topic
    return None


def _example_forms(chunk: Chunk) -> tuple[str, ...]:
    """The call forms a chunk's code examples mark as old, then new (`ingest.call_forms.old_forms`), once each."""
    return tuple(dict.fromkeys(f for e in chunk.entries if e.kind == "code" for f in old_forms(e.text)))


def settled(chunks: list[Chunk]) -> list[Chunk]:
    """A document's chunks less the topic changes of sections whose entries announce changes of their own:
    "Changes to `pydantic.BaseModel`" groups its table's rows, it is no change beside them."""
    announced = {c.section for c in chunks if any(ch.entry != TOPIC for ch in c.changes)}
    return [
        replace(c, changes=tuple(ch for ch in c.changes if ch.entry != TOPIC)) if c.section in announced else c
        for c in chunks
    ]


def _heading_change(
    chunk: Chunk, heading: str, kind: ChangeKind, *, entry: int = -1, forms: tuple[str, ...] | None = None
) -> Change:
    """The change a heading states, its entries the detail and the fix; `forms` its examples', when read already."""
    body = " ".join(e.text for e in chunk.entries if e.kind != "code")
    # Headings are rarely marked up: their dotted names are code (`torch.ao.x is no longer public`).
    # Only those before its verb are its subject: "X ops now raise … under torch.compile" is about X.
    subject = subject_part(heading)
    dotted = " ".join(f"`{n}`" for n in _DOTTED.findall(subject))
    change = _change(kind, heading, f"{dotted} {heading} {body}", entry, default_summary=heading)
    # The call forms its examples mark as old ("select() no longer accepts …", "bound metadata removed").
    forms = _example_forms(chunk) if forms is None else forms
    return replace(change, forms=forms, fix=fix(chunk.entries, stated=False))


def _entry_changes(chunk: Chunk, heading: str, section_kind: ChangeKind | None, intro: str = "") -> tuple[Change, ...]:
    """The changes a chunk's own entries announce: items, rows and paragraphs in release-note words; `intro`
    introduces the items it opens with."""
    out: list[Change] = []
    said: set[str] = set()  # the names the changes so far are about
    for n, entry in enumerate(chunk.entries):
        label = entry.text.endswith(":") and (entry.kind == "paragraph" or len(entry.text) < LABEL_CHARS)
        if label and shows_change(entry, chunk.entries[n + 1 : n + 2]):
            # "The `x()` method will be removed from `Y`::" states a change and shows it: no intro to a list
            entry, label = replace(entry, text=f"{entry.text[:-1].rstrip()}."), False
        if entry.kind == "code" or entry.continues or label:
            # Code, an entry's further paragraphs (its detail) and labels ("Version 2.11:") announce nothing.
            if entry.kind == "paragraph" and not entry.continues:
                intro = entry.text if entry.text.endswith(":") else ""
            continue
        if entry.kind == "paragraph":
            intro = ""
        elif entry.kind == "item" and entry.text.endswith(":"):
            intro = entry.text  # introduces the items under it, and may announce a change of its own
        text = entry.text
        if entry.kind in ("item", "row") and len(text) <= SHORT_ITEM_CHARS and _bare(text):
            names = {_clean(code) for code in CODE.findall(text)}
            if names and names <= said:
                continue  # `fastify.listen(8000)` under "… `fastify.listen()` method is now deprecated": an example
            # "`const`" says nothing alone: "The following properties have been removed from `Field`: `const`",
            # "Removed in Pydantic V2: `pydantic.typing.is_finalvar`".
            text = f"{intro} {text}" if intro else f"{heading}: {text}" if heading else text
        kind = _kind_of(entry.kind, text, section_kind)
        named = kind is not None and _NAMED_ITEM.match(text) is not None and not text.startswith(intro)
        if (kind is None or named) and intro and entry.kind in ("item", "row") and wording_kind(intro):
            # "The following settings have been renamed:" says it of each item under it, long ones too, and of
            # the name an item opens with though the item's own words say more ("`getter_dict` — `orm_mode` has
            # been removed, and …")
            text = f"{intro} {text}"
            kind = _kind_of(entry.kind, text, section_kind)
        summary_text = text
        if kind is None and entry.kind in ("item", "paragraph"):
            # "In V2, set `model_config` …. The V1 behavior to create a class called `Config` … is now deprecated":
            # a later sentence whose subject names code says what is removed or deprecated
            summary_text, kind = later_statement(text)
        if kind is None:
            continue
        owner = _owner(intro) if intro else ""
        member_of = "" if intro else _owner(heading, dotted=True)
        change = _change(kind, summary_text, summary_text, n, row=entry.kind == "row", owner=owner, member_of=member_of)
        out.append(replace(change, fix=fix((entry, *detail(chunk.entries, n)))))
        said.update(change.symbols[:1])
    return tuple(out)


def _kind_of(entry_kind: str, text: str, section_kind: ChangeKind | None) -> ChangeKind | None:
    """An entry's kind: its section's, refined or supplied by its wording. A paragraph (prose, not a list of
    changes) counts only when its wording announces a change and it names code."""
    worded = wording_kind(text)
    if section_kind == "deprecated" and worded == "removed":
        section_kind = worded  # under "Deprecated code": "The functions `x` and `y` were removed in 3.0"
    if entry_kind == "paragraph":
        if not CODE.search(text):
            return None
        return worded if section_kind in (None, "breaking", "behaviour") else (section_kind if worded else None)
    if section_kind in ("breaking", "behaviour") and worded in ("removed", "deprecated"):
        return worded  # "Backwards incompatible changes" is the umbrella; "Removed `x`" says which
    if section_kind or worded:
        return section_kind or worded
    return "breaking" if entry_kind == "row" and _renames(text) else None  # "V1: `construct()` — V2: `…`"


def _change(
    kind: ChangeKind,
    summary_text: str,
    text: str,
    entry: int,
    *,
    row: bool = False,
    owner: str = "",
    member_of: str = "",
    default_summary: str = "",
) -> Change:
    summary = default_summary or next(iter(sentences(summary_text)), summary_text)
    if len(summary) > SUMMARY_CHARS:
        summary = summary[:SUMMARY_CHARS].rsplit(" ", 1)[0] + "…"
    # Under "Changes to `BaseModel`", a row's `dict()` is the class's method, not the builtin.
    symbols, replacement = _symbols_and_replacement(text, row=row, methods=bool(member_of))
    parameter, function = _parameter(text)
    if parameter and function:
        # The parameters listed with it ("the `method` and `limit` keywords") are no code names of their own.
        siblings = {s for s in symbols if "." not in s and s.islower() and s != function}
        symbols = (function, *[s for s in symbols if s not in (function, parameter) and s not in siblings])
    elif owner[:1].isupper() and (bare := [s for s in symbols if s != owner and "." not in s and s[:1].islower()]):
        # An item naming a bare member under "removed from `Field`": a parameter of that owner.
        parameter, symbols = bare[0], (owner, *[s for s in symbols if s not in (owner, bare[0])])
    elif member_of:
        # A row or item under "Changes to pydantic.BaseModel" naming `construct()`: that class's member.
        symbols = tuple(f"{member_of}.{s}" if _bare_name(s) else s for s in symbols)
        replacement = f"{member_of}.{replacement}" if _bare_name(replacement) else replacement
    # A changed default hits the calls that omit the parameter. A deprecation is of the parameter itself unless it
    # says its default is what is deprecated ("Deprecated argument `x`, as … is now the default" is of `x`).
    if parameter and _KEYWORD_ONLY.search(text):
        parameter = ""  # "`tz` … is now keyword-only": passing it by keyword is the fix, not what breaks
    kept = _kept_by_position(text)
    positional = -1 if kept is None else len(CODE.findall(kept))
    if kept is not None:
        parameter = ""  # "positional arguments `name` and `message` to `X`": a call form, not one parameter
        symbols = tuple(s for s in symbols if f"`{s}`" not in kept)  # `objs` of "except `objs`" is no subject
    default = bool(parameter) and (
        (kind in ("behaviour", "breaking") and bool(_DEFAULT.search(text)))
        or (kind == "deprecated" and _default_of(parameter, text))
    )
    return Change(kind, summary, symbols, replacement, parameter, default, entry, positional)


# "Disallow passing non-keyword arguments to `concat` except for `objs`", "Passing positional arguments to
# `Model.save()` is deprecated", "positional arguments `name` and `message` to `BaseConstraint`"
_POSITIONAL = re.compile(
    r"\b(?:non-keyword|positional)\s++arguments?\s++(?:`[^`]++`(?:\s*+(?:,|and|or))*+\s*+)*+(?:to|in|for|of)\s++"
    r"(?:`[^`]++`|[^.;`]){0,300}?"
    r"(?:\b(?:except|other than)\s++(?:for\s++)?(?:the\s++)?(?P<kept>(?:`[^`]++`(?:\s*+(?:,|and|or))*+\s*+)++))?"
    r"(?:[.;(]|$)",
    re.IGNORECASE,
)


_KEYWORD_ONLY = re.compile(r"\bkeyword[- ]only\b", re.IGNORECASE)


def _kept_by_position(text: str) -> str | None:
    """The arguments a change about passing by position still lets through, as written after "except" ('' for
    none), or None when it is not about that."""
    m = _POSITIONAL.search(text)
    return None if m is None else m.group("kept") or ""


def _default_of(parameter: str, text: str) -> bool:
    """The text speaks of `parameter`'s default: "the default of `x`", "`x`'s default", "`x=False` default"."""
    name = re.escape(parameter)
    return bool(
        re.search(
            rf"\bdefault(?: value)? (?:of|for) (?:the )?(?:`{name}\b|{name}\b)|`{name}\b[^`]*+`(?:'s)? default", text
        )
    )


def _symbols_and_replacement(text: str, *, row: bool, methods: bool = False) -> tuple[tuple[str, ...], str]:
    """Code names of an entry, and the replacement it names; a table row's last cell is the replacement.
    `methods`: a builtin's name written as a call (`dict()`) is a method of the class the entry is about."""
    replacement = ""
    if row and len(cells := _ROW_CELLS.split(text)) >= 2:
        old, new = cells[0], cells[-1]
        return _names(old, methods=methods), next(iter(_names(new, methods=methods)), "")
    if m := _REPLACEMENT.search(text) or _ARROW.search(text):
        replacement = _clean(m.group(1))
    names = tuple(n for n in _names(text, methods=methods) if n != replacement)
    if not names and not CODE.search(text):  # a changelog line that marks no code: its names as it writes them
        names = unmarked_names(text)
    return names, replacement


def unmarked_names(text: str) -> tuple[str, ...]:
    """The code names a text writes without marks (dotted or snake_case), in order, once each; no file name
    (`setup.py`), link or Latin abbreviation."""
    found = _UNMARKED.findall(_LINK.sub(" ", text))
    return tuple(dict.fromkeys(n for n in found if not _FILE.search(n) and n.lower() not in _LATIN))


def _renames(row: str) -> bool:
    """A table row pairing an old code name with a new one."""
    cells = _ROW_CELLS.split(row)
    old, new = (_names(cells[0], methods=True), _names(cells[-1], methods=True)) if len(cells) >= 2 else ((), ())
    return bool(old) and bool(new) and old != new


def _parameter(text: str) -> tuple[str, str]:
    """(parameter, callable) when the entry is about one parameter of one callable, else ('', ''); the call it
    says to use instead ("Use `np.asarray(arr, dtype=dtype)` instead") shows the new form, not the parameter."""
    for pattern, at in _PARAMETER_OF:
        if m := pattern.search(text):
            function = _clean(m.group(at))
            if _NAME.fullmatch(function):
                return next(g for i, g in enumerate(m.groups(), start=1) if g and i != at), function
    instead = m.group(1) if (m := _REPLACEMENT.search(text)) else None
    for code in CODE.findall(text):
        call = code.strip()
        m = _CALL_KEYWORD.match(call)
        if m and not _in_expression(call) and code != instead:
            return m.group(2), m.group(1)
    return "", ""


def _in_expression(code: str) -> bool:
    """Whether code is an expression around a call rather than the call (`np.array([3], dtype=np.float32) +
    np.float64(3)`, `jsonify(error="x"), 400`): an example of what it evaluates to, whose keyword is no parameter the
    change is about. Code that does not parse (a decorator, `f(x=)`) is taken as the call it starts with."""
    try:
        node = ast.parse(code, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    while isinstance(node, ast.Attribute) or (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        if isinstance(node, ast.Call) and any(k.arg for k in node.keywords):
            return False  # `obj.astype('int64', copy=False).astype(dtype)`: a chain of calls, one passing it
        node = node.func.value if isinstance(node, ast.Call) else node.value  # type: ignore[attr-defined]
    return not isinstance(node, ast.Call)


def _names(text: str, *, methods: bool = False) -> tuple[str, ...]:
    """Code spans that are names (`DataFrame.append`, `np.float_()`, `@validator`), in order, once each; with
    `methods`, also a builtin's name written as a call (`dict()`: a method of the class the text is about)."""
    out: list[str] = []
    for code in CODE.findall(text):
        name = _clean(code)
        if methods and code.strip() == f"{name}()" and name in _NOT_NAMES:
            out.append(name)
            continue
        # An all-capitals word (`INSERT`, `DEFAULT`) is SQL or an acronym, not a name code imports.
        keyword = (name.isupper() and "_" not in name and "." not in name) or iskeyword(name) or name in _LATIN
        if (
            _NAME.fullmatch(name)
            and name.lower() not in _NOT_NAMES
            and len(name) > 1
            and not keyword
            and name not in out
        ):
            out.append(name)
    return tuple(out)


def _bare(text: str) -> bool:
    """The item is little more than code names ("`min_items` (use `min_length` instead)")."""
    words = CODE.sub(" ", text)
    telling = wording_kind(words) or re.search(r"\b(?:added|new|introduc\w*|supports?)\b", words, re.I)
    return not telling and len(re.findall(r"[A-Za-z]{2,}", words)) <= 3


def _owner(text: str, *, dotted: bool = False) -> str:
    """The one class-like name an intro or heading is about ("Changes to pydantic.BaseModel"), else ''.
    A heading's must be dotted: "Other API changes" is about no class `API`."""
    # Once per run of name characters (its leading dots aside), not from every word boundary in it (quadratic).
    found = _names(text) or tuple(re.findall(r"(?<![\w.])\.*+([\w.]*[A-Z]\w*)\b", text))
    # Unmarked, a capitalised word is a class only in CamelCase ("BaseModel"): "The following …" names none.
    marked = bool(_names(text))
    names = [
        n
        for n in found
        if ("." in n or (n[:1].isupper() and not dotted and (marked or re.search(r"[a-z][A-Z]", n))))
        and not n.isupper()
    ]
    return names[0] if len(names) == 1 else ""


def _bare_name(name: str) -> bool:
    """A member's own name (`construct`, `__fields__`), not a qualified or class name."""
    return bool(name) and "." not in name and not name[:1].isupper()


def _clean(code: str) -> str:
    """`np.float_()` -> `np.float_`; `torch.hub.load(..., trust_repo=...)` -> `torch.hub.load`."""
    code = code.strip()
    return code.split("(", 1)[0] if "(" in code and _NAME.fullmatch(code.split("(", 1)[0]) else code


def with_changes(chunk: Chunk, roles: dict[str, str] | None = None, intro: str = "") -> Chunk:
    """The chunk with the changes it announces, each name's role kind from its document's `roles`; `intro` is the
    line that introduces the list the chunk opens with, when the chunk before ends with it (`list_intro`)."""
    changes = changes_of(chunk, intro)
    if roles:
        changes = tuple(replace(c, kinds=tuple(roles.get(s.lstrip("@"), "") for s in c.symbols)) for c in changes)
    return replace(chunk, changes=changes)
