"""What the scan looks for in a plan: a `Target` per name a change is about, with the qualifier it must meet (a
parameter passed or omitted, arguments by position), and whether a guess on an unknown receiver is worth making.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import replace

from assistant.upgrade.plan import PlannedChange, UpgradePlan
from assistant.upgrade.subjects import ADDS, first_code, leads_to, names_itself, spelled_at, subjects
from assistant.upgrade.target import Target


def targets(plan: UpgradePlan) -> list[Target]:
    """What the scan looks for: the code names each change is about, its subjects. A name the entry only
    mentions on the way ("… now raise `RuntimeError` under `torch.compile`") is left out, or every use of
    `torch.compile` would be reported; and new features break nothing. The product's own module is no target.
    A name is hit wherever it is used only when the change is about the name itself ("Removed `Int64Index`",
    "The `x()` method is deprecated", "`a` was renamed to `b`", a table's row from `a` to `b`); a change about
    one parameter hits the calls
    passing it (or, for a changed default, omitting it); "Changed behavior of the `DataFrame` constructor given
    …" is a plan entry, not a hit on every `DataFrame(...)`."""
    out = []
    for change in plan.changes:
        if change.kind == "new" or ADDS.match(change.summary):
            continue  # "Added a deprecation framework to the `torch.compile` config" breaks no `torch.compile` call
        named = subjects(change.symbols, change.summary)
        if change.forms:  # "select() no longer accepts …": each name its old examples call
            named = [s for s in change.symbols if _forms_of(s, change.forms)] or named
        if not named and change.parameter and change.symbols:  # "… removed from `Field`: `const`"
            named = [change.symbols[0]]
        for symbol in named:
            if symbol in plan.modules:
                continue
            first = named[0]
            forms = _forms_of(symbol, change.forms)
            if change.forms and not forms:
                continue  # a change about call forms hits only calls in one of them
            if not (
                change.parameter
                or change.positional >= 0
                or forms
                or _row_of(first, change)
                or _replaced(first, change)
                or names_itself(first, change.summary)
            ):
                # "Changed behavior of `concat` when …", "`to_datetime` now raises if …": the change holds under
                # conditions the code does not show; a plan entry, not a hit on every call.
                continue
            if all(part.isidentifier() for part in symbol.split(".")):  # `FindARM.cmake` is; `--flag=1` is not
                owner = dict(change.members).get(symbol, "")
                deprecated = change.kind == "deprecated"
                out.append(
                    Target(
                        change.id,
                        symbol,
                        change.parameter,
                        change.default_changed,
                        owner,
                        not deprecated,
                        positional=change.positional,
                        forms=forms,
                        family=plan.modules if forms else (),
                        setting=bool(_SETTING.search(change.summary)),
                    )
                )
    return _guesses(list(dict.fromkeys(out)), plan)


def _guesses(found: list[Target], plan: UpgradePlan) -> list[Target]:
    """`found`, a member's target marked not worth a guess on an unknown receiver where the docs name the same
    member of a class it does not hit (every member name the plan's changes mention counts)."""
    plain = {t.symbol for t in found if not t.qualified}
    members: dict[str, set[str]] = defaultdict(set)
    for change in plan.changes:
        for symbol in change.symbols:
            if "." in symbol:
                members[symbol.rsplit(".", 1)[1]].add(symbol)
    return [
        replace(t, guess=False) if members.get(t.symbol.rsplit(".", 1)[-1], set()) - plain - {t.symbol} else t
        for t in found
    ]


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
    if not named or new.startswith(f"{symbol}.") or at is None or not leads_to(first[: at[0]]):
        return False  # the summary's subject is another ("strings `w`, `d` … in `Timedelta`", "variables of `x`")
    last, other = symbol.rsplit(".", 1)[-1], new.rsplit(".", 1)[-1]
    return ("." in symbol) == ("." in new) and last[:1].isupper() == other[:1].isupper()


_SETTING = re.compile(r"\b(?:config(?:uration)? )?settings?\b", re.IGNORECASE)


def _forms_of(symbol: str, forms: tuple[str, ...]) -> tuple[str, ...]:
    """The old call forms of `symbol`'s name ("list", "kw=values"), less those its new examples use too."""
    last = symbol.rsplit(".", 1)[-1]
    new = {f[1:] for f in forms if f.startswith("~")}
    return tuple(f.partition(":")[2] for f in forms if f.partition(":")[0] == last and f not in new)
