"""String values a change does away with (issue #38: "an argument value such as a string alias"): read from the
summary, the keywords that carry them learned from the product's examples, hit in calls. Neutral product (acme)."""

from __future__ import annotations

from pathlib import Path

from assistant.index.catalog import Catalog
from assistant.model.document import Entry
from assistant.upgrade.literals import matched, new_values, old_values, value_keywords
from assistant.upgrade.plan import make_plan
from assistant.upgrade.scan import scan
from assistant.upgrade.targeting import targets
from tests.test_changes_plan import chunk


def test_the_values_a_summary_does_away_with_and_those_it_gives_instead() -> None:
    summary = "Deprecated strings `T`, `t`, `L` and `l` denoting units in `span` in favour of `min` and `ms`"
    assert old_values(summary) == ("T", "t", "L", "l")
    assert new_values(summary) == ("min", "ms")
    assert old_values("offsets: `MonthEnd` — deprecated aliases: `M` — new aliases: `ME`") == ("M",)
    assert old_values("Deprecated string `A` denoting frequency in `YearEnd` and strings `A-DEC`, etc. denoting") == (
        "A",
        "A-DEC",
    )
    # names, not values: "instead of `H`" lists what a method returned
    assert old_values("Changed `Span.resolution` to return `h` instead of `H`") == ()
    assert old_values("Removed `Frame.append`, use `concat` instead") == ()


def test_a_value_in_code_is_matched_with_its_count_and_anchor() -> None:
    assert matched("30T", ["T"]) == ("T", True)
    assert matched("Q-NOV", ["Q"]) == ("Q", False)
    assert matched("QE-NOV", ["Q"]) is None
    assert matched("D", ["d"]) is None  # the case is the value's
    assert matched("not a value", ["T"]) is None


def test_the_keywords_that_carry_values_are_learned_from_the_examples() -> None:
    codes = ["acme.span('2020', periods=3, freq='QE-NOV')", ">>> acme.stamp(0, unit='s')", "f(how='X', mode=T)"]
    assert value_keywords(codes, {"Q", "QE", "T"}) == ("freq",)  # "s" and "X" are none of the values; `T` a name
    assert value_keywords(["def (:"], {"Q"}) == ()


def test_a_value_is_hit_by_a_learned_keyword_or_in_the_function_the_change_names(tmp_path: Path) -> None:
    notes = [
        chunk(
            Entry("item", "Deprecated strings `T` and `L` denoting units in `span` (GH 1)"),
            Entry("item", "Deprecated aliases `M` and `Q`, etc. in favour of `ME` and `QE` for offsets (GH 2)"),
            version="2.0.0",
        ),
        chunk(Entry("code", "acme.frame(periods=3, freq='ME')"), section="Examples", version="1.0.0", n=1),
    ]
    plan = make_plan(notes, Catalog.learn(notes), "1.0", "2.0", "acme")
    assert plan.value_keywords == ("freq",)
    code = (
        "import acme\n"
        "acme.span(x, unit='T')\n"  # 2: the function the change names, any argument
        "acme.span(x, 'L')\n"  # 3: by position there too
        "acme.frame(freq='M')\n"  # 4: the keyword the examples pass values to
        "table.resample(rule='30T')\n"  # 5: a keyword no example passes: nothing
        "exchange.limit('1d')\n"  # 6: a project's own value, by position: nothing
        "acme.frame(freq='ME')\n"  # 7: the new alias
        "import numpy as np\n"
        "np.datetime64('2020', 'M')\n"  # 9: another library's call
        "s.split('T')\n"
    )
    (tmp_path / "m.py").write_text(code)
    report = scan([tmp_path], targets(plan))
    assert [(f.line, f.symbol, f.exact) for f in report.findings] == [
        (2, "span(unit='T')", True),
        (3, "span('L')", True),
        (4, "acme(freq='M')", True),  # the values of no named class: the product's
    ]
    # A module that does not import the product passes its own values.
    (tmp_path / "m.py").write_text("acme_frame(freq='M')\nx.frame(freq='M')\n")
    assert scan([tmp_path], targets(plan)).findings == ()
