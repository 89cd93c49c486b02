"""Two consecutive releases' public APIs compared: each public path of the older release is followed into the
newer one, and each pair of objects met that way is compared once.

A path that is gone is a removal, reported once for the object under all its vanished paths (the topmost: a
removed class's members are not listed again); an object still reachable under another public path says so in
its fix. Signatures are compared by `griffe.find_breaking_changes` on bare copies of the two functions (the
bound `self`/`cls` dropped, so `__new__(cls, …)` and `__init__(self, …)` compare as one constructor), and its
breakages are mapped to `CodeKind`s and filtered: a default that only moves between `None` and a sentinel, or is
spelled otherwise (`assistant.upgrade.api.spelling`), or is a stub's `...`, is not a change; a kind change counts
when the parameter became keyword-only; a catch-all traded for named parameters is no removal, and a move says
which removed parameters alone caused it (`assistant.upgrade.api.params`). A stub constructor given by overloads
alone is compared with nothing (not with its base's). Added here: a parameter renamed in place,
a public base class gone from the MRO, a new abstract method, a return annotation that no longer shares any
type (or became `None`), and deprecations the newer release states and the older did not.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING

from assistant.model.api import CodeChange, CodeKind
from assistant.upgrade.api.deprecations import deprecations
from assistant.upgrade.api.params import left_before, literals, shimmed
from assistant.upgrade.api.presence import lazy, resolves
from assistant.upgrade.api.public import CONSTRUCTORS, final_target
from assistant.upgrade.api.spelling import alias_names, spelled

if TYPE_CHECKING:
    import griffe

    from assistant.upgrade.api.load import LoadedRelease
    from assistant.upgrade.api.public import PublicApi

SENTINEL = re.compile(r"(?:^|\.)_?(?:no_?default|nodefault\.\w+|sentinel|notset|missing|unset|default)$", re.I)
LOOSE_TYPES = frozenset({"None", "Any", "object", "Self", "Optional", "Union", "Literal"})  # say nothing alone


@dataclass
class _Found:
    change: CodeChange
    paths: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class _Change:
    kind: CodeKind
    parameter: str | None
    obj: griffe.Object  # the object it is about, in the newer release
    source_b: str | None
    fix: str
    related: tuple[str, ...] = ()


def compare(a: LoadedRelease, b: LoadedRelease, api_a: PublicApi, api_b: PublicApi) -> list[CodeChange]:
    """The changes from release `a` to release `b`, one per object and kind (and parameter), all paths in it."""
    found: dict[tuple[str, str, str | None], _Found] = {}
    pair_paths: dict[tuple[str, str], list[str]] = {}
    pairs: dict[tuple[str, str], tuple[griffe.Object, griffe.Object]] = {}
    version = b.tree.version
    for path, old in api_a.objects.items():
        new = api_b.objects.get(path)
        if new is not None:
            key = (old.path, new.path)
            pairs.setdefault(key, (old, new))
            pair_paths.setdefault(key, []).append(path)
            continue
        parent = path.rpartition(".")[0]
        if parent in api_a.objects and parent not in api_b.objects:
            continue  # the parent's removal covers it
        if resolves(b, path):
            continue  # still there, through an import the public index does not list (a plain module's)
        survivors = [p for p in api_a.paths(old) if p in api_b.objects]
        if survivors and lazy(b, api_b.objects.get(parent), path.rpartition(".")[2]):
            continue  # a module's `__getattr__` (PEP 562: pydantic 2's `EmailStr`) still gives what B has elsewhere
        fix = f"removed in {version}; " + (
            f"still reachable as {survivors[0]}" if survivors else "no replacement in code"
        )
        where = a.relative(_file(old), 1 if old.is_module else old.lineno)
        change = CodeChange(path, "removed", None, version, where, None, fix)
        _merge(found, (old.path, "removed", None), change, [path])
    for key, (old, new) in pairs.items():
        for c in _pair_changes(a, b, api_a, api_b, old, new, _shortest(pair_paths[key])):
            where_a = a.relative(_file(old), old.lineno)
            paths = pair_paths[key] if c.obj is new else [f"{p}.{c.obj.name}" for p in pair_paths[key]]
            change = CodeChange(paths[0], c.kind, c.parameter, version, where_a, c.source_b, c.fix, (), c.related)
            _merge(found, (c.obj.path, c.kind, c.parameter), change, paths)
    out = []
    for f in found.values():
        paths = sorted(f.paths, key=_path_order)
        out.append(CodeChange(**{**f.change.__dict__, "object": paths[0], "paths": tuple(paths)}))
    return sorted(out, key=lambda c: (c.object, c.kind, c.parameter or ""))


def _path_order(path: str) -> tuple[int, int, str]:
    return path.count("."), len(path), path


def _shortest(paths: list[str]) -> str:
    return min(paths, key=_path_order)


def _merge(found: dict, key: tuple[str, str, str | None], change: CodeChange, paths: list[str]) -> None:
    if key not in found:
        found[key] = _Found(change)
    found[key].paths.update(paths)


def _file(obj: griffe.Object) -> Path | None:
    path = obj.filepath
    return path[0] if isinstance(path, list) else path


def _pair_changes(
    a: LoadedRelease,
    b: LoadedRelease,
    api_a: PublicApi,
    api_b: PublicApi,
    old: griffe.Object,
    new: griffe.Object,
    path: str,
) -> list[_Change]:
    changes: list[_Change] = []
    label = ".".join(path.split(".")[-2:]) if new.parent is not None and new.parent.is_class else new.name
    if old.is_function and new.is_function:
        changes += _signature_changes(b, old, new, new, label)
    elif old.is_class and new.is_class:
        ctor_a, ctor_b = _constructor(old), _constructor(new)
        if ctor_a is not None and ctor_b is not None:
            changes += _signature_changes(b, ctor_a, ctor_b, new, new.name, bound=True)
        changes += _bases_removed(b, api_a, api_b, old, new)
        changes += _abstract_added(b, api_a, api_b, old, new, new.name)
    if (old.is_function and new.is_function) or (old.is_class and new.is_class):
        stated = deprecations(b, new)
        before = {d.parameter for d in deprecations(a, old)} if stated else set()
        for d in stated:
            if d.parameter not in before:
                before.add(d.parameter)
                changes.append(
                    _Change("deprecated", d.parameter, new, d.where or b.relative(_file(new), new.lineno), d.message)
                )
    return changes


def _constructor(cls: griffe.Object) -> griffe.Object | None:
    """The method a call of the class runs first in its own code: the nearest `__init__`, else `__new__`."""
    try:
        chain = [cls, *cls.mro()]  # type: ignore[attr-defined]
    except ValueError:
        chain = [cls]
    for c in chain:
        for name in ("__init__", "__new__"):
            member = c.members.get(name)
            if member is not None and not member.is_alias and member.is_function:
                return member
            if name in (getattr(c, "overloads", None) or {}):
                return None  # a stub's overloads alone: no one signature, and not the base's either
    return None


def _bare(fn: griffe.Object, *, bound: bool) -> griffe.Function:
    """A parentless copy of `fn` for griffe to compare, without the bound first parameter of a method."""
    import griffe

    params = list(fn.parameters)  # type: ignore[attr-defined]
    if (
        bound
        and params
        and params[0].kind in (griffe.ParameterKind.positional_only, griffe.ParameterKind.positional_or_keyword)
    ):
        params = params[1:]
    copies = [griffe.Parameter(p.name, kind=p.kind, default=p.default, annotation=p.annotation) for p in params]
    return griffe.Function("f", parameters=griffe.Parameters(*copies), returns=fn.returns)  # type: ignore[attr-defined]


def _is_bound(fn: griffe.Object) -> bool:
    return fn.parent is not None and fn.parent.is_class and "staticmethod" not in fn.labels  # type: ignore[attr-defined]


def _signature_changes(
    b: LoadedRelease, fa: griffe.Object, fb: griffe.Object, subject: griffe.Object, label: str, *, bound: bool = False
) -> list[_Change]:
    import griffe

    bound = bound or _is_bound(fb)
    old, new = _bare(fa, bound=bound or _is_bound(fa)), _bare(fb, bound=bound)
    if _shape(old) == _shape(new) and str(fa.returns) == str(fb.returns):  # type: ignore[attr-defined]
        return []
    where, fix = b.relative(_file(fb), fb.lineno), signature(label, new)
    renamed = _renamed(old, new)
    changes = (
        [_Change("parameter_renamed", renamed[0], subject, where, f"renamed to {renamed[1]}: {fix}")] if renamed else []
    )
    skip = set(renamed or ())
    shim_old, shim_new = (
        SimpleNamespace(path="old", all_members={"f": old}),
        SimpleNamespace(path="new", all_members={"f": new}),
    )
    traded = shimmed(old, new, literals(b, _file(fb)))
    # griffe compares the members of two containers; these hold just the one function each
    for br in griffe.find_breaking_changes(shim_old, shim_new):  # type: ignore[arg-type]
        k, ov, nv = br.kind, br.old_value, br.new_value
        name = (ov or nv).name if k is not griffe.BreakageKind.RETURN_CHANGED_TYPE else None
        if name in skip or (k is griffe.BreakageKind.PARAMETER_REMOVED and {ov.kind.name, ov.name} <= traded):
            continue
        kind: CodeKind | None = None
        if k is griffe.BreakageKind.PARAMETER_REMOVED:
            kind = "parameter_removed"
        elif k is griffe.BreakageKind.PARAMETER_MOVED:
            kind = "parameter_moved"
        elif k is griffe.BreakageKind.PARAMETER_CHANGED_KIND and nv.kind is griffe.ParameterKind.keyword_only:
            kind = "parameter_keyword_only"
        elif k is griffe.BreakageKind.PARAMETER_CHANGED_REQUIRED:
            kind = "parameter_required"
        elif k is griffe.BreakageKind.PARAMETER_ADDED_REQUIRED:
            kind = "parameter_added_required"
        elif k is griffe.BreakageKind.PARAMETER_CHANGED_DEFAULT and _default_changed(ov.default, nv.default):
            kind = "default_changed"
        # griffe's return check fires only when the new annotation is missing, which changes nothing at run time
        if kind is not None and name and name.startswith("_"):
            continue  # a private parameter (`_is_copy`): not a user's
        star_kind = (ov or nv).kind.name if kind is not None else ""
        if star_kind in _STARS and any(q.kind is (ov or nv).kind for q in new.parameters):
            continue  # `**kwargs` -> `**kw`: the function still takes what it took
        if kind is not None:
            value = ov or nv
            # `*args`/`**kwargs` gone: any extra argument now fails, which no one keyword in a call shows
            stars = {griffe.ParameterKind.var_positional: "*", griffe.ParameterKind.var_keyword: "**"}
            star = stars.get(value.kind, "") if k is not griffe.BreakageKind.RETURN_CHANGED_TYPE else ""
            related = left_before(old, new, name) if kind == "parameter_moved" else ()
            changes.append(_Change(kind, f"{star}{name}" if name else name, subject, where, fix, related))
    if _return_changed(fa.returns, fb.returns):  # type: ignore[attr-defined]
        changes.append(_Change("return_changed", None, subject, where, f"{fix} -> {fb.returns}"))  # type: ignore[attr-defined]
    return changes


def _shape(fn: griffe.Function) -> list[tuple[str, str, str]]:
    return [(p.name, p.kind.value, str(p.default)) for p in fn.parameters]


_STARS = frozenset({"var_positional", "var_keyword"})


def _renamed(old: griffe.Function, new: griffe.Function) -> tuple[str, str] | None:
    """(old name, new name) when exactly one parameter changed name in place and nothing else moved."""
    po, pn = list(old.parameters), list(new.parameters)
    if len(po) != len(pn):
        return None
    diff = [(o, n) for o, n in zip(po, pn, strict=True) if o.name != n.name]
    if len(diff) != 1 or diff[0][0].kind is not diff[0][1].kind or diff[0][1].name in {p.name for p in po}:
        return None
    if diff[0][0].kind.name in _STARS:
        return None  # `**kwargs` -> `**kw`: no call can tell
    return diff[0][0].name, diff[0][1].name


def _default_changed(old: object, new: object) -> bool:
    if spelled(old) == spelled(new):
        return False  # the same value spelled otherwise (`_sql.null()`, `sql.null()`)
    if "..." in (str(old), str(new)):
        return False  # a stub's `= ...` says there is a default, not which: no comparison with the runtime's
    o, n = str(old), str(new)
    if {o, n} <= {"None"} | {x for x in (o, n) if SENTINEL.search(x)}:
        return False  # only a sentinel differs: calls that leave the parameter out behave the same
    try:
        return ast.literal_eval(o) != ast.literal_eval(n)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return o.replace('"', "'") != n.replace('"', "'")


def _types(annotation: object) -> set[str]:
    names = {m.rsplit(".", 1)[-1] for m in re.findall(r"[A-Za-z_][\w.]*", spelled(annotation))}
    return {n for n in names if n not in LOOSE_TYPES and len(n) > 2 and not n.endswith("T")}


def _return_changed(old: object, new: object) -> bool:
    if old is None or new is None or str(old) in LOOSE_TYPES:
        return False
    if str(new) == "None":
        return True
    if spelled(old) == spelled(new):
        return False  # `Type[Set[T]]` and `type[set[T]]`
    # a type alias shares the types it stands for (`NDArray[Any]` is an `ndarray`)
    to = _types(old) | _types(", ".join(alias_names(old)))
    tn = _types(new) | _types(", ".join(alias_names(new)))
    return bool(to) and bool(tn) and not (to & tn) and "Self" not in str(old) + str(new)


def _bases_removed(
    b: LoadedRelease, api_a: PublicApi, api_b: PublicApi, old: griffe.Object, new: griffe.Object
) -> list[_Change]:
    try:
        mro_a, mro_b = old.mro(), {c.path for c in new.mro()}  # type: ignore[attr-defined]
    except ValueError:
        return []
    gone, every = [], []  # each base's shortest public path; all of them, for the plan to judge how public
    for base in mro_a:
        paths = api_a.paths(base)
        if not paths:
            continue  # a private base: not something a user's isinstance names
        kept = [api_b.objects[p].path for p in paths if p in api_b.objects]
        moved = any(c.rsplit(".", 1)[-1] == base.name for c in mro_b)  # the same class, now in another module
        if not any(k in mro_b for k in kept) and not moved:
            gone.append(paths[0])
            every += paths
    if not gone:
        return []
    where = b.relative(_file(new), new.lineno)
    return [_Change("base_removed", None, new, where, f"no longer a subclass of {', '.join(gone)}", tuple(every))]


def _abstract_added(
    b: LoadedRelease, api_a: PublicApi, api_b: PublicApi, old: griffe.Object, new: griffe.Object, label: str
) -> list[_Change]:
    changes = []
    before = api_a.members(old)
    for name, member in api_b.members(new).items():
        fn = final_target(member)
        if fn is None or not fn.is_function or "abstractmethod" not in fn.labels or name in CONSTRUCTORS:  # type: ignore[attr-defined]
            continue
        prior = final_target(before[name]) if name in before else None
        if prior is not None and "abstractmethod" in getattr(prior, "labels", ()):
            continue
        sig = signature(f"{label}.{name}", _bare(fn, bound=True))
        where = b.relative(_file(fn), fn.lineno)
        changes.append(_Change("abstract_added", None, fn, where, f"subclasses of {label} must implement {sig}"))
    return changes


def signature(label: str, fn: griffe.Function) -> str:
    """`label(params)` without annotations: `/` after positional-only, `*` before keyword-only, defaults shown."""
    import griffe

    parts: list[str] = []
    kinds = griffe.ParameterKind
    star = any(p.kind is kinds.var_positional for p in fn.parameters)
    for i, p in enumerate(fn.parameters):
        if p.kind is kinds.keyword_only and not star:
            parts.append("*")
            star = True
        text = {kinds.var_positional: f"*{p.name}", kinds.var_keyword: f"**{p.name}"}.get(p.kind, p.name)
        parts.append(
            text if p.default is None or p.kind in (kinds.var_positional, kinds.var_keyword) else f"{text}={p.default}"
        )
        nxt = fn.parameters[i + 1] if i + 1 < len(fn.parameters) else None
        if p.kind is kinds.positional_only and (nxt is None or nxt.kind is not kinds.positional_only):
            parts.append("/")
    return f"{label}({', '.join(parts)})"
