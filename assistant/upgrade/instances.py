"""What an instance's attribute and a call's result hold: the receivers beyond a plain name that the scan follows.

`self.engine` after `self.engine = create_engine(url)` in a method of the class holds what `create_engine` returns,
so `self.engine.execute(q)` is `Engine.execute`, in any method of that class; `session.query(User)` holds what
`Session.query` returns, so `session.query(User).join(…)` is `Query.join`. An attribute of the method's first
parameter (`self`, `cls`, whatever its name) is typed like a local name (`assistant.upgrade.receivers`): by every
binding of it in the class's body and methods, and in those of the classes of the module it derives from or that
derive from it (an instance of a subclass runs the base's methods); all must agree (flow-insensitive, as for a
name), `None` aside (`self.engine = None` until it is set: no member is read on `None`). A binding types it by
a constructor or the module's own class derived from a product's (`Foo(…)`), an annotation (`self.engine: Engine`,
or `engine: Engine` in the class body), a typed name or attribute (`self.engine = engine` for `engine: Engine`),
or a call whose result is known; a rebinding from a method of itself (`self.df = self.df.dropna()`) keeps the type.
A call's result is known when it constructs a class, when the product's annotations say what the function or the
typed receiver's method returns (`ApiDiff.returns`, asked through `Ask`), or when the module rebinds a name or
attribute of that class from the same method (`query = query.filter(…)`: `filter` returns a `Query`; a fluent
method keeps the type). Anything else, an attribute of a plain name (`obj.engine`), a tuple's part, a property,
leaves it unknown.

Written by hand over the same walk as `assistant.upgrade.receivers`: type checkers do this (mypy, pyright), but
need the product installed and run far beyond the scan's budget.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping

from assistant.upgrade.names import Scopes

SAME = "="  # a rebinding from a method of the thing itself: it keeps whatever type the others give
_NEUTRAL = "None"  # `self.x = None`: agrees with any other binding
_UNKNOWN = ("", None)  # a binding the scan cannot type: a tuple's part, `+=`, a loop's target


class Attributes:
    """A module's attribute bindings and reads on plain names (`self.x = …`, `self.x`), its class bodies' names,
    and the calls whose result a member is read on (`f(…).x`), collected by `assistant.upgrade.receivers`' walk."""

    def __init__(self) -> None:
        # each attribute bound on a name: how ("value", "type" for an annotation, "" unknown) and from what
        self.stores: dict[ast.Attribute, tuple[str, ast.expr | None]] = {}
        self.body: list[tuple[str, str, str, ast.expr | None]] = []  # class, name, how, what: set in a class body
        self.loads: list[ast.Attribute] = []  # attributes read on a name
        self.receivers: list[ast.Call] = []  # calls a member is read on

    def attribute(self, node: ast.Attribute) -> None:
        """An attribute node of the walk: a read or a binding on a name, or a member of a call's result."""
        if isinstance(node.value, ast.Name):
            if isinstance(node.ctx, ast.Store):
                self.stores.setdefault(node, _UNKNOWN)  # bound some way no statement below says
            elif isinstance(node.ctx, ast.Load):
                self.loads.append(node)
        elif isinstance(node.value, ast.Call):
            self.receivers.append(node.value)

    def bind(self, targets: Iterable[ast.expr], how: str, what: ast.expr | None, owner: str | None) -> None:
        """An assignment's (or annotation's, or `with`'s) targets; `owner` is the class whose body it is in."""
        for target in targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                self.stores[target] = (how, what)
            elif isinstance(target, ast.Name) and owner is not None:
                self.body.append((owner, target.id, how, what))


class Held:
    """Types the attributes of `self` and the calls a member is read on, given what is known of plain names."""

    def __init__(
        self,
        attributes: Attributes,
        scopes: Scopes,
        own: Mapping[ast.arg, str],
        bases: Mapping[str, list[ast.expr]],
        constructed: Callable[[ast.expr], str | None],
        returned: Callable[[str, str], str | None],
        expression: Callable[[ast.expr, Mapping[ast.expr, str]], str | None],
    ) -> None:
        """`constructed` gives the class a called or annotated expression names; `returned` what a call (its
        expression, and the member name whose result is read: `Ask`) returns; `expression` a called
        expression's (`pandas.read_csv`, `pandas.DataFrame().groupby`) given the typed receivers."""
        self.constructed, self.returned, self.expression = constructed, returned, expression
        family = _families(bases)
        self.bindings: dict[tuple[str, str], list[tuple[str, ast.expr | None]]] = defaultdict(list)
        self.reads: dict[tuple[str, str], list[ast.Attribute]] = defaultdict(list)
        self.key: dict[ast.Attribute, tuple[str, str]] = {}
        for node, how in attributes.stores.items():
            owner = _owner(node, scopes, own)
            if owner is not None:
                self.key[node] = (family.get(owner, owner), node.attr)
                self.bindings[self.key[node]].append(how)
        for owner, name, how_, what in attributes.body:
            # a value set in the class body may be a descriptor (`id = Column(Integer)`): what an instance reads
            # through it is another thing; an annotation (`engine: Engine`) says what the instance holds
            plain = how_ == "type" or (isinstance(what, ast.Constant) and what.value is None)
            self.bindings[(family.get(owner, owner), name)].append((how_, what) if plain else _UNKNOWN)
        bound = {attr for _, attr in self.bindings}
        for node in attributes.loads:
            if node.attr not in bound:  # `np.array`, `os.path`: most reads are of modules, none bound here
                continue
            owner = _owner(node, scopes, own)
            if owner is not None:
                self.key[node] = (family.get(owner, owner), node.attr)
                self.reads[self.key[node]].append(node)
        self.receivers = attributes.receivers

    def types(self, names: Mapping[ast.expr, str], fluent: set[tuple[str, str]]) -> dict[ast.expr, str]:
        """The class each read of `self.x` and each call a member is read on holds, where known, given the
        typed names and the (class, method) pairs known to return their own class."""
        typed: dict[ast.expr, str] = dict(names)
        if not self.reads and not self.receivers:
            return typed
        for _ in range(2):  # once more: an attribute bound from another's method (`self.conn = self.engine.connect()`)
            memo: dict[ast.Call, str | None] = {}
            for key, bindings in self.bindings.items():
                reads = self.reads.get(key)
                if not reads:
                    continue
                found = {self._binding(how, what, key, typed, memo, fluent) for how, what in bindings}
                found -= {SAME, _NEUTRAL}
                if len(found) == 1 and None not in found:
                    cls = found.pop()
                    typed.update((node, cls) for node in reads)  # type: ignore[misc]
                    fluent.update((cls, m) for how, what in bindings if (m := _same(what, key, self.key)))  # type: ignore[arg-type]
            for call in self.receivers:
                if (cls := self._result(call, typed, memo, fluent)) is not None:
                    typed[call] = cls
        return typed

    def _binding(
        self,
        how: str,
        what: ast.expr | None,
        key: tuple[str, str],
        typed: Mapping[ast.expr, str],
        memo: dict[ast.Call, str | None],
        fluent: set[tuple[str, str]],
    ) -> str | None:
        if how == "type":
            return self.constructed(what) if what is not None else None
        if how != "value" or what is None:
            return None
        if isinstance(what, ast.Constant) and what.value is None:
            return _NEUTRAL
        if isinstance(what, (ast.Name, ast.Attribute)):
            return typed.get(what)
        if isinstance(what, ast.Call):
            if _same(what, key, self.key):
                return SAME
            return self._result(what, typed, memo, fluent)
        return None

    def _result(
        self,
        call: ast.Call,
        typed: Mapping[ast.expr, str],
        memo: dict[ast.Call, str | None],
        fluent: set[tuple[str, str]],
    ) -> str | None:
        """What a call returns, its chain's inner calls first (iterative: a chain may be thousands of calls long)."""
        if call in typed:  # `super()`
            return typed[call]
        chain: list[ast.Call] = []
        node: ast.expr | None = call
        while isinstance(node, ast.Call) and node not in memo and node not in typed:
            chain.append(node)
            node = node.func.value if isinstance(node.func, ast.Attribute) else None
        for link in reversed(chain):
            memo[link] = self._one(link, typed, memo, fluent)
        return memo[call]

    def _one(
        self,
        call: ast.Call,
        typed: Mapping[ast.expr, str],
        memo: Mapping[ast.Call, str | None],
        fluent: set[tuple[str, str]],
    ) -> str | None:
        func = call.func
        found = self.constructed(func)
        if found is not None:
            return found
        if isinstance(func, ast.Attribute):
            receiver = func.value
            cls = typed.get(receiver) or memo.get(receiver)  # type: ignore[call-overload]
            if cls is not None:
                return cls if (cls, func.attr) in fluent else self.returned(f"{cls}().{func.attr}", func.attr)
        called = self.expression(func, typed)
        if called is None:
            return None
        return self.returned(called, func.attr if isinstance(func, ast.Attribute) else called.rsplit(".", 1)[-1])


def held_chain(node: ast.expr, types: Mapping[ast.expr, str]) -> list[ast.expr] | None:
    """The longest part of an attribute chain that holds a known class (`self.engine`, `create_engine(url)`), then
    each attribute read on it (`[self.engine, .execute]`); None where no part does."""
    attributes: list[ast.expr] = []
    while isinstance(node, ast.Attribute):
        attributes.append(node)
        node = node.value
        if node in types:
            return [node, *reversed(attributes)]
    return None


def _same(what: ast.expr | None, key: tuple[str, str], keys: Mapping[ast.Attribute, tuple[str, str]]) -> str | None:
    """The method's name, where a value is a call of a method of the attribute itself (`self.df.dropna()`)."""
    func = what.func if isinstance(what, ast.Call) else None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute) and keys.get(func.value) == key:
        return func.attr
    return None


def _owner(node: ast.Attribute, scopes: Scopes, own: Mapping[ast.arg, str]) -> str | None:
    """The class whose instance (or class) `node` is an attribute of: its value is a method's first parameter."""
    bindings = scopes.accesses.get(node.value)  # type: ignore[arg-type]
    if bindings and len(bindings) == 1 and isinstance(bindings[0], ast.arg):
        return own.get(bindings[0])
    return None


def _families(bases: Mapping[str, list[ast.expr]]) -> dict[str, str]:
    """Each class of the module -> one name for it and every class of the module it derives from or that derives
    from it, by name: their instances share attributes."""
    root: dict[str, str] = {}

    def find(name: str) -> str:
        while root.get(name, name) != name:
            name = root[name]
        return name

    for name, written in bases.items():
        for base in written:
            if isinstance(base, ast.Name) and base.id in bases and find(base.id) != find(name):
                root[find(name)] = find(base.id)
    return {name: find(name) for name in bases}
