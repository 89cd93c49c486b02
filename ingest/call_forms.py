"""The call forms a change's code examples mark as old: what "`select()` no longer accepts varied constructor
arguments" means in code, read from the docs' own examples.

Migration guides show the form that stops working under a comment that says so, and the new form under one that
says what to use:

    # select_from / order_by keywords no longer supported
    stmt = select([1], select_from=table, order_by=table.c.id)
    # use generative methods
    stmt = select(1).select_from(table).order_by(table.c.id)

A call of one of the change's names in a statement under an "old" comment gives its forms: `select:list` (its first
argument is a list literal, and `select:tuple` with it unless the list holds pairs; `tuple` for a tuple) and
`select:kw=order_by` (it passes that keyword), or, when it has no other, the call its receiver is (`get:on=query()`
for `session.query(User).get(5)`), less what the "new" calls of the same example do as well; a parameter the old
comment names ("# whereclause parameter no longer supported", over `table.select(table.c.id == 5)`, which passes it
by position) gives `select:kw=whereclause` too. A doctest or IPython session marks a statement old by what it prints
(`FutureWarning: …`), and there a keyword's literal value is part of the form (`to_datetime:kw=utc=False`:
`utc=True` is the fix); a method called on a selection (`df["foo"].fillna(0, inplace=True)`) gives forms that hold
only there (`fillna:on=subscript&kw=inplace=True`). The scan hits a call only in one of those forms
(`assistant.upgrade.targeting`). The code is parsed with `ast`, never run; an example that does not parse gives
none.

Written by hand: no library reads release notes' examples for call forms. The comment words are English, never a
product's names.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

MAX_CODE_CHARS = 20_000  # an example longer than this is no short before/after pair
_OLD = re.compile(r"\b(?:no longer|deprecat\w*|legacy|removed|not supported|unsupported|old|before|1\.x)\b", re.I)
# "# strict=True must be explicitly passed to get the old behavior": what to do, though it says "old"
_INSTRUCTS = re.compile(r"\b(?:must|should|explicitly|to (?:get|keep|restore|revert))\b", re.I)
_NEW = re.compile(r"\b(?:use|new|instead|after|2\.0|now)\b", re.I)
_TRAILING_FIX = re.compile(r"\s*+(?:use|instead|requires?)\b", re.I)  # `Table(…, autoload=True)  # use autoload_with=`
# "# whereclause parameter no longer supported": the parameter an old comment names, which its example may pass by
# position (`table.select(table.c.id == 5)`); code passing it by keyword is in the old form too.
_NAMED_PARAMETER = re.compile(r"\b([a-z_][a-z0-9_]*)\s+(?:parameter|argument|keyword)s?\b", re.I)
ON_SUBSCRIPT = "on=subscript"  # a form's part: the method is called on a selection (`df["a"].fillna(…)`)
STRING = "\x00str"  # an old comment's mark that a string first is what is old (`_marks`)
KWARGS = "\x00kwargs"  # an old comment's mark that passing keywords at all is what is old
ANY_KEYWORD = "kw=**"  # the form: any keyword argument
_KWARGS = re.compile(r"\*\*kwargs\b")
_STRING = re.compile(r"\bstrings?\b", re.I)
ON_CALL = "on="  # "on=query()": the method is called on what a call of that name returned (`s.query(U).get(5)`)
_PROMPT = re.compile(r"^(?:>>> ?|In \[\d+\]: ?)")
_MORE = re.compile(r"^(?:\.\.\. ?|\s+\.\.\.: ?)")
_WARNED = re.compile(r"^\s*\w*(?:Warning|Error)\b")  # what a statement printed: `FutureWarning: …`, `TypeError: …`
# Python's own words for kinds of parameter ("positional parameters no longer supported"): no parameter's name.
_KINDS = frozenset("positional keyword named optional required extra additional variable default other all".split())


def old_forms(code: str, names: Iterable[str] | None = None) -> tuple[str, ...]:
    """The forms of the calls the example marks as old ("select:list", "insert:kw=values"), in order, then those
    of the calls it marks as new, each after a "~" ("~case:kw=else_": still fine, whatever another example
    shows); of `names` only when given (the plan keeps those of the names its change is about)."""
    wanted = set(names) if names is not None else None
    if len(code) > MAX_CODE_CHARS:
        return ()
    session = _session(code)
    if session is not None:  # a doctest or IPython session: its statements, marked by what they print
        code, marks, named = *session, {}
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    if session is None:
        marks, named = _marks(code)
    old: dict[str, set[str]] = {}
    new: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        mark = marks.get(node.lineno)
        if not name or (wanted is not None and name not in wanted) or mark is None:
            continue
        # What a session warns about may be a keyword's value (`utc=False` warns, `utc=True` is the fix): a
        # literal value is part of its form there.
        forms = {f"kw={k.arg}{_value(k.value) if session is not None else ''}" for k in node.keywords if k.arg}
        said = named.get(node.lineno, "") if mark == "old" else ""  # what the old comment names
        if said == KWARGS and node.keywords:
            forms = {ANY_KEYWORD}  # "# **kwargs no longer accepted": any keyword, not the example's own names
        elif said not in ("", STRING, KWARGS):
            forms.add(f"kw={said}")
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Subscript):
            # `df["foo"].fillna(0, inplace=True)`: the keyword is old on a selection, not on `df` itself
            forms = {f"{ON_SUBSCRIPT}&{f}" for f in forms}
        if node.args and isinstance(node.args[0], (ast.List, ast.ListComp)):
            forms.add("list")
            if isinstance(node.args[0], ast.List) and not any(isinstance(e, ast.Tuple) for e in node.args[0].elts):
                # `select((a, b))` is the same sequence as `select([a, b])`; a list of pairs (`case([(x, y)])`) is
                # not, as one pair first may be its new form (`case((x, y), …)`)
                forms.add("tuple")
        elif node.args and isinstance(node.args[0], ast.Tuple):
            forms.add("tuple")  # `case((x, y), …)` may be the new form of `case([(x, y)], …)`
        elif node.args and is_text(node.args[0]) and said == STRING:
            forms.add("str")  # "# direct string SQL not supported" over `connection.execute("select …")`
        chained = _called(func.value) if isinstance(func, ast.Attribute) else ""
        if chained and not forms:
            # `session.query(User).get(5)` as legacy: the method on what that call returns is the form
            forms = {f"{ON_CALL}{chained}()"}
        (old if mark == "old" else new).setdefault(name, set()).update(forms)
    out = [f"{name}:{form}" for name, forms in old.items() for form in sorted(forms - new.get(name, set()))]
    # The new forms too, marked "~": another example of the same change (another chunk) may show the old one.
    out += [f"~{name}:{form}" for name, forms in new.items() for form in sorted(forms)]
    return tuple(dict.fromkeys(out))


def is_text(node: ast.expr) -> bool:
    """A string the code writes: a literal, an f-string, or one built from a literal with `%` or `+`."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    return isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mod, ast.Add)) and is_text(node.left)


def _called(node: ast.expr) -> str:
    """The name a receiver that is a call calls (`query` of `session.query(User)`); "" for any other receiver."""
    if not isinstance(node, ast.Call):
        return ""
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _value(node: ast.expr) -> str:
    """ "=True" for a keyword passed a constant (`inplace=True`); "" for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float, str, type(None))):
        return f"={node.value!r}"
    return ""


def _session(code: str) -> tuple[str, dict[int, str]] | None:
    """A doctest (`>>> `) or IPython (`In [3]: `) session as its statements, each line numbered as in them, and
    the mark "old" of each statement whose output names a warning or an error (`FutureWarning: …`); None for
    code that is no session."""
    lines = code.splitlines()
    if not any(_PROMPT.match(line) for line in lines):
        return None
    source: list[str] = []
    marks: dict[int, str] = {}
    statement: list[int] = []  # the source lines of the statement whose output follows
    for line in lines:
        prompt = _PROMPT.match(line) or _MORE.match(line)
        if prompt:
            if _PROMPT.match(line):
                statement = []
            source.append(line[prompt.end() :])
            statement.append(len(source))
        elif statement and _WARNED.search(line):
            marks.update((n, "old") for n in statement)
            statement = []
    return "\n".join(source), marks


def _comment_mark(comment: str) -> str | None:
    """What a comment line says of the statements under it: "new" when it instructs (even "… to get the old
    behavior"), "old" when it says they stopped working, "new" when it says what to use, else nothing."""
    if _INSTRUCTS.search(comment):
        return "new"
    if _OLD.search(comment):
        return "old"
    return "new" if _NEW.search(comment) else None


def _marks(code: str) -> tuple[dict[int, str], dict[int, str]]:
    """Each line's mark, "old" or "new": from the comment above its statement (until a blank line), or its own
    comment at the end of the line, which says what is wrong with it ("# no longer supported", "# use x="); and
    the parameter an old line's comment names ("# whereclause parameter no longer supported"), or `STRING` where
    it says a string is what is old ("# direct string SQL not supported")."""
    marks: dict[int, str] = {}
    named: dict[int, str] = {}
    mark, parameter = None, ""
    for n, line in enumerate(code.splitlines(), start=1):
        text = line.strip()
        if not text:
            mark = None
        elif text.startswith("#"):
            mark = _comment_mark(text)
            found = _NAMED_PARAMETER.search(text) if mark == "old" else None
            parameter = found.group(1) if found and found.group(1).lower() not in _KINDS else ""
            parameter = STRING if mark == "old" and not parameter and _STRING.search(text) else parameter
            parameter = KWARGS if mark == "old" and _KWARGS.search(text) else parameter
        elif "  #" in line and (_OLD.search(end := line.rsplit("  #", 1)[1]) or _TRAILING_FIX.match(end)):
            marks[n] = "old"
        elif mark is not None:
            marks[n] = mark
            if parameter:
                named[n] = parameter
    return marks, named
