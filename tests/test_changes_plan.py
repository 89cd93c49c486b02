"""Change entries from release docs (ingest.changes) and the upgrade plan made of them (assistant.upgrade.plan):
kinds from sections first and wording second, symbols, parameters and replacements, release order, one line
for a change announced twice, and plans between releases that are not indexed (no model, no index)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from assistant.index.catalog import Catalog
from assistant.model.changes import Change, dumps, loads
from assistant.model.document import Entry
from assistant.model.records import Chunk
from assistant.upgrade.plan import PlanError, make_plan, qualify
from assistant.upgrade.subjects import subjects
from assistant.upgrade.targeting import targets
from ingest.changes import changes_of
from ingest.chunking import chunk_document
from ingest.loader import load_document

SHARED_MORE = Path(__file__).resolve().parents[2] / "shared" / "corpus-more"


def chunk(
    *entries: Entry, section: str = "Deprecations", version: str = "1.1.0", product: str = "acme", n: int = 0
) -> Chunk:
    text = "\n".join(e.text for e in entries)
    source = f"{product}/{version}/notes.md"
    chunk = Chunk(f"c{n}-{version}", text, source, "Acme notes", product, version, "release-notes", section, "en", "")
    from dataclasses import replace

    chunk = replace(chunk, entries=entries)
    return replace(chunk, changes=changes_of(chunk))


def item(text: str) -> Entry:
    return Entry("item", text)


@pytest.mark.parametrize(
    ("section", "text", "kind"),
    [
        ("Deprecations", "`acme.old()` is deprecated.", "deprecated"),
        ("Removal of prior version deprecations/changes", "Enforced deprecation of `acme.old()`.", "removed"),
        ("Features removed in 5.0", "The `acme.old` module.", "removed"),
        ("Backwards incompatible API changes", "`acme.load()` now returns a list.", "breaking"),
        ("What's new in Acme 2.0", "Added `acme.fast()`.", "new"),
        ("Other API changes", "Removed `acme.old()`.", "removed"),  # the section says nothing: the wording does
        ("Other API changes", "Deprecated `acme.old()`.", "deprecated"),
        ("Other API changes", "`acme.load()` now defaults to `lazy=True`.", "behaviour"),
        # a changelog's imperative, of code or support: what it does comes first ("Remove deprecated …")
        ("Merged PRs", "Remove deprecated function acme.info (#5759)", "removed"),
        ("ONNX", "Remove `LegacyStrategy` (#145442)", "removed"),  # read as "ONNX: Remove …"
        ("Merged PRs", "Expire d_separated and minimum_d_separator functions (#7830)", "removed"),
        ("Deprecated code", "The functions `read_pickle` and `write_pickle` were removed in 3.0.", "removed"),
    ],
)
def test_kind_from_the_section_first_and_the_wording_second(section: str, text: str, kind: str) -> None:
    (change,) = chunk(item(text), section=section).changes
    assert change.kind == kind


@pytest.mark.parametrize(
    "text",
    [
        "Remove reference cycle in `acme.save` to improve memory usage (#165204)",  # no code removed
        "Remove `offset` parameter from `filters.threshold` docstring (#2566)",  # its docs
        "Remove gdal dependency (#5766)",
    ],
)
def test_an_imperative_that_removes_no_code_is_no_removal(text: str) -> None:
    assert [c.kind for c in chunk(item(text), section="Merged PRs").changes] in ([], ["behaviour"])


def test_a_changelog_line_that_marks_no_code_names_it_as_it_writes_it() -> None:
    (change,) = chunk(item("Remove to_numpy_matrix & from_numpy_matrix (#5746)"), section="Merged PRs").changes
    assert change.symbols == ("to_numpy_matrix", "from_numpy_matrix")
    (change,) = chunk(item("Removed acme.templates, not setup.py (see https://x.org/a_b)"), section="Other").changes
    assert change.symbols == ("acme.templates",)  # no file name, no link


def test_bug_fixes_and_performance_announce_no_change() -> None:
    assert chunk(item("Removed a crash in `acme.load()`."), section="Bug fixes").changes == ()
    assert chunk(item("`acme.load()` is faster."), section="Performance improvements").changes == ()
    # the project's own upkeep: "Use `numpy.inf` instead of deprecated `numpy.infty`" is nothing of the reader's
    upkeep = item("Use `numpy.inf` instead of deprecated `numpy.infty`.")
    assert chunk(upkeep, section="Development related updates › Maintenance").changes == ()
    assert chunk(upkeep, section="Infrastructure").changes == ()


def test_symbols_parameter_default_and_replacement() -> None:
    deprecated, default, replaced = chunk(
        item("The `verbose` parameter of `ReduceLROnPlateau` is deprecated."),
        item("The default of the `strict` argument of `acme.export()` changed to `False`."),
        item("`acme.old_func()` is deprecated in favour of `acme.new_func()`."),
    ).changes
    assert (deprecated.symbols[0], deprecated.parameter, deprecated.default_changed) == (
        "ReduceLROnPlateau",
        "verbose",
        False,
    )
    assert (default.symbols[0], default.parameter, default.default_changed) == ("acme.export", "strict", True)
    assert replaced.symbols == ("acme.old_func",) and replaced.replacement == "acme.new_func"
    # the verb between the parameter and its callable
    removed, was = chunk(
        item("Parameter `as_grey` has been removed from `acme.data.load`."),
        item("Parameter `multi_class` was deprecated in `linear.Regression` and `linear.RegressionCV`."),
    ).changes
    assert (removed.symbols[0], removed.parameter) == ("acme.data.load", "as_grey")
    assert (was.symbols[0], was.parameter) == ("linear.Regression", "multi_class")


def test_a_parameter_and_its_callable_however_the_sentence_orders_them() -> None:
    found = chunk(
        item("Remove deprecated parameter `array` in favor of `image` from `acme.measure.contours`."),
        item("The `estimator_name` parameter is deprecated in favour of `name` in `acme.Display`."),
        item("`acme.loss` deprecated the keyword argument `y_prob` in favor of `y_proba`."),
        item("`acme.Chain` deprecated the `base_estimator` parameter in favor of `estimator`."),
        item("In `acme.morphology.holes`, deprecate the `area_threshold` parameter in favor of `max_size`."),
        item("`acme.transform` and `acme.Map.rotate` no longer accepts the `use_scipy` keyword."),
        section="Deprecations",
    ).changes
    assert [(c.symbols[0], c.parameter) for c in found] == [
        ("acme.measure.contours", "array"),
        ("acme.Display", "estimator_name"),
        ("acme.loss", "y_prob"),
        ("acme.Chain", "base_estimator"),
        ("acme.morphology.holes", "area_threshold"),
        ("acme.transform", "use_scipy"),
    ]
    # American and British spelling alike name what replaces it
    favor, favour = chunk(
        item("`acme.old_name()` is deprecated in favor of `acme.new_name()`."),
        item("`acme.old_func()` is deprecated in favour of `acme.new_func()`."),
        section="Deprecations",
    ).changes
    assert (favor.replacement, favour.replacement) == ("acme.new_name", "acme.new_func")


def test_a_table_row_names_the_old_and_the_new() -> None:
    row = Entry("row", "Pydantic V1: `construct()` — Pydantic V2: `model_construct()`")
    (change,) = chunk(row, section="Migration guide › Changes to pydantic.BaseModel").changes
    # The section names the class: its rows are that class's members.
    assert change.symbols == ("pydantic.BaseModel.construct",)
    assert change.replacement == "pydantic.BaseModel.model_construct"


def test_a_heading_that_states_a_change_is_one_change() -> None:
    body = Entry("paragraph", "Use `acme.graph.walk()` instead.")
    section = "Backwards Incompatible Changes › acme.graph.get_nodes is no longer public (#141612)"
    (change,) = chunk(body, section=section).changes
    assert change.kind == "removed" or change.kind == "breaking"
    assert change.summary.startswith("acme.graph.get_nodes is no longer public")
    assert change.replacement == "acme.graph.walk"


def test_short_items_are_read_with_their_introduction() -> None:
    intro = Entry("paragraph", "The following properties have been removed from `Field`:")
    (change,) = chunk(intro, item("`min_items` (use `min_length` instead)"), section="Migration guide").changes
    assert change.kind == "removed" and change.summary.startswith("The following properties have been removed")
    assert (change.symbols[0], change.parameter, change.replacement) == ("Field", "min_items", "min_length")


def test_an_item_saying_nothing_itself_is_read_with_its_introduction_however_long() -> None:
    intro = Entry("paragraph", "The following config settings have been renamed:")
    long_item = item("`allow_population_by_field_name` → `populate_by_name` (or `validate_by_name` from 2.11 on)")
    (change,) = chunk(intro, long_item, section="Migration guide").changes
    assert change.kind == "behaviour" and change.summary.startswith("The following config settings have been renamed")
    assert change.replacement == "populate_by_name"


def test_changes_survive_the_store_round_trip() -> None:
    changes = (Change("removed", "Removed `a.b`.", ("a.b",), "a.c", "p", True, 3), Change("new", "Added x."))
    assert loads(dumps(changes)) == changes
    assert loads("not json") == () and loads("") == ()


# -- the plan ---------------------------------------------------------------------------------------------


def corpus() -> list[Chunk]:
    return [
        chunk(item("`acme.old_func()` is deprecated; use `acme.new_func()` instead."), version="1.1.0", n=1),
        chunk(item("Added `acme.fast()`."), section="New features", version="1.1.0", n=2),
        chunk(
            item("Removed `acme.old_func()`; use `acme.new_func()` instead."),
            item("`acme.load()` now returns a list."),
            section="Backwards incompatible changes",
            version="2.0.0",
            n=3,
        ),
        chunk(item("Removed `acme.gone()`."), section="Removals", version="3.0.0", n=4),
        chunk(item("Removed `other.thing()`."), section="Removals", version="2.0.0", product="other", n=5),
    ]


def test_plan_in_release_order_breaking_first_and_a_change_announced_twice_is_one_line() -> None:
    chunks = corpus()
    plan = make_plan(chunks, Catalog.learn(chunks), "1.0", "2.0", "acme")
    assert plan.product == "acme" and plan.versions == ("1.1.0", "2.0.0")
    summaries = [(c.version, c.kind, c.summary) for c in plan.changes]
    assert summaries == [
        ("1.1.0", "new", "Added `acme.fast()`."),
        ("2.0.0", "breaking", "`acme.load()` now returns a list."),
        ("2.0.0", "removed", "Removed `acme.old_func()`; use `acme.new_func()` instead."),
    ]
    removed = plan.changes[-1]
    assert [c.version for c in removed.citations] == ["1.1.0", "2.0.0"]  # deprecated, then removed: one line
    assert removed.citation.source == "acme/2.0.0/notes.md" and removed.replacement == "acme.new_func"
    assert "acme.gone" not in str(plan) and "other.thing" not in str(plan)  # after `to`; another product


def test_plan_from_a_release_that_is_not_indexed_and_bad_requests() -> None:
    chunks = corpus()
    catalog = Catalog.learn(chunks)
    assert make_plan(chunks, catalog, "0.9", "1.1", "acme").versions == ("1.1.0",)
    assert make_plan(chunks, catalog, "2.0", "2.5", "acme").versions == ()  # nothing indexed in between
    with pytest.raises(PlanError, match="not before"):
        make_plan(chunks, catalog, "2.0", "2.0.0", "acme")
    with pytest.raises(PlanError, match="no product 'nope'"):
        make_plan(chunks, catalog, "1.0", "2.0", "nope")
    with pytest.raises(PlanError, match="name one with --product"):
        make_plan(chunks, catalog, "1.0", "2.0")  # both products have a release in range


def test_targets_are_a_changes_subjects_not_every_name_it_mentions() -> None:
    assert subjects(["a.f", "a.g", "a.h"], "`f()` and `g()` now raise `h` when empty") == ["a.f", "a.g"]
    assert subjects(["t.ops", "RuntimeError", "t.compile"], "t.ops now raise RuntimeError under t.compile") == ["t.ops"]
    chunks = corpus()
    plan = make_plan(chunks, Catalog.learn(chunks), "1.0", "2.0", "acme")
    assert {t.symbol for t in targets(plan)} == {"acme.load", "acme.old_func"}  # new features break nothing
    # Something added, even under "Deprecations", breaks no use of what it was added to.
    added = [chunk(item("Added a deprecation framework to the `acme.load` config."), version="2.0.0", n=9)]
    assert targets(make_plan(added, Catalog.learn(added), "1.0", "2.0", "acme")) == []


def test_symbols_are_qualified_through_the_docs_aliases() -> None:
    chunks = [
        Chunk("c", "```python\nimport numpy as np\n```", "numpy/2.0.0/n.md", "", "numpy", "2.0.0", "", ""),
        Chunk("d", "x", "numpy/2.0.0/m.md", "", "numpy", "2.0.0", "", ""),
    ]
    catalog = Catalog.learn(chunks)
    product = catalog.product("numpy")
    assert product is not None
    assert qualify("np.float_", catalog, product) == "numpy.float_"
    # `ndarray` is the product's when its docs write `numpy.ndarray`; `arr.view` is a variable's method.
    assert qualify("ndarray.newbyteorder", catalog, product, frozenset({"ndarray"})) == "numpy.ndarray.newbyteorder"
    assert qualify("arr.view", catalog, product, frozenset({"ndarray"})) == "arr.view"
    assert qualify("DataFrame.append", catalog, product) == "numpy.DataFrame.append"  # a class: the product's
    assert qualify("numpy.trapz", catalog, product) == "numpy.trapz"


def test_a_short_name_the_docs_write_dotted_and_never_import_is_the_products_alias() -> None:
    text = "Remove deprecated function nx.info. Use nx.Graph and nx.write_graph; see graphkit.sql.x and sql.y."
    chunks = [Chunk(f"c{n}", text, "graphkit/3.0/n.rst", "", "graphkit", "3.0", "", "") for n in range(3)]
    catalog = Catalog.learn(chunks)
    assert catalog.aliases.get("nx") is None  # "nx" is no abbreviation of "graphkit"
    named = [replace(c, product="networkx", text=c.text.replace("graphkit", "networkx")) for c in chunks]
    catalog = Catalog.learn(named)
    assert catalog.aliases["nx"] == "networkx"
    assert "sql" not in catalog.aliases  # `networkx.sql` is a module of its own, written short
    product = catalog.product("networkx")
    assert product is not None and qualify("nx.info", catalog, product) == "networkx.info"


@pytest.mark.slow  # reads the whole of ../shared/corpus-more: too long for the fast tier
@pytest.mark.skipif(not SHARED_MORE.is_dir(), reason="../shared/corpus-more is not present")
def test_real_release_notes_yield_changes_of_every_kind() -> None:
    changes: dict[str, list[Change]] = {}
    for root in (SHARED_MORE, SHARED_MORE.parent / "corpus"):
        docs = (p for p in root.glob("*/*/*") if p.is_file() and p.suffix in (".rst", ".md", ".txt"))
        for path in sorted(docs):
            doc = load_document(path, root)  # every shared document extracts without error
            changes.setdefault(path.relative_to(root).parts[0], []).extend(
                c for ch in chunk_document(doc) for c in ch.changes
            )
    assert set(changes) >= {"pandas", "sqlalchemy", "pydantic", "django", "pytorch"}
    for product, found in changes.items():
        kinds = {c.kind for c in found}
        assert len(found) >= 10 and kinds & {"removed", "breaking"}, product
        assert all("``" not in c.summary and ":meth:" not in c.summary for c in found), product
    pandas = changes["pandas"]
    assert {"removed", "deprecated", "breaking", "new"} <= {c.kind for c in pandas}
    assert sum(c.kind == "removed" and bool(c.replacement) for c in pandas) >= 10


def test_a_member_the_docs_write_on_its_type_is_a_possible_hit_on_any_receiver() -> None:
    from assistant.upgrade.scan import scan_source

    chunks = [
        chunk(
            item("Removed `ndarray.newbyteorder()`; use `arr.view(arr.dtype.newbyteorder(order))` instead."),
            section="Expired deprecations",
            version="2.0.0",
            product="numpy",
        )
    ]
    plan = make_plan(chunks, Catalog.learn(chunks), "1.26", "2.0", "numpy")
    (target,) = targets(plan)
    assert (target.symbol, target.member_of) == ("ndarray.newbyteorder", "ndarray")
    report = scan_source("import numpy as np\narr = np.zeros(3)\narr.newbyteorder()\n", [target])
    (hit,) = report.findings
    assert (hit.line, hit.exact) == (3, False)  # reported apart, as possible: `arr`'s type is unknown


def test_a_member_the_docs_name_inside_another_dotted_name_is_no_guess() -> None:
    chunks = [
        chunk(item("The `canvas` and `background` attributes of `Cursor` are deprecated with no replacement."), n=1),
        chunk(item("`Frame.canvas.blit_all` is deprecated."), n=2),
        chunk(item("`Model.json` and `Styler.render` are deprecated."), n=3),
        chunk(item("`acme.json.encoder` and the `styler.render.max_rows` option are deprecated."), n=4),
    ]
    plan = make_plan(chunks, Catalog.learn(chunks), "1.0", "2.0", "acme")
    guess = {t.symbol: t.guess for t in targets(plan)}
    # `Frame.canvas` is another class's `canvas`: a `.canvas` on a receiver of unknown type is no evidence
    assert guess["acme.Cursor.canvas"] is False and guess["acme.Cursor.background"] is True
    # ... but a module's `json` is no class's, and `styler.render` is `Styler`'s own, by its usual variable name
    assert guess["acme.Model.json"] is True and guess["acme.Styler.render"] is True


@pytest.mark.parametrize(
    "given", [["0.3b1", "0.3", "0.3a2", "0.2"], ["0.3a2", "0.2", "0.3", "0.3b1"], ["0.3", "0.2", "0.3b1", "0.3a2"]]
)
def test_releases_with_the_same_numbers_sort_the_same_whatever_order_they_come_in(given: list[str]) -> None:
    from assistant.index.catalog import sort_versions

    assert sort_versions(given) == ["0.2", "0.3a2", "0.3b1", "0.3"]  # pre-releases before their release
