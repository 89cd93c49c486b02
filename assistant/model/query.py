"""The `Query`: a question as the stages read it, the first stage's output and every later stage's input.

Built by `assistant.understand` (`build_query`, `understand`); searched, gated and answered by the stages after
it. Part of the data model, so that reading it (which release or product a question prefers) takes no stage.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from assistant.model.records import Chunk
from assistant.tuning import Tuning


@dataclass(frozen=True)
class Query:
    """A question made ready for search."""

    question: str  # as asked (truncated if overlong)
    text: str  # what is searched: the question, or a follow-up made standalone
    language: str
    terms: tuple[str, ...]  # content terms of `text`, for coverage and refusal checks
    versions: tuple[str, ...] = ()  # hard filter (the caller's --version)
    prefer: tuple[str, ...] = ()  # versions the question names; their passages rank higher
    unknown_versions: tuple[str, ...] = ()  # "PyTorch 1.13" when 1.13 is not indexed
    names: tuple[str, ...] = ()  # proper names and literals the question hinges on ("TensorFlow", "hyperdrive")
    asks_how: bool = False  # wants a fix or replacement ("how do I…", "what instead"), not just a fact
    asks_gone: bool = False  # says something is gone ("disappeared", "no longer exists", "ModuleNotFoundError")
    # A symbol term and the other ways the docs write it (`np.float_` -> `numpy.float_`, `df.append` ->
    # `DataFrame.append`): filled in by the knowledge base from its index, see `with_spellings`.
    spellings: tuple[tuple[str, tuple[str, ...]], ...] = ()
    products: tuple[str, ...] = ()  # hard filter (the caller's --product), as chunks spell the product
    prefer_products: tuple[str, ...] = ()  # products the question names; their passages rank higher
    truncated: bool = False  # the question was longer than `max_chars` and was cut
    product_terms: tuple[str, ...] = ()  # terms that name a product the question names ("pydant", "panda")
    values: tuple[str, ...] = ()  # the asker's own names, passed to a call in the question (`app=my_app`, `f(x)`)
    drops: tuple[str, ...] = ()  # versions the question asks whether or when support ended for ("Python 3.9")
    asks_fixed: bool = False  # asks which release after the one it names fixed a problem met there
    # The (from, to, product) of the upgrade whose whole plan the question asks for ("What breaks if I go from
    # 2.10 to 2.12?"); None when it asks about something more specific. Set by `understand`.
    upgrade: tuple[str, str, str | None] | None = None
    # Releases named of a product whose docs carry no release numbers ("in gadget 3.2"): nothing to refuse
    # for, and the answer says its docs cannot tell.
    unnumbered: tuple[str, ...] = ()
    # The products that hold the release the question names, when it names no product and several do.
    release_owners: tuple[str, ...] = ()

    @property
    def topic(self) -> Query:
        """The query without the terms naming its products: they say which docs to read, not what in them."""
        if not self.product_terms:
            return self
        return replace(self, terms=tuple(t for t in self.terms if t not in self.product_terms), product_terms=())

    def prefers_product(self, chunk: Chunk) -> bool:
        """The chunk is of a product the question names (or it names none)."""
        return not self.prefer_products or chunk.product in self.prefer_products

    def prefers(self, chunk: Chunk) -> bool:
        """The chunk is of the release and product the question names (where it names them)."""
        release = not self.prefer or chunk.version in self.prefer
        return release and (not self.prefer_products or chunk.product in self.prefer_products)


def prefers_product(query: Query, chunk: Chunk, tuning: Tuning) -> bool:
    """`query.prefers_product(chunk)` where `tuning.understand.own_product` keeps a question to the products it
    names, else True."""
    return not tuning.understand.own_product or query.prefers_product(chunk)
