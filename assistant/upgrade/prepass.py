"""The scan's quick pre-pass: `might_hit` skips a module that cannot hit anything before the costlier scope
analysis reads it (`assistant.upgrade.visitor`), asking the same target lookup (`assistant.upgrade.lookup`).

Written by hand: it over-approximates this project's own visitor, which no library knows.
"""

from __future__ import annotations

import ast
from collections import defaultdict

from assistant.upgrade.inferred import installed
from assistant.upgrade.literals import matched
from assistant.upgrade.lookup import TargetIndex


def might_hit(tree: ast.Module, index: TargetIndex) -> bool:
    """Whether a module, as Python's `ast` parses it, may hit any target: a quick over-approximation of
    `HitVisitor` that ignores scopes (a name any import binds counts everywhere) and the arguments of calls but
    a member's, whose qualifier it checks as the visitor does (`meets`).

    The scope analysis and typed receivers cost a few times more than parsing: in a project that imports a
    library in every file, few files use what its changes name, and only those need them."""
    bound: dict[str, set[str]] = defaultdict(set)  # name -> qualified names an import binds it to
    chains: list[list[str]] = []
    calls: dict[int, ast.Call] = {}  # a called attribute's id -> its call (`ast.walk` reaches a call first)
    inner: set[int] = set()  # attributes inside a longer dotted chain
    values = frozenset(v for t in index.valued for v in t.values)
    received = False  # a member a target names, used on a plain name: its type may come from the product's source
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            calls[id(node.func)] = node
        if values and isinstance(node, ast.Call):
            given = [*node.args, *(k.value for k in node.keywords)]
            if any(
                isinstance(a, ast.Constant) and isinstance(a.value, str) and matched(a.value, values) for a in given
            ):
                return True  # a value a change does away with, as an argument: the visitor decides
        if isinstance(node, ast.Import):
            for alias in node.names:
                if any(index.named_by(alias.name)):
                    return True
                if alias.asname:
                    bound[alias.asname].add(alias.name)
                else:  # `import a.b.c` binds `a`
                    bound[alias.name.split(".", 1)[0]].add(alias.name.split(".", 1)[0])
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                if alias.name != "*" and any(index.named_by(name)):  # also when the module is what is named
                    return True
                bound[alias.asname or alias.name].add(name)
        elif isinstance(node, ast.Attribute):
            if node.attr in index.loose:
                return True  # a gone name the docs write bare, used as an attribute: the visitor decides
            value = node.value
            receiver = (
                value.id if isinstance(value, ast.Name) else value.attr if isinstance(value, ast.Attribute) else None
            )
            call = calls.get(id(node))
            if index.possible(node.attr, receiver, call) or (
                call is not None and any(index.by_keyword(node.attr, call, receiver))
            ):
                return True
            typing = index.infer or bool(index.returns)  # a receiver's type may come from the product's source
            # on a name, `self.x` or a call's result (`assistant.upgrade.instances`)
            held = isinstance(value, (ast.Name, ast.Attribute, ast.Call))
            received = received or (typing and held and node.attr in index.received)
            if id(node) in inner:
                continue  # part of a chain read from its outermost attribute (`ast.walk` meets that first)
            parts = [node.attr]
            while isinstance(value, ast.Attribute):
                inner.add(id(value))
                parts.append(value.attr)
                value = value.value
            if isinstance(value, ast.Name):
                chains.append([value.id, *reversed(parts)])
        elif isinstance(node, ast.Name):
            chains.append([node.id])
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and any(
            isinstance(t, ast.Name) and t.id in index.settings
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
        ):
            return True  # may set a setting a change names (`USE_L10N = True`)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in index.settings:
            return True  # may name a setting as a key (`app.config["JSON_AS_ASCII"]`)
        elif isinstance(node, ast.ClassDef) and node.name in index.nested:
            return True  # may define a class a change names in a class derived from the product's
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
            node.name in index.members or node.name in index.loose or node.name in index.hooks
        ):
            return True  # may override a member a change names, in a class derived from the product's
    if received:
        # what the module imports of the product may type the name: by the releases' annotations, or from its
        # installed source (`assistant.upgrade.inferred`)
        tops = {q.split(".", 1)[0] for found in bound.values() for q in found} & index.families
        if tops and (index.returns or any(installed(top) for top in tops)):
            return True
    for base, *rest in chains:
        for qualified in bound.get(base, ()):
            name = ".".join([qualified, *rest])
            if (
                index.canonical(name) in index.calls
                or any(index.named_by(name))
                or index.names_a_class(name)
                or index.in_forms(name)
            ):
                return True
    return False
