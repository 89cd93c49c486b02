"""The releases' code in the plan: each change the code shows (`assistant.upgrade.api`) linked to the doc changes
about the same public path, one entry with both evidences; the rest added as changes of their own, which the
docs do not state, cited to the releases' source; and the scan's targets for what the code shows.

A code change and a doc change are linked when a name the doc change is about (one of its scan targets: not a
name it merely mentions, as "`Series` and `DataFrame` constructors …" does) is one of the code change's public
paths, and they are about the same parameter or the doc change names none; or when the doc change names the
code change's own path or module outright (`_mentions`): the docs state it, though not as the scan targets it.
Links may be many to many: a doc change gets every code change that links to it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import replace

from assistant.index.catalog import release_key
from assistant.model.api import ApiDiff, CodeChange, CodeKind
from assistant.model.changes import ChangeKind
from assistant.model.records import Citation
from assistant.upgrade.plan import CODE_SOURCE, KIND_ORDER, PlannedChange, UpgradePlan
from assistant.upgrade.target import Target

# What a code change is as a plan's kind: what stops working at once (`breaking`, `removed`), what works otherwise.
PLAN_KIND: dict[CodeKind, ChangeKind] = {
    "removed": "removed",
    "parameter_removed": "breaking",
    "parameter_renamed": "breaking",
    "parameter_moved": "breaking",
    "parameter_keyword_only": "breaking",
    "parameter_required": "breaking",
    "parameter_added_required": "breaking",
    "default_changed": "behaviour",
    "base_removed": "breaking",
    "abstract_added": "breaking",
    "return_changed": "behaviour",
    "deprecated": "deprecated",
}
# The kinds whose uses the scan can tell from a call: a name used at all, a parameter passed, too many arguments
# by position. A default or a return type changed, a base class gone, an abstract method added: a plan entry.
_HIT_KINDS: frozenset[CodeKind] = frozenset(
    {"removed", "parameter_removed", "parameter_renamed", "parameter_keyword_only", "deprecated"}
)


def with_code(
    plan: UpgradePlan, diff: ApiDiff, doc_targets: Sequence[Target], named: frozenset[str] = frozenset()
) -> UpgradePlan:
    """`plan` with `diff` in it: linked changes carry their code records, the others become code-only changes (one
    per object and parameter, at the latest release among its records: deprecated, then removed), if they are of
    the product's API as its docs draw it (`named`: the code names its release docs write; `_documented`)."""
    by_change: dict[str, list[Target]] = {}
    for t in doc_targets:
        by_change.setdefault(t.change, []).append(t)
    linked: dict[str, list[CodeChange]] = {}
    alone: list[CodeChange] = []
    modules = frozenset(m for name in named for m in _modules_of(name))  # once: a diff has thousands of changes
    found = {
        code: [
            c.id
            for c in plan.changes
            if _links(code, c, by_change.get(c.id, ())) or _mentions(code, c, plan.modules or diff.packages)
        ]
        for code in diff.changes
    }
    kinds = {c.id: c.kind for c in plan.changes}
    for code in diff.changes:
        ids = found[code] or _cause_stated(code, found, kinds)
        for i in ids:
            linked.setdefault(i, []).append(code)
        if not ids and _documented(code, diff.packages, modules):
            alone.append(code)
    changes = [replace(c, code=tuple(sorted(linked[c.id], key=_rank))) if c.id in linked else c for c in plan.changes]
    grouped: dict[tuple[str, str], list[CodeChange]] = {}
    for code in alone:  # deprecated in one release, removed in a later one: one change, as the docs' are joined
        grouped.setdefault((code.object, code.parameter or ""), []).append(code)
    changes += [_code_only(tuple(sorted(codes, key=_rank)), plan, diff) for codes in grouped.values()]
    changes.sort(key=lambda c: (release_key(c.version), KIND_ORDER[c.kind]))
    # a release key ties "2.1rc0" with "2.1": the spelling decides between them, whatever the hash seed
    versions = tuple(sorted({*plan.versions, *(c.version for c in changes)}, key=lambda v: (release_key(v), v)))
    return replace(
        plan,
        changes=tuple(changes),
        versions=versions,
        modules=plan.modules or diff.packages,
        code_releases=diff.releases,
        code_archives=tuple(diff.archives.items()),
        code_returns=tuple(sorted(diff.returns.items())),
        code_timings_ms=tuple(diff.timings_ms.items()),
    )


def _cause_stated(move: CodeChange, found: dict[CodeChange, list[str]], kinds: dict[str, ChangeKind]) -> list[str]:
    """The doc changes stating the removal that alone moved a parameter (`move.related`): a move is no change of
    its own where the docs say an earlier parameter went. An unstated cause leaves the move unstated too."""
    if move.kind != "parameter_moved" or not move.related:
        return []
    ids: list[str] = []
    for code, linked in found.items():
        if (
            code.object == move.object
            and code.release == move.release
            and code.parameter in move.related
            and code.kind in ("parameter_removed", "parameter_keyword_only")
        ):
            ids += [i for i in linked if kinds[i] in ("removed", "breaking") and i not in ids]
    return ids


def _documented(code: CodeChange, packages: Sequence[str], modules: frozenset[str]) -> bool:
    """Whether a code change is of the API as the product's docs draw it: reached from the package itself
    (`pandas.DataFrame.append`, `pandas.read_csv`), or from a module the docs name (`modules`: `pandas.api.types`,
    `sqlalchemy.orm`), by one of its public paths. A module no release note ever names
    (`pandas.core.internals.blocks`) is the product's inside, public by its spelling only; so is a base class
    there, whose loss is no change to a user (`sqlalchemy.sql.base.Generative`)."""
    if code.kind == "base_removed" and code.related and not any(_drawn(b, packages, modules) for b in code.related):
        return False  # only bases the docs never draw as API are gone: a mixin of the product's inside
    return any(_drawn(path, packages, modules) for path in code.paths or (code.object,))


def _drawn(path: str, packages: Sequence[str], modules: frozenset[str]) -> bool:
    return (m := _module_of(path)) in packages or m in modules


def _module_of(path: str) -> str:
    """The module part of a dotted path: its lowercase parts before a class, less a last function or attribute
    ("pandas.core.frame.DataFrame.append" -> "pandas.core.frame", "pandas.read_csv" -> "pandas")."""
    parts = path.split(".")
    head = []
    for part in parts[:-1]:
        if part[:1].isupper():
            break
        head.append(part)
    return ".".join(head)


def _modules_of(name: str) -> list[str]:
    """The module a name the docs write is in, the modules above it, and the name itself, which may be a module
    ("`scipy.misc` is deprecated")."""
    parts = _module_of(name).split(".")
    return [*(".".join(parts[: i + 1]) for i in range(len(parts))), name]


def code_plan(diff: ApiDiff, from_version: str, to_version: str) -> UpgradePlan:
    """A plan from the code alone, for a product whose release docs are not indexed."""
    empty = UpgradePlan(diff.product, from_version, to_version, (), (), diff.packages)
    return replace(with_code(empty, diff, ()), docs=False)


def code_targets(plan: UpgradePlan) -> list[Target]:
    """What the scan looks for as the code shows it: for each change with code records, a target per public path
    of a change a call can show (a name used, a parameter passed, arguments by position), exact only where the
    receiver is known (no guess on a receiver of unknown type: the code's paths name no member the docs chose)."""
    out: list[Target] = []
    for change in plan.changes:
        for code in change.code:
            if code.kind not in _HIT_KINDS:
                continue
            for path in code.paths or (code.object,):
                if all(part.isidentifier() for part in path.split(".")) and (
                    t := _target(change.id, path, code, plan.modules)
                ):
                    out.append(t)
    return list(dict.fromkeys(out))


def _target(change: str, path: str, code: CodeChange, modules: tuple[str, ...]) -> Target | None:
    parameter = code.parameter or ""
    if parameter and not parameter.isidentifier():
        return None  # `**kwargs` removed: no one keyword of a call shows it
    if code.kind == "parameter_keyword_only":  # calls passing it by position: more arguments than come before it
        before = _place(code.fix, parameter)
        made = Target(change, path, positional=before, family=modules, guess=False, from_code=True)
        return made if before is not None else None
    return Target(
        change,
        path,
        parameter,
        at_import=code.kind == "removed" and not parameter,
        family=modules,
        guess=False,
        gone=code.kind in ("removed", "deprecated") and not parameter,
        from_code=True,
    )


def _place(signature: str, parameter: str) -> int | None:
    """How many arguments may still be passed by position in B's signature ("f(self, a, *, b)": 1, not counting
    `self`): what the scan compares a call's positional arguments with; None when the signature does not say."""
    names = [p.split("=")[0].strip() for p in _top_level(signature.partition("(")[2].rpartition(")")[0])]
    names = [n for n in names if n and n not in ("self", "cls", "/")]
    if "*" in names and parameter in names[names.index("*") :]:
        return names.index("*")
    return None


def _top_level(params: str) -> list[str]:
    """A parameter list split at its own commas, not those inside a default's brackets or quotes."""
    out, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(params):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(params[start:i])
            start = i + 1
    return [*out, params[start:]]


def _links(code: CodeChange, change: PlannedChange, targets: Iterable[Target]) -> bool:
    if change.kind == "new":
        return False
    paths = set(code.paths or (code.object,))
    return any(t.symbol in paths and _same_subject(t, code) for t in targets)


def _mentions(code: CodeChange, change: PlannedChange, roots: Sequence[str]) -> bool:
    """Whether a doc change states a code change though none of its scan targets is it: it names one of the code
    change's public paths, about the same parameter or, for a name that goes, none ("exceptions moved to
    `np.exceptions`: `np.AxisError`, …"); or it names the module a removed or deprecated name is in
    ("the `numpy.lib` namespace"), not the product's root."""
    if change.kind == "new":
        return False
    paths = set(code.paths or (code.object,))
    goes = code.kind in ("removed", "deprecated") and not code.parameter
    for symbol in change.symbols:
        if symbol in paths and (goes or (code.parameter and code.parameter == change.parameter)):
            return True
        module = symbol.count(".") >= 1 and symbol.islower() and symbol not in roots
        if goes and module and any(p.startswith(f"{symbol}.") for p in paths):
            return True
    return False


def _same_subject(target: Target, code: CodeChange) -> bool:
    """Whether a doc target and a code change at the same path are about the same thing: the same parameter;
    passing by position and a parameter made keyword-only or moved; the name itself and a change of no parameter."""
    if target.parameter:
        return target.parameter == code.parameter
    if target.positional >= 0:
        return code.kind in ("parameter_keyword_only", "parameter_moved")
    return not code.parameter


def _rank(code: CodeChange) -> tuple[int, tuple[int, ...]]:
    """The code record a linked change shows first: the most severe kind, then the latest release."""
    return _SEVERITY.index(code.kind), tuple(-part for part in release_key(code.release))


# Most severe first: what stops a call at once, then what a subclass or a caller must change, then what warns.
_SEVERITY: tuple[CodeKind, ...] = (
    "removed",
    "parameter_removed",
    "parameter_renamed",
    "parameter_added_required",
    "parameter_required",
    "parameter_keyword_only",
    "parameter_moved",
    "abstract_added",
    "base_removed",
    "return_changed",
    "default_changed",
    "deprecated",
)


def _code_only(codes: tuple[CodeChange, ...], plan: UpgradePlan, diff: ApiDiff) -> PlannedChange:
    """One change of the code alone: an object's or parameter's code records, the most severe first, at the
    latest release among them."""
    code = codes[0]
    version = _placed(max((c.release for c in codes), key=release_key), plan.versions)
    # the deprecation's message says what to use; a removal's record only that it is gone
    warned = next((c for c in codes if c.kind == "deprecated" and c.fix and c is not code), None)
    said = summary(code) + (f" (deprecated in {warned.release})" if warned else "")
    fix = warned.fix if warned else code.fix
    key = f"{diff.product}\n{code.object}\n{code.kind}\n{code.parameter or ''}"
    source = code.source_b or code.source_a or ""
    releases = diff.releases
    before = releases[releases.index(code.release) - 1] if code.release in releases[1:] else ""
    citation = Citation(
        1,
        f"{diff.product} code, {before} → {code.release}" if before else f"{diff.product} {code.release} code",
        code.release,
        "code",
        source,
        f"{CODE_SOURCE}{diff.product}",
        "",
        code.fix,
        diff.product,
    )
    return PlannedChange(
        "code-" + hashlib.sha1(key.encode()).hexdigest()[:10],
        version,
        PLAN_KIND[code.kind],
        said,
        (code.object,),
        "",
        code.parameter or "",
        code.kind == "default_changed",
        -1,
        (),
        fix,
        (citation,),
        code=codes,
    )


def _placed(release: str, versions: Sequence[str]) -> str:
    """The docs' release a code release belongs to (2.0.3 -> the docs' 2.0 when they have no 2.0.3), else itself."""
    if release in versions:
        return release
    minor = release_key(release)[:2]
    same = [v for v in versions if release_key(v)[:2] == minor and release_key(v) <= release_key(release)]
    return max(same, key=lambda v: (release_key(v), -len(v))) if same else release  # "2.1" over a tied "2.1rc0"


_SAYS: dict[CodeKind, str] = {
    "removed": "`{o}` is removed",
    "parameter_removed": "`{o}` no longer takes `{p}`",
    "parameter_renamed": "`{o}`: the parameter `{p}` is renamed",
    "parameter_moved": "`{o}`: the parameter `{p}` moved to another position",
    "parameter_keyword_only": "`{o}`: `{p}` can only be passed by keyword",
    "parameter_required": "`{o}`: `{p}` is now required",
    "parameter_added_required": "`{o}` has a new required parameter `{p}`",
    "default_changed": "`{o}`: the default of `{p}` changed",
    "base_removed": "`{o}` no longer derives from a base class it had",
    "abstract_added": "`{o}` is a new abstract method: subclasses must define it",
    "return_changed": "`{o}` returns another type",
    "deprecated": "`{o}` is deprecated",
}


def summary(code: CodeChange) -> str:
    """What a code change says, in the plan's words; a parameter's deprecation names the parameter."""
    if code.kind == "deprecated" and code.parameter:
        return f"`{code.object}`: the parameter `{code.parameter}` is deprecated"
    return _SAYS[code.kind].format(o=code.object, p=code.parameter or "")
