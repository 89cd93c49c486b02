"""Several products in one index: products, aliases and versions learned from the docs, filters, honesty."""

from __future__ import annotations

import pytest

from assistant.index.catalog import Catalog
from assistant.knowledge_base import KnowledgeBase
from assistant.model.records import Chunk
from assistant.runtime.settings import Settings
from assistant.understand.query import named_versions
from ingest import sync

DOCS = {
    "acme/2.0.0/release-notes.md": """# Acme 2.0 release notes

## Removed

- `acme.frobnicate()` was removed. Use `acme.frob()` instead, which takes the same arguments.

```python
import acme as ac
ac.frob(widget)
```
""",
    "acme/3.0.0/release-notes.md": """# Acme 3.0 release notes

## Deprecations

- `Widget.resize` is deprecated in favour of `Widget.scale`; calling it emits a `FutureWarning`.
- Acme now requires Python 3.12 or newer.
""",
    "zeta/2.0.0/release-notes.md": """# Zeta 2.0 release notes

## Breaking changes

- `zeta.connect()` now requires a `timeout` argument; pass `timeout=None` to wait forever.

```python
import zeta as zt
zt.connect(timeout=5)
```
""",
}


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, embedder, index_fields) -> KnowledgeBase:
    root = tmp_path_factory.mktemp("products")
    for rel, text in DOCS.items():
        path = root / "corpus" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    settings = Settings(corpus_dir=root / "corpus", data_dir=root / "data", **index_fields("products"))
    sync(settings, progress=False, embedder=embedder)
    return KnowledgeBase.open(settings, embedder=embedder)


def test_products_and_versions_are_per_product(kb: KnowledgeBase) -> None:
    assert kb.products() == {"acme": ["2.0.0", "3.0.0"], "zeta": ["2.0.0"]}
    assert kb.versions("zeta") == ["2.0.0"] and kb.versions("ac") == ["2.0.0", "3.0.0"]  # an alias names it too
    catalog = kb.retriever.catalog
    assert catalog.aliases["ac"] == "acme" and catalog.spellings("ac.frobnicate") == [
        "ac.frobnicate",
        "acme.frobnicate",
    ]
    assert "python" in catalog.other_versioned  # "Python 3.12" is no release of an indexed product


def test_alias_spelling_finds_the_docs_symbol(kb: KnowledgeBase) -> None:
    answer = kb.ask("What do I use instead of ac.frobnicate?")
    assert answer.found, answer.text
    assert "acme.frob()" in answer.text and answer.citations[0].source == "acme/2.0.0/release-notes.md"


def test_receiver_of_unknown_type_is_not_refused_as_unknown(kb: KnowledgeBase) -> None:
    answer = kb.ask("Why does w.resize emit a warning now?")
    assert "Nothing mentions" not in answer.text
    assert answer.found and "Widget.scale" in answer.text


def test_product_filter_and_named_product(kb: KnowledgeBase) -> None:
    assert {p.chunk.product for p in kb.search("timeout argument", k=5, product="acme")} == {"acme"}
    top = kb.search("What changed in zeta 2.0?", k=3)[0]
    assert top.chunk.product == "zeta"  # version 2.0 exists for both products; the named one wins


def test_release_named_but_covered_only_by_another(kb: KnowledgeBase) -> None:
    answer = kb.ask("Did acme 2.0 deprecate Widget.resize?")
    assert not answer.found and not answer.citations
    assert "3.0.0" in answer.text  # says which release does cover it


def test_a_product_named_is_answered_from_its_own_docs_only(kb: KnowledgeBase) -> None:
    # Acme's notes say it requires Python 3.12; quoting them would read as "yes, zeta does".
    acme = kb.ask("Does acme now require Python 3.12 or newer?")
    assert acme.found and {str(c.source).split("/")[0] for c in acme.citations} == {"acme"}
    answer = kb.ask("Does zeta now require Python 3.12 or newer?")
    assert {str(c.source).split("/")[0] for c in answer.citations} <= {"zeta"}


def test_unindexed_release_of_a_product_is_refused_with_its_range(kb: KnowledgeBase) -> None:
    answer = kb.ask("What did acme 4.0 remove?")
    assert not answer.found and "acme versions 2.0.0–3.0.0" in answer.text


def test_every_quote_says_its_release(kb: KnowledgeBase) -> None:
    answer = kb.ask("What breaks in zeta 2.0?")
    assert answer.found and "zeta 2.0.0:" in answer.text


class CountingEmbedder:
    def __init__(self, inner) -> None:
        self.inner, self.name, self.calls = inner, inner.name, 0

    def encode(self, texts, **kwargs):
        self.calls += 1
        return self.inner.encode(texts, **kwargs)


def test_a_release_searched_again_is_not_encoded_again(kb: KnowledgeBase, embedder) -> None:
    counting = CountingEmbedder(embedder)
    again = KnowledgeBase.open(kb.settings, embedder=counting)
    counting.calls = 0
    assert not again.ask("Did acme 2.0 deprecate Widget.resize?").found  # searched twice: all, then acme 2.0
    assert counting.calls == 1


def chunk(n: int, text: str, product: str, version: str) -> Chunk:
    """A chunk of one product's release notes, for the catalog to learn from."""
    return Chunk(f"c{n}", text, f"{product}/{version}/notes.md", "Notes", product, version, "release-notes", "")


def test_module_names_and_other_versioned_names_are_learned_per_product() -> None:
    # A short name inside a product's name is its module only when imported (`log.info` is structlog's logger,
    # `torch` is imported); a number after a name is a release only of the product whose docs write it.
    catalog = Catalog.learn(
        [
            chunk(0, "Use `log.info()` and `log.bind()`; `structlog.get_logger()` is new.", "structlog", "24.1.0"),
            chunk(
                1, "```python\nimport torch\n```\nWheels move to manylinux 2.28; `torch.compile`.", "PyTorch", "2.7.0"
            ),
            chunk(2, "```python\nimport torch\n```\nmanylinux 2.28 is required; `torch.cond`.", "PyTorch", "2.8.0"),
            chunk(3, "Fixed retries.", "requests", "2.28.0"),
        ]
    )
    words = {p.name: p.words for p in catalog.products}
    assert words["structlog"] == {"structlog"} and words["PyTorch"] == {"pytorch", "torch"}
    assert "manylinux" in catalog.other_versioned  # 2.28 is a requests release, not PyTorch's


def test_a_file_name_is_no_module() -> None:
    # `test.py` in pytest's notes is a file: "test" is most of "pytest", yet a question about "a test" names no
    # product; `pytest.fixture` makes `pytest` its module.
    chunks = [
        Chunk(f"c{n}", text, "pytest/CHANGELOG.md", "Notes", "pytest", f"8.{n}.0", "changelog", "")
        for n, text in enumerate(["Collect `test.py` and `sub/test.py`.", "`pytest.fixture` on `test.py` files."])
    ]
    (product,) = Catalog.learn(chunks).products
    assert product.words == {"pytest"} and product.main == "pytest"


def test_a_name_before_numbers_is_another_things_though_its_numbers_are_the_products_releases() -> None:
    # NAME_SHARE. Alembic's releases run 0.1 to 1.20 and its notes say "SQLAlchemy 1.4": written as only a name
    # is, it names SQLAlchemy, and "alembic 1.20 with SQLAlchemy 1.4" asks about alembic 1.20 alone.
    catalog = Catalog.learn(
        [
            chunk(0, "Support for SQLAlchemy 1.4 is dropped; SQLAlchemy 2.0 is the minimum.", "alembic", "1.20.0"),
            chunk(1, "Fixed a warning under SQLAlchemy 1.3 and SQLAlchemy 1.4.", "alembic", "1.4.0"),
            chunk(2, "Fixed reflection on SQLAlchemy 1.3.", "alembic", "1.3.0"),
        ]
    )
    assert "sqlalchemy" in catalog.other_versioned
    assert named_versions("Does alembic 1.20 work with SQLAlchemy 1.4?", catalog) == (["1.20.0"], [])
