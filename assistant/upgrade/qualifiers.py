"""Whether a call meets a target's qualifier: its parameter passed (or omitted, for a changed default), more
arguments by position than it keeps, or one of the old call forms its docs' examples show (`ingest.call_forms`:
a list, tuple or string first, a keyword, on a selection or on what another call returned). The visitor and the
pre-pass (`assistant.upgrade.prepass`) ask this of the same `ast` node.

Written by hand: the forms are this project's own reading of release notes' examples.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from assistant.upgrade.target import Target

# forms of a call's first argument, and "any keyword": evidence on a receiver named for the class only
SHAPES = frozenset({"list", "tuple", "str", "kw=**"})
ON_CALL = re.compile(r"on=\w++\(\)")  # a form: on what a call of that name returned ("on=query()")


def meets(target: Target, call: ast.Call) -> bool:
    """Whether a call meets a target's qualifier: one of its old call forms (a list or tuple first, a keyword),
    more arguments by position than it keeps, or its parameter passed (omitted, for a changed default). The
    visitor and the pre-pass ask this of the same `ast` node, so the pre-pass never drops a call that hits."""
    if target.forms:
        return forms_met(target.forms, call)
    keywords = {k.arg for k in call.keywords if k.arg is not None}
    splat = any(k.arg is None for k in call.keywords)  # `**kwargs` may pass any parameter
    by_position = [arg for arg in call.args if not isinstance(arg, ast.Starred)]
    if target.positional >= 0:
        spread = len(by_position) < len(call.args)  # `*args`: how many is unknown
        return not spread and len(by_position) > target.positional
    passed = target.parameter in keywords
    return not passed and not splat if target.omitted else passed


def forms_met(forms: Sequence[str], call: ast.Call) -> bool:
    """Whether a call is in one of these old call forms: a list or tuple first, a keyword passed (with the value
    its example passes, "kw=inplace=True"), on a selection ("on=subscript"); a form of several parts
    ("on=subscript&kw=inplace=True") is met when each is."""
    keywords = {k.arg for k in call.keywords if k.arg is not None}
    # `inplace=True` as "inplace=True", for a form that names the value its example passes
    values = {f"{k.arg}={k.value.value!r}" for k in call.keywords if k.arg and isinstance(k.value, ast.Constant)}
    by_position = [arg for arg in call.args if not isinstance(arg, ast.Starred)]
    first = by_position[0] if by_position else None
    shape = _shape(first)
    selection = isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Subscript)
    inner = (
        call.func.value.func if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Call) else None
    )
    receiver_call = (
        inner.attr if isinstance(inner, ast.Attribute) else inner.id if isinstance(inner, ast.Name) else None
    )

    def met(part: str) -> bool:
        if part == "on=subscript":
            return selection
        if part.startswith("on=") and part.endswith("()"):  # "on=query()": on what a call of `query` returned
            return receiver_call == part[3:-2]
        if part == "kw=**":  # any keyword argument
            return bool(keywords)
        return part == shape or (part.startswith("kw=") and part[3:] in (values if "=" in part[3:] else keywords))

    return any(all(map(met, form.split("&"))) for form in forms)


def _shape(first: ast.expr | None) -> str:
    """The shape of a call's first argument, as `ingest.call_forms` names old forms: "list", "tuple", "str" (a string
    the code writes, also with `%` or `+`: `execute("select …" % t)`), or ""."""
    if isinstance(first, (ast.List, ast.ListComp)):
        return "list"
    if isinstance(first, ast.Tuple):
        return "tuple"
    node = first
    while isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mod, ast.Add)):
        node = node.left
    text = isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))
    return "str" if text else ""
