"""What the scan looks for: one change's code name, as a `Target`. Apart from the scan itself so that the plan
(which makes targets) and the scan's visitor (which matches them) import it without loading each other."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Target:
    """What one change names, as the scan matches it."""

    change: str  # the change's id (opaque to the scan)
    symbol: str  # fully qualified: a module ("torch.ao.quantization"), a callable, a class's member
    parameter: str = ""  # set when the change is about one parameter of `symbol` (a callable): "trust_repo"
    omitted: bool = False  # with `parameter`: a changed default, so calls that do NOT pass it are hit
    # The class `symbol` is a member of, when the docs say so by writing it as one (`ndarray.newbyteorder`,
    # `session.query`): uses on receivers of unknown type are then possible hits. A last-but-one part that
    # starts with a capital (`pandas.DataFrame.append`) is taken for a class without it.
    member_of: str = ""
    # Whether importing it is a hit: not for a deprecated name, which still imports; its uses are the hits.
    at_import: bool = True
    # Whether a use of its member name on a receiver of unknown type is worth a possible hit: not when the docs
    # name the same member of another class that did not change so (`DataFrame.fillna` beside `Resample.fillna`).
    guess: bool = True
    positional: int = -1  # a call form: calls passing more arguments by position than this are hit
    # Call forms its docs' examples mark as old ("list": a list as first argument; "kw=values"): only calls in one
    # of them are hit, wherever the product's module (`family`) the code calls it from (`select` is re-exported).
    forms: tuple[str, ...] = ()
    # The product's import names ("sqlalchemy"): what a module must import for a guess at the target, as its
    # symbol may not say (`ndarray.newbyteorder`); the symbol's first part when empty.
    family: tuple[str, ...] = ()
    # A setting ("The `USE_L10N` setting is removed", "config settings renamed: `orm_mode` → …"): also hit where
    # the code sets it, at a module's top level or in the body of a class derived from the product's.
    setting: bool = False
    # Whether the change says the name itself goes (removed, deprecated, renamed: "Removed `x`", a row from `x` to
    # `y`), not that it behaves otherwise or that one of its arguments goes ("Copy keyword: `x`"): a name so gone
    # that no everyday word spells tells its class on a receiver of unknown type (`lookup.Member.telling`).
    gone: bool = False
    # String values the change does away with ("T", "A-DEC": `assistant.upgrade.literals`): only calls passing one
    # are hit, by one of `keywords` (those the docs' examples pass such values to), or by position with a count
    # ("30T"); `symbol` is then what the values denote (`pandas.Minute`), for the finding.
    values: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    # A member the docs write bare, of no class or module they name ("Deprecate `export_memory_timeline` method"):
    # `symbol` is only the product's name and the member's; hit by its name as any attribute, when it tells it.
    loose: bool = False
    # A class the docs say a subclass of the product's class defines in its body ("a class called `Config` in the
    # namespace of the parent `BaseModel` subclass is deprecated"): `symbol` is that class's and the nested name
    # ("pydantic.BaseModel.Config"); hit where a class derived from the product's defines it.
    nested: bool = False
    # Made from the releases' code (`assistant.upgrade.code_plan`), not the docs: scanned in a pass of its own, so
    # that the hundreds of members a code diff names do not change what the docs' names tell of a receiver
    # (which members are telling, which classes targets are members of: `assistant.upgrade.lookup`).
    from_code: bool = False

    @property
    def modules(self) -> tuple[str, ...]:
        """The product's import names, what a module must import for a guess at the target: `family`, else the
        symbol's first part (a target made by hand)."""
        return self.family or tuple(self.symbol.split(".")[:1])

    @property
    def qualified(self) -> bool:
        """Only calls that meet a qualifier are hit (a parameter passed or omitted, arguments by position)."""
        return bool(self.parameter) or self.positional >= 0 or bool(self.forms)

    def __post_init__(self) -> None:
        if not all(part.isidentifier() for part in self.symbol.split(".")):
            raise ValueError(f"not a dotted name: {self.symbol!r}")
        if self.parameter and not self.parameter.isidentifier():
            raise ValueError(f"not a parameter name: {self.parameter!r}")
        if self.omitted and not self.parameter:
            raise ValueError("`omitted` needs a `parameter`")
