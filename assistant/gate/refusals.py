"""When reldocs says "the docs don't cover this": every refusal rule, each returning a typed `Reason`.

Checked in order by the gate (`assistant.gate.decision`): `before_search` (a release or product the index does not
hold, a question with no topic), the evidence of the passages found (`evidence`, weighed by the fitted model in
`judge`: too little of it, or names no document contains), then `release` (a question about one release that only
other releases answer). The answer stage words the refusal (`assistant.answer.refusal`).
The model and which of the rules apply are tuned (`GateTuning`, in the `Tuning` each is handed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from assistant.gate.evidence import Evidence, probability, tipped_by_names
from assistant.index.catalog import Catalog, release_key, sort_versions
from assistant.index.lexical import TermStats
from assistant.model.query import Query
from assistant.model.records import Passage
from assistant.text.bounds import says_so
from assistant.text.words import (
    is_acronym,
    is_identifier,
    is_release_number,
    is_symbol,
    release_spellings,
    sentences,
    tokens,
)
from assistant.tuning import DEFAULT, Tuning

Kind = Literal["release_not_indexed", "no_topic", "unknown_names", "weak_evidence", "other_releases"]


@dataclass(frozen=True)
class Reason:
    """Why a question is refused; `names` are the missing names or the releases asked about, `others` the
    releases that do cover it, `coverage` the (product, versions) the index holds for the question."""

    kind: Kind
    names: tuple[str, ...] = ()
    others: tuple[str, ...] = ()
    coverage: tuple[tuple[str, tuple[str, ...]], ...] = ()


def before_search(query: Query, catalog: Catalog, tuning: Tuning = DEFAULT) -> Reason | None:
    """Refusals that need no search: the filter or the question names a release the index does not hold."""
    scope = set(query.products or query.prefer_products)
    products = [p for p in catalog.products if not scope or p.spellings & scope]
    coverage = tuple((p.name, p.versions) for p in products)
    if query.versions and not set(query.versions) & {v for p in products for v in p.versions}:
        return Reason("release_not_indexed", names=query.versions, coverage=coverage)
    if query.unknown_versions and (not query.prefer or (tuning.gate.asks_later and _asks_later(query))):
        return Reason("release_not_indexed", names=query.unknown_versions, coverage=coverage)
    if not query.terms and not query.prefer:
        return Reason("no_topic")
    return None


def _asks_later(query: Query) -> bool:
    """The question names a release the index lacks that is later than every indexed one it names, in their
    series: "What was fixed in 6.5.1 compared with 6.5.0?" asks of 6.5.1, whose notes are not indexed."""
    keys = [release_key(v) for v in query.prefer]
    return any(all(release_key(u) > k and release_key(u)[:1] == k[:1] for k in keys) for u in query.unknown_versions)


def evidence(
    query: Query,
    passages: Sequence[Passage],
    stats: TermStats,
    best_coverage: float,
    *,
    best: frozenset[str] = frozenset(),
    best_text: str = "",
    tuning: Tuning = DEFAULT,
) -> Evidence:
    """What the gate weighs of these passages, as named numbers (`judge` decides from them); `best` and `best_text`,
    the words and text of the sentence that answers best."""
    return Evidence(
        coverage=best_coverage,
        similarity=max((p.similarity or 0.0 for p in passages), default=0.0),
        agree=any(p.both is not False for p in passages),
        symbols=tuple(missing_symbols(query, stats, tuning)),
        names=tuple(unknown_names(query, stats, tuning)),
        focus=_focus(query, stats, best),
        sibling=_sibling(query, best, best_text),
        single=_bare(query),
        passages=len(passages),
    )


def judge(found: Evidence, tuning: Tuning = DEFAULT) -> Reason | None:
    """The refusal the evidence calls for, if any: the fitted model's (`tuning.gate.model`) probability of a right
    answer below `tuning.gate.threshold`, or no passage at all. Where the names no document holds are what it falls
    short by, that is the reason; otherwise the evidence is weak. Either names them."""
    tuned = tuning.gate
    model = dict(tuned.model)
    if found.passages and probability(found, model) >= tuned.threshold:
        return None
    absent = tuple(dict.fromkeys(found.absent[: tuned.shown_names]))
    if found.passages and tipped_by_names(found, model, tuned.threshold):  # the names are why
        return Reason("unknown_names", names=absent)
    return Reason("weak_evidence", names=absent)  # the names still said, as the docs lack them


def _focus(query: Query, stats: TermStats, words: frozenset[str]) -> bool:
    """The best sentence's words hold the question's rarest term the docs know, or a spelling the docs use of it
    (the products it names aside: their names are in every passage of theirs)."""
    known = [t for t in query.terms if t not in query.product_terms and stats.knows(t)]
    if not known:
        return True
    rarest = max(known, key=stats.idf)
    return rarest in words or bool(set(dict(query.spellings).get(rarest, ())) & words)


def _bare(query: Query) -> bool:
    """The question is one sentence: it asks for something ("How do I migrate my app's dependency injection?") and
    tells nothing of what happened to the asker. Told a symptom ("X fails in 2.0. What do I pass now?"), the docs
    say it in their own words, which the meaning search finds and the word search may not; asked for a thing
    bare, the docs that have it name it, and both searches find it: where they agree on none of their first
    passages, what is close is only close (the model weighs `single` with `agree`)."""
    return len(sentences(query.question)) == 1


def _sibling(query: Query, words: frozenset[str], text: str = "") -> bool:
    """The best sentence names another release of the series a number of the question is in, and not that one:
    "Dropped support for Python 3.6" answers no question about 3.8 (a 12.x number says nothing of 13.0), nor
    "Dropped support for Python < 3.7" one asking whether 3.7 was dropped."""
    for number in (t for t in query.terms if is_release_number(t)):
        if number in query.drops:  # asked whether support for it ended: only a sentence saying so answers
            if not says_so(text, number):
                return True
            continue
        if release_spellings(number) & words:
            continue
        series = number.split(".")[0]
        if any(is_release_number(w.lstrip("v")) and w.lstrip("v").split(".")[0] == series for w in words):
            return True
    return False


def release(
    query: Query,
    passages: Sequence[Passage],
    own: Sequence[Passage],
    own_ok: bool,
    *,
    leads: bool = True,
    tuning: Tuning = DEFAULT,
) -> Reason | None:
    """A question about a release is answered from that release's docs, or not at all: quoting another
    release's notes would read as "yes, in the one you asked about". `own` are the passages of the releases
    asked about, `own_ok` whether their evidence is enough (`judge`), `leads` whether the best sentence to quote (the
    asked release's weight in the sentence scores included) is theirs.
    """
    if not tuning.gate.release_rule:
        return None
    if own and own_ok and (leads or not tuning.gate.release_leads):
        return None
    others = sort_versions({p.chunk.version for p in passages if p.chunk.version and p not in own})
    return Reason("other_releases", names=query.prefer, others=tuple(others))


def missing_symbols(query: Query, stats: TermStats, tuning: Tuning = DEFAULT) -> list[str]:
    """Code-like terms of the question that the corpus never mentions (e.g. an invented API)."""
    missing = []
    spellings = dict(query.spellings)
    for term in query.terms:
        if term in query.values or not is_identifier(term) or stats.knows(term):
            continue
        if any(stats.knows(a) for a in spellings.get(term, ())):
            continue
        parts = [p for p in term.lstrip("@").split(".") if p]  # `@root_validator` where docs say `root_validator`
        # `cfg.max_autotune_x` is known when its distinctive last part is; `torch.made.up` is not. A member used
        # through a receiver of unknown type (`arr.newbyteorder`, `df.append`) is known when the docs name the
        # member (`ndarray.newbyteorder`, `DataFrame.append`).
        last = parts[-1]
        member = len(parts) == 2 and len(last) >= tuning.text.member_chars and all(stats.knows(t) for t in tokens(last))
        spelled = all(stats.knows(p) or ((t := tokens(p)) and all(stats.knows(x) for x in t)) for p in parts)
        if not (is_symbol(last) and stats.knows(last)) and not member and not spelled:
            missing.append(term)
    return missing


def unknown_names(query: Query, stats: TermStats, tuning: Tuning = DEFAULT) -> list[str]:
    """Names the question hinges on ("TensorFlow", "hyperdrive") that no indexed text contains. Names of the
    asker's setting are theirs, not what is asked (`tuning.gate`): acronyms ("CI", "LAN", "HMAC", "ASCII"),
    Python's own exceptions and warnings ("ImportError", "DeprecationWarning"), and the words of the asker's
    machine, app or deployment; release notes leave them unsaid."""
    tuned = tuning.gate

    def known(token: str) -> bool:  # "TPUs" is known where the docs say "TPU"
        return (
            stats.knows(token)
            or (token.endswith("s") and stats.knows(token[:-1]))
            # a quoted "Keep-Alive" where the docs say "keepalive", or "keep" and "alive"
            or ("-" in token and (stats.knows(token.replace("-", "")) or all(map(stats.knows, token.split("-")))))
            or ("/" in token and stats.knows(token.replace("/", "")))  # "HTTP/2" where the docs say "HTTP2"
        )

    # Python's own names are no product's ("DeprecationWarning", or "DeprecationWarnings" as users write it).
    python = tuned.builtins
    builtin = [n for n in query.names if n in python or (n.endswith("s") and n[:-1] in python)]
    # The asker's own values ("executor=AsyncioExecutor()", "'Europe/Paris'") are theirs to name.
    own = frozenset(query.values)
    hinges = [
        n for n in query.names if not is_acronym(n, tuning) and n not in builtin and not _yours(n, own, query, tuning)
    ]
    missing = [n for n in hinges if not all(map(known, _name_tokens(n)))]
    whole = {w for n in missing if " " in n for w in n.split()}  # "JSON Schema" says it all, not "Schema" too
    return [n for n in missing if n not in whole]


def _yours(name: str, own: frozenset[str], query: Query, tuning: Tuning) -> bool:
    """The name is the asker's (their values), or a product's part by its acronym ("Django ORM", a
    name the notes need not write: they say "the ORM")."""
    words = name.split()  # `own` holds single words: a name is theirs when each of its words is
    if all(w in own for w in words):
        return True
    rest = [w for w in words if not is_acronym(w, tuning)]
    return len(words) > 1 and all(t in query.product_terms for t in tokens(" ".join(rest)))


def _name_tokens(name: str) -> list[str]:
    """What the docs must hold of a name: its tokens, or a versioned name ("HTTP/3") whole, not its parts."""
    words = tokens(name) or [name.lower()]
    return [t for t in words if "/" in t] or words
