"""The refusal rules as a table: each rule, its typed reason and the note it adds (no model, no index)."""

from __future__ import annotations

import pytest

from assistant.answer.refusal import coverage_note, explain, refusal
from assistant.gate.refusals import Reason, before_search, release
from assistant.index.catalog import Catalog, Product
from assistant.model.records import Chunk, Passage
from assistant.understand.query import build_query

CATALOG = Catalog(
    (
        Product(
            "pandas", ("2.2.0", "3.0.0"), frozenset({"pandas"}), frozenset({"pandas"}), frozenset({"pandas", "pd"})
        ),
        Product("PyTorch", ("2.12.0",), frozenset({"PyTorch"}), frozenset({"torch"}), frozenset({"pytorch", "torch"})),
    ),
    aliases={"pd": "pandas"},
    other_versioned=frozenset({"python", "cuda"}),
)


@pytest.mark.parametrize(
    ("question", "kind", "names"),
    [
        ("What did pandas 2.3 deprecate?", "release_not_indexed", ("2.3",)),  # a release of an indexed product
        ("What did pandas 3.0 deprecate?", None, ()),
        ("Does pandas 3.0 need Python 3.11?", None, ()),  # Python's numbers are nobody's release here
        ("and?", "no_topic", ()),
    ],
)
def test_before_search(question: str, kind: str | None, names: tuple[str, ...]) -> None:
    reason = before_search(build_query(question, CATALOG), CATALOG)
    assert (reason.kind if reason else None) == kind
    assert reason is None or reason.names == names


def test_release_filter_outside_the_product() -> None:
    query = build_query("What was removed?", CATALOG, version="2.2", product="torch")
    reason = before_search(query, CATALOG)
    assert reason is not None and reason.kind == "release_not_indexed"
    assert reason.coverage == (("PyTorch", ("2.12.0",)),)  # only the product asked about


def passage(version: str) -> Passage:
    return Passage(Chunk(f"c{version}", "text", "pandas/x.md", "t", "pandas", version, "release-notes", ""), 1.0)


@pytest.mark.parametrize(
    ("own_ok", "leads", "refused"),
    [(True, True, False), (True, False, True), (False, True, True)],
)
def test_release_rule(own_ok: bool, leads: bool, refused: bool) -> None:
    query = build_query("What did pandas 2.2 deprecate?", CATALOG)
    own, other = passage("2.2.0"), passage("3.0.0")
    reason = release(query, [own, other], [own], own_ok, leads=leads)
    assert (reason is not None) == refused
    assert reason is None or (reason.names, reason.others) == (("2.2.0",), ("3.0.0",))


@pytest.mark.parametrize(
    ("reason", "language", "note"),
    [
        (Reason("unknown_names", names=("np.foo",)), "en", "(Nothing mentions `np.foo`.)"),
        (Reason("unknown_names", names=("np.foo",)), "fr", "(Aucune mention de `np.foo`.)"),
        (Reason("other_releases", ("2.2.0",), ("3.0.0",)), "en", "(The 2.2.0 docs don't cover it; the 3.0.0 docs do.)"),
        (Reason("other_releases", ("2.2.0",)), "en", "(The 2.2.0 docs don't cover it.)"),
        (Reason("weak_evidence"), "en", ""),
    ],
)
def test_notes(reason: Reason, language: str, note: str) -> None:
    assert explain(reason, language) == note


def test_coverage_note_and_refusal() -> None:
    assert coverage_note([("PyTorch", ["2.12.0"])]) == "(The indexed docs cover PyTorch version 2.12.0.)"
    both = [("pandas", ["2.2.0", "3.0.0"]), ("PyTorch", ["2.12.0"])]
    assert coverage_note(both) == "(The indexed docs cover pandas versions 2.2.0–3.0.0; PyTorch version 2.12.0.)"
    assert coverage_note(both, "fr").startswith("(Les documents indexés couvrent pandas les versions")
    answer = refusal(build_query("Quelle version ?", CATALOG), Reason("weak_evidence"))
    assert not answer.found and answer.text == "Les notes de version ne couvrent pas cette question."
