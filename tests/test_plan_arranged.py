"""A plan a person can act on (`assistant/upgrade/arrange.py`, the renderers): the changes the code hits first,
each with its lines and fix, then what breaks, then deprecations, new features only when asked; one entry per
table of dependency versions; a change hits names only where it is about them; Markdown that renders, and stays
safe, for hostile docs. Neutral products (acme); the five-line pandas script runs over ../shared/corpus-more."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant.index.catalog import Catalog
from assistant.model.document import Entry
from assistant.model.records import Chunk
from assistant.upgrade.arrange import arrange
from assistant.upgrade.plan import make_plan
from assistant.upgrade.scan import scan, scan_source
from assistant.upgrade.subjects import names_itself
from assistant.upgrade.targeting import targets
from ingest.chunking import chunk_document
from ingest.loader import load_document
from interfaces.sarif import plan_sarif
from interfaces.upgrade_render import md, plan_json, plan_markdown, plan_text
from tests.test_changes_plan import chunk

SHARED_MORE = Path(__file__).resolve().parents[2] / "shared" / "corpus-more"
FIVE_LINES = """import pandas as pd
df = pd.DataFrame({"a": [1, None]})
df = df.append({"a": 2}, ignore_index=True)
s = df["a"].fillna(method="ffill")
m = df.applymap(str)
"""


def corpus() -> list[Chunk]:
    item = lambda text: Entry("item", text)  # noqa: E731
    return [
        chunk(item("Added `acme.fast()`."), section="New features", version="2.0.0", n=1),
        chunk(
            item("Removed `acme.gone()`; use `acme.new()` instead."),
            item("Changed behavior of `acme.load()` when the file is empty."),
            section="Removals and backwards incompatible changes",
            version="2.0.0",
            n=2,
        ),
        chunk(
            item("`acme.old()` is deprecated; use `acme.new()`."),
            item("`acme.older()` is deprecated."),
            section="Deprecations",
            version="2.0.0",
            n=3,
        ),
        chunk(
            Entry("row", "Package: numpy — Minimum Version: 1.22.4 — Changed: X"),
            Entry("row", "Package: pytz — Minimum Version: 2020.1 — Changed: X"),
            section="Backwards incompatible changes › Increased minimum versions for dependencies",
            version="2.0.0",
            n=4,
        ),
    ]


def test_hits_first_then_what_breaks_then_deprecations_and_new_only_when_asked() -> None:
    chunks = corpus()
    plan = make_plan(chunks, Catalog.learn(chunks), "1.0", "2.0", "acme")
    report = scan_source("import acme\nacme.old(1)\nacme.load('x')\n", targets(plan), filename="m.py")
    sections = arrange(plan, report.findings)
    assert [s.kind for s in sections] == ["hits", "breaks", "deprecations"]
    assert [e.change.summary for e in sections[0].entries] == ["`acme.old()` is deprecated; use `acme.new()`."]
    assert [f.line for f in sections[0].entries[0].findings] == [2]  # `acme.load` changed only under a condition
    assert "new" in [s.kind for s in arrange(plan, report.findings, include_new=True)]
    text = plan_text(plan, report.findings)
    assert text.index("== Your code") < text.index("== What breaks") < text.index("== Deprecations")
    assert "Added `acme.fast()`" not in text and "1 new feature not shown" in text
    data = json.loads(plan_json(plan, report.findings))
    assert [s["kind"] for s in data["sections"]] == ["hits", "breaks", "deprecations"]
    assert data["changes"][0]["hits"] == 1 and data["findings"][0]["line"] == 2
    markdown = plan_markdown(plan, report.findings)
    assert markdown.index("### Your code") < markdown.index("### What breaks")


def test_a_table_of_dependency_versions_is_one_entry_naming_them() -> None:
    chunks = corpus()
    plan = make_plan(chunks, Catalog.learn(chunks), "1.0", "2.0", "acme")
    tables = [c for c in plan.changes if "minimum versions" in c.summary]
    assert [c.summary for c in tables] == ["Increased minimum versions for dependencies: numpy 1.22.4, pytz 2020.1"]


@pytest.mark.parametrize(
    ("symbol", "summary", "itself"),
    [
        ("acme.Gone", "Removed `Gone`", True),
        ("acme.Gone", "Removed the deprecated `Gone` class (GH 1)", True),
        ("acme.A.b", "The `A.b()` method is removed.", True),
        ("acme.a", "`a`, `b` and `c` were removed", True),
        ("acme.a", "Removed in Acme 2: `acme.a`", True),
        ("acme.a", "`a` — this has been removed.", True),
        ("acme.a", "Migrate calls from `acme.a(...)` to `acme.b(...)`.", True),
        ("acme.load", "`load()` now returns a list.", True),
        ("acme.f", "The Foo flow (`acme.f` and `acme.g`) has been removed.", True),
        ("acme.Meta.order", "The model's `Meta.order` option is removed.", True),
        ("acme.Gen", "The `acme.Gen` class is no longer necessary, and has been removed.", True),
        ("acme.hook", "`hook` should be replaced with `new_hook`.", True),
        ("acme.opt", "`opt` is no longer required", False),  # optional now: every use still works
        ("acme.tz.utc", "The `acme.tz.utc` alias to `datetime.timezone.utc` is removed.", True),
        ("acme.inline_mods", "The `inline_mods` Dynamo config is deprecated", True),
        ("acme.NotFound", "The `acme.NotFound` exception class is removed.", True),
        ("acme.axis", "The `axis` keyword in `Frame.any` is removed", False),  # of a call, not a name
        ("acme.Frame", "Changed behavior of the `Frame` constructor given floats", False),
        ("acme.Frame", "The `Series` and `Frame` constructors will now return a copy", False),
        ("acme.concat", "`concat` no longer ignores empty objects when determining dtypes", False),
        ("acme.to_dt", "`to_dt` with `unit` of Y will now raise if a value is out of range", False),
        ("acme.Series", "`Series.dt.to_py` now returns a `Series`", False),
        ("acme.read", "`read`: an incorrect number of columns now raises", False),
    ],
)
def test_a_change_is_about_a_name_itself_only_where_it_says_so(symbol: str, summary: str, itself: bool) -> None:
    assert names_itself(symbol, summary) is itself


def test_markdown_keeps_code_spans_and_safe_links_and_escapes_the_rest() -> None:
    text = "Use `df.map` (see [the guide](https://x.example/a)); <img src=x> [bad](javascript:alert(1)) a*b"
    out = md(text)
    assert "`df.map`" in out and "\\`" not in out  # a code span renders as code, not as literal backticks
    assert "[the guide](https://x.example/a)" in out
    assert "\\<img src=x\\>" in out and "\\[bad\\]" in out and "a\\*b" in out


@pytest.mark.slow  # a plan over all of ../shared/corpus-more's pandas notes, and every format rendered
@pytest.mark.skipif(not (SHARED_MORE / "pandas").is_dir(), reason="../shared/corpus-more is absent")
def test_the_five_line_script_is_hit_on_lines_3_4_and_5_first_in_every_format(tmp_path: Path) -> None:
    chunks = [
        c
        for path in sorted((SHARED_MORE / "pandas").rglob("*"))
        if path.is_file()
        for c in chunk_document(load_document(path, SHARED_MORE))
    ]
    plan = make_plan(chunks, Catalog.learn(chunks), "1.5", "3.0", "pandas")
    script = tmp_path / "five.py"
    script.write_text(FIVE_LINES, encoding="utf-8")
    report = scan([script], targets(plan))
    assert sorted({f.line for f in report.findings if f.exact}) == [3, 4, 5]
    assert not [f for f in report.findings if not f.exact and f.line not in (3, 4, 5)]
    hit = arrange(plan, report.findings)[0]
    assert hit.kind == "hits"
    fixes = {f.line: e.change.replacement for e in hit.entries for f in e.findings if f.exact}
    assert fixes[3] == "pandas.concat" and fixes[5] == "pandas.DataFrame.map" and fixes[4]  # `ffill()`/`bfill()`
    text = plan_text(plan, report.findings)
    first = text.split("== What breaks")[0]
    assert all("five.py" in first and f"      {n}:" in first for n in (3, 4, 5))
    markdown = plan_markdown(plan, report.findings)
    assert markdown.split("### ")[1].startswith("Your code") and "five.py:3:" in markdown.split("### ")[1]
    data = json.loads(plan_json(plan, report.findings))
    assert data["sections"][0]["kind"] == "hits" and {f["line"] for f in data["findings"][:3]} <= {3, 4, 5}
    sarif = json.loads(plan_sarif(plan, report.findings))
    assert {r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in sarif["runs"][0]["results"]} == {
        3,
        4,
        5,
    }


def test_intro_items_fixes_and_old_call_forms_are_read_from_the_entries() -> None:
    renamed = chunk(
        Entry("item", "The following config settings have been renamed:"),
        Entry("item", "`orm_mode` → `from_attributes`"),
        section="Changes to config",
        version="2.0.0",
        n=1,
    )
    change = renamed.changes[-1]  # the item's, after the one the introducing item announces itself
    assert change.symbols == ("orm_mode",) and change.replacement == "from_attributes"
    removed_from = chunk(
        Entry("item", "The `is_dst` argument is removed from:"),
        Entry("item", "`acme.make_aware()`"),
        section="Features removed in 2.0",
        version="2.0.0",
        n=2,
    )
    change = removed_from.changes[-1]
    assert (change.symbols, change.parameter) == (("acme.make_aware",), "is_dst")
    guide = chunk(
        Entry("item", "Updated the minimum compiler. Source builds must update the toolchain flags."),
        Entry("paragraph", "Nothing else changes for wheels."),
        section="Backwards incompatible changes",
        version="2.0.0",
        n=3,
    )
    assert guide.changes[0].fix == "Source builds must update the toolchain flags."
    forms = chunk(
        Entry("paragraph", "The `acme.select` construct no longer accepts keyword arguments."),
        Entry(
            "code",
            "# no longer supported\nstmt = select([t], order_by=t.id)\n\n# use generative methods\n"
            "stmt = select(t).order_by(t.id)",
        ),
        section="Core › select() no longer accepts varied constructor arguments",
        version="2.0.0",
        n=4,
    )
    assert set(forms.changes[0].forms) >= {"select:list", "select:kw=order_by"}
