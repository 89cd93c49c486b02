"""The upgrade plan: every change the indexed docs announce between the release a user runs and the one they
want, in release order, each with its citations (`KnowledgeBase.plan`).

The changes are those ingest extracted (`assistant.model.changes`); here they are put in order, their code names
qualified through the product's import aliases (`np.float_` -> `numpy.float_`), and a change announced twice
(deprecated in one release, removed in a later one) made one line citing both.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace

from assistant.index.catalog import Catalog, Product, release_key
from assistant.model.api import CodeChange
from assistant.model.changes import Change, ChangeKind
from assistant.model.errors import ReldocsError
from assistant.model.records import Chunk, Citation
from assistant.upgrade.literals import new_values, old_values, value_keywords
from assistant.upgrade.subjects import subjects

# The citation source of a change only the releases' code shows ("code:pandas"): no doc file's path starts so.
CODE_SOURCE = "code:"
# Within a release: what breaks code first, then what will, then what merely changed or was added.
KIND_ORDER: dict[str, int] = {"breaking": 0, "removed": 1, "behaviour": 2, "deprecated": 3, "new": 4}
# When one change is announced twice, the line shows its most severe kind.
_SEVERITY: dict[str, int] = {"removed": 0, "breaking": 1, "behaviour": 2, "deprecated": 3, "new": 4}


class PlanError(ReldocsError):
    """The plan cannot be made as asked (an unknown product, a from-version not before the to-version)."""


class NotIndexed(PlanError):
    """No release docs of the product asked for are indexed (a plan can still come from its code)."""


@dataclass(frozen=True)
class PlannedChange:
    """One line of the plan: a change, where it lands, and every release note announcing it."""

    id: str
    version: str  # the release it lands in (the latest announcement within the plan)
    kind: ChangeKind
    summary: str
    symbols: tuple[str, ...]  # qualified where the docs allow (`numpy.float_`)
    replacement: str
    parameter: str
    default_changed: bool
    positional: int  # how many arguments may still be passed by position, or -1 (`Change.positional`)
    forms: tuple[str, ...]  # the old call forms its examples show ("select:list"; `Change.forms`)
    fix: str  # what to do, where the docs say it apart from a replacement (`Change.fix`)
    citations: tuple[Citation, ...]  # oldest announcement first
    # (symbol, class) for the symbols the docs write as a type's member (`ndarray.newbyteorder`)
    members: tuple[tuple[str, str], ...] = ()
    callables: tuple[str, ...] = ()  # the symbols the docs' roles mark as functions or methods (":meth:`x`")
    # What the releases' code shows of it (`assistant.upgrade.code_plan`): a doc change's linked code changes, or
    # the one code change a change of the code alone is (whose citation is then the release's source).
    code: tuple[CodeChange, ...] = ()

    @property
    def evidence(self) -> tuple[str, ...]:
        """Where the change is seen: ("docs",), ("code",) or ("docs", "code")."""
        docs = any(not c.source.startswith(CODE_SOURCE) for c in self.citations)
        return (*(("docs",) if docs else ()), *(("code",) if self.code else ()))

    @property
    def citation(self) -> Citation:
        """The announcement to show: of the latest release, its migration guide's if it has one."""
        return max(self.citations, key=lambda c: (release_key(c.version), c.kind == "migration-guide"))


@dataclass(frozen=True)
class UpgradePlan:
    product: str
    from_version: str
    to_version: str
    versions: tuple[str, ...]  # the releases the plan covers: after `from_version`, up to `to_version`
    changes: tuple[PlannedChange, ...]
    modules: tuple[str, ...] = ()  # the product's import names, its main one first: a change about one names no code
    # the keyword arguments the product's examples pass string values to that changes do away with ("freq")
    value_keywords: tuple[str, ...] = ()
    code_releases: tuple[str, ...] = ()  # the exact releases whose code was diffed, oldest first; () when none was
    code_archives: tuple[tuple[str, str], ...] = ()  # (release, its archive's sha256) for each of `code_releases`
    code_returns: tuple[tuple[str, str], ...] = ()  # what the product's functions return (`ApiDiff.returns`)
    code_timings_ms: tuple[tuple[str, float], ...] = ()  # the diff's "load", "diff", "total" (`ApiDiff.timings_ms`)
    docs: bool = True  # False for a plan of the code alone: the product's release docs are not indexed
    notes: tuple[str, ...] = ()  # one line each: why the code diff is missing or partial


def make_plan(
    chunks: Sequence[Chunk], catalog: Catalog, from_version: str, to_version: str, product: str | None = None
) -> UpgradePlan:
    """The plan from `from_version` to `to_version` (which need not be indexed: 1.26 -> 2.0 works)."""
    start, end = release_key(from_version), release_key(to_version)
    if start >= end:
        raise PlanError(f"--from {from_version} is not before --to {to_version}")
    chosen = _product(catalog, product, start, end)
    versions = tuple(v for v in chosen.versions if start < release_key(v) <= end)
    own = [c for c in chunks if c.product in chosen.spellings and c.version in versions and c.changes]
    lines = _tables(_merged(_announcements(own, catalog, chosen)))
    order = {v: i for i, v in enumerate(versions)}
    lines.sort(key=lambda c: (order[c.version], KIND_ORDER[c.kind]))
    modules = tuple(m for m in dict.fromkeys([chosen.main, *sorted(chosen.modules)]) if m)  # its main one first
    olds = [v for c in lines for v in old_values(c.summary)]
    values = {*olds, *(v for c in lines for v in new_values(c.summary))} if olds else set()
    codes = (e.text for c in chunks if c.product in chosen.spellings for e in c.entries if e.kind == "code")
    keywords = value_keywords(codes, values) if values else ()
    return UpgradePlan(chosen.name, from_version, to_version, versions, tuple(lines), modules, keywords)


def named_in_docs(chunks: Sequence[Chunk], catalog: Catalog, product: str) -> frozenset[str]:
    """Every code name the product's release docs write in a change, of any release, qualified as the plan
    qualifies them: which of its modules the docs treat as API (`assistant.upgrade.code_plan`)."""
    chosen = catalog.product(product)
    if chosen is None:
        return frozenset()
    own = [c for c in chunks if c.product in chosen.spellings and c.changes]
    return frozenset(s for line in _announcements(own, catalog, chosen) for s in line.symbols)


def _product(catalog: Catalog, product: str | None, start: tuple[int, ...], end: tuple[int, ...]) -> Product:
    names = ", ".join(p.name for p in catalog.products) or "none"
    if product:
        found = catalog.product(product)
        if found is None:
            raise NotIndexed(f"no product {product!r} is indexed; indexed: {names}")
        return found
    if len(catalog.products) == 1:
        return catalog.products[0]
    spanning = [p for p in catalog.products if any(start < release_key(v) <= end for v in p.versions)]
    if len(spanning) == 1:
        return spanning[0]
    raise PlanError(f"several products are indexed; name one with --product ({names})")


def _announcements(chunks: Sequence[Chunk], catalog: Catalog, product: Product) -> list[PlannedChange]:
    out = []
    main = product.main
    # what the text writes after the main module, and the headings too ("sklearn.preprocessing" heads the
    # entries that write `preprocessing.OneHotEncoder`)
    found = (re.findall(rf"\b{re.escape(main)}\.([a-z_]\w*)", f"{c.section}\n{c.text}") for c in chunks) if main else ()
    submodules = frozenset(m for names in found for m in names)
    for chunk in chunks:
        for change in chunk.changes:
            kinds = dict(zip(change.symbols, change.kinds, strict=False))
            written = {s: qualify(s, catalog, product, submodules, kinds.get(s, "")) for s in change.symbols}
            members = tuple(
                (full, owner)
                for s, full in written.items()
                if (owner := _member_of(s, catalog, product, kinds.get(s, "")))
            )
            replacement = qualify(change.replacement, catalog, product, submodules) if change.replacement else ""
            citation = Citation(
                1,
                chunk.title,
                chunk.version,
                chunk.kind,
                chunk.section,
                chunk.source,
                chunk.url,
                change.summary,
                chunk.product,
            )
            out.append(
                PlannedChange(
                    _id(product.name, chunk.version, change),
                    chunk.version,
                    change.kind,
                    change.summary,
                    tuple(dict.fromkeys(written.values())),
                    replacement,
                    change.parameter,
                    change.default_changed,
                    change.positional,
                    change.forms,
                    change.fix,
                    (citation,),
                    members,
                    tuple(full for s, full in written.items() if kinds.get(s, "") in ("func", "meth")),
                )
            )
    return out


def _values_agree(earlier: PlannedChange, later: PlannedChange) -> bool:
    """Whether two announcements about the same names may be one change as to the string values they do away with:
    neither names any, or they share one ("strings `T`, `S` … in `Minute`", later "strings `T` … in `Minute`");
    "strings `T`, `L` denoting units in `to_timedelta`" and, later, "strings `H`, `S`" there are two changes."""
    old, new = set(old_values(earlier.summary)), set(old_values(later.summary))
    return old == new or bool(old & new)


def _merged(announced: list[PlannedChange]) -> list[PlannedChange]:
    """One line per change. The same summary in one release (a heading over several chunks) is one line; a
    deprecation and a later removal (or change) of the same specific names and parameter are one line, at
    the later release, citing both."""
    lines: dict[tuple[str, str], PlannedChange] = {}
    for line in announced:
        key = (line.version, _said(line.summary))
        same = key if key in lines else next((k for k in lines if k[0] == line.version and _same(k[1], key[1])), None)
        if same is not None:
            # The same change in two documents of one release (a migration guide's issue and the notes' entry),
            # or one heading over several chunks: one line, citing each document once.
            was = lines.pop(same)
            sources = {c.source for c in was.citations}
            line = _combined(
                was, line, citations=(*was.citations, *(c for c in line.citations if c.source not in sources))
            )
            key = same
        lines[key] = line
    out: list[PlannedChange | None] = []
    deprecated: dict[tuple[tuple[str, ...], str], int] = {}
    for line in sorted(lines.values(), key=lambda c: release_key(c.version)):
        said = [s for s in subjects(line.symbols, line.summary) if _specific(s)]
        names = tuple(sorted(said))
        key = (names, f"{line.parameter}/{line.positional}")
        # The deprecations a later line announces again: of its first name, with the same parameter ("Deprecated
        # `a`" and, later, "Removed `a`, `b` and `c`"); the first of them gives the line its fix.
        earlier = [
            i
            for (n, q), i in deprecated.items()
            if names and line.kind != "new" and q == key[1] and said[0] in n and out[i] is not None
        ]
        earlier = [
            i
            for i in earlier
            if release_key(out[i].version) < release_key(line.version)  # type: ignore[union-attr]
            and _values_agree(out[i], line)  # type: ignore[arg-type]
        ]
        if earlier:
            first = next((i for i in earlier if said[0] in out[i].symbols), earlier[0])  # type: ignore[union-attr]
            joined = _join(out[first], line)  # type: ignore[arg-type]
            for i in earlier:
                if i != first:
                    joined = _combined(joined, out[i], citations=(*out[i].citations, *joined.citations))  # type: ignore[union-attr,arg-type]
                    out[i] = None
            out[first] = joined
            continue
        if names and line.kind == "deprecated":
            deprecated[key] = len(out)
        out.append(line)
    return [line for line in out if line is not None]


TABLE_SUMMARY_CHARS = 240


def _tables(lines: list[PlannedChange]) -> list[PlannedChange]:
    """The rows of one table that name no code ("Package: numpy — Minimum Version: 1.22.4 — Changed: X") as one
    line per table, its section and each row's first cell: one entry saying the minimum versions changed, not one
    "breaking" line per package."""
    groups: dict[tuple[str, str, str, str], list[int]] = defaultdict(list)
    for i, line in enumerate(lines):
        if " — " in line.summary and not line.symbols and not line.replacement:
            groups[(line.version, line.kind, line.citation.source, line.citation.section)].append(i)
    merged: dict[int, PlannedChange] = {}
    dropped: set[int] = set()
    for (_, _, _, section), rows in groups.items():
        if len(rows) < 2:
            continue
        cells = [_row_head(lines[i].summary) for i in rows]
        head = section.rsplit(" › ", 1)[-1] or "Table"
        summary = f"{head}: {', '.join(cells)}"
        if len(summary) > TABLE_SUMMARY_CHARS:
            summary = summary[:TABLE_SUMMARY_CHARS].rsplit(", ", 1)[0] + f", … ({len(rows)} rows)"
        first = lines[rows[0]]
        merged[rows[0]] = replace(
            first, id=hashlib.sha1(f"{first.id}\n{len(rows)}".encode()).hexdigest()[:12], summary=summary
        )
        dropped.update(rows[1:])
    return [merged.get(i, line) for i, line in enumerate(lines) if i not in dropped]


def _row_head(row: str) -> str:
    """A row's first cell's value, with the second's when it is a number: "numpy 1.22.4"."""
    values = [cell.split(":", 1)[-1].strip() for cell in row.split(" — ")[:2]]
    return " ".join(values) if len(values) == 2 and re.match(r"v?\d", values[1]) else values[0]


# A reference's opening with no ')' after it matches to the end (`\Z`), so that the openings after it are not each
# read to the end in turn (quadratic); `_unreferenced` keeps that text.
_REFS = re.compile(r"\((?:#|GH |gh-|issue )[^)]*+(?:\)|\Z)|^issue #\d+:\s*|[`*]", re.IGNORECASE)


def _said(summary: str) -> str:
    """A summary as words: no code marks, PR references or "Issue #4:" numbering, cut marks or case."""
    return " ".join(_REFS.sub(_unreferenced, summary).lower().rstrip(".…").split())


def _unreferenced(m: re.Match[str]) -> str:
    """`_REFS`' replacement: nothing, except for an unclosed "(#…", which stays without its code and cut marks."""
    text = m.group(0)
    return text.replace("`", "").replace("*", "") if text.startswith("(") and not text.endswith(")") else ""


def _same(a: str, b: str) -> bool:
    """Two summaries of one release say the same: equal, or one the start of the other (a heading cut short)."""
    short, long = sorted((a, b), key=len)
    # An entry that introduces a list ("… is removed from:") is not the start of each item under it.
    return len(short) >= 30 and long.startswith(short) and not short.endswith(":")


def _specific(symbol: str) -> bool:
    """A member or function (`pandas.DataFrame.applymap`, `pandas.read_gbq`), not a whole class or module:
    many unrelated changes name `Series`."""
    last = symbol.rsplit(".", 1)[-1]
    return "." in symbol and (last[:1].islower() or "_" in last)


def _join(earlier: PlannedChange, later: PlannedChange) -> PlannedChange:
    """`later` announces `earlier` again: one line at the later release, of the more severe kind, citing both."""
    kind = min(earlier.kind, later.kind, key=lambda k: _SEVERITY[k])
    return replace(_combined(later, earlier, citations=(*earlier.citations, *later.citations)), kind=kind)


def _combined(first: PlannedChange, second: PlannedChange, *, citations: Sequence[Citation]) -> PlannedChange:
    """`first` with `second`'s names and replacement added, citing `citations` once each, numbered anew."""
    return replace(
        first,
        symbols=tuple(dict.fromkeys(first.symbols + second.symbols)),
        members=tuple(dict.fromkeys(first.members + second.members)),
        callables=tuple(dict.fromkeys(first.callables + second.callables)),
        forms=tuple(dict.fromkeys(first.forms + second.forms)),
        replacement=first.replacement or second.replacement,
        fix=first.fix or second.fix,
        citations=tuple(replace(c, n=n) for n, c in enumerate(dict.fromkeys(citations), start=1)),
    )


def qualify(
    symbol: str, catalog: Catalog, product: Product, submodules: frozenset[str] = frozenset(), kind: str = ""
) -> str:
    """A code name as the product's users import it: through the docs' aliases (`np.float_` ->
    `numpy.float_`), as the docs' code imports it (`validator` -> `pydantic.validator`), and under the product's
    main module when the docs leave it out (`DataFrame.append` -> `pandas.DataFrame.append`, and `pivot` when
    the docs write it with an object's role, `kind`: ":func:`pivot`"); `submodules` are the names the docs write
    after that module (`orm`)."""
    name = symbol.lstrip("@")
    head, dot, rest = name.partition(".")
    full = catalog.aliases.get(head.lower())
    if full:
        return f"{full}{dot}{rest}"
    modules = sorted(product.modules)
    if head in modules or any(head == m.split(".")[0] for m in modules):
        return name
    imported = catalog.imported.get(head, "")
    if imported.split(".")[0] in modules:  # `validator`, which the docs' code imports from `pydantic`
        return f"{imported}{dot}{rest}"
    main = product.main
    # `DataFrame.append`, `read_gbq` and `orm.Session` (a submodule the docs write as `sqlalchemy.orm`) are the
    # product's; `session.query` is a variable's method, and stays as written.
    if main and (head[:1].isupper() or (not dot and ("_" in head or kind in _OBJECT_ROLES)) or head in submodules):
        return f"{main}.{name}"
    return name


# Roles that say a name is an object of the product's API (a bare `pivot` is then `pandas.pivot`); a dotted name
# may be another library's (`:func:`numpy.where`` in pandas' notes), so only bare names are qualified by them.
_OBJECT_ROLES = frozenset({"func", "class", "exc", "data", "const", "meth", "attr"})


def _member_of(written: str, catalog: Catalog, product: Product, kind: str = "") -> str:
    """The type a symbol is a member of, when the docs write it so: `ndarray.newbyteorder`, `session.query`
    (a type or variable, then a method), not `orm.Session` (a module's class) nor `np.linalg.norm` (an alias),
    nor what the docs' role says is a function or class (":func:`linalg.norm`")."""
    parts = written.lstrip("@").split(".")
    head = parts[0]
    if kind in ("func", "class", "exc", "mod"):
        return ""
    if len(parts) < 2 or not parts[-1][:1].islower() or head.lower() in catalog.aliases:
        return ""
    if head in product.modules or head == product.main:
        return ""
    return parts[-2]


def _id(product: str, version: str, change: Change) -> str:
    key = f"{product}\n{version}\n{change.kind}\n{change.summary}"
    return hashlib.sha1(key.encode()).hexdigest()[:12]
