"""Whether a question asks for a whole upgrade plan ("What breaks if I go from 2.10 to 2.12?", "What breaks in
2.12?") rather than about one thing, and which: the (from, to, product) the answer stage plans. Moved from the
answer stage, which now reads it from `Query.upgrade`.
"""

from __future__ import annotations

from assistant.index.catalog import Catalog, Product, version_key
from assistant.model.query import Query
from assistant.text.words import is_symbol
from assistant.tuning import DEFAULT, Tuning
from assistant.understand.upgrade_range import upgrade_versions


def planned(query: Query, catalog: Catalog, tuning: Tuning = DEFAULT) -> tuple[str, str, str | None] | None:
    """The (from, to, product) a question asks the plan of: an upgrade between two versions, or what breaks in
    one release (from the release before it) when the question asks about nothing more specific. The product
    is the one the question names, or the one the release it names belongs to; None when that is unclear."""
    asked = upgrade_versions(query.question)
    if asked is not None and tuning.understand.specific_questions and _specific(query, tuning):
        return None  # "after going from 2.5 to 2.6, my test raises X": answered from those releases' notes
    if asked is not None:
        asked = _series_end(asked[0], catalog), _series_end(asked[1], catalog)
        if not all(asked):
            return None
    asked = asked or _one_release(query, catalog, tuning)
    if asked is None:
        return None
    named = catalog.named_products(query.question)
    product = query.products[0] if query.products else named[0].name if len(named) == 1 else None
    if product is None and len(query.prefer) == 1:
        owners = _owners(catalog, query.prefer[0])
        product = owners[0].name if len(owners) == 1 else None
    return (*asked, product)


def _series_end(version: str, catalog: Catalog) -> str:
    """'2.x' as the last 2.* release indexed ('' when none is); any other version as written."""
    if not version.lower().endswith(".x"):
        return version
    major = int(version.split(".")[0].lower().removeprefix("v"))
    series = [v for p in catalog.products for v in p.versions if version_key(v)[:1] == (major,)]
    return max(series, key=version_key, default="")


def _specific(query: Query, tuning: Tuning) -> bool:
    """The question asks about one thing, not a whole upgrade: a code name, or more than one word besides "break"
    ("What breaks if I go from 1.0 to 2.0?" asks the plan; "does my except ValueError still catch it?" does not)."""
    rest = _besides_breaking(query, tuning)
    return len(rest) > 1 or any(is_symbol(t) for t in rest)


def _besides_breaking(query: Query, tuning: Tuning) -> list[str]:
    """The question's terms other than the products it names and the words for breaking."""
    return [t for t in query.topic.terms if not t.startswith(tuning.understand.break_terms)]


def _one_release(query: Query, catalog: Catalog, tuning: Tuning) -> tuple[str, str] | None:
    if not tuning.understand.breaks.search(query.question) or len(query.prefer) != 1:
        return None
    if _besides_breaking(query, tuning):
        return None  # "Does torch.compile break under FSDP2 in 2.12?" asks about one thing
    (to,) = query.prefer
    owners = _owners(catalog, to)
    if len(owners) != 1:
        return None
    earlier = [v for v in owners[0].versions if version_key(v) < version_key(to)]
    return (earlier[-1] if earlier else "0", to)


def _owners(catalog: Catalog, version: str) -> list[Product]:
    return [p for p in catalog.products if version in p.versions]
