"""The scan's target lookup: targets indexed by what code names (a symbol and its dotted prefixes, a class's member
by name for receivers of unknown type), which the visitor (`assistant.upgrade.visitor`) and the quick pre-pass
(`assistant.upgrade.prepass`) ask.

Which member names are worth a guess on a receiver of unknown type is hand-written, kept here with its reasons:
no library states which names of a class's methods are worth a "possible" hit on an object of unknown type.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from assistant.upgrade.literals import matched
from assistant.upgrade.qualifiers import ON_CALL, SHAPES, forms_met, meets
from assistant.upgrade.target import Target

# Method names of the builtin containers and strings. A receiver of unknown type is most often one of those
# (`items.append(1)`), so these names make a possible hit only on a receiver whose name suggests the class.
BUILTIN_METHODS = frozenset(
    name
    for kind in (str, bytes, bytearray, list, tuple, dict, set, frozenset, int, float, complex)
    for name in dir(kind)
    if not name.startswith("_")
)
MODULE_DEPTH = 12  # the most parts a product's module path is read to for a class the docs write bare
MIN_MEMBER = 4  # shorter member names (`.T`, `.abs`, `.all`) are too common to flag on an unknown receiver
TELLING = 8  # a member name this long, or written in parts, is no everyday word (`iteritems`, `from_orm`)
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z0-9]+|[A-Z]+")


@dataclass(frozen=True)
class Member:
    """A target that is a member of a class, as matched on a receiver of unknown type."""

    target: Target
    receivers: frozenset[str]  # receiver names that suggest the class: "dataframe", "df" for DataFrame

    def suggested_by(self, receiver: str | None) -> bool:
        """Whether a receiver named so (`df`, `train_df`, `self.df`) is likely an instance of the class."""
        if receiver is None:
            return False
        name = receiver.lower().rsplit("_", 1)[-1]
        # "conn" for Connection, "sess" for Session: a shortening of four letters or more
        return name in self.receivers or any(len(name) >= 4 and r.startswith(name) for r in self.receivers)

    def worth(self, member: str, receiver: str | None) -> bool:
        """Whether `<receiver>.<member>` on an unknown receiver is reported as a possible hit."""
        if not self.target.guess:
            return False
        if self.suggested_by(receiver):
            return True
        # a name every class has (`__init__`) says nothing of the receiver
        return len(member) >= MIN_MEMBER and member not in BUILTIN_METHODS and not member.startswith("__")

    def telling(self, member: str) -> bool:
        """Whether the member's name alone tells its class, in a module importing the product: the change does away
        with it (`Target.gone`), it is worth a guess (no other class of the plan has it), and it is no everyday
        word (`close`, `save`) but a compound (`iteritems`, `from_self`, `assertQuerysetEqual`)."""
        return self.target.gone and self.worth(member, None) and telling_name(member)


# Python's own hooks and protocol methods: a class defining one uses the language, not a product.
_PYTHON_HOOKS = frozenset(
    {name for kind in (object, type, int, list, dict) for name in dir(kind)}
    | {"__post_init__", "__enter__", "__exit__", "__aenter__", "__aexit__", "__aiter__", "__anext__", "__next__"}
    | {"__set_name__", "__class_getitem__", "__missing__", "__get__", "__set__", "__delete__", "__await__"}
)


def _hook(name: str) -> bool:
    """A hook a product calls (`__get_validators__`): a dunder name of parts, none of Python's own."""
    inner = name[2:-2]
    return name.startswith("__") and name.endswith("__") and "_" in inner.strip("_") and name not in _PYTHON_HOOKS


def telling_name(name: str) -> bool:
    """A name no everyday word spells: long (`iteritems`) or written in parts (`from_orm`, `assertQuerysetEqual`)."""
    inner = name.strip("_")
    return len(inner) >= TELLING or "_" in inner or any(c.isupper() for c in inner[1:])


def class_of(symbol: str, member_of: str = "") -> str | None:
    """The class a symbol is a member of: the one the target names (`member_of`: the docs wrote the symbol
    as `ndarray.newbyteorder`, a type's member), or its last-but-one part when that looks like a class
    ("DataFrame" in "pandas.DataFrame.append"); a two-part symbol is a module's member."""
    parts = symbol.split(".")
    if member_of:
        return member_of
    if len(parts) >= 3 and parts[-2][:1].isupper():
        return parts[-2]
    return None


def receiver_names(cls: str) -> frozenset[str]:
    """Names a variable holding an instance of `cls` conventionally has: the class lowercased, and the
    initials of its CamelCase parts when there are two or more ("df" for DataFrame)."""
    initials = "".join(part[0] for part in _CAMEL.findall(cls)).lower()
    return frozenset({cls.lower(), initials} if len(initials) >= 2 else {cls.lower()})


@dataclass(frozen=True)
class TargetIndex:
    """Targets looked up by what code names, so that a scan costs one look-up per dotted prefix of a name."""

    names: dict[str, tuple[Target, ...]]  # plain targets by symbol: hit by the symbol and what starts with it
    calls: dict[str, tuple[Target, ...]]  # parameter targets by symbol: hit by calls only
    members: dict[str, tuple[Member, ...]]  # plain class-member targets by member name, for unknown receivers
    member_calls: dict[str, tuple[Member, ...]]  # parameter class-member targets by member name
    classes: frozenset[str]  # the classes targets are members of (`pandas.DataFrame` of `….DataFrame.append`)
    change_classes: dict[str, frozenset[str]]  # per change, the classes its targets are members of
    # "django.ModelAdmin.log_deletion" by its top module, class and member: the docs shorten the class's path
    # (`ModelAdmin.log_deletion`), the code imports it from where it lives (`django.contrib.admin.ModelAdmin`).
    short: dict[str, str]
    class_ends: frozenset[str]  # `classes` by top module and name: "django.ModelAdmin"
    forms: dict[str, tuple[Target, ...]]  # targets qualified by call forms, by the called name ("select")
    settings: dict[str, tuple[Target, ...]]  # setting targets by their name ("USE_L10N", "orm_mode")
    depth: int  # the most parts a plain target's symbol has
    # plain targets that are a class the docs write bare, by top module and name ("torch.XNNPACKQuantizer")
    bare: dict[str, tuple[Target, ...]] = field(default_factory=dict)
    # The classes (by bare name: "BaseModel") of members whose name tells their class (`Member.telling`): a project
    # that names one anywhere makes such a member exact on a receiver of unknown type.
    telling: frozenset[str] = frozenset()
    valued: tuple[Target, ...] = ()  # targets of string values (`Target.values`), matched in any call's arguments
    # Gone names the docs write bare, of no module or class they say (`export_memory_timeline`, qualified only by
    # the product: "torch.export_memory_timeline"), whose name tells them (`telling_name`): hit wherever a module
    # that imports the product uses that name as an attribute or defines it as a method.
    loose: dict[str, tuple[Target, ...]] = field(default_factory=dict)
    # Hooks the docs name (`__get_validators__`): a product calls them on a class that defines them, so defining one
    # in any class is the use; Python's own (`__init__`, `__post_init__`) are none.
    hooks: dict[str, tuple[Target, ...]] = field(default_factory=dict)
    nested: dict[str, tuple[Target, ...]] = field(default_factory=dict)  # classes defined in a class's body, by name
    # Whether receivers a product's call returned are typed from its installed source (`assistant.upgrade.inferred`)
    infer: bool = False
    families: frozenset[str] = frozenset()  # the top modules of the targets' products
    types_folder: Path | None = None  # where what jedi answers is kept (`assistant.upgrade.inferred.returned`)
    # What the product's functions return by their annotations, from its releases' source (`ApiDiff.returns`):
    # "pandas.read_parquet" -> "pandas.DataFrame", asked before jedi and without the product installed.
    returns: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        targets: Sequence[Target],
        *,
        infer: bool = False,
        types_folder: Path | None = None,
        returns: Mapping[str, str] | None = None,
    ) -> TargetIndex:
        """The targets indexed; with `infer`, a receiver a product's call returned is typed from the product's
        installed source where the code does not say its type, the answers kept in `types_folder`; `returns`
        types it first, from the releases' annotations."""
        names: dict[str, list[Target]] = defaultdict(list)
        calls: dict[str, list[Target]] = defaultdict(list)
        members: dict[str, list[Member]] = defaultdict(list)
        member_calls: dict[str, list[Member]] = defaultdict(list)
        by_form: dict[str, list[Target]] = defaultdict(list)
        settings: dict[str, list[Target]] = defaultdict(list)
        bare: dict[str, list[Target]] = defaultdict(list)
        valued: list[Target] = []
        loose: dict[str, list[Target]] = defaultdict(list)
        hooks: dict[str, list[Target]] = defaultdict(list)
        nested: dict[str, list[Target]] = defaultdict(list)
        for target in dict.fromkeys(targets):  # the same target twice would only repeat its hits
            if target.nested:
                nested[target.symbol.rsplit(".", 1)[-1]].append(target)
                continue
            if target.values:
                valued.append(target)
                continue
            if target.setting:
                settings[target.symbol.rsplit(".", 1)[-1]].append(target)
            if target.forms:
                by_form[target.symbol.rsplit(".", 1)[-1]].append(target)
                continue
            (calls if target.qualified else names)[target.symbol].append(target)
            parts = target.symbol.split(".")
            if not target.qualified and not target.loose and len(parts) == 2 and _kept_anywhere(parts[1], target):
                bare[target.symbol].append(target)
            if target.loose and not target.qualified and target.gone and telling_name(parts[-1]):
                loose[parts[-1]].append(target)
            if _hook(parts[-1]) and not target.qualified:
                hooks[parts[-1]].append(target)
            owner = class_of(target.symbol, target.member_of)
            if owner:
                member = Member(target, receiver_names(owner))
                (member_calls if target.qualified else members)[target.symbol.rsplit(".", 1)[1]].append(member)
        owners: dict[str, set[str]] = defaultdict(set)
        for t in targets:
            if class_of(t.symbol, t.member_of):
                owners[t.change].add(t.symbol.rsplit(".", 1)[0])
        classes = frozenset(c for found in owners.values() for c in found)
        change_classes = {change: frozenset(found) for change, found in owners.items()}
        short = {_short(t.symbol): t.symbol for t in targets if class_of(t.symbol, t.member_of) and _short(t.symbol)}
        ends = frozenset(map(_ends, classes))
        return cls(
            _frozen(names),
            _frozen(calls),
            _frozen(members),
            _frozen(member_calls),
            classes,
            change_classes,
            short,
            ends,
            _frozen(by_form),
            _frozen(settings),
            max((s.count(".") + 1 for s in names), default=0),
            _frozen(bare),
            frozenset(
                class_of(m.target.symbol, m.target.member_of) or ""
                for name, found in members.items()
                for m in found
                if m.telling(name)
            ),
            tuple(valued),
            _frozen(loose),
            _frozen(hooks),
            _frozen(nested),
            infer,
            frozenset(m for t in targets for m in t.family),
            types_folder,
            dict(returns or {}),
        )

    @cached_property
    def received(self) -> frozenset[str]:
        """The member names a receiver of unknown type may hit: whose type is then worth asking about."""
        return frozenset(self.members) | frozenset(self.member_calls) | frozenset(self.forms)

    def class_named(self, qualified: str) -> str | None:
        """The class targets are members of that a type's full name is (`pandas.core.frame.DataFrame` for
        `pandas.DataFrame`), or None."""
        if qualified in self.classes:
            return qualified
        ends = _ends(qualified)
        return next((c for c in sorted(self.classes) if _ends(c) == ends), None) if ends in self.class_ends else None

    def in_forms(self, qualified: str) -> tuple[Target, ...]:
        """The call-form targets a call of `qualified` may meet: of its name, from the product's module."""
        top, _, _ = qualified.partition(".")
        return tuple(t for t in self.forms.get(qualified.rsplit(".", 1)[-1], ()) if top in t.family)

    def names_a_class(self, qualified: str) -> bool:
        """Whether code naming `qualified` (a constructor, an annotation, a base class) may type a receiver
        that hits a target: a class targets are members of, by its full name or its top module and name."""
        return qualified in self.classes or _ends(qualified) in self.class_ends

    def canonical(self, symbol: str) -> str:
        """`symbol` as the targets spell it: a class's member by its top module, class and name; a class the docs
        write bare, with a qualifier (`CheckConstraint(check=…)`), by its top module and name."""
        if symbol in self.names or symbol in self.calls:
            return symbol
        ends = _ends(symbol)
        if ends in self.calls and ends.rsplit(".", 1)[-1][:1].isupper():
            return ends
        return self.short.get(_short(symbol), symbol)

    def is_class(self, name: str) -> bool:
        """Whether a qualified name is a class: targets are members of it, or it is named as one (PEP 8)."""
        return name in self.classes or name.rsplit(".", 1)[-1][:1].isupper()

    def knows(self, symbol: str) -> bool:
        """Whether some target is about exactly this qualified name (plain or with a qualifier)."""
        return symbol in self.names or symbol in self.calls

    def same_class(self, name: str, target: Target) -> bool:
        """Whether a qualified name is the class a target names: its symbol, or a class the docs write bare, under
        any module of its product (`pydantic.fields.ModelField` for `pydantic.ModelField`)."""
        return name == target.symbol or (target.symbol in self.bare and _ends(name) == target.symbol)

    def named_by(self, qualified: str) -> Iterator[Target]:
        """Plain targets that a name hits: its symbol equals the name or is a dotted prefix of it; a class the
        docs write bare (`XNNPACKQuantizer`, qualified as `torch.XNNPACKQuantizer`) also under whichever module of
        the product the code takes it from (`torch.ao.quantization.quantizer.xnnpack_quantizer.XNNPACKQuantizer`)."""
        if qualified.startswith("."):
            return  # a relative import's name (`.fields.ForeignKey`): the project's own code
        prefix = previous = ""
        # Only as many parts as the longest symbol has (or a module path has, for a bare class): a chain of
        # thousands (`x.a.a.a…`) costs no more.
        depth = max(self.depth, MODULE_DEPTH) if self.bare else self.depth
        for n, part in enumerate(qualified.split(".", depth)[:depth], start=1):
            prefix = f"{prefix}.{part}" if prefix else part
            if n <= self.depth:
                yield from self.names.get(prefix, ())
            # a bare function under any module, but not as a class's method (`FigureCanvas.get_renderer`)
            function = "_" in part and not part[:1].isupper() and not previous[:1].isupper()
            if n > 2 and (part[:1].isupper() or function) and self.bare:
                yield from self.bare.get(_ends(prefix), ())
            previous = part

    def by_keyword(self, member: str, call: ast.Call, receiver: str | None = None) -> Iterator[Target]:
        """Targets a call of `member` meets, on a receiver of any type, by a keyword argument the docs name: the
        parameter a change is about (`fillna(method=…)`) or one an old example passes or its comment names
        (`select(whereclause=…)`). A keyword so named is evidence of the receiver's class that a bare member
        name is not; so is the call an old example calls it on ("on=query()"), and an old form of its first
        argument (a raw string: `conn.execute("…")`) on a receiver named after the class (`receiver`). The visitor
        still asks that the module import the target's product."""
        for found in self.member_calls.get(member, ()):
            target = found.target
            # a code diff names a parameter on every class that has it (`fillna(method)` of each array type): the
            # keyword tells no one class of them, so its targets hit known receivers only
            if target.parameter and not target.omitted and not target.from_code and meets(target, call):
                yield target
        for target in self.forms.get(member, ()):
            telling = [
                f
                for f in target.forms
                if f not in SHAPES and (f.startswith("kw=") or "&kw=" in f or ON_CALL.fullmatch(f))
            ]
            if telling and forms_met(telling, call):
                yield target
                continue
            shapes = [f for f in target.forms if f in SHAPES] if receiver is not None else []
            owner = class_of(target.symbol, target.member_of) if shapes else None
            # a shape is evidence only on a receiver named for the class: read so only where one is asked of
            if owner and Member(target, receiver_names(owner)).suggested_by(receiver) and forms_met(shapes, call):
                yield target

    def possible(self, member: str, receiver: str | None, call: ast.Call | None = None) -> bool:
        """Whether `<receiver>.<member>` makes a possible hit for some target, were the receiver unknown; a
        member whose change has a qualifier only in a `call` that meets it (`logger.info(…)` is no call of
        a changed `DataFrame.info(buf=…)`)."""
        if any(m.worth(member, receiver) for m in self.members.get(member, ())):
            return True
        found = self.member_calls.get(member, ()) if call is not None else ()
        return any(m.worth(member, receiver) and meets(m.target, call) for m in found)  # type: ignore[arg-type]


def valued_hits(index: TargetIndex, call: ast.Call, callee: str | None) -> Iterator[tuple[Target, str]]:
    """The value targets a call meets, each with the argument ("freq='M'", "unit='T'"): a value passed by one of
    the keywords the docs pass such values to, or any argument of the function the change names (`callee`, the
    call's qualified name when it resolves). A value by position to another call is no evidence: "1d" is as likely
    a project's own timeframe (`exchange.ohlcv_candle_limit("1d")`) as a frequency (`df.resample("1d")`)."""
    if not index.valued:
        return
    given = [(None, a) for a in call.args] + [(k.arg, k.value) for k in call.keywords if k.arg]
    for keyword, node in given:
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        for target in index.valued:
            found = matched(node.value, target.values)
            if found is None:
                continue
            # the function the change names, as the docs write it (`to_timedelta`) from wherever the product keeps it
            last = target.symbol.rsplit(".", 1)[-1]
            named = callee is not None and callee.rsplit(".", 1)[-1] == last and not last[:1].isupper()
            named = named and callee.split(".", 1)[0] in target.modules  # type: ignore[union-attr]
            if named or keyword in target.keywords:
                yield target, f"{keyword}={node.value!r}" if keyword else repr(node.value)


def _kept_anywhere(name: str, target: Target) -> bool:
    """A name the docs write bare that is the same thing under whichever module of the product code takes it
    from: a class (`XNNPACKQuantizer`), or a gone function whose compound name tells it (`read_gpickle`, from
    `networkx.readwrite.gpickle`); not `load`, which `torch.hub` has as well as `torch`."""
    return name[:1].isupper() or (target.gone and "_" in name.strip("_") and telling_name(name))


def _ends(qualified: str) -> str:
    """A dotted name by its first and last parts: "django.ModelAdmin" for "django.contrib.admin.ModelAdmin"."""
    parts = qualified.split(".")
    return f"{parts[0]}.{parts[-1]}"


def _short(symbol: str) -> str:
    """ "django.ModelAdmin.log_deletion" for "django.contrib.admin.ModelAdmin.log_deletion"; '' for a name that
    is no class's member (its last-but-one part is no `CamelCase` class)."""
    parts = symbol.split(".")
    return f"{parts[0]}.{parts[-2]}.{parts[-1]}" if len(parts) >= 3 and parts[-2][:1].isupper() else ""


def _frozen(lists: dict[str, list]) -> dict[str, tuple]:
    return {key: tuple(values) for key, values in lists.items()}
