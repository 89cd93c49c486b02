"""What the scan takes as evidence of a receiver it cannot type (issue #38): a keyword the docs name, an old
form their examples show for a class their text does not name; and what makes a guess not worth making: a
module that does not import the product, a value another library's call returned. Neutral products (acme)."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import assistant.upgrade.scan
from assistant.index.catalog import Catalog
from assistant.model.document import Entry
from assistant.upgrade.plan import make_plan
from assistant.upgrade.scan import ScanReport, Target, scan
from assistant.upgrade.targeting import targets
from ingest.call_forms import old_forms
from tests.test_changes_plan import chunk

FRAME_ITER = Target("iter", "acme.Frame.iteritems")


def scan_files(tmp_path: Path, files: dict[str, str], *found: Target) -> ScanReport:
    """Scan a project of files; also without the `ast` pre-pass, which must never hide a hit."""
    for name, code in files.items():
        (tmp_path / name).write_text(code)
    report = scan([tmp_path], found)
    with mock.patch.object(assistant.upgrade.scan, "might_hit", lambda tree, index: True):
        assert scan([tmp_path], found) == report
    return report


def seen(report: ScanReport) -> list[tuple[str, int, bool]]:
    return [(Path(f.file).name, f.line, f.exact) for f in report.findings]


def plan_targets(*entries: Entry, section: str) -> list[Target]:
    """The targets of a plan from 1.0 to 2.0 over one 2.0.0 chunk of these entries, in this section."""
    notes = chunk(*entries, section=section, version="2.0.0")
    return targets(make_plan([notes], Catalog.learn([notes]), "1.0", "2.0", "acme"))


def test_an_old_comment_that_names_a_parameter_makes_passing_it_an_old_form() -> None:
    example = (
        "# whereclause parameter no longer supported\n"
        "stmt = table.select(table.c.id == 5)\n"
        "\n"
        "# positional parameters no longer supported, only named\n"  # a kind of parameter, no parameter's name
        "result = connection.execute(table.insert(), ('x', 'y'))\n"
    )
    assert old_forms(example) == ("select:kw=whereclause",)


def test_a_keyword_the_docs_name_makes_a_call_on_an_unknown_receiver_exact(tmp_path: Path) -> None:
    found = plan_targets(
        Entry("paragraph", "The `acme.select` construct no longer accepts keyword arguments."),
        Entry("code", "# whereclause parameter no longer supported\nstmt = table.select(table.c.id == 5)\n"),
        section="Core › select() no longer accepts varied constructor arguments",
    )
    code = (
        "import acme\n"
        "q = tbl.select(whereclause=tbl.c.id == 1)\n"  # 2: the keyword the example's comment names
        "q = tbl.select().where(tbl.c.id == 1)\n"  # 3: the new form
        "soup.select(whereclause=1)\n"  # 4: the same, on what may be another library's: the module imports acme
    )
    report = scan_files(tmp_path, {"m.py": code}, *found)
    assert seen(report) == [("m.py", 2, True), ("m.py", 4, True)]
    (tmp_path / "m.py").unlink()
    # A module that does not import the product is no use of it, whatever its keywords.
    report = scan_files(tmp_path, {"n.py": "q = tbl.select(whereclause=1)\n"}, *found)
    assert report.findings == ()


def test_a_class_its_old_examples_call_is_a_target_though_its_text_does_not_name_it(tmp_path: Path) -> None:
    found = plan_targets(
        Entry("paragraph", "The ability to associate an `acme.Engine` with a `acme.MetaData` object is removed."),
        Entry("code", "t = Table('t', metadata_obj, autoload=True)  # use autoload_with=engine\n"),
        section="Core › bound metadata removed",
    )
    table = [t for t in found if t.symbol.endswith(".Table")]
    assert [(t.symbol, t.forms) for t in table] == [("acme.Table", ("kw=autoload",))]
    code = (
        "from acme import Table\n"
        "t = Table('t', md, autoload=True)\n"  # 2
        "u = Table('u', md, autoload_with=engine)\n"  # 3: the new form
    )
    assert seen(scan_files(tmp_path, {"m.py": code}, *table)) == [("m.py", 2, True)]


def test_no_guess_in_a_module_that_does_not_import_the_product(tmp_path: Path) -> None:
    files = {
        "a.py": "def f(frame):\n    return frame.iteritems()\n",  # another library's object, as likely as not
        "b.py": "import acme\ndef g(frame):\n    return frame.iteritems()\n",
    }
    assert seen(scan_files(tmp_path, files, FRAME_ITER)) == [("b.py", 3, False)]


def test_no_guess_on_what_another_library_returned(tmp_path: Path) -> None:
    code = (
        "import acme, requests\n"
        "r = requests.get(url)\n"
        "r.iteritems()\n"  # 3: `r` holds what `requests` returned
        "requests.get(url).iteritems()\n"  # 4: the same, unnamed
        "x = acme.load()\n"
        "x.iteritems()\n"  # 6: the product's own reader: worth a guess
        "y.iteritems()\n"  # 7: unknown
    )
    assert seen(scan_files(tmp_path, {"m.py": code}, FRAME_ITER)) == [("m.py", 6, False), ("m.py", 7, False)]


def test_a_session_statement_that_prints_a_warning_shows_an_old_form_with_its_values() -> None:
    session = (
        '>>> df["foo"].fillna(0, inplace=True)\n'  # on a selection: the keyword is old there, not on `df`
        "FutureWarning: A value is trying to be set on a copy of a DataFrame\n"
        "The behavior will change.\n"
        '>>> df.fillna({"foo": 0}, inplace=True)\n'  # prints nothing: no form
    )
    assert old_forms(session) == ("fillna:on=subscript&kw=inplace=True",)
    ipython = "In [9]: acme.to_datetime(data, utc=False)\nFutureWarning:\n  mixed time zones\nIndex([1])\n"
    assert old_forms(ipython) == ("to_datetime:kw=utc=False",)  # `utc=True` is the fix, not the old form


def test_a_notable_subsection_that_shows_an_old_form_is_a_change_and_its_calls_are_hit(tmp_path: Path) -> None:
    entries = (
        Entry("paragraph", "Chained assignment will never work under Copy-on-Write."),
        Entry("code", '>>> df["foo"].fillna(0, inplace=True)\nFutureWarning: chained assignment\n'),
    )
    (change,) = chunk(*entries, section="Deprecations › Chained assignment", version="2.0.0").changes
    assert (change.kind, change.summary) == ("deprecated", "Chained assignment")
    found = plan_targets(*entries, section="Deprecations › Chained assignment")
    code = (
        "import acme\n"
        "df = load()\n"
        "df['a'].fillna(0, inplace=True)\n"  # 3
        "df.fillna(0, inplace=True)\n"  # 4: on the frame itself: the fix
        "df['a'].fillna(0)\n"  # 5: no `inplace=True`
        "df['a'].fillna(0, inplace=False)\n"  # 6
    )
    assert seen(scan_files(tmp_path, {"m.py": code}, *found)) == [("m.py", 3, True)]


def test_a_module_is_used_once_where_its_names_are_imported(tmp_path: Path) -> None:
    removed = Target("mod", "acme.legacy")  # "acme.legacy is removed"
    code = (
        "import acme\n"
        "from acme.legacy.flow import prepare\n"  # 2: the use of the module
        "prepare(m)\n"  # 3: a name got from it: the same use, not another finding
        "acme.legacy.flow.convert(m)\n"  # 4: named in full: a use of its own
    )
    assert seen(scan_files(tmp_path, {"m.py": code}, removed)) == [("m.py", 2, True), ("m.py", 4, True)]
    # A deprecated module still imports: its uses are what to change.
    deprecated = Target("mod", "acme.legacy", at_import=False)
    assert [line for _, line, _ in seen(scan_files(tmp_path, {"m.py": code}, deprecated))] == [3, 4]


def test_a_class_the_docs_write_bare_is_hit_wherever_the_product_keeps_it(tmp_path: Path) -> None:
    bare = Target("q", "acme.Quantizer")  # the docs wrote `Quantizer`, without its module
    code = (
        "from acme.quant.xnn import Quantizer\n"  # 1
        "from other.quant import Quantizer as OtherQuantizer\n"  # 2: another library's class of that name
        "q = Quantizer()\n"  # 3
        "r = OtherQuantizer()\n"  # 4
    )
    assert [line for _, line, _ in seen(scan_files(tmp_path, {"m.py": code}, bare))] == [1, 3]
    # with a qualifier ("The `check` keyword argument of `CheckConstraint` is deprecated"), its calls that meet it
    check = Target("c", "acme.Constraint", "check")
    code = "from acme.db import models\nmodels.Constraint(\n    check=x)\nmodels.Constraint(condition=x)\n"
    assert [line for _, line, _ in seen(scan_files(tmp_path, {"m.py": code}, check))] == [2]


def test_a_gone_member_whose_name_tells_its_class_is_exact_where_the_project_names_the_class(tmp_path: Path) -> None:
    found = plan_targets(
        Entry("item", "Removed `Frame.iteritems`, use `Frame.items` instead"),  # a compound name, gone
        Entry("item", "`Frame.to_pyobjects` now returns a list"),  # behaves otherwise: not gone
        Entry("item", "Removed `Frame.close`"),  # gone, but an everyday word
        section="Removals",
    )
    assert {t.symbol: t.gone for t in found} == {
        "acme.Frame.iteritems": True,
        "acme.Frame.to_pyobjects": False,
        "acme.Frame.close": True,
    }
    use = "import acme\nrows.iteritems()\nrows.to_pyobjects()\nrows.close()\n"
    named = {"a.py": use, "b.py": "from acme import Frame\n"}  # another module of the project names `Frame`
    assert seen(scan_files(tmp_path, named, *found)) == [("a.py", 2, True), ("a.py", 3, False), ("a.py", 4, False)]
    # Where nothing in the project names the class, the name alone stays a guess.
    (tmp_path / "b.py").unlink()
    unnamed = seen(scan_files(tmp_path, {"a.py": use}, *found))
    assert unnamed == [("a.py", 2, False), ("a.py", 3, False), ("a.py", 4, False)]
    # The module itself naming it is enough: a file scanned alone.
    alone = seen(scan_files(tmp_path, {"a.py": use.replace("import acme", "import acme  # a Frame")}, *found))
    assert alone[0] == ("a.py", 2, True)


def test_a_call_the_summary_writes_with_a_value_is_hit_only_with_that_value(tmp_path: Path) -> None:
    found = plan_targets(
        Entry("item", "`acme.load(where='meta')` no longer reads the file"),  # every such call
        Entry("item", "`acme.build(strict=True)` now warns when a step runs nothing"),  # under a runtime condition
        section="Behavior changes",
    )
    assert [(t.symbol, t.forms) for t in found] == [("acme.load", ("kw=where='meta'",))]
    code = "import acme\nacme.load(p, where='meta')\nacme.load(p, where=w)\nacme.build(f, strict=True)\n"
    assert seen(scan_files(tmp_path, {"m.py": code}, *found)) == [("m.py", 2, True)]


def test_a_list_first_in_an_old_example_makes_a_tuple_first_old_too_unless_it_holds_pairs(tmp_path: Path) -> None:
    code = "# list no longer supported\nacme.pick([a, b])\n# no longer supported\nacme.case([(x, 1), (y, 2)])\n"
    assert old_forms(code) == ("pick:list", "pick:tuple", "case:list")
    pick = Target("pick", "acme.pick", forms=("list", "tuple"), family=("acme",))
    code = "import acme\nacme.pick([a, b])\nacme.pick((a, b))\nacme.pick(a, b)\n"
    assert seen(scan_files(tmp_path, {"m.py": code}, pick)) == [("m.py", 2, True), ("m.py", 3, True)]


def test_a_gone_setting_whose_name_tells_it_is_hit_in_a_class_on_bases_not_in_view(tmp_path: Path) -> None:
    orm = Target("orm", "acme.orm_mode", setting=True, gone=True)
    extra = Target("extra", "acme.extra", setting=True, gone=True)  # an everyday word
    code = (
        "import acme\n"
        "from app.base import AppModel\n"  # the project's, from a module the scan was not given
        "class User(AppModel):\n"
        "    class Config:\n"
        "        orm_mode = True\n"  # 5
        "        extra = 'forbid'\n"
    )
    assert seen(scan_files(tmp_path, {"m.py": code}, orm, extra)) == [("m.py", 5, True)]
    # Without the product imported, `orm_mode` is some other library's.
    assert seen(scan_files(tmp_path, {"m.py": code.replace("import acme\n", "\n")}, orm, extra)) == []


def test_a_telling_member_is_hit_on_a_class_of_the_project_whose_bases_are_not_in_view(tmp_path: Path) -> None:
    found = [Target("log", "acme.Admin.log_deletion", gone=True), Target("close", "acme.Admin.close", gone=True)]
    code = (
        "import acme\n"
        "from .permissions import AppAdmin\n"  # the project's, from a module the scan was not given
        "class FolderAdmin(AppAdmin):\n"
        "    def log_deletion(self, request):\n"  # 4: overrides it
        "        self.log_deletion(request)\n"  # 5
        "        self.close()\n"  # an everyday word: the project's own, as likely
        "# an acme.Admin\n"
    )
    assert seen(scan_files(tmp_path, {"m.py": code}, *found)) == [("m.py", 4, True), ("m.py", 5, True)]
    # The class derives from something: the project need not name `Admin` (a file of a folder scanned alone)
    alone = seen(scan_files(tmp_path, {"m.py": code.replace("# an acme.Admin\n", "")}, *found))
    assert alone == [("m.py", 4, True), ("m.py", 5, True)]
    # but in a module that does not import the product, `AppAdmin` is another library's
    assert seen(scan_files(tmp_path, {"m.py": code.replace("import acme\n", "\n")}, *found)) == []


def test_a_method_the_change_writes_is_hit_on_what_the_call_its_old_example_chains_returned(tmp_path: Path) -> None:
    old = "# legacy usage\nuser = session.query(User).get(5)\n# legacy\nsession.query(User).join('a', 'b').filter(x)\n"
    assert set(old_forms(old)) == {"get:on=query()", "join:on=query()", "filter:on=join()"}
    found = plan_targets(
        Entry("paragraph", "The `Query.get` method remains for legacy purposes; use `Session.get`:"),
        Entry("code", old),
        section="Migration guide › ORM Query - get() method moves to Session",
    )
    # `join` and `filter` are the example's setting, not what its text writes: no form of theirs
    assert {(t.symbol.rsplit(".", 1)[-1], t.forms) for t in found} >= {("get", ("on=query()",))}
    assert not [t for t in found if t.symbol.rsplit(".", 1)[-1] in ("join", "filter")]
    code = "import acme\nsession.query(User).get(5)\nsession.get(User, 5)\ncache.get(5)\n"
    assert {(line, exact) for _, line, exact in seen(scan_files(tmp_path, {"m.py": code}, *found))} == {(2, True)}


def test_a_member_the_docs_write_bare_is_hit_by_its_name_where_the_product_is_imported(tmp_path: Path) -> None:
    found = plan_targets(
        Entry("item", "Deprecate `export_timeline` method (#1)"),  # of no class the docs name
        Entry("item", "The `inline_mods` Dynamo config is deprecated (#2)"),
        Entry("item", "The `ordering` keyword argument of the aggregation functions `acme.Agg` is deprecated"),
        section="Deprecations",
    )
    assert {(t.symbol, t.parameter, t.loose) for t in found} == {
        ("acme.export_timeline", "", True),
        ("acme.inline_mods", "", True),
        ("acme.Agg", "ordering", False),
    }
    code = (
        "import acme\n"
        "prof.export_timeline('a.html')\n"  # 2: on an object of unknown type
        "acme._dynamo.config.inline_mods = False\n"  # 3: under a module the docs do not name
        "acme.Agg('x', ordering=['y'])\n"  # 4
        "class P(acme.Profiler):\n"
        "    def export_timeline(self):\n"  # 6: a method a class derived from the product's defines
        "        pass\n"
    )
    assert seen(scan_files(tmp_path, {"m.py": code}, *found)) == [
        ("m.py", 2, True),
        ("m.py", 3, True),
        ("m.py", 4, True),
        ("m.py", 6, True),
    ]
    # Where the product is not imported, the name is another library's.
    assert seen(scan_files(tmp_path, {"m.py": "prof.export_timeline('a.html')\n"}, *found)) == []


def test_a_raw_string_an_old_comment_speaks_of_is_hit_on_a_receiver_named_for_the_class(tmp_path: Path) -> None:
    old = '# direct string SQL not supported\nresult = connection.execute("select * from t")\n'
    assert old_forms(old) == ("execute:str",)
    # a string first under an old comment that speaks of something else is no form: a table's name
    assert old_forms('# autoload no longer supported\nTable("t", metadata_obj, autoload=True)\n') == (
        "Table:kw=autoload",
    )
    run = Target("run", "acme.Connection.execute", forms=("str",), family=("acme",))
    code = (
        "import acme, sqlite3\n"
        "conn.execute('ALTER TABLE t ADD COLUMN c')\n"  # 2: `conn`, short for the class's name
        "connection.execute('delete from \"%s\"' % name)\n"  # 3
        "cursor.execute('select 1')\n"  # another object's name: nothing
        "conn.execute(acme.text('select 1'))\n"  # the new form
        "db = sqlite3.connect(path)\n"
        "db_conn = sqlite3.connect(path)\n"
        "db_conn.execute('select 1')\n"  # another library's connection, named alike: nothing
    )
    assert seen(scan_files(tmp_path, {"m.py": code}, run)) == [("m.py", 2, True), ("m.py", 3, True)]


def test_an_old_comment_on_keyword_arguments_makes_any_keyword_the_form(tmp_path: Path) -> None:
    old = (
        "# **kwargs no longer accepted, pass a single dictionary\nresult = connection.execute(t.insert(), x=10, y=5)\n"
    )
    assert old_forms(old) == ("execute:kw=**",)  # not the example's own data names, `x` and `y`
    run = Target("run", "acme.Connection.execute", forms=("kw=**",), family=("acme",))
    code = "import acme\nconn.execute(q, state=s)\nconn.execute(q, {'state': s})\ncursor.execute(q, timeout=1)\n"
    assert seen(scan_files(tmp_path, {"m.py": code}, run)) == [("m.py", 2, True)]


def test_a_hook_the_docs_name_is_used_where_a_class_defines_it(tmp_path: Path) -> None:
    found = plan_targets(
        Entry("item", "`__get_validators__` should be replaced with `__get_pydantic_core_schema__`."),
        Entry("item", "`__modify_schema__` becomes `__get_pydantic_json_schema__`."),
        Entry("item", "`__post_init__` is now called after validation."),  # Python's own hook: no use of the product's
        section="Defining custom types",
    )
    code = (
        "import acme\n"
        "class Money(str):\n"  # any class: the product calls the hook on whatever defines it
        "    @classmethod\n"
        "    def __get_validators__(cls):\n"  # 4
        "        yield cls.validate\n"
        "    def __modify_schema__(cls, schema):\n"  # 6
        "        pass\n"
        "    def __post_init__(self):\n"
        "        pass\n"
        "def __get_validators__():\n"  # not a method: nothing calls it
        "    pass\n"
    )
    assert seen(scan_files(tmp_path, {"m.py": code}, *found)) == [("m.py", 4, True), ("m.py", 6, True)]
    assert seen(scan_files(tmp_path, {"m.py": code.replace("import acme\n", "\n")}, *found)) == []
