"""One way through: every import of the project's own code runs down the layers, never up, never in a circle.

The order is written once, in `LAYERS`, lowest first: a module may import its own package and the layers
before it. The shared lower layers (the tuned values, text tools, the data model, how reldocs runs, the index,
the embedders) come first; then the stages of a question in the order its data flows (understand → search →
gate → answer, with the upgrade plan and scan before the answer, which answers upgrade questions from the
plan); then the facade (`KnowledgeBase`), the interfaces and `app.py`. The write side (`ingest/`) is a branch
beside the stages: it may import the shared layers only, and only the interfaces and `app.py` import it.

Every import counts: at module level, inside functions, under `TYPE_CHECKING`, and through `importlib`
(`import_module("…")`, `__import__("…")` with a literal name).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ("assistant", "ingest", "interfaces", "app")

LAYERS: tuple[tuple[str, ...], ...] = (
    ("assistant.tuning",),  # the tuned values of the question path, as data
    ("assistant.text",),  # words, sentences, markup; checks for untrusted strings
    ("assistant.model",),  # documents, entries, changes, chunks, answers, errors, messages
    ("assistant.runtime",),  # settings, bounded worker processes
    ("assistant.index",),  # the store, its manifest and lock, caches, vectors, lexical index, catalog
    ("assistant.embed",),  # embedding backends
    ("assistant.understand",),  # stage 1: a question -> Query
    ("assistant.search",),  # stage 2: Query -> passages, their sentences scored
    ("assistant.gate",),  # stage 3: answer or refuse, with a Reason
    ("assistant.upgrade",),  # changes -> plan -> scan
    ("assistant.answer",),  # stage 4: the cited answer
    ("assistant.knowledge_base", "assistant.feedback", "assistant"),  # the facade
    ("interfaces",),
    ("app",),
)
# The write side: imports the shared layers up to this one, and is imported only from this layer on.
INGEST, INGEST_UP_TO, INGEST_FROM = "ingest", "assistant.embed", "interfaces"


def _layer_of(module: str, layers: Iterable[tuple[str, ...]] = LAYERS) -> tuple[int, str] | None:
    """The layer index of `module` and the package that places it (the longest matching prefix)."""
    best: tuple[int, str] | None = None
    for i, names in enumerate(layers):
        for name in names:
            if (module == name or module.startswith(name + ".")) and (best is None or len(name) > len(best[1])):
                best = (i, name)
    return best


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(source: str, module: str, is_package: bool = False) -> Iterator[tuple[str, int]]:
    """Every project module `source` imports, with its line: `import`, `from … import`, relative imports,
    imports inside functions or under `TYPE_CHECKING`, and `importlib.import_module`/`__import__` calls."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")
                parent = parent[: len(parent) - (node.level - 1)]
                base = ".".join([*parent, base] if base else parent)
            yield base, node.lineno
            for alias in node.names:  # `from assistant.index import store` imports the module store
                yield f"{base}.{alias.name}", node.lineno
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                yield node.args[0].value, node.lineno


def project_sources(root: Path = ROOT) -> dict[str, tuple[str, bool]]:
    """Module name -> (source, is a package) for every module of the project."""
    out: dict[str, tuple[str, bool]] = {"app": ((root / "app.py").read_text(), False)}
    for package in PROJECT[:-1]:
        for path in sorted((root / package).rglob("*.py")):
            out[_module_name(path, root)] = (path.read_text(), path.name == "__init__.py")
    return out


def edges(sources: Mapping[str, tuple[str, bool]]) -> dict[str, dict[str, int]]:
    """Module -> the project modules it imports (the deepest name that is a module), with a line of each."""
    out: dict[str, dict[str, int]] = {}
    for module, (source, is_package) in sources.items():
        found: dict[str, int] = {}
        for name, line in imports(source, module, is_package):
            while name and name not in sources:  # `assistant.index.store.ChunkStore` -> `assistant.index.store`
                name = name.rpartition(".")[0]
            if name and name != module:
                found.setdefault(name, line)
        out[module] = found
    return out


def backward(graph: Mapping[str, Mapping[str, int]], layers: tuple[tuple[str, ...], ...] = LAYERS) -> list[str]:
    """Every import that runs up the layers, or into or out of the write side where it may not."""
    ingest_max = _layer_of(INGEST_UP_TO, layers)
    ingest_min = _layer_of(INGEST_FROM, layers)
    assert ingest_max is not None and ingest_min is not None
    bad = []
    for src, targets in graph.items():
        for dst, line in targets.items():
            s_ing, d_ing = src.split(".")[0] == INGEST, dst.split(".")[0] == INGEST
            s, d = _layer_of(src, layers), _layer_of(dst, layers)
            if s_ing and d_ing:
                continue
            if s_ing:
                ok = d is not None and d[0] <= ingest_max[0]
            elif d_ing:
                ok = s is not None and s[0] >= ingest_min[0]
            else:
                assert s is not None and d is not None, f"{src} or {dst} is in no layer: add its package to LAYERS"
                # Same layer: only within one package (a layer's packages do not import each other's modules),
                # except that the facade's modules are one layer.
                ok = d[0] < s[0] or (d[0] == s[0] and (s[1] == d[1] or len(layers[s[0]]) > 1))
            if not ok:
                bad.append(f"{src}:{line} imports {dst}")
    return sorted(bad)


def cycles(graph: Mapping[str, Mapping[str, int]]) -> list[list[str]]:
    """The import cycles among modules (Tarjan's strongly connected components of more than one module)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


# A package's __init__ may name what it holds; that is not an import cycle of the modules.
def _without_package_inits(graph: Mapping[str, Mapping[str, int]], sources: Mapping[str, tuple[str, bool]]):
    return {m: dict(t) for m, t in graph.items() if not sources[m][1]}


def test_every_import_runs_down_the_layers() -> None:
    graph = edges(project_sources())
    assert backward(graph) == []


def test_no_import_cycles() -> None:
    sources = project_sources()
    assert cycles(_without_package_inits(edges(sources), sources)) == []


def test_every_package_has_a_layer_and_says_its_job() -> None:
    packages = {_module_name(p, ROOT) for p in ROOT.glob("assistant/*/__init__.py")}
    listed = {name for names in LAYERS for name in names}
    assert packages <= listed, f"packages in no layer: {sorted(packages - listed)}"
    assert {n for n in listed if n.count(".") == 1 and (ROOT / n.replace(".", "/")).is_dir()} == packages
    for package in sorted(packages):
        doc = ast.get_docstring(ast.parse((ROOT / package.replace(".", "/") / "__init__.py").read_text()))
        assert doc, f"{package} has no docstring saying its job"


def test_the_whole_project_is_read() -> None:
    # A walk that missed imports inside functions would find far fewer edges; these are known ones.
    graph = edges(project_sources())
    assert "ingest.sync" in graph["app"]  # inside a function, `from ingest.sync import SyncReport`
    assert len(graph) > 80


def _graph(**modules: str) -> dict[str, dict[str, int]]:
    return edges({name.replace("__", "."): (source, False) for name, source in modules.items()})


@pytest.mark.parametrize(
    "source",
    [
        "from assistant.answer.extractive import Answer\n",
        "def f():\n    from assistant.answer import extractive\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from assistant.answer.extractive import A\n",
        "import importlib\nm = importlib.import_module('assistant.answer.extractive')\n",
        "m = __import__('assistant.answer.extractive')\n",
        "from ..answer import extractive\n",
    ],
    ids=["module", "in-function", "type-checking", "importlib", "__import__", "relative"],
)
def test_a_backward_import_is_caught_however_it_is_written(source: str) -> None:
    graph = _graph(assistant__search__retrieval=source, assistant__answer__extractive="")
    assert backward(graph) == [
        f"assistant.search.retrieval:{source.count(chr(10))} imports assistant.answer.extractive"
    ]


def test_the_write_side_may_not_import_a_stage_nor_a_stage_the_write_side() -> None:
    graph = _graph(
        ingest__sync="from assistant.understand.query import Query\nfrom assistant.index.store import S\n",
        assistant__search__retrieval="from ingest.sync import sync\n",
        assistant__understand__query="",
        assistant__index__store="",
        interfaces__web="from ingest import sync\n",
        ingest="",
    )
    assert backward(graph) == [
        "assistant.search.retrieval:1 imports ingest.sync",
        "ingest.sync:1 imports assistant.understand.query",
    ]


def test_a_cycle_is_caught_even_within_a_package() -> None:
    graph = _graph(
        assistant__upgrade__scan="from assistant.upgrade.visitor import V\n",
        assistant__upgrade__visitor="def f():\n    from assistant.upgrade.scan import S\n",
        assistant__upgrade__plan="",
    )
    assert backward(graph) == []
    assert cycles(graph) == [["assistant.upgrade.scan", "assistant.upgrade.visitor"]]


FACADE = "assistant (facade)"


def _package(module: str) -> str:
    """The package a module is drawn in: its layer's package, or `ingest`."""
    if module.split(".")[0] == INGEST:
        return INGEST
    found = _layer_of(module)
    assert found is not None
    return FACADE if found[1] in LAYERS[_layer_of("assistant")[0]] else found[1]  # type: ignore[index]


def architecture(root: Path = ROOT) -> str:
    """docs/architecture.md, drawn from the code: the layers in order with each package's job (its docstring's
    first sentence) and modules, and the package imports as a picture (transitively reduced: an import a path
    through other packages already implies is not drawn)."""
    sources = project_sources(root)
    graph = edges(sources)
    packages: dict[str, list[str]] = {}
    for module in sources:
        packages.setdefault(_package(module), []).append(module)
    direct: dict[str, set[str]] = {p: set() for p in packages}
    for src, targets in graph.items():
        direct[_package(src)].update(_package(d) for d in targets if _package(d) != _package(src))

    def implied(a: str, b: str) -> bool:
        """`a` reaches `b` through another package it imports."""
        seen, todo = set(), [n for n in direct[a] if n != b]
        while todo:
            here = todo.pop()
            if here == b:
                return True
            if here not in seen:
                seen.add(here)
                todo.extend(direct[here])
        return False

    drawn = sorted((a, b) for a in direct for b in direct[a] if not implied(a, b))
    order = [_package(names[0]) for names in LAYERS]
    order = [*dict.fromkeys([*order[: order.index(INGEST_UP_TO) + 1], INGEST, *order])]
    node = {p: p.replace("assistant.", "").replace(" (facade)", "") for p in order}
    lines = [
        "# Architecture",
        "",
        "Drawn from the code by `python tests/test_layers.py > docs/architecture.md` (a test fails when it is out",
        "of date). Lowest layer first; a package imports only the layers before it (`tests/test_layers.py`).",
        "A question goes understand → search → gate → answer; an upgrade goes changes (`model`) → plan → scan",
        "(`upgrade`). Arrows are imports, an import another path already implies left out.",
        "",
        "```mermaid",
        "flowchart BT",
    ]
    lines += [f'    {node[p]}["{p}"]' for p in order]
    lines += [f"    {node[a]} --> {node[b]}" for a, b in drawn]
    lines += ["```", "", "| layer | package | its job | modules |", "|---|---|---|---|"]
    for i, p in enumerate(order, 1):
        init = root / p.replace(".", "/") / "__init__.py"
        if p == FACADE:
            init = root / "assistant" / "knowledge_base.py"
        elif not init.exists():
            init = root / f"{p.replace('.', '/')}.py"
        doc = (ast.get_docstring(ast.parse(init.read_text())) or "").replace("\n", " ")
        job = doc.split(". ")[0].rstrip(".") + "."
        prefix = "" if p == FACADE else p + "."
        mods = (
            ", ".join(f"`{m.removeprefix(prefix)}`" for m in sorted(packages[p]) if m not in (p, "assistant"))
            or "(one module)"
        )
        lines.append(f"| {i} | `{p}` | {job.replace('|', '/')} | {mods} |")
    return "\n".join(lines) + "\n"


def test_the_architecture_diagram_is_drawn_from_the_code() -> None:
    assert (ROOT / "docs" / "architecture.md").read_text() == architecture(), (
        "docs/architecture.md is out of date: python tests/test_layers.py > docs/architecture.md"
    )


if __name__ == "__main__":
    print(architecture(), end="")
