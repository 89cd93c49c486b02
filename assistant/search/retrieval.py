"""Hybrid retrieval: dense (Chroma) and lexical (BM25) rankings fused by reciprocal rank."""

from __future__ import annotations

import bisect
import itertools
import time
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from assistant.embed.embedder import Embedder
from assistant.index.catalog import Catalog
from assistant.index.chunk_filter import ChunkFilter
from assistant.index.generation import Generation
from assistant.index.lexical import LexicalIndex, bm25_idf
from assistant.index.store import ChunkStore, Manifest
from assistant.index.vectors import ExactVectors
from assistant.model.query import Query, prefers_product
from assistant.model.records import Chunk, Passage
from assistant.search.removals import gone_names, removes
from assistant.text.words import tokens
from assistant.tuning import DEFAULT, Tuning


def fuse(
    dense: list[tuple[str, float]], lexical: list[tuple[str, float]], tuning: Tuning = DEFAULT
) -> dict[str, float]:
    """Reciprocal-rank fusion of every dense candidate and the confident head of the BM25 ranking.

    Only BM25 candidates with at least half the best score vote (`tuning.search.lexical_ratio`): the long tail
    of a common word otherwise adds up and outranks a passage one signal is sure of. Every dense candidate votes
    (a cosine margin that cut the dense tail lost answers over the evaluation sets).
    """
    tuned = tuning.search
    best = lexical[0][1] if lexical else 0.0
    confident = [(cid, score) for cid, score in lexical if score >= tuned.lexical_ratio * best]
    fused: dict[str, float] = {}
    for ranking in (dense, confident):  # the confident head keeps its ranks: it is a prefix of the ranking
        for rank, (cid, _) in enumerate(ranking):
            fused[cid] = fused.get(cid, 0.0) + 1.0 / (tuned.rrf_k + rank + 1)
    return fused


def unique(items: Iterable[str]) -> Iterator[str]:
    """`items` without repeats, in order, read lazily."""
    seen: set[str] = set()
    for item in items:
        if item not in seen:
            seen.add(item)
            yield item


def best_positive(scores: np.ndarray, k: int) -> np.ndarray:
    """Positions of the k highest positive scores, best first, ties in position order (a stable sort of the
    whole array would give the same, at 100,000 chunks for several milliseconds more). Only the positive scores
    are partitioned: most of a BM25 ranking is zeros, and numpy's selection is several times slower over many ties."""
    top = np.flatnonzero(scores > 0)
    if len(top) > k:
        positive = scores[top]
        top = top[positive >= np.partition(positive, len(top) - k)[len(top) - k]]
    return top[np.argsort(-scores[top], kind="stable")][:k]


class HybridRetriever:
    """Search over one index generation; BM25 is built in memory from the chunks Chroma holds. `tuning.search`
    holds how many candidates each ranking gives, how they are fused, and which names it knows."""

    def __init__(
        self,
        store: ChunkStore,
        manifest: Manifest,
        embedder: Embedder,
        chunks: Sequence[Chunk],
        lexical: LexicalIndex | None = None,
        vectors: ExactVectors | None = None,
        *,
        tuning: Tuning = DEFAULT,
    ) -> None:
        self.tuning = tuning
        self.store = store
        self.vectors = vectors  # exact search in memory when the knowledge base has the matrix; else Chroma's
        self.manifest = manifest
        self.embedder = embedder
        self.chunks = list(chunks)
        self.by_id = {c.id: i for i, c in enumerate(self.chunks)}
        self.catalog = Catalog.learn(self.chunks)
        self.versions = self.catalog.versions()
        self.filter = vectors.filter if vectors else ChunkFilter(self.chunks)
        lexical = lexical or LexicalIndex.build(self.chunks)  # the knowledge base passes the saved one
        self.bm25 = lexical.bm25
        n = max(lexical.documents, 1)
        self._idf = {t: bm25_idf(n, f) for t, f in lexical.df.items()}
        self._max_idf = bm25_idf(n, 0)
        self._vocab = sorted(self._idf)
        # Dotted names by their last parts: a question says `finders.find` or `GeoIP2.coords` where the docs
        # write the full path.
        self._tails: dict[str, list[str]] = {}
        self._members: dict[str, list[str]] = {}  # "append" -> ["dataframe.append", "series.append"]
        for token in self._vocab:
            parts = token.split(".")
            if len(parts) < 2 or not all(parts):
                continue
            for i in range(1, len(parts) - 1):
                self._tails.setdefault(".".join(parts[i:]), []).append(token)
            self._members.setdefault(parts[-1], []).append(token)

    @classmethod
    def of(cls, store: ChunkStore, embedder: Embedder, generation: Generation, tuning: Tuning) -> HybridRetriever:
        """The retriever over one generation of the index (`assistant.index.generation.load_generation`)."""
        g = generation
        return cls(store, g.manifest, embedder, g.chunks, g.lexical, g.vectors, tuning=tuning)

    def idf(self, token: str) -> float:
        """Rarity of an index token; unseen tokens get the maximum."""
        return self._idf.get(token, self._max_idf)

    def knows(self, token: str) -> bool:
        """The index holds `token`, or a dotted name that ends with it or starts with it (`finders.find` is in
        `staticfiles.finders.find`, `django.utils.timezone` in `django.utils.timezone.utc`)."""
        return token in self._idf or token in self._tails or ("." in token and self.knows_prefix(token + "."))

    def spellings(self, symbol: str) -> list[str]:
        """Other ways the docs write a symbol of a question: through import aliases (`np.float_` ->
        `numpy.float_`), as the end of a longer dotted name (`finders.find`), and for a member used through a
        receiver of unknown type (`df.append`, `arr.newbyteorder`), the docs' `Class.member` names."""
        alts = [a for a in self.catalog.spellings(symbol)[1:] if self.knows(a)]
        # The docs may write it both ways (`GenericModel` in prose, `pydantic.generics.GenericModel` where it
        # changed): the longer names count even when the short one is indexed too.
        alts += self._tails.get(symbol, [])
        if symbol not in self._idf:
            head, _, member = symbol.rpartition(".")
            receiver = head and "." not in head and not self.catalog.product(head) and head not in self.catalog.aliases
            if receiver and len(member) >= self.tuning.text.member_chars:
                # `model.dict()` is `dict()` in a table of renamed methods, `BaseModel.dict` elsewhere.
                alts += self._members.get(member, []) + ([member] if member in self._idf else [])
        return list(dict.fromkeys(a for a in alts if a != symbol))

    def knows_prefix(self, prefix: str) -> bool:
        """Some indexed token starts with `prefix` ("c++" for "c++20")."""
        i = bisect.bisect_left(self._vocab, prefix)
        return i < len(self._vocab) and self._vocab[i].startswith(prefix)

    def search(self, query: Query, k: int, timings: dict[str, float] | None = None) -> list[Passage]:
        """The k best passages for a query, honouring its version filter and preference."""
        timings = timings if timings is not None else {}
        if not self.chunks:
            return []
        t0 = time.perf_counter()
        vector = self.embedder.encode([query.text])[0]
        t1 = time.perf_counter()
        dense = self._dense(vector, query)
        t2 = time.perf_counter()
        lexical = self._lexical(query)
        t3 = time.perf_counter()
        fused = fuse(dense, lexical, self.tuning)
        boost = self.tuning.search.preferred_boost
        for cid in fused:
            chunk = self.chunks[self.by_id[cid]]
            # The product a question names outranks another's near match; then the release it names.
            if query.prefer_products and chunk.product in query.prefer_products:
                fused[cid] *= boost
            if query.prefer and query.prefers(chunk):
                fused[cid] *= boost
        sims, scores = dict(dense), dict(lexical)
        both = self._agreed(dense, lexical, query)
        ranked = sorted(fused, key=fused.__getitem__, reverse=True)
        best = ranked[:k]
        top = fused[best[0]] if best else 0.0
        for cid in self._removing(lexical + dense, query, set(best)):
            fused[cid] = top  # the entry asked about, as sure as the best match: sure of what fusion is not
            best.append(cid)
        timings.update(embed=(t1 - t0) * 1e3, dense=(t2 - t1) * 1e3, lexical=(t3 - t2) * 1e3)
        return [
            Passage(
                self.chunks[self.by_id[cid]],
                fused[cid],
                similarity=sims.get(cid),
                bm25=scores.get(cid),
                both=cid in both,
            )
            for cid in best
        ]

    def _agreed(self, dense: list[tuple[str, float]], lexical: list[tuple[str, float]], query: Query) -> frozenset[str]:
        """The chunks both rankings put among their first few (`tuning.search.agreement_heads`), counting only the
        product the question names and, where a ranking holds any, the release it names: where the meaning search
        and the word search look matters more than how close either finds its best."""
        n = self.tuning.search.agreement_heads

        def heads(ranking: list[tuple[str, float]]) -> set[str]:
            chunks = [self.chunks[self.by_id[cid]] for cid, _ in ranking]
            named = [c for c in chunks if prefers_product(query, c, self.tuning)]
            own = [c for c in named if query.prefers(c)]
            return {c.id for c in (own or named)[:n]}

        return frozenset(heads(dense) & heads(lexical))

    def _removing(self, ranking: list[tuple[str, float]], query: Query, taken: set[str]) -> list[str]:
        """For a question saying a name is gone, the best matches (lexical, then dense) whose entries remove that
        name: the removal shares few words with "it disappeared after I upgraded", and fusion ranks it below the
        entries that added or deprecated the name."""
        names, tuned = gone_names(query, self.tuning), self.tuning.search
        if not names or not tuned.removal_heads:
            return []
        named = query.prefer_products
        candidates = (self.chunks[self.by_id[cid]] for cid in unique(c for c, _ in ranking) if cid not in taken)
        found = (c.id for c in candidates if (not named or c.product in named) and removes(c, names, self.tuning))
        return list(itertools.islice(found, tuned.removal_heads))

    def _within_versions(self, scores: np.ndarray, query: Query) -> np.ndarray:
        """BM25 scores with chunks outside the query's version and product filters zeroed."""
        allowed = self.filter.mask(query.versions, query.products)
        return scores if allowed is None else np.where(allowed, scores, 0.0)

    def _dense(self, vector: np.ndarray, query: Query) -> list[tuple[str, float]]:
        tuned = self.tuning.search
        n = min(tuned.candidates, len(self.chunks))
        only = {"versions": query.versions or None, "products": query.products or None, "manifest": self.manifest}
        source = self.vectors or self.store
        hits = [(cid, sim) for cid, sim in source.query(vector, n, **only) if cid in self.by_id]
        return sorted(hits, key=lambda kv: kv[1], reverse=True)

    def _lexical(self, query: Query) -> list[tuple[str, float]]:
        return self._ranked(tokens(query.text), query, self.tuning.search.candidates)

    def _ranked(self, toks: list[str], query: Query, k: int) -> list[tuple[str, float]]:
        """The k best of the BM25 ranking of `toks` within the query's versions and products."""
        if not toks or not k:
            return []
        scores = self._within_versions(self.bm25.get_scores(toks), query)
        return [(self.chunks[i].id, float(scores[i])) for i in best_positive(scores, k)]
