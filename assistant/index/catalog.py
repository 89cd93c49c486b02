"""What an index says about its products, learned from the indexed docs themselves (nothing here names one).

For each product: its versions, the module names it is imported by and their aliases (`import pandas as pd`
in its code, or a dotted name it uses all the time: `torch.` in PyTorch's notes), and so the words that name it
in a question. Across the index: import aliases (`np` -> `numpy`) for matching symbols, and the names that
precede version numbers but are no indexed product ("CUDA 12.6", "Python 3.10"), whose numbers are not
releases of anything indexed.

Written by hand: no library learns this vocabulary from release notes.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

from assistant.model.records import Chunk
from assistant.text.words import STOPWORDS, fold

MODULE_SHARE = 0.6  # a module name inside the product's name stands for it when it is this much of it
MIN_ALIAS_USES = 3  # a short name written dotted this often in a product's docs, never imported, is its alias (`nx.`)
# Leading blanks within the line only: `^\s*` went on across blank lines from every line start, quadratic over a
# run of them (the module and alias found are the same; these are only read with findall).
_IMPORT = re.compile(r"^[^\S\n]*+(?:>>>\s*+)?import\s+([A-Za-z_][\w.]*)(?:\s+as\s+([A-Za-z_]\w*))?", re.MULTILINE)
_FROM = re.compile(r"^[^\S\n]*+(?:>>>\s*+)?from\s+([A-Za-z_][\w.]*)\s+import\b", re.MULTILINE)
# ... with the names it imports, on its line: `from pydantic import BaseModel, validator`
_FROM_NAMES = re.compile(r"^[^\S\n]*+(?:>>>\s*+)?from\s++([A-Za-z_][\w.]*+)\s++import\s++\(?([\w \t,]++)", re.MULTILINE)
# `module.name`, not a file: `test.py`, `setup.cfg`, `README.md` name no module (`pkg.json` may be one).
_DOTTED = re.compile(
    r"(?<![\w.])([a-z_][a-z0-9_]*)\.(?!(?:py[cdiwz]?|txt|cfg|ini|toml|rst|md|lock|sh|bat|exe|so|dll|whl|egg|gz|tgz"
    r"|zip|tar)\b)[A-Za-z_]\w*"
)
_PROSE_NAME = re.compile(r"\b[A-Z][A-Za-z]*(?:[ -][A-Z][A-Za-z]*){0,2}\b")
NAME_SHARE = 0.5  # a word before version numbers written as a name this often ("SQLAlchemy") names another thing
# Tried once per run of name characters, from where its first name may start (atomic): every start in a run
# reads to the run's end, so trying each was quadratic, and all of them end alike. Read with findall only.
_NAMED_VERSION = re.compile(r"(?<![\w+-])(?>[\w+-]*?\b(?=[A-Za-z]))([A-Za-z][\w+-]*+)\s+v?(\d{1,3}\.\d{1,3})\b")
# Words before a number that say "this is a version" rather than naming what it is a version of.
_VERSION_WORDS = frozenset(
    "version versions release releases v ver since until from to in on at of and or upgrade upgrading upgraded "
    "update updating updated migrate migrating moving move bump bumped preserve keep".split()
)


_DIGITS = re.compile(r"\d++")
_FINAL = re.compile(r"\d++(?:[.\-+_]\d++)*+")  # a release of numbers only, no "rc4" or "a2"


@lru_cache(maxsize=8192)  # asked for every release of the index at each version a question names
def version_key(v: str) -> tuple[int, ...]:
    """Numeric parts of a version, for ordering and for matching major.minor(.patch): each part's leading digits
    ("3" of "3a2", so 0.3a2 is a 0.3 release, not 0.0), 0 for a part without."""
    return tuple(int(m.group()) if (m := _DIGITS.match(p)) else 0 for p in re.split(r"[.\-+_]", v))


def release_key(version: str) -> tuple[int, ...]:
    """A version's numbers padded to four, so "2.0" and "2.0.0" are one release ("v2.0" too)."""
    return (*version_key(version.strip().lstrip("vV")), 0, 0, 0, 0)[:4]


def sort_versions(versions: Iterable[str]) -> list[str]:
    """The versions, oldest first; of those with the same numbers, pre-releases ("2.1rc4", "0.3a2") before the
    final one ("2.1"), then by their text, so the order never depends on the set's (hash-seeded) iteration."""
    return sorted(set(versions), key=lambda v: (version_key(v), _FINAL.fullmatch(v) is not None, v))


@dataclass(frozen=True)
class IndexedFile:
    """One file of a product: its releases, oldest first, and where they were read (`Chunk.release_from`)."""

    source: str
    releases: tuple[str, ...]
    release_from: str

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.source, "releases": list(self.releases), "release_from": self.release_from}


@dataclass(frozen=True)
class Product:
    """One product of the index: the name its docs give it, its versions oldest first, what names it."""

    name: str
    versions: tuple[str, ...]
    spellings: frozenset[str] = frozenset()  # how chunks spell it ("PyTorch", "pytorch"), for filters
    modules: frozenset[str] = frozenset()  # import names: "torch", "pandas"
    words: frozenset[str] = frozenset()  # folded words naming it in a question: name, modules, aliases
    main: str = ""  # the module its users import it as, for names the docs leave unqualified ("torch")
    phrases: frozenset[str] = frozenset()  # folded names of more than one word its docs call it ("beautiful soup")
    files: tuple[IndexedFile, ...] = ()  # by file name

    @property
    def key(self) -> str:
        return fold(self.name)


@dataclass(frozen=True)
class Catalog:
    """Products, aliases and version vocabulary of one index generation."""

    products: tuple[Product, ...] = ()
    aliases: dict[str, str] = field(default_factory=dict)  # "np" -> "numpy", as the docs' code imports it
    other_versioned: frozenset[str] = frozenset()  # folded names whose numbers are no indexed release
    # "validator" -> "pydantic.validator": names the docs' code imports from a module, where it writes them bare
    imported: dict[str, str] = field(default_factory=dict)

    @classmethod
    def learn(cls, chunks: Sequence[Chunk]) -> Catalog:
        by_product: dict[str, list[Chunk]] = defaultdict(list)
        for c in chunks:
            if c.product:
                by_product[fold(c.product)].append(c)  # "PyTorch" in front matter, "pytorch" as a folder
        aliases = _aliases(chunks)
        products = []
        written: dict[str, tuple[Counter[str], list[str]]] = {}  # each product's dotted heads and imported modules
        for key, own in by_product.items():
            name = display_name(c.product for c in own)
            written[key] = heads, tops = _dotted_heads(own), _import_tops(own)
            modules = _modules(name, heads, tops)
            prose = _prose_names(name, own)
            words = {fold(name), *modules, *(a for a, m in aliases.items() if m.lower() in modules)}
            words |= {p for p in prose if " " not in p}
            versions = tuple(sort_versions(c.version for c in own if c.version))
            spelled = frozenset(c.product for c in own)
            folded = frozenset(fold(w) for w in words)
            main = _main_module(name, modules, own)
            phrases = frozenset(p for p in prose if " " in p)
            files = indexed_files(own)
            products.append(Product(name, versions, spelled, frozenset(modules), folded, main, phrases, files))
        products.sort(key=lambda p: p.key)
        for product in products:  # `nx.info` in notes that never import networkx: `nx` is networkx's alias
            key = fold(product.name)
            for alias in _written_aliases(product.main, by_product[key], *written[key], aliases):
                aliases.setdefault(alias, product.main)
        naming = {w for p in products for w in (*p.words, *(fold(x) for f in p.phrases for x in f.split()))}
        indexed = {p.key: {version_key(v)[:2] for v in p.versions} for p in products}
        other = frozenset(_other_versioned(chunks, naming, indexed))
        return cls(tuple(products), aliases, other, _imported(chunks))

    @classmethod
    def of_versions(cls, versions: Sequence[str]) -> Catalog:
        """A catalog of one unnamed product (for callers that only know the versions)."""
        return cls((Product("", tuple(sort_versions(versions))),))

    @cached_property  # read for every question
    def product_words(self) -> frozenset[str]:
        return frozenset(w for p in self.products for w in p.words)

    def listing(self, product: str | None = None) -> dict[str, list[str]]:
        """Each product's name with its versions, oldest first; only `product`'s (a name, module or alias) when
        given, none when it is not indexed."""
        return {p.name: list(p.versions) for p in self.chosen(product)}

    def chosen(self, product: str | None = None) -> list[Product]:
        """Every product, or `product` alone (a name, module or alias) when given: none when it is not indexed."""
        return list(self.products) if product is None else [p for p in [self.product(product)] if p]

    def product(self, name: str) -> Product | None:
        """The product called `name` (its name, a module or an alias, any case), or None."""
        key = fold(name.strip())
        return next((p for p in self.products if key == p.key or key in p.words), None)

    def versions(self, product: str | None = None) -> list[str]:
        """Versions of one product, or of every product (one list, oldest first)."""
        if product is not None:
            p = self.product(product)
            return list(p.versions) if p else []
        return sort_versions(v for p in self.products for v in p.versions)

    def named_products(self, text: str) -> list[Product]:
        """Products a question names by name, module or alias (`pandas`, `torch.compile`, `pd.concat`)."""
        found = [fold(w) for w in re.findall(r"[A-Za-z_][\w+-]*", text)]
        words, joined = set(found), f" {' '.join(found)} "
        return [p for p in self.products if p.words & words or any(f" {x} " in joined for x in p.phrases)]

    def spellings(self, symbol: str) -> list[str]:
        """`symbol` as the docs may spell it: through import aliases (`np.float_` -> `numpy.float_`)."""
        head, dot, rest = symbol.partition(".")
        full = self.aliases.get(head.lower())
        return [symbol, f"{full}{dot}{rest}"] if dot and full and full != head else [symbol]


def indexed_files(chunks: Sequence[Chunk]) -> tuple[IndexedFile, ...]:
    """Each file of `chunks` with its releases, by file name."""
    by_source: dict[str, list[Chunk]] = defaultdict(list)
    for c in chunks:
        by_source[c.source].append(c)
    return tuple(
        IndexedFile(
            source,
            tuple(sort_versions(c.version for c in own if c.version)),
            next((c.release_from for c in own if c.release_from), ""),  # a changelog's preamble has none
        )
        for source, own in sorted(by_source.items())
    )


def _code_texts(chunks: Iterable[Chunk]) -> Iterable[str]:
    for c in chunks:
        if "import" in c.text:
            yield c.text


def _aliases(chunks: Sequence[Chunk]) -> dict[str, str]:
    """`import numpy as np` -> {"np": "numpy"}: the most frequent module each alias stands for."""
    seen: dict[str, Counter[str]] = defaultdict(Counter)
    for text in _code_texts(chunks):
        for module, alias in _IMPORT.findall(text):
            if alias and alias.lower() != module.lower():
                seen[alias.lower()][module] += 1  # questions are folded: `F.relu` arrives as `f.relu`
    return {alias: counts.most_common(1)[0][0] for alias, counts in seen.items()}


_ASSIGNED = re.compile(r"(?<![\w.])([a-z_]\w*)\s*+=(?!=)")  # `arw = arrow.utcnow()` binds a variable


def _dotted_heads(chunks: Sequence[Chunk]) -> Counter[str]:
    """How often the docs write each name dotted (`pd` of `pd.DataFrame`, `torch` of `torch.load`)."""
    return Counter(head for c in chunks for head in _DOTTED.findall(c.text))


def _import_tops(chunks: Sequence[Chunk]) -> list[str]:
    """The top-level module of each import in the docs' code, once per import (`numpy` of `import numpy as np`)."""
    return [
        module.split(".")[0]
        for text in _code_texts(chunks)
        for module in [m for m, _ in _IMPORT.findall(text)] + _FROM.findall(text)
    ]


def _written_aliases(
    main: str, chunks: Sequence[Chunk], heads: Counter[str], tops: list[str], known: Mapping[str, str]
) -> list[str]:
    """Short names a product's docs write dotted as its module but never import (`nx.info`, `nx.Graph` in
    networkx's notes): two or three letters of its main module's name, in order, from its first, written at
    least `MIN_ALIAS_USES` times; none another import already names, nor a submodule (`sqlalchemy.sql`), nor a
    name the docs' code assigns (`arw = arrow.utcnow()`)."""
    if len(main) < 4:
        return []
    imported = set(tops)
    candidates = [
        head
        for head, n in heads.items()
        if n >= MIN_ALIAS_USES
        and 2 <= len(head) <= 3
        and head.islower()
        and head != main
        and head not in known
        and head not in imported
        and _in_order(head, main)
    ]
    if not candidates:  # most products: the text is read no further
        return []
    # `sql` of `sqlalchemy.sql`: a module of its own, written short; `arw` of `arw = arrow.utcnow()`: a variable
    submodules = {m for c in chunks for m in re.findall(rf"(?<![\w.]){re.escape(main)}\.([a-z_]\w*)", c.text)}
    variables = {m for c in chunks for m in _ASSIGNED.findall(c.text)}
    return [head for head in candidates if head not in submodules and head not in variables]


def _in_order(short: str, name: str) -> bool:
    """`short`'s letters are in `name` in order, the first its first: "nx" in "networkx", "pd" in "pandas"."""
    if not short or short[0] != name[0]:
        return False
    rest = iter(name[1:])
    return all(letter in rest for letter in short[1:])


def _imported(chunks: Sequence[Chunk]) -> dict[str, str]:
    """`from pydantic import BaseModel, validator` -> {"validator": "pydantic.validator", …}: the module each name
    is most often imported from in the docs' code (`import … as …` renames are left out: they are aliases)."""
    seen: dict[str, Counter[str]] = defaultdict(Counter)
    for text in _code_texts(chunks):
        for module, names in _FROM_NAMES.findall(text):
            for name in names.split(","):
                if (name := name.strip()).isidentifier():
                    seen[name][f"{module}.{name}"] += 1
    return {name: counts.most_common(1)[0][0] for name, counts in seen.items()}


def _modules(name: str, heads: Counter[str], tops: list[str]) -> set[str]:
    """Import names of a product: top-level modules its docs import or use that contain its name (`django`,
    `pandas_gbq`), or that its name contains when they are most of it or its docs import them (`torch` for
    PyTorch, `attr` for attrs). A short name written dotted but never imported is no module of the product's
    only because its name holds it: `log.info` in structlog's notes is a logger."""
    key = re.sub(r"[^a-z0-9]", "", fold(name))
    counts: Counter[str] = Counter({m: 3 * n for m, n in Counter(tops).items()})
    imported = set(tops)
    counts.update({m: n for m, n in heads.items() if len(m) > 2})
    out = set()
    for module, n in counts.most_common(50):
        flat = module.replace("_", "").lower()
        # `attr` holds most of "attrs"; `log` is a small part of "structlog", a module only if imported.
        part = flat in key and (module in imported or len(flat) >= MODULE_SHARE * len(key))
        if n >= 2 and len(flat) >= 3 and (key in flat or part):
            out.add(module.lower())
    return out


def _prose_names(name: str, chunks: Sequence[Chunk]) -> set[str]:
    """The names a product's docs write it by in prose when its package name differs: "Beautiful Soup" for
    beautifulsoup4, "Python-Markdown" for markdown. A phrase of capitalised words is one when its letters are the
    name's (a trailing number aside), or it ends with the name after a hyphen; it must recur."""
    key = re.sub(r"[^a-z0-9]", "", fold(name))
    base = key.rstrip("0123456789") or key
    counts: Counter[str] = Counter()
    for c in chunks:
        for phrase in _PROSE_NAME.findall(c.text):
            flat = re.sub(r"[^a-z0-9]", "", fold(phrase))
            if flat != key and (flat == base or fold(phrase).endswith(f"-{base}")):
                counts[fold(phrase)] += 1
    return {p for p, n in counts.items() if n >= 2}


def _main_module(name: str, modules: set[str], chunks: Sequence[Chunk]) -> str:
    """Of a product's modules, the one its docs write most as `module.` (`torch`, not `pytorch` from its URLs;
    `pandas`, not `pandas_gbq`). Docs that never import their product still write it dotted (`pandas.DataFrame`):
    without a module, its name is it."""
    own = fold(name)
    if not modules:
        return own if own.isidentifier() else ""
    if len(modules) == 1:
        return next(iter(modules))
    uses = {m: sum(c.text.count(f"{m}.") for c in chunks) for m in modules}
    return max(sorted(modules), key=lambda m: (uses[m], m == own))


def display_name(names: Iterable[str]) -> str:
    """The name a product's docs give it most: front matter's "PyTorch" over the folder's "pytorch"."""
    counts = Counter(names)
    return max(counts, key=lambda n: (n != n.lower(), counts[n]))


def _other_versioned(
    chunks: Sequence[Chunk], naming: set[str], indexed: Mapping[str, set[tuple[int, ...]]]
) -> set[str]:
    """Names that precede version numbers in the docs and name no indexed product ("CUDA 12.6"): mostly
    followed by numbers that are no indexed release of the product whose docs say it (so "upgrade 2.12" does
    not make "upgrade" one, and "manylinux 2.28" in PyTorch's notes stays one beside requests 2.28), or mostly
    written as only a name is ("SQLAlchemy 1.4" in Alembic's notes, whose own releases run 0.1 to 1.20)."""
    other: Counter[str] = Counter()
    release: Counter[str] = Counter()
    named: Counter[str] = Counter()
    for c in chunks:
        own = indexed.get(fold(c.product), set())
        for word, number in _NAMED_VERSION.findall(c.text):
            w = fold(word)
            if w in naming or w in _VERSION_WORDS or w in STOPWORDS or w.isdigit():
                continue
            (release if version_key(number)[:2] in own else other)[w] += 1
            named[w] += any(ch.isupper() for ch in word[1:])  # "SQLAlchemy", "CUDA", "macOS"
    by_numbers = {w for w, n in other.items() if n > release[w]}
    return by_numbers | {w for w, n in named.items() if n > NAME_SHARE * (other[w] + release[w])}
