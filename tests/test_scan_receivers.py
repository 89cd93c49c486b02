"""Receivers the scan follows (`assistant/upgrade/receivers.py`) and the qualifiers a target is matched with:
each form is exact where the code says the type plainly, and stays unknown (possible, or nothing) elsewhere.
Neutral names (acme, widget): no product is a special case."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import assistant.upgrade.scan
from assistant.upgrade.scan import ScanReport, Target, scan
from ingest.call_forms import old_forms

APPEND = Target("append", "acme.Frame.append")
FILL = Target("fill", "acme.Frame.fill", parameter="method")
SERIES_FILL = Target("fill", "acme.Series.fill", parameter="method")
OTHER_FILL = Target("other-fill", "acme.Array.fill", parameter="method")
DICT = Target("dict", "widget.Model.dict", at_import=False)
PARSE = Target("parse", "widget.Model.parse_obj")
LOG = Target("log", "widget.Admin.log_deletion", at_import=False)


def scan_code(tmp_path: Path, code: str, *targets: Target) -> ScanReport:
    """Scan one file; also without the `ast` pre-pass, which must never hide a hit the full analysis finds."""
    path = tmp_path / "m.py"
    path.write_text(code)
    report = scan([path], targets)
    with mock.patch.object(assistant.upgrade.scan, "might_hit", lambda tree, index: True):
        assert scan([path], targets) == report
    return report


def exact_lines(report: ScanReport) -> list[int]:
    return sorted({f.line for f in report.findings if f.exact})


def test_a_constructor_an_annotation_a_with_and_a_fluent_rebinding_type_a_name(tmp_path: Path) -> None:
    code = (
        "import acme as ac\n"
        "df = ac.Frame({'a': [1]})\n"  # 2
        "df = df.dropna()\n"  # 3: a method of itself keeps the type
        "df.append(1)\n"  # 4
        "def f(x: ac.Frame):\n"  # 5
        "    return x.append(2)\n"  # 6
        "with ac.Frame() as y:\n"  # 7
        "    y.append(3)\n"  # 8
        "df.to_csv('x')\n"  # 9: another member of a known type: nothing, not even possible
    )
    report = scan_code(tmp_path, code, APPEND)
    assert exact_lines(report) == [4, 6, 8]
    assert all(f.exact for f in report.findings)


def test_a_name_bound_two_ways_stays_unknown(tmp_path: Path) -> None:
    code = "import acme\nz = acme.Frame()\nif c:\n    z = load()\nz.iteritems()\n"
    report = scan_code(tmp_path, code, Target("iter", "acme.Frame.iteritems"))
    assert exact_lines(report) == []  # `load()` may return anything: no exact hit
    assert [f.line for f in report.findings] == [5]  # still a guess, on a receiver of unknown type


def test_a_value_got_from_an_instance_is_exact_only_with_its_qualifier(tmp_path: Path) -> None:
    code = (
        "import acme\n"
        "df = acme.Frame()\n"
        "s = df['a'].fill(method='ffill')\n"  # 3: a change about Frame and Series `fill(method=)`
        "t = df['a'].fill(0)\n"  # 4: no `method=`: no hit
        "u = df.col.fill(method='bfill')\n"  # 5
    )
    report = scan_code(tmp_path, code, FILL, SERIES_FILL, OTHER_FILL)
    assert exact_lines(report) == [3, 5]
    # The change about another class's `fill` is no exact hit on a value got from a Frame.
    assert not [f for f in report.findings if f.change == "other-fill" and f.exact]


def test_a_subclass_of_a_product_class_its_self_and_its_overrides(tmp_path: Path) -> None:
    code = (
        "from widget import Model, Admin\n"
        "class User(Model):\n"
        "    def f(self):\n"
        "        return self.dict()\n"  # 4: `self` of a Model subclass
        "class Staff(User):\n"  # a subclass of a subclass
        "    pass\n"
        "u = Staff(a=1)\n"
        "print(u.dict(), User.parse_obj({}))\n"  # 8: an instance, and a class method through the class
        "class A(Admin):\n"
        "    def log_deletion(self, request, obj, text):\n"  # 10: overrides a deprecated method
        "        return None\n"
    )
    report = scan_code(tmp_path, code, DICT, PARSE, LOG)
    assert exact_lines(report) == [4, 8, 10]
    assert {f.change for f in report.findings if f.line == 8} == {"dict", "parse"}


def test_a_shortened_class_path_matches_where_the_code_imports_it_from(tmp_path: Path) -> None:
    # The docs write `Admin.log_deletion`; the code's class lives in `widget.contrib.admin`.
    code = "from widget.contrib import admin\nclass A(admin.Admin):\n    def f(self):\n        self.log_deletion(1)\n"
    assert exact_lines(scan_code(tmp_path, code, LOG)) == [4]


def test_a_gone_member_of_another_product_class_may_be_inherited_by_a_subclass_of_one(tmp_path: Path) -> None:
    # The docs remove `TransactionCase.assertRowsEqual`; the code's class derives from another of the product's
    # classes (`widget.test.Case`), whose bases the docs do not list.
    rows = Target("rows", "widget.TransactionCase.assertRowsEqual", member_of="TransactionCase", gone=True)
    code = (
        "from widget.test import Case\n"
        "class T(Case):\n"
        "    def test_a(self):\n"
        "        self.assertRowsEqual(a, b)\n"  # 4: inherited, whatever the chain of bases
        "        self.check(a)\n"  # no target's member
        "class U(Case):\n"
        "    def assertRowsEqual(self, a, b):\n"  # 7: an override of it
        "        return None\n"
    )
    assert exact_lines(scan_code(tmp_path, code, rows)) == [4, 7]
    # a member whose name tells nothing (`save`) is no evidence of where it comes from
    save = Target("save", "widget.TransactionCase.save", member_of="TransactionCase", gone=True)
    assert exact_lines(scan_code(tmp_path, code.replace("assertRowsEqual", "save"), save)) == []


def test_positional_arguments_past_those_kept_are_hit(tmp_path: Path) -> None:
    concat = Target("concat", "acme.concat", positional=1)  # "non-keyword arguments … except `objs`"
    code = "import acme\nacme.concat([a, b])\nacme.concat([a, b], 1)\nacme.concat([a], axis=1)\nacme.concat(*parts)\n"
    assert exact_lines(scan_code(tmp_path, code, concat)) == [3]


def test_a_deprecated_name_is_hit_where_used_not_where_imported(tmp_path: Path) -> None:
    deprecated = Target("v", "widget.validator", at_import=False)
    removed = Target("r", "widget.Gone")
    code = "from widget import validator, Gone\n@validator('a')\ndef check(v):\n    return Gone(v)\n"
    report = scan_code(tmp_path, code, deprecated, removed)
    assert [(f.line, f.change) for f in report.findings] == [(1, "r"), (2, "v"), (4, "r")]


def test_a_member_the_docs_name_unchanged_elsewhere_is_no_guess(tmp_path: Path) -> None:
    guessed = Target("iter", "acme.Frame.iteritems")
    not_guessed = Target("fill", "acme.Resample.fill", guess=False)
    code = "import acme\nrows.iteritems()\nrows.fill(0)\nobj.__init__()\n"
    report = scan_code(tmp_path, code, guessed, not_guessed, Target("init", "acme.Frame.__init__"))
    assert [(f.line, f.exact) for f in report.findings] == [(2, False)]


def test_call_forms_are_read_from_the_docs_examples_under_old_and_new_comments() -> None:
    example = (
        "# select_from / order_by keywords no longer supported\n"
        "stmt = select([1], select_from=table, order_by=table.c.id)\n"
        "\n"
        "# list emits a deprecation warning\n"
        "case_clause = case([(x == 5, 'five')], else_='neither')\n"
        "\n"
        "metadata_obj = MetaData(bind=engine)  # no longer supported\n"
        "t = Table('t', metadata_obj, autoload=True)  # use autoload_with=engine\n"
        "\n"
        "# use generative methods\n"
        "stmt = select(1).select_from(table)\n"
        "case_clause = case((x == 5, 'five'), else_='neither')\n"
    )
    forms = old_forms(example)
    assert set(forms) == {
        "select:kw=order_by",
        "select:kw=select_from",
        "select:list",
        "select:tuple",
        "case:list",  # `else_` is passed by the new form too: no form of the old
        "MetaData:kw=bind",
        "Table:kw=autoload",
        "~case:kw=else_",  # the new forms, for the plan to subtract what another example shows
        "~case:tuple",
        "~select_from:on=select()",  # `select(1).select_from(table)`: the call it is chained on
    }
    assert old_forms("def (:\n", ["select"]) == ()  # an example that does not parse gives none


def test_a_call_is_hit_only_in_a_form_its_docs_mark_old_wherever_the_product_exports_it(tmp_path: Path) -> None:
    select = Target("sel", "acme.sql.select", forms=("list", "kw=order_by"), family=("acme",))
    code = (
        "import acme as sa\nfrom acme.sql import select\n"
        "sa.select([t.c.x])\n"  # 3: a list, through the top-level re-export
        "select(t.c.x).order_by(t.c.id)\n"  # 4: the new form
        "select(t.c.x, order_by=t.c.id)\n"  # 5: an old keyword
        "other.select([1])\n"  # 6: not the product's
    )
    assert exact_lines(scan_code(tmp_path, code, select)) == [3, 5]


def test_a_setting_is_hit_where_the_code_sets_it(tmp_path: Path) -> None:
    orm = Target("orm", "widget.orm_mode", setting=True)
    l10n = Target("l10n", "web.USE_L10N", setting=True)
    code = (
        "from widget import Model\n"
        "USE_L10N = True\n"  # 2: a settings module's top level
        "class User(Model):\n"
        "    class Config:\n"
        "        orm_mode = True\n"  # 5: in a nested Config of a class derived from the product's
        "class Other:\n"
        "    orm_mode = True\n"  # 7: a class of the user's own: not the product's setting
        "def f():\n"
        "    USE_L10N = False\n"  # 9: a local
    )
    assert exact_lines(scan_code(tmp_path, code, orm, l10n)) == [2, 5]


def test_a_class_imported_from_another_module_of_the_project_types_as_one_defined_here(tmp_path: Path) -> None:
    """`assistant/upgrade/project.py`: a class the scanned project derives from a product's in one module, imported
    (absolutely, relatively, through a package's re-export) in another, types receivers, annotations and the
    settings of its subclasses; a module scanned alone knows none of it, and a name the project defines two ways
    stays unknown."""
    orm = Target("orm", "widget.orm_mode", setting=True)
    files = {
        "app/__init__.py": "",
        "app/base.py": "from widget import Model\n\nclass AppModel(Model):\n    pass\n",
        "app/schemas/__init__.py": "from .user import User\n",
        "app/schemas/user.py": (
            "from ..base import AppModel\nclass User(AppModel):\n    class Config:\n        orm_mode = True\n"  # 4
        ),
        "app/views.py": (
            "from app.schemas import User\n"
            "from other import Thing\n"  # two modules named `other` define it: unknown
            "def show(user: User, thing: Thing):\n"
            "    thing.dict()\n"  # 4
            "    return user.dict()\n"  # 5
            "User.parse_obj({})\n"  # 6
        ),
        "app/other.py": "from widget import Model\nclass Thing(Model):\n    pass\n",
        "lib/other.py": "class Thing:\n    pass\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    report = scan([tmp_path / "app", tmp_path / "lib"], [DICT, PARSE, orm])
    exact = sorted((Path(f.file).name, f.line) for f in report.findings if f.exact)
    assert exact == [("user.py", 4), ("views.py", 5), ("views.py", 6)]
    alone = scan([tmp_path / "app" / "views.py"], [DICT, PARSE, orm])
    assert not [f for f in alone.findings if f.exact]
