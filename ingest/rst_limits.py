"""What one reStructuredText parse may expand: substitutions are sized before docutils copies them.

docutils replaces every `|name|` with a deep copy of its definition, and a definition may use others. Chained
definitions that each use the previous one twice double at every link: sixteen of them, a few hundred bytes,
make docutils copy 65,000 nodes per reference (15 s here for three references; a few more links or references
make it minutes or hours, and gigabytes). Its own `line_length_limit` counts a definition's characters only,
and a chain of images with an empty `:alt:` has none. So `BoundedReader` adds a transform that runs just
before docutils' `Substitutions` (priority 220): it sizes every definition's full expansion from the reference
graph, without copying, and refuses the document when all references together would create more than
`MAX_NODES` nodes or `MAX_CHARS` characters. No real document comes near: release notes use a handful of
`|version|`-style substitutions a few hundred times at most. The ingest's time budget per document
(`ingest.reading`) stays the backstop for whatever else docutils may be made to do.
"""

from __future__ import annotations

from collections.abc import Callable

from docutils import nodes
from docutils.readers import standalone
from docutils.transforms import Transform, references

from assistant.model.errors import ReldocsError

MAX_NODES = 50_000  # about 2 s of docutils' copying on a 2-core machine (a 13-link chain, 25,000 nodes: 1 s)
MAX_CHARS = 5_000_000


class SubstitutionOverflow(ReldocsError):
    """A document whose substitutions expand past the limits; the message names the largest one."""


_CAP = 1 << 48  # sizes stop growing here: a chain of thousands of doublings would make huge integers


class _Size:
    """Nodes and characters of one definition's expansion (capped at `_CAP`)."""

    __slots__ = ("chars", "nodes")

    def __init__(self, nodes_: int = 0, chars: int = 0) -> None:
        self.nodes = min(nodes_, _CAP)
        self.chars = min(chars, _CAP)

    def add(self, other: _Size) -> None:
        self.nodes = min(self.nodes + other.nodes, _CAP)
        self.chars = min(self.chars + other.chars, _CAP)


class SubstitutionBudget(Transform):
    """Refuses the document (raises `SubstitutionOverflow`) before any substitution is expanded, when the
    expansion would pass `MAX_NODES` nodes or `MAX_CHARS` characters."""

    default_priority = references.Substitutions.default_priority - 1

    def apply(self) -> None:
        document = self.document
        defs: dict[str, nodes.substitution_definition] = document.substitution_defs
        if not defs:
            return
        normed: dict[str, str] = document.substitution_names

        def target(ref: nodes.Element) -> str | None:  # docutils' own lookup: exact name, else case-folded
            name = ref["refname"]
            return name if name in defs else normed.get(name.lower())

        own: dict[str, _Size] = {}
        uses: dict[str, list[str]] = {}
        for key, definition in defs.items():
            own[key], uses[key] = _own_size(definition, target)
        sizes = _expanded(own, uses)
        total = _Size()
        for ref in document.findall(nodes.substitution_reference):
            key = target(ref)
            if key is not None and key in sizes:
                total.add(sizes[key])
            if total.nodes > MAX_NODES or total.chars > MAX_CHARS:
                largest = max(sizes, key=lambda k: (sizes[k].nodes, sizes[k].chars))
                raise SubstitutionOverflow(
                    f"reStructuredText substitutions expand past {MAX_NODES:,} nodes or {MAX_CHARS:,} characters "
                    f"(|{largest}| alone is {sizes[largest].nodes:,} nodes); not expanded"
                )


def _own_size(definition: nodes.Element, target: Callable[[nodes.Element], str | None]) -> tuple[_Size, list[str]]:
    """A definition's nodes and characters outside its references, and the definitions it references."""
    size = _Size()
    used: list[str] = []
    stack = list(definition.children)
    while stack:
        node = stack.pop()
        if isinstance(node, nodes.substitution_reference):
            key = target(node)
            if key is not None:
                used.append(key)
            continue
        size.add(_Size(1, len(node.astext()) if isinstance(node, nodes.Text) else 0))
        if isinstance(node, nodes.Element):
            stack.extend(node.children)
    return size, used


def _expanded(own: dict[str, _Size], uses: dict[str, list[str]]) -> dict[str, _Size]:
    """Every definition's full expansion, depth first without recursion (a chain may be thousands long); a
    definition met again on its own path is a cycle, which docutils reports, and counts as nothing here."""
    sizes: dict[str, _Size] = {}
    on_path: set[str] = set()
    for start in own:
        stack: list[tuple[str, bool]] = [(start, False)]
        while stack:
            key, children_done = stack.pop()
            if key in sizes:
                continue
            if children_done:
                size = _Size(own[key].nodes, own[key].chars)
                for used in uses[key]:
                    size.add(sizes.get(used, _Size()))
                sizes[key] = size
                on_path.discard(key)
            elif key not in on_path:
                on_path.add(key)
                stack.append((key, True))
                stack.extend((used, False) for used in uses[key] if used not in sizes)
    return sizes


class BoundedReader(standalone.Reader):
    """docutils' standalone reader with `SubstitutionBudget` among its transforms."""

    def get_transforms(self) -> list[type[Transform]]:
        return [*super().get_transforms(), SubstitutionBudget]
