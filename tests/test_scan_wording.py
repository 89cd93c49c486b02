"""Targets from how release notes word a change beyond its first sentence's subject: a later sentence that says
what is deprecated, a class defined in a model's body, "use `x` instead of `y`", and a list's items under an intro
that says what happened to each."""

from __future__ import annotations

from pathlib import Path

from assistant.model.document import Entry
from tests.test_scan_evidence import plan_targets, scan_files, seen


def test_a_later_sentence_deprecating_a_class_in_a_models_body_hits_each_such_class(tmp_path: Path) -> None:
    found = plan_targets(
        Entry(
            "item",
            "In V2, set a class attribute called `model_config`. The V1 behavior to create a class called "
            "`Config` in the namespace of the parent `Model` subclass is now deprecated.",
        ),
        section="Changes to config",
    )
    assert [(t.symbol, t.nested) for t in found] == [("acme.Model.Config", True)]
    code = (
        "import acme\n"
        "from app.base import AppModel\n"  # the project's, from a module the scan was not given
        "class User(acme.Model):\n"
        "    class Config:\n"  # 4
        "        frozen = True\n"
        "class Item(AppModel):\n"
        "    class Config:\n"  # 7: on bases not in view, in a module importing the product
        "        pass\n"
        "class Plain:\n"
        "    class Config:\n"  # derives from nothing: the project's own
        "        pass\n"
        "class Config:\n"  # in no class's body
        "    pass\n"
    )
    assert seen(scan_files(tmp_path, {"m.py": code}, *found)) == [("m.py", 4, True), ("m.py", 7, True)]
    assert seen(scan_files(tmp_path, {"m.py": code.replace("import acme\n", "from acme import Model\n")}, *found))
    # `AppModel` is some other library's where the module does not import the product
    elsewhere = code.replace("import acme\n", "\n").replace("acme.Model", "object")
    assert seen(scan_files(tmp_path, {"m.py": elsewhere}, *found)) == []


def test_a_first_sentence_that_states_nothing_and_a_later_one_about_no_name_make_no_change() -> None:
    assert not plan_targets(
        Entry(
            "item",
            "Concepts like a `.where()` method were not present previously. The `select()` construct used only "
            "a style that's now deprecated.",  # its subject is a style, not `select()`
        ),
        section="History",
    )


def test_use_x_instead_of_y_is_about_y_where_it_breaks_or_deprecates(tmp_path: Path) -> None:
    said = "Please use `acme.export.export` instead of `capture_graph` to export the model (#1)"
    found = plan_targets(Entry("item", said), section="Backwards Incompatible Changes")
    assert [t.symbol for t in found] == ["acme.capture_graph"]
    code = "from acme import capture_graph\nfrom acme.export import export\ng = capture_graph(m)\ne = export(m)\n"
    assert [line for _, line, _ in seen(scan_files(tmp_path, {"m.py": code}, *found))] == [1, 3]
    # among improvements, it says what the product now does itself
    improved = "ROCm: Use `acme.amdsmi` instead of `acme.rocmsmi` for intra-node communication (#2)"
    assert not plan_targets(Entry("item", improved), section="Improvements")


def test_each_item_under_an_intro_saying_they_were_removed_is_a_target_though_it_says_why() -> None:
    found = plan_targets(
        Entry("item", "The following config settings have been removed:"),
        Entry("item", "`json_loads`"),
        Entry("item", "`getter_dict` — `orm_mode` has been removed, and this detail is no longer necessary."),
        Entry("item", "`smart_union` - the default `union_mode` is now `'smart'`."),
        section="Changes to config",
    )
    assert sorted((t.symbol, t.setting) for t in found) == [
        ("acme.getter_dict", True),
        ("acme.json_loads", True),
        ("acme.smart_union", True),
    ]


def test_names_a_relative_clause_says_are_gone_are_targets() -> None:
    found = plan_targets(
        Entry(
            "item",
            "The `Adapter` class lets you validate any type. This serves as a complete replacement for `parse_as` "
            "and `schema_of` (which are now deprecated), and also covers some uses of `Model`.",
        ),
        Entry("item", "Removed `acme.view.old_view`, which was deprecated in Acme 1.0."),
        Entry("item", "Use `acme.fast`, which is quicker."),
        Entry("item", "Removed Sun-associated functions in `acme.eph`, which were deprecated in 1.0."),  # not `eph`
        section="Other changes",
    )
    assert sorted(t.symbol for t in found) == ["acme.parse_as", "acme.schema_of", "acme.view.old_view"]


def test_a_removal_in_changelog_words_is_about_its_name_whatever_the_entry_adds(tmp_path: Path) -> None:
    found = plan_targets(
        Entry("item", "Remove deprecated `acme.old_func` function in favor of `acme.new_func`."),  # imperative
        Entry("item", "The deprecated `acme.data.fetch()` has been removed Use `acme.data.get` instead."),
        Entry("item", "Removed legacy `acme.diff_rot` after its long deprecation period. (#8397)"),
        Entry("item", "Removed the decorator `acme.util.since()` due to lack of continued use."),
        Entry("item", "Removed `contour` method on `acme.map.Map` after its long deprecation period."),
        Entry("item", "The `acme.with_variant` method, which applies per-backend behaviour, now copies."),  # no removal
        section="Other changes",
    )
    assert sorted((t.symbol, t.member_of) for t in found) == [
        ("acme.data.fetch", ""),
        ("acme.diff_rot", ""),
        ("acme.map.Map.contour", "Map"),
        ("acme.old_func", ""),
        ("acme.util.since", ""),
    ]
    # the method of the class its entry names: exact on what the code makes of that class, possible elsewhere
    code = "import acme.map\nm = acme.map.Map(path)\nm.contour(1)\nother.contour(1)\n"
    hits = [(line, exact) for _, line, exact in seen(scan_files(tmp_path, {"m.py": code}, *found))]
    assert hits == [(3, True), (4, False)]


def test_renames_and_removals_of_internal_names_in_changelog_words_are_about_the_old_names() -> None:
    found = plan_targets(
        Entry("item", "#12643: Renamed `acme.ext.normalize_mapping` to `acme.ext.validate_mapping`."),
        Entry("item", "Incompatible changes: Remove internal-only `acme.locale.setlocale`"),
        Entry("item", "#12763: Remove unused internal class `acme.util.Tee`."),
        Entry("item", "The undocumented `acme.utils.baseconv` module is removed."),
        Entry("item", "#11360: Remove deprecated `make_old_id` functions in domain object description classes."),
        Entry("item", "Renamed `object` argument in `acme.EArray.append()` to `sequence`."),  # a parameter's
        section="Incompatible changes",
    )
    assert sorted(t.symbol for t in found if not t.parameter) == [
        "acme.ext.normalize_mapping",
        "acme.locale.setlocale",
        "acme.make_old_id",
        "acme.util.Tee",
        "acme.utils.baseconv",
    ]


def test_names_removed_from_a_place_the_entry_names_are_that_places_members() -> None:
    found = plan_targets(
        Entry("item", "In `acme.morphology`, deprecate `binary_erosion` and `binary_dilation` in favor of `erosion`."),
        Entry("item", "Remove deprecated functions `greycomatrix` and `greycoprops` from `acme.feature` (#6583)."),
        Entry("item", "Removed the attribute `dtypes` from `acme.GroupBy` (GH 51997)"),
        Entry("item", "In `acme.stack`, the default value of `future` is now `True`."),  # no removal: not a place
        section="Other changes",
    )
    assert sorted((t.symbol, t.member_of) for t in found if not t.parameter) == [
        ("acme.GroupBy.dtypes", "GroupBy"),
        ("acme.feature.greycomatrix", ""),
        ("acme.feature.greycoprops", ""),
        ("acme.morphology.binary_dilation", ""),
        ("acme.morphology.binary_erosion", ""),
    ]


def test_a_few_words_describing_a_name_and_the_names_listed_with_it_leave_it_the_subject() -> None:
    found = plan_targets(
        Entry("item", "The stub image plugin `acme.FitsStub` has been removed."),
        Entry(
            "item",
            "The functions `acme.Iptc.dump` and `acme.Iptc.i`, and the constant `acme.Iptc.PAD` have been removed.",
        ),
        Entry("item", "Removed the `acme.tests` subpackage that used to contain the test suite."),
        Entry("item", "The behaviour of `acme.load` is deprecated."),  # what it does, not the name
        Entry("item", "The `acme.interfaces.IContextURL` interface has been deprecated."),
        Entry("item", "`acme.base.HolderTuple`, used internally as the return type of tests, is now deprecated."),
        Entry("item", "`acme.read`, when given a path, is now deprecated."),  # under a condition
        Entry("item", "Deprecated `acme.roi`, as it has no obvious use."),
        Entry("item", "`acme.ext.mathbase` extension is deprecated"),
        section="Other changes",
    )
    assert sorted(t.symbol for t in found) == [
        "acme.FitsStub",
        "acme.Iptc.PAD",
        "acme.Iptc.dump",
        "acme.Iptc.i",
        "acme.base.HolderTuple",
        "acme.ext.mathbase",
        "acme.interfaces.IContextURL",
        "acme.roi",
        "acme.tests",
    ]


def test_a_name_a_relative_clause_or_its_verb_says_no_longer_exists_is_gone(tmp_path: Path) -> None:
    found = plan_targets(
        Entry(
            "item",
            "`field`: this argument used to be a `ModelField` object, which was a quasi-internal class that no "
            "longer exists in Acme 2.",
        ),
        Entry("item", "The `acme.extVersion` variable does no longer exist."),
        Entry("item", "`acme.keep` is a helper object, which still exists."),
        Entry("code", "try:\n    from acme.v1.fields import ModelField\nexcept ImportError:\n    pass\n"),
        section="Other changes",
    )
    # written bare, placed only by the docs' own imports (the 1.x compatibility module): under any module
    assert sorted((t.symbol, t.gone) for t in found) == [("acme.ModelField", True), ("acme.extVersion", True)]
    code = (
        "from acme.fields import ModelField\n"  # 1
        "def check(field: ModelField):\n"  # 2: the annotation names the gone class
        "    return field.sub_fields\n"  # an instance's member is no use of its class
    )
    assert [line for _, line, _ in seen(scan_files(tmp_path, {"m.py": code}, *found))] == [1, 2]


def test_the_import_of_a_deprecated_name_that_moved_to_another_module_is_the_line_to_change(tmp_path: Path) -> None:
    found = plan_targets(
        Entry("row", "Acme 1: `acme.json.ENCODERS` — Acme 2: `acme.deprecated.json.ENCODERS`"),
        Entry("row", "Acme 1: `acme.tools.parse_as` — Acme 2: `acme.validate`"),  # replaced, not moved
        section="Deprecated and moved",
    )
    assert sorted((t.symbol, t.at_import) for t in found) == [
        ("acme.json.ENCODERS", True),
        ("acme.tools.parse_as", False),
    ]
    code = "from acme.json import ENCODERS\nfrom acme.tools import parse_as\nx = ENCODERS[int]\ny = parse_as(int, 1)\n"
    assert [line for _, line, _ in seen(scan_files(tmp_path, {"m.py": code}, *found))] == [1, 3, 4]


def test_a_gone_function_the_docs_write_bare_is_hit_from_whichever_module_code_imports_it(tmp_path: Path) -> None:
    found = plan_targets(
        Entry("item", "The functions `read_pickle` and `write_pickle` were removed in 2.0."),
        Entry("item", "Removed `load`."),  # an everyday name: only where the docs put it
        Entry("item", "Fix DeprecationWarning: datetime.datetime.utcnow() (#8726)"),  # Python's, not the product's
        section="Deprecated code",
    )
    assert sorted((t.symbol, t.at_import) for t in found) == [
        ("acme.read_pickle", True),
        ("acme.write_pickle", True),
        ("load", True),
    ]
    code = (
        "import datetime\n"
        "from acme.readwrite.pickling import read_pickle\n"  # 2: imported from where the code found it
        "from acme.hub import load\n"  # another `load`
        "g = read_pickle(path)\n"  # 4
        "m = load(path)\n"
        "t = datetime.datetime.utcnow()\n"
    )
    assert [line for _, line, _ in seen(scan_files(tmp_path, {"m.py": code}, *found))] == [2, 4]


def test_config_keys_the_docs_remove_are_hit_where_code_sets_or_reads_them_by_name(tmp_path: Path) -> None:
    found = plan_targets(
        Entry("item", "The `JSON_AS_ASCII` and `JSON_SORT_KEYS` config keys are removed."),
        Entry("item", "The `app.before_first_request` and `bp.before_app_first_request` decorators are removed."),
        section="Other changes",
    )
    assert {(t.symbol, t.setting) for t in found} >= {("acme.JSON_AS_ASCII", True), ("acme.JSON_SORT_KEYS", True)}
    assert {t.symbol for t in found} >= {"app.before_first_request", "bp.before_app_first_request"}
    code = (
        "import acme\n"
        'app.config["JSON_AS_ASCII"] = False\n'  # 2: set by its name
        'if app.config["JSON_SORT_KEYS"]:\n'  # 3: read by its name
        '    data["JSON_OTHER"] = 1\n'
    )
    assert [line for _, line, _ in seen(scan_files(tmp_path, {"m.py": code}, *found))] == [2, 3]
    # a module that does not import the product names another library's keys
    elsewhere = code.replace("import acme\n", "import json\n")
    assert seen(scan_files(tmp_path, {"m.py": elsewhere}, *found)) == []


def test_names_listed_as_members_of_what_the_entry_names_are_each_owners_members(tmp_path: Path) -> None:
    found = plan_targets(
        # each class listed, and the name written last before its noun as well as the first
        Entry("item", "Removed deprecated `weekofyear` and `week` attributes of `Stamp`, `StampIndex` (GH 1)"),
        # an instance the docs write by its variable's name
        Entry("item", "The `cookie_name`, `send_max_age`, and `use_sendfile` properties on `app` are removed."),
        Entry("item", "Use `app.json` and `app.run(debug=True)` instead."),
        # an object of the product's module
        Entry("item", "The `push` and `pop` methods of the deprecated `acme._ctx_stack` objects are removed."),
        Entry("item", "Removed legacy `extend` on `acme.time.Range` after its long deprecation period."),
        section="Other changes",
    )
    assert sorted((t.symbol, t.member_of) for t in found) == [
        ("acme.Stamp.week", "Stamp"),
        ("acme.Stamp.weekofyear", "Stamp"),
        ("acme.StampIndex.week", "StampIndex"),
        ("acme.StampIndex.weekofyear", "StampIndex"),
        ("acme._ctx_stack.pop", ""),
        ("acme._ctx_stack.push", ""),
        ("acme.time.Range.extend", "Range"),
        ("app.cookie_name", "app"),
        ("app.send_max_age", "app"),
        ("app.use_sendfile", "app"),
    ]
    code = (
        "import acme\n"
        "from acme import _ctx_stack\n"
        "def setup(app):\n"
        "    name = app.cookie_name\n"  # 4: on the instance the docs name
        "    app.use_sendfile = True\n"  # 5
        "    _ctx_stack.push(1)\n"  # 6
        "    cfg.cookie_name\n"  # 7: a name that tells its owner, in a module naming `app`
        "    cfg.week\n"  # 8: an everyday name on an object of unknown type: possible
        "    idx = acme.StampIndex(x)\n"
        "    return idx.week\n"  # 10: on what the code makes of a class listed
    )
    hits = [(line, exact) for _, line, exact in seen(scan_files(tmp_path, {"m.py": code}, *found))]
    assert hits == [(4, True), (5, True), (6, True), (7, True), (8, False), (10, True)]


def test_names_written_under_a_heading_naming_their_module_are_that_modules(tmp_path: Path) -> None:
    found = plan_targets(
        Entry("item", "The `sparse` parameter of `feature.Encoder` is deprecated. Use `sparse_output` instead."),
        # under a condition, past a method written with its dot: a plan entry only
        Entry("item", "`feature.Imputer` now raises an error in `.fit` if `fill_value` cannot be cast."),
        section="acme.feature",  # the heading is all that says `feature` is the product's module
    )
    assert [(t.symbol, t.parameter) for t in found] == [("acme.feature.Encoder", "sparse")]
    code = (
        "from acme.feature import Encoder, Imputer\n"
        "enc = Encoder(sparse=False)\n"  # 2
        "imp = Imputer(fill_value=0)\n"
    )
    assert [line for _, line, _ in seen(scan_files(tmp_path, {"m.py": code}, *found))] == [2]


def test_a_name_removed_from_places_the_entry_lists_is_each_places(tmp_path: Path) -> None:
    found = plan_targets(
        Entry("item", "Removed `convert_dtype` from `acme.Series.apply()` (GH 1)"),  # a method's parameter
        Entry("item", "Removed `_data` from `acme.Frame`, `acme.Series` (GH 2)"),  # each class's member
        Entry("item", "remove `adj_matrix` from `linalg/graphmatrix.py` (#3)"),  # a source file: the name itself
        Entry("item", "Removed `Client` from the `acme.net` namespace."),  # a module's name
        Entry("item", "Removed `fastpath` from the `acme.Index` constructor."),  # a class's constructor's parameter
        section="Removals",
    )
    assert sorted((t.symbol, t.parameter, t.member_of) for t in found) == [
        ("acme.Frame._data", "", "Frame"),
        ("acme.Index", "fastpath", ""),
        ("acme.Series._data", "", "Series"),
        ("acme.Series.apply", "convert_dtype", ""),
        ("acme.adj_matrix", "", ""),
        ("acme.net.Client", "", ""),
    ]
    code = (
        "import acme\n"
        "from acme.linalg.graphmatrix import adj_matrix\n"  # 2: imported from where it was
        "s = acme.Series([1])\n"
        "t = s.apply(str, convert_dtype=False)\n"  # 4
        "u = s.apply(str)\n"
        "m = acme.adj_matrix(g)\n"  # 6
        "d = s._data\n"  # 7
    )
    assert [line for _, line, _ in seen(scan_files(tmp_path, {"m.py": code}, *found))] == [2, 4, 6, 7]
