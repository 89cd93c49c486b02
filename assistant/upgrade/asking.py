"""What the scan asks about the calls the code does not type: which names' bindings, and who answers (the releases'
annotations, `TargetIndex.returns`; then the product's installed source, `assistant.upgrade.inferred`)."""

from __future__ import annotations

import ast

from assistant.upgrade.inferred import installed, returned_class
from assistant.upgrade.lookup import TargetIndex
from assistant.upgrade.receivers import Ask


def ask_for(tree: ast.Module, index: TargetIndex, products: frozenset[str]) -> Ask | None:
    """What to ask about the calls that bound the names a target's member is used on: the releases' annotations
    (`TargetIndex.returns`), then the product's installed source (`assistant.upgrade.inferred`), in a module
    importing the product (`products`: the top modules it imports); None where nothing is worth asking."""
    families = index.families
    signatures = index.returns
    inferring = index.infer and any(installed(top) for top in products & families)
    if not inferring and not (signatures and products & families):
        return None
    wanted = index.received
    # the names a member a target names is read on: `df`, `self.df`, `df.groupby(k)` (the method's)
    names = frozenset(
        name
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr in wanted and (name := _held_name(node.value))
    )
    if not names:
        return None

    def answer(call: str) -> str | None:
        # what another library's calls return is no product's class: not worth jedi's time
        if call.split(".", 1)[0] not in families:
            return None
        annotated = signatures.get(call.replace("().", "."))  # `pandas.DataFrame().groupby`: the method's
        if annotated is not None:
            return index.class_named(annotated)
        return returned_class(call, index.class_named, index.types_folder) if inferring else None

    def through(call: str) -> str | None:
        annotated = signatures.get(call.replace("().", "."))
        return (index.class_named(annotated) or annotated) if annotated is not None else None

    return Ask(names, answer, through)


def _held_name(node: ast.expr) -> str | None:
    """The name of what holds a receiver: a name's (`df`), an attribute's (`self.df`), a called one's (`f(…)`)."""
    if isinstance(node, ast.Call):
        node = node.func
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
