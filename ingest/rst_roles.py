"""Sphinx's roles and directives for one docutils parse, read the way `ingest.rst` renders them.

Sphinx itself is not used: it needs a project (conf.py, a build folder) and runs extension code. Its roles
(`:func:`, `:ref:`, `:issue:`...) and directives (code-block, note, versionadded, toctree...) get generic
handlers written here instead, by the rules in `ingest.rst`'s docstring: code spans, readable references,
fences, labelled notes, bodies kept as text or dropped. docutils keeps roles and directives in module-level
tables, so `sphinx_names` registers them only while one document is parsed, under a lock, for every name the
source uses (so no construct becomes an error that swallows its text), and restores the tables afterwards.
`resolve_refs` then gives each bare `:ref:` the title of the section it labels, when that is in the document.
What a code span loses, the kind of name its role said (`:func:`, `:meth:`, `:class:`), `role_kinds` reads from
the raw text for the document model (`Change.kinds`).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from docutils import nodes, utils
from docutils.parsers.rst import Directive, directives, roles

from assistant.text.untrusted import html_text

CODE_ROLES = frozenset(
    "func meth class attr mod exc data obj const paramref option envvar setting djadmin ttag tfilter lookup "
    "fixture file samp program command makevar type member var function macro enum struct".split()
)
_REF_ROLES = frozenset({"ref", "doc", "numref", "any", "keyword", "download"})
_ISSUE_ROLES = {"issue": "GH", "gh": "GH", "pr": "GH", "pull": "GH", "ticket": "ticket", "bug": "bug", "cve": "CVE"}
_CODE_DIRECTIVES = frozenset(
    "code-block sourcecode code ipython doctest console testcode testoutput testsetup prompt productionlist "
    "jupyter-execute code-cell".split()
)
_LABELS = {
    "note": "Note", "warning": "Warning", "tip": "Tip", "important": "Important", "hint": "Hint",
    "caution": "Caution", "attention": "Attention", "danger": "Danger", "error": "Error", "seealso": "See also",
    "todo": "To do",
}  # fmt: skip
_VERSION_LABELS = {
    "versionadded": "New in version {}", "versionchanged": "Changed in version {}", "deprecated": "Deprecated since {}",
    "versionremoved": "Removed in version {}", "deprecated-removed": "Deprecated since {}, removed in {}",
}  # fmt: skip
_DROPPED = frozenset(
    "toctree contents autosummary currentmodule module contributors include literalinclude raw image highlight "
    "index sectionauthor moduleauthor codeauthor tabularcolumns meta header footer sectnum target-notes title "
    "rst-class autoclass autofunction automethod automodule autoattribute autodata autoexception".split()
)
_OBJECTS = frozenset("function method class attribute data exception decorator describe object".split())
# A name, and the ":`" that makes it a role's (group 2): a chain of names without it is matched whole and passed
# over, as every ':' in it starts a chain ending at the same place, and trying each read on to it (quadratic).
_ROLE_NAME = re.compile(r"(?<![\w`\\]):([A-Za-z][\w+.-]*+(?::[A-Za-z][\w+.-]*+)*+)(:`)?")
_DIRECTIVE_NAME = re.compile(r"^[ \t]*\.\.[ \t]+([A-Za-z][\w+.:-]*?)[ \t]*::", re.MULTILINE)
# Read with fullmatch only, so it must end with '>' (checked first, once: else every '<' read on to the end), and
# a title does not end inside a run of blanks unless at its first character (each of those ends fails alike).
_TITLED = re.compile(r"^(?=.*>\Z)(.+?)(?:(?<=\A.)|(?<!\s))\s*+(?<!\x00)<(.*?)>$", re.DOTALL)
_LOCK = threading.Lock()
RELEASE_CLASS = "release-line"  # the class that marks the node a `:release:` role makes


def _role(name: str, rawtext: str, text: str, *_: object, **__: object) -> tuple[list[nodes.Node], list[object]]:
    """Any interpreted-text role: a code span, a readable reference or the text, by the rules in `ingest.rst`."""
    if name.lower() == "release" and (titled := _TITLED.fullmatch(text)):
        # `:release:`3.2.3 <2026-04-05>`` of the Sphinx `releases` extension (Fabric, Invoke): a list item that
        # starts a release, whose entries are the items after it (`ingest.rst` makes it a heading)
        version, date = (" ".join(utils.unescape(g).split()) for g in titled.groups())
        return [nodes.inline(rawtext, f"{version} ({date})", classes=[RELEASE_CLASS])], []
    code, shown = role_text(name, text)
    if name.lower().rsplit(":", 1)[-1] == "ref" and not _TITLED.fullmatch(text):  # the section's title, if here
        return [_xref(rawtext, shown, target=nodes.fully_normalize_name(utils.unescape(text)))], []
    return [nodes.literal(rawtext, shown) if code else nodes.Text(shown)], []


# The roles whose kind says what a name is: a module's function, a class's method or attribute, a class, ...
KINDED_ROLES = frozenset("func function meth method class attr attribute exc data const mod paramref".split())
# `:py:func:`x``, `:meth:`~a.B.c``, MyST's `{func}`x``: the role's name and its text, one line at most.
_KINDED = re.compile(
    r"(?<![\w`\\]):(?:py:)?([a-z]+):`([^`\n]{1,200})`|(?<![\w`{])\{(?:py:)?([a-z]+)\}`([^`\n]{1,200})`"
)
_KIND_NAMES = {"function": "func", "method": "meth", "attribute": "attr"}


def role_kinds(source: str) -> dict[str, str]:
    """What kind each code name a document writes with a role is, by its first role ("func", "meth", "class",
    "attr", ...), keyed by the name as a reader sees it (`role_text`: `_orm.Session` is "orm.Session"). Read from
    the document's raw text, RST or MyST, as the rendering keeps only the code span."""
    kinds: dict[str, str] = {}
    for m in _KINDED.finditer(source):
        name, text = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        if name in KINDED_ROLES:
            code, shown = role_text(name, text)
            shown = shown.removesuffix("()")
            if code and shown not in kinds:
                kinds[shown] = _KIND_NAMES.get(name, name)
    return kinds


def role_text(name: str, text: str) -> tuple[bool, str]:
    """What a reader sees of `:name:`text``, and whether it is code."""
    name = name.lower().rsplit(":", 1)[-1]  # `py:func` is `func`
    titled = _TITLED.fullmatch(text)
    title, target = (utils.unescape(titled.group(1)), utils.unescape(titled.group(2))) if titled else ("", "")
    target = target if titled else utils.unescape(text)
    if name in CODE_ROLES:
        # `_orm.Session`: a leading `_alias.` is a module alias the project's Sphinx setup resolves; `orm.Session`
        shown = title or re.sub(r"^_(?=[A-Za-z]\w*\.)", "", target.lstrip("~.!"))
        return True, shown
    if name in _ISSUE_ROLES:
        return False, title or f"{_ISSUE_ROLES[name]} {target.lstrip('#')}"
    if name == "raw" or name.startswith("raw-"):  # `raw-html` used without its `.. role::`: its text, no tags
        return False, html_text(utils.unescape(text, True))
    if name in _REF_ROLES and not title:
        return False, re.sub(r"[_\-./]+", " ", target.lstrip("~!/")).strip() or target
    return False, title or target.lstrip("~!")


class _xref(nodes.Inline, nodes.TextElement):  # noqa: N801 - docutils node classes are lower case
    """`:ref:`label``: shows the title of the section the label is on, when that is in the same document."""


def resolve_refs(doctree: nodes.document) -> None:
    titles = {}
    for section in doctree.findall(nodes.section):
        if section.children and isinstance(section[0], nodes.title):
            titles.update(dict.fromkeys(section["names"], section[0]))
    for ref in list(doctree.findall(_xref)):
        if ref["target"] in titles:
            ref.children = []
            ref += titles[ref["target"]].deepcopy().children


class _AnyOptions(dict):
    """An option spec that takes every option (`:linenos:`, `:okwarning:`...), so none is an error."""

    def __missing__(self, key: str) -> Callable[[str | None], str]:
        return directives.unchanged


class _RawRole:
    """The `raw` role, and every role derived from it (`.. role:: raw-html(raw)` with `:format: html`): raw
    HTML reads as its text (assistant.text.untrusted.html_text: tags gone, scripts dropped), any other format is
    dropped. docutils' own would show the whole `:raw-html:`<b>x</b>`` as text, tags included, since raw
    content is off (`raw_enabled`)."""

    options = _AnyOptions(format=directives.unchanged)  # not empty: `.. role::` reads options only then

    def __call__(
        self, name: str, rawtext: str, text: str, *_: object, options: dict[str, str] | None = None, **__: object
    ) -> tuple[list[nodes.Node], list[object]]:
        if "html" not in str((options or {}).get("format", "")).lower().split():
            return [], []
        shown = html_text(utils.unescape(text, True))
        return ([nodes.Text(shown)] if shown.strip() else []), []


class labelled(nodes.Element):  # noqa: N801 - docutils node classes are lower case
    """An admonition or version note; its `label` leads the first paragraph."""


class _Directive(Directive):
    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = _AnyOptions()

    def body(self, node: nodes.Element) -> nodes.Element:
        self.state.nested_parse(self.content, self.content_offset, node)
        return node


class _Code(_Directive):
    def run(self) -> list[nodes.Node]:
        code = "\n".join(self.content)
        language = self.arguments[0].split()[0] if self.arguments else ""
        if not language and self.name in ("ipython", "doctest", "testcode", "testsetup", "jupyter-execute"):
            language = "python"
        return [nodes.literal_block(code, code, language=language or ("console" if self.name == "console" else ""))]


class _Admonition(_Directive):
    optional_arguments = 0  # content may start on the directive's own line

    def run(self) -> list[nodes.Node]:
        return [self.body(labelled(label=_LABELS.get(self.name, self.name.capitalize())))]


class _Titled(_Directive):
    required_arguments = 1
    optional_arguments = 0

    def run(self) -> list[nodes.Node]:
        if self.name == "centered":
            return [nodes.paragraph("", "", *self.state.inline_text(" ".join(self.arguments), self.lineno)[0])]
        return [self.body(labelled(label=" ".join(self.arguments[0].split())))]


class _Version(_Directive):
    required_arguments = 1
    optional_arguments = 1

    def run(self) -> list[nodes.Node]:
        words = " ".join(self.arguments).split(" ")
        template = _VERSION_LABELS[self.name]
        versions, rest = words[: template.count("{}")], " ".join(words[template.count("{}") :]).strip()
        node = labelled(label=template.format(*versions, *[""] * (template.count("{}") - len(versions))))
        if rest:  # `.. versionchanged:: 2.0 Text on the directive's line`
            node += nodes.paragraph(rest, "", *self.state.inline_text(rest, self.lineno)[0])
        return [self.body(node)]


class _Release(_Directive):
    """`.. changelog::` of Sphinx's `changelog` extension (SQLAlchemy, Alembic, Mako): a release section titled
    by its `:version:` and `:released:` options."""

    optional_arguments = 0  # the options open the block
    option_spec = _AnyOptions(version=directives.unchanged)  # not empty: docutils reads options only then

    def run(self) -> list[nodes.Node]:
        version, released = (" ".join((self.options.get(k) or "").split()) for k in ("version", "released"))
        if not version:
            return [self.body(nodes.container())]
        title = f"{version} ({released})" if released else version
        return [self.body(nodes.section("", nodes.title(title, title), names=[nodes.fully_normalize_name(title)]))]


class _Change(_Directive):
    """`.. change::` of the same extension: one entry of its release; `:tags:` and `:tickets:` are dropped."""

    optional_arguments = 0
    option_spec = _Release.option_spec

    def run(self) -> list[nodes.Node]:
        return [nodes.bullet_list("", self.body(nodes.list_item()), bullet="-")]


class _Drop(_Directive):
    optional_arguments = 10

    def run(self) -> list[nodes.Node]:
        return []


class _Body(_Directive):
    """An unknown directive or one whose body is ordinary text (`only`, `container`, a figure's caption)."""

    def run(self) -> list[nodes.Node]:
        node = nodes.container()
        if self.arguments and self.name.rsplit(":", 1)[-1] in _OBJECTS:  # `.. function:: f(x)`: a signature
            node += nodes.paragraph("", "", nodes.literal("", " ".join(self.arguments[0].split())))
        return [self.body(node)]


def _directive_class(name: str) -> type[Directive]:
    name = name.rsplit(":", 1)[-1]  # `py:function` is `function`
    if name in _CODE_DIRECTIVES:
        return _Code
    if name in _LABELS:
        return _Admonition
    if name in _VERSION_LABELS:
        return _Version
    if name in _DROPPED:
        return _Drop
    if name in ("changelog", "change"):
        return _Release if name == "changelog" else _Change
    return _Titled if name in ("admonition", "centered") else _Body


_KEEP = frozenset(
    "rubric topic sidebar line-block parsed-literal compound container epigraph highlights pull-quote table "
    "csv-table list-table math replace unicode date class role default-role".split()
)  # docutils' own directives that already produce what the writer reads


@contextmanager
def sphinx_names(source: str) -> Iterator[None]:
    """Generic roles and directives installed for one parse, for every name the source uses."""
    role_names = (
        {m.group(1).lower() for m in _ROLE_NAME.finditer(source) if m.group(2)} | CODE_ROLES | set(_ISSUE_ROLES)
    )
    role_names |= _REF_ROLES | {"user", "term"}
    directive_names = {m.group(1).lower() for m in _DIRECTIVE_NAME.finditer(source)}
    directive_names |= set(_LABELS) | set(_VERSION_LABELS) | _CODE_DIRECTIVES | {"admonition", "figure"}
    with _LOCK:
        saved_roles, saved_directives = dict(roles._roles), dict(directives._directives)
        try:
            for name in role_names - {"pep", "rfc", "code", "math", "literal"}:  # docutils' own read fine
                roles.register_local_role(name, _role)
            roles.register_local_role("raw", _RawRole())  # after `_role`, which the loop gave every name used
            for name in directive_names - _KEEP:
                directives.register_directive(name, _directive_class(name))
            yield
        finally:
            roles._roles.clear()
            roles._roles.update(saved_roles)
            directives._directives.clear()
            directives._directives.update(saved_directives)
