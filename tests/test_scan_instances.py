"""Receivers beyond a plain name (`assistant/upgrade/instances.py`): an attribute of `self` bound in the class's
methods, a call's result, `super()`. Each is exact where every binding agrees, and stays unknown elsewhere.
Neutral names (acme): no product is a special case."""

from __future__ import annotations

from pathlib import Path

from assistant.upgrade.scan import Target, scan

FAMILY = ("acme",)
EXECUTE = Target("execute", "acme.Engine.execute", family=FAMILY)
RUN = Target("run", "acme.Connection.run", family=FAMILY)
APPEND = Target("append", "acme.Frame.append", family=FAMILY)
RETURNS = {"acme.create_engine": "acme.Engine", "acme.Engine.connect": "acme.Connection"}


def exact_lines(tmp_path: Path, code: str, *targets: Target) -> list[int]:
    path = tmp_path / "m.py"
    path.write_text(code)
    report = scan([path], targets, returns=RETURNS)
    return sorted({f.line for f in report.findings if f.exact})


def test_an_attribute_of_self_is_typed_by_every_binding_in_its_class_and_its_subclasses(tmp_path: Path) -> None:
    code = (
        "import acme\n"
        "class Store:\n"
        "    def __init__(self, url):\n"
        "        self.frame = None\n"  # 4: `None` until set: agrees with the rest
        "        self.engine = acme.create_engine(url)\n"  # 5: what the function returns, by its annotations
        "        self.other = acme.Frame()\n"
        "    def reset(me):\n"  # any name for the first parameter
        "        me.frame = acme.Frame()\n"
        "        me.frame = me.frame.dropna()\n"  # 9: a method of itself keeps the type
        "        me.other = load()\n"  # 10: bound two ways: unknown
        "    def use(self):\n"
        "        self.frame.append(1)\n"  # 12
        "        self.other.append(2)\n"  # 13: unknown, no exact hit
        "        self.conn = self.engine.connect()\n"  # 14: a method of a typed attribute
        "        self.conn.run()\n"  # 15
        "class Sub(Store):\n"
        "    def go(self):\n"
        "        self.engine.execute('q')\n"  # 18: bound in the base class
        "def elsewhere(obj):\n"
        "    obj.frame.append(3)\n"  # 20: an attribute of a plain name is not followed
    )
    assert exact_lines(tmp_path, code, APPEND, EXECUTE, RUN) == [12, 15, 18]


def test_a_class_body_annotation_types_an_attribute_and_a_class_body_value_does_not(tmp_path: Path) -> None:
    code = (
        "import acme\n"
        "class Model:\n"
        "    frame: acme.Frame\n"  # says what instances hold
        "    rows = acme.Frame()\n"  # may be a descriptor: instances read another thing through it
        "    def f(self):\n"
        "        self.frame.append(1)\n"  # 6
        "        self.rows.append(2)\n"
    )
    assert exact_lines(tmp_path, code, APPEND) == [6]


def test_a_chained_call_is_typed_by_what_its_callee_returns(tmp_path: Path) -> None:
    code = (
        "import acme\n"
        "acme.create_engine(u).execute(1)\n"  # 2
        "acme.create_engine(u).connect().run()\n"  # 3: a chain of two
        "q = acme.Frame()\n"
        "q = q.dropna()\n"  # `dropna` keeps a `Frame`: fluent, here and in a chain
        "q.dropna().append(1)\n"  # 6
        "q.head().append(2)\n"  # `head` returns what the code does not say: unknown
    )
    assert exact_lines(tmp_path, code, APPEND, EXECUTE, RUN) == [2, 3, 6]


def test_super_is_the_product_class_a_class_derives_from(tmp_path: Path) -> None:
    fill = Target("fill", "acme.Frame", parameter="method", family=FAMILY)
    code = (
        "import acme\n"
        "class Mine(acme.Frame):\n"
        "    def __init__(self, x):\n"
        "        super().__init__(x, method='ffill')\n"  # 4: the constructor's parameter
        "        super(Mine, self).append(1)\n"  # 5
        "    def again(self, x):\n"
        "        acme.Frame.__init__(self, x, method='bfill')\n"  # 7: through the class
        "class Other:\n"
        "    def __init__(self):\n"
        "        super().__init__(method='x')\n"  # derives from no product class
    )
    assert exact_lines(tmp_path, code, APPEND, fill) == [4, 5, 7]


def test_a_function_the_docs_write_bare_is_not_a_method_of_a_typed_instance(tmp_path: Path) -> None:
    gone = Target("gone", "acme.get_renderer", gone=True, family=FAMILY)  # under any module, as a function
    code = "import acme\nacme.tools.get_renderer()\ncanvas = acme.Canvas()\ncanvas.get_renderer()\n"
    assert exact_lines(tmp_path, code, gone) == [2]
