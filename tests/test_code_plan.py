"""The releases' code in the plan and the scan (`assistant/upgrade/code_plan.py`): a code change linked to the doc
change about the same public path is one entry with both evidences; the rest are changes of their own, cited to
the releases' source, hit only by the calls they break and only on receivers of known type, and listed in text
only when the code hits them or `--all` asks; a product with no docs indexed gets a plan from its code alone."""

from __future__ import annotations

import json

from assistant.index.catalog import Catalog
from assistant.model.api import ApiDiff, CodeChange
from assistant.upgrade.arrange import arrange, evidence_counts
from assistant.upgrade.code_plan import code_plan, with_code
from assistant.upgrade.plan import make_plan
from assistant.upgrade.scan import scan_source
from assistant.upgrade.targeting import doc_targets, targets
from interfaces.upgrade_render import plan_json, plan_text
from tests.test_plan_arranged import corpus

GONE = CodeChange(
    "acme.gone", "removed", None, "2.0.1", "acme/core.py:10", None, "removed", ("acme.gone", "acme.core.gone")
)
RESIZE = CodeChange(
    "acme.Widget.resize", "removed", None, "2.0.1", "acme/widget.py:40", None, "removed", ("acme.Widget.resize",)
)
KEEP = CodeChange(
    "acme.Widget.draw",
    "parameter_removed",
    "fast",
    "2.0.1",
    "acme/widget.py:50",
    "acme/widget.py:48",
    "Widget.draw(self, size=1)",
    ("acme.Widget.draw",),
)
ONLY_KEYWORD = CodeChange(
    "acme.plot",
    "parameter_keyword_only",
    "color",
    "2.0.1",
    "acme/core.py:20",
    "acme/core.py:22",
    "plot(data, *, color=None)",
    ("acme.plot",),
)
DIFF = ApiDiff(
    "acme",
    ("acme",),
    ("1.9.4", "2.0.1"),
    {"1.9.4": "a" * 64, "2.0.1": "b" * 64},
    (GONE, RESIZE, KEEP, ONLY_KEYWORD),
)
CODE = """import acme
acme.gone()
w = acme.Widget()
w.resize(3)
w.draw(fast=True)
w.draw(size=2)
acme.plot(data, "red")
acme.plot(data, color="red")
x.resize(3)
"""


def _plan():
    chunks = corpus()
    plan = make_plan(chunks, Catalog.learn(chunks), "1.0", "2.0", "acme")
    return with_code(plan, DIFF, doc_targets(plan))


def test_a_code_change_about_a_doc_change_s_name_is_that_change_with_both_evidences() -> None:
    plan = _plan()
    gone = next(c for c in plan.changes if "gone" in c.summary and "docs" in c.evidence)
    assert gone.evidence == ("docs", "code") and gone.code == (GONE,)
    assert not [c for c in plan.changes if c.evidence == ("code",) and "acme.gone" in c.symbols]
    assert evidence_counts(plan)["both"] == 1 and evidence_counts(plan)["code"] == 3


def test_code_only_changes_hit_the_calls_they_break_on_known_receivers_only() -> None:
    plan = _plan()
    report = scan_source(CODE, targets(plan))
    exact = sorted({f.line for f in report.findings if f.exact})
    assert exact == [2, 4, 5, 7]  # not draw(size=2), not plot(data, color=…), not x.resize on an unknown x
    assert not [f for f in report.findings if not f.exact]
    by_line = {f.line: f.change for f in report.findings}
    changes = {c.id: c for c in plan.changes}
    assert changes[by_line[2]].evidence == ("docs", "code")
    assert changes[by_line[4]].evidence == ("code",) and changes[by_line[4]].citation.kind == "code"


def test_json_lists_every_change_with_evidence_and_code_records_text_only_the_hit_ones() -> None:
    plan = _plan()
    report = scan_source(CODE, targets(plan))
    data = json.loads(plan_json(plan, report.findings))
    by_object = {c["code"]["object"]: c for c in data["changes"] if "code" in c}
    assert set(by_object) == {"acme.gone", "acme.Widget.resize", "acme.Widget.draw", "acme.plot"}
    assert by_object["acme.gone"]["evidence"] == ["docs", "code"]
    assert by_object["acme.Widget.draw"]["code"]["parameter"] == "fast"
    assert by_object["acme.gone"]["code"]["archives"] == {"a": "a" * 64, "b": "b" * 64}
    assert by_object["acme.gone"]["code"]["source_a"] == "acme/core.py:10"
    assert all(f["evidence"] for f in data["findings"])
    assert data["evidence_counts"] == {"docs": evidence_counts(plan)["docs"], "code": 3, "both": 1}
    quiet = plan_text(plan, ())
    assert "Widget.resize" not in quiet and "3 changes only the releases' code shows not shown" in quiet
    assert "Widget.resize" in plan_text(plan, (), show_all=True) and "Widget.resize" in plan_text(plan, report.findings)


def test_docs_and_code_come_before_docs_only_then_code_only_within_a_section() -> None:
    plan = _plan()
    breaks = next(s for s in arrange(plan, include_code=True) if s.kind == "breaks")
    order = [e.change.evidence for e in breaks.entries]
    assert order == sorted(order, key=lambda e: {("docs", "code"): 0, ("docs",): 1, ("code",): 2}[e])
    assert order[0] == ("docs", "code") and order[-1] == ("code",)


def test_a_plan_from_the_code_alone_says_the_docs_are_missing_and_still_hits() -> None:
    plan = code_plan(DIFF, "1.9", "2.0")
    assert not plan.docs and all(c.evidence == ("code",) for c in plan.changes)
    report = scan_source(CODE, targets(plan))
    assert sorted({f.line for f in report.findings if f.exact}) == [2, 4, 5, 7]
    assert "are not indexed" in plan_text(plan, report.findings)


GUARDED = """import acme
try:
    from acme import gone
except ImportError:
    gone = None
if acme.__version__ < "2":
    acme.gone()
import sys
if sys.version_info >= (3, 11):
    acme.gone()
acme.gone()  # reldocs: ignore
acme.gone()  # reldocs: ignore[nope, other]
try:
    from acme import new_func as f
except ImportError:
    from acme import gone as f
if conversion_rate > 0:
    acme.gone()  # reldocs: ignored-by-review is no silencing
"""


def test_guarded_uses_are_not_hits_and_silenced_lines_have_no_finding() -> None:
    plan = _plan()
    found = {f.line: f for f in scan_source(GUARDED, targets(plan)).findings}
    assert found[3].guarded == "import fallback" and not found[3].exact
    assert found[7].guarded == "version check" and not found[7].exact
    assert found[10].exact and not found[10].guarded  # Python's own version guards nothing of the product's
    assert 11 not in found and found[12].exact  # silenced: all changes, then only the ones named
    assert found[16].guarded == "import fallback"  # the fallback, the old spelling the new release lacks
    assert found[18].exact  # a name with "version" inside (`conversion_rate`) is no version check
    change = found[12].change
    silenced = GUARDED.replace("ignore[nope, other]", f"ignore[nope, {change}]")
    assert 12 not in {f.line for f in scan_source(silenced, targets(plan)).findings}


def test_code_only_changes_are_kept_where_the_package_or_the_docs_reach_them() -> None:
    inner = CodeChange(
        "acme.core.internals.Block.split", "removed", None, "2.0.1", "acme/core/internals.py:9", None, "removed"
    )
    typed = CodeChange("acme.api.types.is_int", "removed", None, "2.0.1", "acme/api/types.py:3", None, "removed")
    diff = ApiDiff("acme", ("acme",), DIFF.releases, DIFF.archives, (RESIZE, inner, typed))
    chunks = corpus()
    plan = make_plan(chunks, Catalog.learn(chunks), "1.0", "2.0", "acme")
    kept = {c.code[0].object for c in with_code(plan, diff, doc_targets(plan)).changes if c.code}
    assert kept == {"acme.Widget.resize"}  # the package's own export only: no docs name the other modules
    named = frozenset({"acme.api.types.is_float"})  # the docs name a function of `acme.api.types`
    kept = {c.code[0].object for c in with_code(plan, diff, doc_targets(plan), named).changes if c.code}
    assert kept == {"acme.Widget.resize", "acme.api.types.is_int"}


def test_what_a_function_returns_by_its_annotation_types_the_receiver_it_binds() -> None:
    code = "import acme\nw = acme.make()\nw.resize(3)\n"
    diff = ApiDiff("acme", ("acme",), DIFF.releases, DIFF.archives, (RESIZE,), returns={"acme.make": "acme.Widget"})
    plan = code_plan(diff, "1.9", "2.0")
    assert dict(plan.code_returns) == {"acme.make": "acme.Widget"}
    typed = scan_source(code, targets(plan), returns=dict(plan.code_returns))
    assert [(f.line, f.exact) for f in typed.findings] == [(3, True)]
    assert not [f for f in scan_source(code, targets(plan)).findings if f.exact]  # untyped without it


def test_a_doc_change_naming_a_code_change_s_path_or_module_outright_states_it() -> None:
    from dataclasses import replace as with_

    moved = CodeChange("acme.gone", "removed", None, "2.0.1", "acme/core.py:10", None, "removed", ("acme.gone",))
    inner = CodeChange("acme.lib.spin", "removed", None, "2.0.1", "acme/lib.py:3", None, "removed", ("acme.lib.spin",))
    typed = CodeChange("acme.load", "parameter_removed", "strict", "2.0.1", "acme/io.py:3", None, "x", ("acme.load",))
    plan = make_plan(corpus(), Catalog.learn(corpus()), "1.0", "2.0", "acme")
    said = next(c for c in plan.changes if "load" in c.summary)  # "Changed behavior of `acme.load()` …"
    plan = with_(plan, changes=(with_(said, symbols=("acme.gone", "acme.lib", "acme.load")),))
    linked = with_code(plan, ApiDiff("acme", ("acme",), DIFF.releases, DIFF.archives, (moved, inner, typed)), ())
    by = {k.object: c.evidence for c in linked.changes for k in c.code}
    # the path and the module are named; the parameter is not the one the doc change is about
    assert by == {"acme.gone": ("docs", "code"), "acme.lib.spin": ("docs", "code"), "acme.load": ("code",)}


def test_a_parameter_many_classes_share_hits_known_receivers_only() -> None:
    arrays = [
        CodeChange(
            f"acme.{n}.fill", "parameter_removed", "method", "2.0.1", "acme/a.py:1", None, "x", (f"acme.{n}.fill",)
        )
        for n in ("Sparse", "Dense")
    ]
    plan = code_plan(ApiDiff("acme", ("acme",), DIFF.releases, DIFF.archives, tuple(arrays)), "1.9", "2.0")
    code = "import acme\nframe.fill(method='x')\ns = acme.Sparse()\ns.fill(method='x')\n"
    assert [(f.line, f.exact) for f in scan_source(code, targets(plan)).findings] == [(4, True)]


def test_each_dependency_bump_is_planned_with_its_code_and_from_the_code_alone_without_docs() -> None:
    from dataclasses import replace

    from assistant.upgrade.bumps import Bump, plan_dependencies
    from interfaces.dependency_render import report_markdown, report_text

    chunks = corpus()
    unused = CodeChange("acme.unused", "removed", None, "2.0.1", "acme/core.py:30", None, "x", ("acme.unused",))
    other = replace(DIFF, product="widgetlib", changes=(*DIFF.changes, unused))  # no docs of it indexed
    internal = CodeChange("inner.core.internals.gone", "removed", None, "2.0.1", "inner/core/internals.py:1", None, "x")
    inner = ApiDiff("inner", ("inner",), DIFF.releases, DIFF.archives, (internal,))  # nothing its users reach
    bumps = [
        Bump("acme", "1.0", "2.0"),
        Bump("widgetlib", "1.9", "2.0"),
        Bump("nodocs", "1.0", "2.0"),
        Bump("inner", "1.0", "2.0"),
    ]
    report = plan_dependencies(
        chunks,
        Catalog.learn(chunks),
        bumps,
        scan=lambda wanted: scan_source(CODE, wanted),
        no_docs={"widgetlib": "its sdist holds no release docs"},
        code={"acme": DIFF, "widgetlib": other, "inner": inner},
        notes={"nodocs": ("no code diff of nodocs: its releases' source is not at hand",)},
    )
    by = {p.bump.name: p for p in report.packages}
    assert by["acme"].status == "planned" and by["acme"].plan.code_releases == DIFF.releases
    assert {"docs", "code"} <= {e for c in by["acme"].plan.changes for e in c.evidence}
    alone = by["widgetlib"]
    assert alone.status == "planned" and not alone.plan.docs and "no release docs" in alone.note
    assert "its sdist holds no release docs" in alone.note  # why the fetch found none, as for a package unplanned
    assert all(c.evidence == ("code",) for c in alone.plan.changes)
    assert {f.line for f in alone.findings if f.exact} >= {2, 4}  # the code's own changes hit, docs or none
    assert by["nodocs"].status == "no-docs" and by["inner"].status == "no-docs"  # internal changes plan nothing
    # a plan of the code alone lists what its code shows though nothing hits it: else it would show nothing
    text, markdown = report_text(report), report_markdown(report)
    assert "--all lists them" not in text.split("=== widgetlib")[1].split("===")[0]
    row = next(line for line in markdown.splitlines() if line.startswith("| `widgetlib`"))
    assert f"| {len(alone.plan.changes)} |" in row and "acme.unused" in markdown.split("### `widgetlib`")[1]
    # one diff, not per bump: the same code line is a finding of each package whose change it hits
    assert by["acme"].findings and all(f.change in {c.id for c in by["acme"].plan.changes} for f in by["acme"].findings)


def test_a_base_the_docs_never_draw_as_api_is_no_loss_and_a_move_a_stated_removal_caused_is_stated() -> None:
    from dataclasses import replace as with_

    def base(obj: str, *gone: str) -> CodeChange:
        return CodeChange(obj, "base_removed", None, "2.0.1", "acme/w.py:1", None, "x", (obj,), gone)

    mixin, public = base("acme.Widget", "acme.core.mixins.Cached"), base("acme.Frame", "acme.Base")
    gone = CodeChange("acme.load", "parameter_removed", "strict", "2.0.1", "acme/io.py:3", None, "x", ("acme.load",))
    moved = CodeChange("acme.load", "parameter_moved", "mode", "2.0.1", "acme/io.py:3", None, "x", ("acme.load",))
    moved = with_(moved, related=("strict",))
    shifted = with_(moved, parameter="cache", related=())  # another parameter inserted before it: its own change
    plan = make_plan(corpus(), Catalog.learn(corpus()), "1.0", "2.0", "acme")
    said = next(c for c in plan.changes if "load" in c.summary)
    plan = with_(plan, changes=(with_(said, kind="removed", symbols=("acme.load",), parameter="strict"),))
    diff = ApiDiff("acme", ("acme",), DIFF.releases, DIFF.archives, (mixin, public, gone, moved, shifted))
    linked = with_code(plan, diff, ())
    by = {(k.object, k.parameter): c.evidence for c in linked.changes for k in c.code}
    assert by == {
        ("acme.Frame", None): ("code",),
        ("acme.load", "strict"): ("docs", "code"),
        ("acme.load", "mode"): ("docs", "code"),
        ("acme.load", "cache"): ("code",),
    }
