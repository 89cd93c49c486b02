"""What the scan looks for in a plan: a `Target` per name a change is about, with the qualifier it must meet (a
parameter passed or omitted, arguments by position, a call form its examples mark as old), whether it is a setting
(hit where the code sets it too), and whether a guess on a receiver of unknown type is worth making.
"""

from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from dataclasses import replace

from assistant.upgrade.code_plan import code_targets
from assistant.upgrade.literals import old_values
from assistant.upgrade.lookup import class_of, receiver_names
from assistant.upgrade.plan import PlannedChange, UpgradePlan
from assistant.upgrade.subjects import (
    ADDS,
    MEMBER_KINDS,
    PLACE,
    first_code,
    gone_by_clause,
    is_class,
    leads_to,
    names_itself,
    says_use_instead,
    spelled_at,
    subjects,
)
from assistant.upgrade.target import Target


def targets(plan: UpgradePlan) -> list[Target]:
    """What the scan looks for: the names each change is about (its subjects), never the product's own module,
    a name the entry only mentions on the way ("… now raise `RuntimeError` under `torch.compile`") or a new
    feature. A name is hit wherever it is used only when the change is about the name itself ("Removed
    `Int64Index`", "The `x()` method is deprecated", a table's row from `a` to `b`, what replaces it named); a
    change with a qualifier hits only the calls that meet it (a parameter passed or, for a changed default,
    omitted; more arguments by position than it keeps; a call form its examples mark as old, also of a class
    the examples call and the text does not name: `Table(…, autoload=True)` under "bound metadata removed").
    "Changed behavior of the `DataFrame` constructor given …" holds under a condition the code does not show: a
    plan entry only, and so is "`torch.compile(fullgraph=True)` now warns when a call runs no compiled code". A
    call the summary writes with a literal value (`torch.load(map_location='meta')`) is hit only with that value.
    A class the change says subclasses of a product class define in their body ("a class called `Config` in the
    namespace of the parent `BaseModel` subclass is deprecated") is hit where such a class is defined. A name the
    docs write bare as a member of a class they name ("Removed `contour` method on `sunpy.map.Map`") is that
    class's member. Then what the releases' code shows (`code_plan.code_targets`): each public path a code change
    names, hit by a call it breaks, on a receiver of known type only."""
    return [*doc_targets(plan), *code_targets(plan)]


def doc_targets(plan: UpgradePlan) -> list[Target]:
    """The targets the docs' changes give (`targets` without the code's), from those changes alone: what the code
    alone shows names members the docs never weighed (`_guesses`)."""
    plan = replace(plan, changes=tuple(c for c in plan.changes if "docs" in c.evidence))
    out, placed = [], set()
    for change in plan.changes:
        if change.kind == "new" or ADDS.match(change.summary):
            continue  # "Added a deprecation framework to the `torch.compile` config" breaks no `torch.compile` call
        values = old_values(change.summary)
        if values and change.kind in ("deprecated", "removed", "breaking"):  # "strings `T` … denoting units"
            symbol = change.symbols[0] if change.symbols else plan.modules[0] if plan.modules else ""
            if symbol and all(part.isidentifier() for part in symbol.split(".")):
                out.append(Target(change.id, symbol, values=values, keywords=plan.value_keywords, family=plan.modules))
            continue
        if inner := _nested(change, plan.modules):
            out.append(inner)
            continue
        if taken := _removed_from(change, plan.modules):
            out += taken
            continue
        named = subjects(change.symbols, change.summary)
        said = {last for s in change.symbols if _calls_it(last := s.rsplit(".", 1)[-1], change.summary)}
        shown = any(not f.startswith("~") for f in change.forms)  # its examples show an old form (not only new)
        if shown:  # "select() no longer accepts …": each name its old examples call
            named = [s for s in change.symbols if _forms_of(s, change.forms, said)] or named
        if not named and change.parameter and change.symbols:  # "… removed from `Field`: `const`"
            named = [change.symbols[0]]
        if shown and plan.modules:  # what its old examples call that its text does not name
            named = [*named, *_example_names(change, plan.modules[0])]
        if not named:
            continue
        qualified = change.parameter or change.positional >= 0
        if change.parameter and _conditional(named[0], change.summary):
            continue  # "`f(x=True)` now warns when a call runs no compiled code": a plan entry, as for a name itself
        itself = _row_of(named[0], change) or _replaced(named[0], change) or names_itself(named[0], change.summary)
        if itself and change.kind == "behaviour" and says_use_instead(change.summary):
            itself = False  # "ROCm: Use `amdsmi` instead of `rocmsmi`" among improvements: what the product now does
        elif (
            not itself
            and not qualified
            and change.kind != "behaviour"
            and (clause := gone_by_clause(change.symbols, change.summary))
        ):
            named, itself = clause, True  # "… used to be a `ModelField` object, which … no longer exists"
        # "the `USE_L10N` setting", "The model's `Meta.index_together` option": not a parameter's option
        setting = bool(_SETTING.search(change.summary) or _OPTION.search(change.summary)) and not change.parameter
        gone = _row_of(named[0], change) or bool(_GONE.search(change.summary))
        owners = _owners(change, plan.modules) if itself else []
        for symbol, member_of, loose, written in _placed(named, owners, change, plan.modules, qualified):
            placed.update({written} - {symbol})
            forms = _forms_of(symbol, change.forms, said) or _valued(symbol, change.parameter, change.summary)
            if symbol in plan.modules or (shown and not forms) or not (qualified or forms or itself):
                continue
            if _python_own(symbol, plan.modules):
                continue  # "Fix DeprecationWarning: datetime.datetime.utcnow()": Python's API, which the notes use
            if all(part.isidentifier() for part in symbol.split(".")):  # `FindARM.cmake` is; `--flag=1` is not
                out.append(
                    Target(
                        change.id,
                        symbol,
                        change.parameter,
                        change.default_changed,
                        member_of=member_of,
                        # a deprecated name still imports: its uses hit, unless its module is what changes
                        at_import=change.kind != "deprecated" or _moved(symbol, change.replacement),
                        positional=change.positional,
                        forms=forms,
                        family=plan.modules,
                        setting=setting,
                        gone=gone and not qualified,
                        loose=loose,
                    )
                )
    return _guesses(list(dict.fromkeys(out)), plan, placed)


def _guesses(found: list[Target], plan: UpgradePlan, placed: set[str]) -> list[Target]:
    """`found`, a member's target marked not worth a guess on an unknown receiver where the docs name the same
    member of a class it does not hit (every member name the plan's changes mention counts, but for the bare names
    `placed` as members of what a change names: "`x` properties on `app`" says whose member `x` is). A name inside
    a dotted one counts too where what it is read on is an object, not a module of the product and not the
    target's own class by its usual variable name: `frame.canvas.manager` names a `canvas` that is not
    `MultiCursor`'s; `pydantic.json.x` is a module, and `styler.render.x` names `Styler.render` itself."""
    plain = {t.symbol for t in found if not t.qualified} | placed
    members: dict[str, set[str]] = defaultdict(set)
    inner: dict[str, set[str]] = defaultdict(set)  # name -> what a dotted name reads it on ("frame")
    for change in plan.changes:
        for symbol in change.symbols:
            parts = symbol.split(".")
            if len(parts) > 1:
                members[parts[-1]].add(symbol)
            for i in range(1, len(parts) - 1):
                owner = parts[:i]
                if not (owner[0] in plan.modules and not any(p[:1].isupper() for p in owner)):
                    inner[parts[i]].add(".".join(owner))

    def other(t: Target) -> bool:
        name = t.symbol.rsplit(".", 1)[-1]
        if members.get(name, set()) - plain - {t.symbol}:
            return True
        cls = class_of(t.symbol, t.member_of)
        if cls is None:  # no class's member: a guess on a receiver is never made of it
            return False
        own = receiver_names(cls)
        return any(o.rsplit(".", 1)[-1].lower() not in own and f"{o}.{name}" != t.symbol for o in inner.get(name, ()))

    return [replace(t, guess=False) if other(t) else t for t in found]


def _row_of(symbol: str, change: PlannedChange) -> bool:
    """The change is a row of an old → new table ("V1: `x` — V2: `y`") whose old cell names `symbol`."""
    old, dash, _ = change.summary.partition(" — ")
    return bool(dash and change.replacement) and spelled_at(symbol, old) is not None


def _replaced(symbol: str, change: PlannedChange) -> bool:
    """The change names what replaces `symbol` itself: a name of its own form (a module for a module, a method
    for a method: "migrate to `torch.distributed._functional_collectives`"), not something else to use in some
    case ("… a `DataFrame` indexer with `.iloc`, use `.loc` instead")."""
    new = change.replacement
    first = first_code(change.summary)
    at = spelled_at(symbol, first)
    named = all(part.isidentifier() for part in new.split("."))  # a name, not a setting (`x = True`)
    owned = _OWNED_BY.search(change.summary.split("`", 1)[0])  # "A few methods from `np.ndarray` … removed"
    if not named or new.startswith(f"{symbol}.") or at is None or not leads_to(first[: at[0]]) or owned:
        return False  # the summary's subject is another ("strings `w`, `d` … in `Timedelta`", "variables of `x`")
    last, other = symbol.rsplit(".", 1)[-1], new.rsplit(".", 1)[-1]
    return ("." in symbol) == ("." in new) and last[:1].isupper() == other[:1].isupper()


# Members of what the first name is, before it: "A few methods from `np.ndarray`", "The functions from `m` named …"
_OWNED_BY = re.compile(rf"{MEMBER_KINDS}\s++(?:from|of|on|in)\s++(?:the\s++)?$", re.IGNORECASE)


# "now warns when …", "no longer reads … when …": what a call now does holds under a condition the code does not show
_CONDITIONAL = re.compile(r"^[^.;]*?\b(?:now|no longer)\b[^.;]{0,200}?\b(?:if|when|whenever|unless)\b", re.I)


def _conditional(symbol: str, summary: str) -> bool:
    """The change says what calls of `symbol` now do only under a condition the code does not show."""
    span = spelled_at(symbol, summary)
    return span is not None and bool(_CONDITIONAL.match(summary[span[1] :]))


def _valued(symbol: str, parameter: str, summary: str) -> tuple[str, ...]:
    """The call form "kw=<parameter>=<value>" where the summary writes the call with a literal value
    (`torch.load(map_location='meta')`): only calls passing that value are about the change."""
    if not parameter:
        return ()
    last = re.escape(symbol.rsplit(".", 1)[-1])
    # after other arguments too: `np.array(..., copy=False)`, `regionprops(..., coordinates='xy')`
    others = r"(?:[^`(),]*+,\s*+)*+"
    m = re.search(rf"`(?:\w++\.)*+{last}\({others}\s*+{re.escape(parameter)}\s*+=([^`(),]++)\)`", summary)
    if m is None:
        return ()
    try:
        value = ast.literal_eval(m.group(1).strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return ()
    return (f"kw={parameter}={value!r}",) if isinstance(value, (str, int, float, bool)) or value is None else ()


# The wording of a change that does away with a name: its summary says so, whatever section it is in.
_GONE = re.compile(
    r"\b(?:remov|deprecat|renam|drop|expire|replaced\b|no longer (?:available|exists?|supported|public))", re.I
)
_SETTING = re.compile(r"\b(?:config(?:uration)? )?settings?\b|\bconfig(?:uration)? keys?\b", re.IGNORECASE)
_OPTION = re.compile(r"`[^`]+`\s+options?\b")  # an option the docs name ("execution options" names none)


def _example_names(change: PlannedChange, module: str) -> list[str]:
    """What a change's old examples call in an old form and its text does not name, under the product's module:
    "`Table("t", metadata_obj, autoload=True)  # use autoload_with=engine`" under "bound metadata removed",
    `df["foo"].fillna(0, inplace=True)` under "Chained assignment" (matched by its name and form, as
    `Target.forms` are, wherever the product's module it is called from)."""
    named = {s.rsplit(".", 1)[-1] for s in change.symbols}
    called = (f.partition(":")[0] for f in change.forms if not f.startswith("~"))
    return [f"{module}.{name}" for name in dict.fromkeys(called) if name not in named]


# "Removed `convert_dtype` from `Series.apply`", "Removed `_data` from `DataFrame`, `Series`", "remove `adj_matrix`
# from `linalg/graphmatrix.py`": a name taken out of each place the entry lists
_REMOVED_FROM = re.compile(
    r"^(?:[^:`]{0,24}+:\s*+)?remov(?:e|ed|es)\s++(?:the\s++)?(?:deprecated\s++)?`([A-Za-z_]\w*+)`\s++from\s++"
    r"(?:the\s++)?(`[^`]++`(?:\s*+(?:,|\band\b|\bor\b)[\s,]*+(?:and\s++|or\s++)?`[^`]++`)*+)",
    re.IGNORECASE,
)
_SOURCE_FILE = re.compile(r"/|\.pyx?$")  # `linalg/graphmatrix.py`: a file of the product's source


def _removed_from(change: PlannedChange, family: tuple[str, ...]) -> list[Target]:
    """The targets of a change that removes a name from places it lists: a parameter of a function or method (its
    role says so, or the docs write it called: "from `f()`") or of a class's constructor, a member of a class, a
    name of a module; from a file of the product's source, the name itself (the docs say no more of where it was)."""
    m = _REMOVED_FROM.match(change.summary) if change.kind == "removed" and not change.parameter else None
    if m is None:
        return []
    name, out = m.group(1), []
    built = re.match(r"\s*+(?:constructors?|initiali[sz]ers?)\b", change.summary[m.end() :]) is not None
    for written in re.findall(r"`~?+([^`]++)`", m.group(2)):
        place = written.removesuffix("()")
        if _SOURCE_FILE.search(place):
            out.append(Target(change.id, f"{family[0]}.{name}" if family else name, family=family, gone=True))
            continue
        symbol = next((s for s in change.symbols if s == place or s.endswith(f".{place}")), "")
        if not symbol or not all(part.isidentifier() for part in symbol.split(".")):
            continue
        if symbol in change.callables or written.endswith("()") or built:  # "from the `Series` constructor"
            out.append(Target(change.id, symbol, name, family=family))  # passing it is what breaks
        elif is_class(symbol) or symbol.split(".", 1)[0] in family:
            owner = symbol.rsplit(".", 1)[-1]
            out.append(
                Target(
                    change.id, f"{symbol}.{name}", member_of=owner if is_class(symbol) else "", family=family, gone=True
                )
            )
    return out


# "a class called `Config`", "the inner `Meta` class", "`class Config`": a class defined in another's body
_NESTED = re.compile(
    r"\bclass\s++(?:called|named)\s++`([A-Za-z_]\w*+)`|\b(?:inner|nested)\s++`([A-Za-z_]\w*+)`\s++class\b|"
    r"`class\s++([A-Za-z_]\w*+)`",
    re.IGNORECASE,
)


def _nested(change: PlannedChange, family: tuple[str, ...]) -> Target | None:
    """The target of a change doing away with a class defined in the body of subclasses of a product class, the
    first class the summary names after it ("a class called `Config` in the namespace of the parent `BaseModel`
    subclass is now deprecated"); None for any other change."""
    m = _NESTED.search(change.summary) if change.kind in ("removed", "deprecated") else None
    if m is None:
        return None
    name = next(g for g in m.groups() if g)
    after = change.summary[m.end() :]
    owners = sorted((at[0], s) for s in change.symbols if is_class(s) and (at := spelled_at(s, after)) is not None)
    if not owners or name == owners[0][1].rsplit(".", 1)[-1]:
        return None
    owner = owners[0][1]
    symbol, member_of = f"{owner}.{name}", owner.rsplit(".", 1)[-1]
    return Target(change.id, symbol, member_of=member_of, family=family, nested=True, gone=True)


# "`a` and `b` attributes from `DateOffset`", "`x` (method) on `Map`", "`x` properties on `app`", "`a` attributes of
# `DatetimeArray`, `DatetimeIndex` and …": what the names were members of, each owner the sentence lists
_MEMBERS_OF = re.compile(
    r"`\s*+(?:(?:method|function|attribute|property|properties)s?\s++(?:on|of|from|in)|on)\s++(?:the\s++)?"
    r"(?:deprecated\s++)?(`~?+[\w.]++`(?:\s*+(?:,|\band\b|\bor\b)[\s,]*+(?:and\s++|or\s++)?`~?+[\w.]++`)*+)"
)


# "functions `a` and `b` from `skimage.feature`", "the attribute `dtypes` from `DataFrameGroupBy`": the module or
# class the names were members of
_FROM_OWNER = re.compile(
    rf"{MEMBER_KINDS}\s++`[^`]++`(?:\s*+(?:,|and|or)\s*+`[^`]++`)*+\s++(?:from|in|of|on)\s++`~?+([\w.]++)`"
)


def _owners(change: PlannedChange, modules: tuple[str, ...]) -> list[tuple[str, str]]:
    """What the change's names were members of, when it says so: each as the prefix their symbols take and the
    type a receiver must be of (`member_of`). A class ("`x` method on `Map`": `sunpy.map.Map`, `Map`), an object
    of the product's module ("`push` and `pop` methods of `_app_ctx_stack`": its dotted name, no type), an
    instance the docs write by its variable's name ("properties on `app`": `app`, as `app.x` elsewhere is), a
    module ("In `skimage.measure`, deprecate `x`", "functions `a` and `b` from `skimage.feature`")."""
    if m := _MEMBERS_OF.search(change.summary):
        out = []
        for written in re.findall(r"`~?+([\w.]++)`", m.group(1)):
            last = written.rsplit(".", 1)[-1]
            symbol = next((s for s in change.symbols if s == written or s.endswith(f".{written}")), "")
            if cls := next((s for s in change.symbols if s.rsplit(".", 1)[-1] == last and is_class(s)), ""):
                out.append((cls, last))
            elif symbol and symbol not in modules and not is_class(symbol):
                out.append((symbol, symbol if "." not in symbol else ""))
        return out
    m = PLACE.match(change.summary) or _FROM_OWNER.search(change.summary)
    if m is None:
        return []
    found = next((s for s in change.symbols if s == m.group(1) or s.endswith(f".{m.group(1)}")), "")
    return [(found, found.rsplit(".", 1)[-1] if is_class(found) else "")] if found else []


def _placed(
    named: list[str],
    owners: list[tuple[str, str]],
    change: PlannedChange,
    modules: tuple[str, ...],
    qualified: bool,
) -> list[tuple[str, str, bool, str]]:
    """Each name the change is about as the scan looks for it: its symbol, the type its receiver must be of,
    whether it is loose (a member of no type the docs name: hit on any receiver where its name tells it), and the
    symbol the plan gave it. A name the docs write bare as a member of owners they name is each owner's member."""
    out = []
    for symbol in named:
        member_of = dict(change.members).get(symbol, "")
        loose = symbol.count(".") == 1 and _a_member(symbol.rsplit(".", 1)[-1], change.summary)
        placed = [(p, m) for p, m in owners if p != symbol] if _bare(symbol, modules) else []
        if placed:
            out += [(f"{p}.{symbol.rsplit('.', 1)[-1]}", m, loose, symbol) for p, m in placed]
            continue
        if not qualified and _placed_by_examples(symbol, change.summary):
            # "`ModelField`", placed only by where the docs' code imports it from (`pydantic.v1.fields` as well as
            # `pydantic.fields`): a class of the product under whichever of its modules code takes it
            symbol = f"{symbol.split('.', 1)[0]}.{symbol.rsplit('.', 1)[-1]}"
        out.append((symbol, member_of, loose, symbol))
    return out


def _bare(symbol: str, modules: tuple[str, ...]) -> bool:
    """A name the docs write without its class or module: alone, or only under the product's top module."""
    parts = symbol.split(".")
    return len(parts) == 1 or (len(parts) == 2 and parts[0] in modules)


def _python_own(symbol: str, modules: tuple[str, ...]) -> bool:
    """A name of Python's standard library (`datetime.datetime.utcnow`), not of the product: its notes may say they
    stopped using it, never that it changed."""
    top = symbol.split(".", 1)[0]
    return "." in symbol and top in sys.stdlib_module_names and top not in modules


def _moved(symbol: str, replacement: str) -> bool:
    """Whether the replacement is the same name in another module (`pydantic.json.ENCODERS_BY_TYPE` ->
    `pydantic.deprecated.json.ENCODERS_BY_TYPE`): the import from the old module is the line to change."""
    old, new = symbol.rsplit(".", 1), replacement.strip("`").rsplit(".", 1)
    return len(old) == len(new) == 2 and old[1] == new[1] and old[0] != new[0] and not is_class(old[0])


def _placed_by_examples(symbol: str, summary: str) -> bool:
    """A class below the product's top module that the summary writes bare (`ModelField` for
    `pydantic.v1.fields.ModelField`): its module is only where the docs' code imports it from."""
    parts = symbol.split(".")
    span = spelled_at(symbol, summary)
    return len(parts) > 2 and parts[-1][:1].isupper() and span is not None and "." not in summary[span[0] : span[1]]


_MEMBER_NOUN = r"(?:method|attribute|property|config(?:uration)?|option)s?"


def _a_member(name: str, summary: str) -> bool:
    """The summary calls the name a member of something it does not name: "`x` method", "the `x()` method of
    related managers", "`x` Dynamo config", "config variables `x`"."""
    code = rf"`{re.escape(name)}(?:\(\))?`"
    after = rf"{code}\s++(?:[A-Za-z]++\s++)?{_MEMBER_NOUN}\b"
    before = rf"\b{_MEMBER_NOUN}\s++(?:[A-Za-z]++\s++)?{code}"
    return re.search(after, summary) is not None or re.search(before, summary) is not None


def _calls_it(name: str, summary: str) -> bool:
    """The summary writes the name as a call or as code (`get()`, "`get`"), as what it is about."""
    return re.search(rf"(?<![\w.]){re.escape(name)}\(|`{re.escape(name)}`", summary) is not None


def _forms_of(symbol: str, forms: tuple[str, ...], said: set[str] | frozenset[str] = frozenset()) -> tuple[str, ...]:
    """The old call forms of `symbol`'s name ("list", "kw=values"), less those its new examples use too. A method
    called on a call's result ("on=query()") is an old form only where the change's text writes that method
    (`said`: "get() method moves to Session"); elsewhere the chain is only the example's setting
    (`session.query(Node).join(…).filter(…)` under "join(…, aliased=True) removed")."""
    last = symbol.rsplit(".", 1)[-1]
    new = {f[1:] for f in forms if f.startswith("~")}
    found = (f.partition(":")[2] for f in forms if f.partition(":")[0] == last and f not in new)
    return tuple(f for f in found if not (f.startswith("on=") and f.endswith("()")) or last in said)
