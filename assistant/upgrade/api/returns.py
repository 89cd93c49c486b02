"""What a release's functions and methods return, from their annotations: the scan's receivers where the code does
not say (`df = pd.read_csv(p)` holds a `DataFrame`: `pandas.read_csv -> DataFrame`), read without the product
installed.

A function's return annotation names one class of the product (`-> DataFrame`, `-> "DataFrame"`, `-> DataFrame |
None`, `Optional[DataFrame]`, `-> Self` in a class); its overloads, when they all return the same class, name it
too. Anything else (a union of two classes, a type variable, another library's class) says nothing. Each
function is recorded under every public path it has, the class under its shortest public path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import griffe

    from assistant.upgrade.api.public import PublicApi

_OPTIONAL = frozenset({"Optional", "typing.Optional", "typing_extensions.Optional"})
_SELF = frozenset({"Self", "typing.Self", "typing_extensions.Self"})


def returns_of(api: PublicApi) -> dict[str, str]:
    """Public path of each function or method -> the public path of the product class it returns."""
    classes = {obj.path for obj in api.objects.values() if obj.is_class}
    shortest = {canonical: min(paths, key=_order) for canonical, paths in api.paths_of.items() if canonical in classes}
    # an annotation may spell a class by a public path of it (`from pandas import DataFrame` under TYPE_CHECKING)
    shortest |= {path: shortest[obj.path] for path, obj in api.objects.items() if obj.path in shortest}
    out: dict[str, str] = {}
    for path, obj in api.objects.items():
        if not obj.is_function:
            continue
        owner = api.objects.get(path.rpartition(".")[0])
        # `-> Self` on a method reached through a subclass (`DataFrame.copy` from `NDFrame`): the subclass
        here = shortest.get(owner.path) if owner is not None and owner.is_class else None
        found = _returned(obj, shortest, here)  # type: ignore[arg-type]
        if found:
            out[path] = found
    return out


def _returned(fn: griffe.Function, shortest: dict[str, str], here: str | None) -> str | None:
    overloads = [o for o in (getattr(fn, "overloads", None) or ()) if o is not None]
    if overloads:
        found = {_class_of(o.returns, o, shortest, here) for o in overloads}
        return found.pop() if len(found) == 1 and None not in found else None
    return _class_of(fn.returns, fn, shortest, here)


def _class_of(annotation: object, fn: griffe.Function, shortest: dict[str, str], here: str | None) -> str | None:
    """The product class an annotation names, by its shortest public path; None for anything else."""
    import griffe

    if annotation is None:
        return None
    if isinstance(annotation, griffe.ExprBinOp) and annotation.operator == "|":  # `X | None`
        sides = [s for s in (annotation.left, annotation.right) if not _is_none(s)]
        return _class_of(sides[0], fn, shortest, here) if len(sides) == 1 else None
    if isinstance(annotation, griffe.ExprSubscript):  # `Optional[X]`
        if str(getattr(annotation.left, "canonical_path", annotation.left)) in _OPTIONAL:
            return _class_of(annotation.slice, fn, shortest, here)
        return None
    if isinstance(annotation, griffe.ExprName | griffe.ExprAttribute):
        canonical = str(annotation.canonical_path)
        if canonical in _SELF or str(annotation) in _SELF:
            return here
        return shortest.get(canonical)
    return None


def _is_none(expr: object) -> bool:
    return str(expr) == "None"


def _order(path: str) -> tuple[int, int, str]:
    return path.count("."), len(path), path
