"""Pins for the rules that decide which names of a question the docs must contain, and for the release rule's
"best sentence is the asked release's" test: each case fails when its rule is switched off (no model)."""

from __future__ import annotations

import pytest

from assistant.gate.refusals import before_search, missing_symbols, release, unknown_names
from assistant.index.catalog import Catalog
from assistant.model.records import Chunk
from assistant.search.retrieval import HybridRetriever
from assistant.text.words import tokens
from assistant.understand.query import build_query, call_values
from tests.test_answer_rules import Stats
from tests.test_refusals import CATALOG, passage


def make(text: str, product: str, n: int, version: str = "1.0.0") -> Chunk:
    return Chunk(f"c{n}", text, f"{product}/CHANGELOG.md", "Changelog", product, version, "changelog", "")


CHUNKS = [
    make("Support key rotation with the `SECRET_KEY_FALLBACKS` config.", "flask", 0),
    make("The `httpx.AsyncClient(app=...)` shortcut is deprecated. Use `transport=httpx.ASGITransport()`.", "httpx", 1),
    make("Added `attrs.validators.not_()`, which inverts another validator.", "attrs", 2),
    make("Schema generation follows JSON Schema draft 2020-12.", "pydantic", 3),
]


def retriever() -> HybridRetriever:
    return HybridRetriever(None, None, None, CHUNKS)  # type: ignore[arg-type]  # term statistics only


@pytest.mark.parametrize(
    ("question", "names"),
    [
        # _ACRONYM, _BUILTINS: the asker's setting, which release notes leave unsaid.
        ("The debugger fails on my LAN IP in CI with an ImportError and a DeprecationWarning. Why?", []),
        ("I get DeprecationWarnings about it.", []),  # a builtin's plural, as users write it
        ('Cells lost align="...": can I get it back?', []),  # a quoted placeholder
        ("Does the validator support Kubernetes?", ["Kubernetes"]),  # a name the question hinges on
    ],
)
def test_names_of_the_askers_setting_are_not_required(question: str, names: list[str]) -> None:
    query = build_query(question, Catalog.learn(CHUNKS))
    assert unknown_names(query, Stats(CHUNKS)) == names


def test_an_acronym_beside_a_products_name_is_the_askers_setting() -> None:
    # A product's part by its acronym ("Django ORM") is the product's: its notes say "the query builder", not
    # "Django ORM"; "CI" is the asker's own.
    chunks = [
        make("Model serializers now validate nested fields.", "pydantic", 0),
        make("The Django query builder gains composite keys; see the framework docs.", "django", 1),
    ]
    catalog, stats = Catalog.learn(chunks), Stats(chunks)
    assert unknown_names(build_query("Does the Django ORM gain composite keys?", catalog), stats) == []
    assert (
        unknown_names(build_query("Our CI fails: do pydantic serializers validate nested fields?", catalog), stats)
        == []
    )


def test_a_name_with_its_version_is_one_name() -> None:
    # _TOKEN's "name/number" and proper_names': docs on HTTP/1.1 and HTTP/2 say nothing of HTTP/3, and "HTTP2"
    # spells "HTTP/2". A URL's or a path's parts are not such names.
    assert {"http/1.1", "http/2", "http", "2"} <= set(tokens("Serves HTTP/1.1 and HTTP/2."))
    assert not [t for t in tokens("See https://github.com/o/r/pull/12 and a/b/3.") if "/" in t]
    speaks = make("The server speaks HTTP/1.1 and HTTP/2.", "srv", 0)
    for chunks, question, names in [
        ([speaks], "Does it speak HTTP/3 (QUIC)?", ["HTTP/3"]),
        ([speaks], "Which release added HTTP/2 support?", []),
        ([speaks, make("Add the `http3` extra.", "cli", 1)], "Does it speak HTTP/3?", []),  # "http3" spells it
    ]:
        query = build_query(question, Catalog.learn(chunks))
        assert unknown_names(query, Stats(chunks)) == names
    # A name, not a code symbol: checked once, in the docs of the product asked about.
    query = build_query("Does it speak HTTP/1.0?", Catalog.learn([speaks]))
    assert (unknown_names(query, Stats([speaks])), missing_symbols(query, Stats([speaks]))) == (["HTTP/1.0"], [])


def test_a_name_passed_to_a_call_is_the_askers_own() -> None:
    question = "httpx.AsyncClient(app=my_asgi_app) warns. Does F.all_reduce(x, op=my_op) too?"
    assert call_values(question) == ["my_asgi_app", "x", "my_op"]
    query = build_query(question, Catalog.learn(CHUNKS))
    assert missing_symbols(query, retriever()) == ["f.all_reduce"]  # the API is checked, the asker's names not


def test_what_the_askers_code_passes_is_the_askers_own() -> None:
    # call_values (assistant/understand/asker_code.py). `df.x` is a column of the asker's frame,
    # `AsyncioExecutor()` their choice of class, 'Europe/Paris' their data, `[connect_db]` their function; the
    # called names and a double-quoted literal (`mode="hyperdrive"`) are what the docs must name.
    assert call_values("My old code sns.scatterplot(df.x, df.y) fails.") == ["df.x", "df", "df.y"]
    assert "AsyncioExecutor" in call_values("Built as GraphQLApp(schema=s, executor=AsyncioExecutor()), it broke.")
    assert {"Europe", "Paris"} <= set(call_values("I use timezone=pytz.timezone('Europe/Paris'). Can I keep it?"))
    assert call_values("The app registers on_startup=[connect_db]. Deprecated since?") == ["connect_db"]
    assert call_values('What does torch.compile(mode="hyperdrive") do?') == []
    query = build_query("Built as GraphQLApp(executor=AsyncioExecutor()), it broke.", Catalog.learn(CHUNKS))
    assert "AsyncioExecutor" in query.names and unknown_names(query, Stats(CHUNKS)) == ["GraphQLApp"]


@pytest.mark.parametrize(("leads", "refused"), [(True, False), (False, True)])
def test_a_release_answers_only_when_its_sentence_is_the_best(leads: bool, refused: bool) -> None:
    # Its passages cover the question well enough, but another release's sentence ranks first even with the
    # asked release's bonus: "Did 0.26 remove X?" answered from 0.27 would read as "yes, in 0.26".
    query = build_query("What did pandas 2.2 deprecate?", CATALOG)
    own, other = passage("2.2.0"), passage("3.0.0")
    reason = release(query, [own, other], [own], True, leads=leads)
    assert (reason is not None) == refused


@pytest.mark.parametrize(
    "question",
    ["Que dois-je utiliser à la place ?", "Puis-je garder l'ancien comportement ?", "What should I use instead?"],
)
def test_french_asks_how_as_english_does(question: str) -> None:
    # _HOW: "à la place" is "instead", "dois-je" is "should I".
    assert build_query(question, Catalog.learn(CHUNKS)).asks_how


def test_a_product_is_named_as_its_docs_write_it_in_prose() -> None:
    # _prose_names (catalog.py): "Beautiful Soup" is beautifulsoup4, "Python-Markdown" is markdown, as their own
    # changelogs call them; a phrase said once, or not spelling the name, names nothing.
    chunks = [
        make("This is the last Beautiful Soup release for Python 3.7. Beautiful Soup now warns.", "beautifulsoup4", 10),
        make("Python-Markdown now requires Python 3.9. Thanks to Python-Markdown users.", "markdown", 11),
        make("Sqlite Backend is faster. Nothing Else changed.", "flask", 12),
    ]
    catalog = Catalog.learn(chunks)
    assert [p.name for p in catalog.named_products("Why does Beautiful Soup stop on huge files?")] == ["beautifulsoup4"]
    assert [p.name for p in catalog.named_products("After a Python-Markdown upgrade, tables changed")] == ["markdown"]
    assert catalog.named_products("Is the soup beautiful?") == []


def test_french_function_words_are_no_terms() -> None:
    # French function words (french.py). Left as they are, "notre", "après" and "faut-il" are question terms no
    # English doc contains, and weigh down the evidence of every French question; parts of code names stay.
    question = "Notre script appelle numpy.ma qui n'existe plus après la migration. Quel outil faut-il utiliser ?"
    terms = build_query(question, Catalog.learn(CHUNKS)).terms
    assert "numpy.ma" in terms and "script" in terms and "tool" in terms
    assert not {"notr", "apr", "faut-il", "faut"} & set(terms)


def test_a_later_release_the_index_lacks_is_what_is_asked_about() -> None:
    # _asks_later. "Fixed in 6.5.1 compared with 6.5.0?" is 6.5.1's to say, and 6.5.1 is not indexed; an older
    # release named beside an indexed one ("on 6.3.0 it failed, does 6.5.0 fix it?") is the asker's history.
    catalog = Catalog.of_versions(["6.4.0", "6.5.0"])
    later = build_query("Quels bugs ont été corrigés dans Tornado 6.5.1 par rapport à la 6.5.0 ?", catalog)
    refused = before_search(later, catalog)
    assert refused is not None and refused.kind == "release_not_indexed" and refused.names == ("6.5.1",)
    assert before_search(build_query("On 6.3.0 it failed. Does 6.5.0 fix it?", catalog), catalog) is None
