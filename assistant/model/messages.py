"""Every sentence reldocs says to a user about its own answers, in English and French, in one place.

Refusals are built from a typed `Reason` (assistant/gate/refusals.py); `say` fills a message's slots. Languages
other than these fall back to English.
"""

from __future__ import annotations

from collections.abc import Sequence

MESSAGES: dict[str, dict[str, str]] = {
    "not_covered": {
        "en": "The release docs don't cover this.",
        "fr": "Les notes de version ne couvrent pas cette question.",
    },
    "nothing_mentions": {"en": "(Nothing mentions {names}.)", "fr": "(Aucune mention de {names}.)"},
    "coverage": {"en": "(The indexed docs cover {spans}.)", "fr": "(Les documents indexés couvrent {spans}.)"},
    "nothing_indexed": {"en": "(No version is indexed.)", "fr": "(Aucune version n'est indexée.)"},
    "one_version": {"en": "{product}version {version}", "fr": "{product}la version {version}"},
    "version_span": {"en": "{product}versions {first}–{last}", "fr": "{product}les versions {first}–{last}"},
    "other_releases": {
        "en": "(The {asked} docs don't cover it; the {others} docs do.)",
        "fr": "(Les notes de {asked} n'en parlent pas ; celles de {others} oui.)",
    },
    "no_release": {"en": "(The {asked} docs don't cover it.)", "fr": "(Les notes de {asked} n'en parlent pas.)"},
    "plan_head": {
        "en": "Upgrading {product} {start} → {end} ({releases}): {n} changes; what breaks first:",
        "fr": "Passer de {product} {start} à {end} ({releases}) : {n} changements ; d'abord ce qui casse :",
    },
    "release_head": {
        "en": "What changes in {product} {end}: {n} changes; what breaks first:",
        "fr": "Ce qui change dans {product} {end} : {n} changements ; d'abord ce qui casse :",
    },
    "plan_more": {
        "en": "{rest} more, with the code they hit: `python app.py upgrade --from {start} --to {end}{product}`.",
        "fr": "{rest} de plus, avec le code touché : `python app.py upgrade --from {start} --to {end}{product}`.",
    },
    "plan_use": {"en": "use instead: {name}", "fr": "à utiliser : {name}"},
    "plan_fix": {"en": "fix: {text}", "fr": "correctif : {text}"},
    "releases_held": {"en": "releases {releases}", "fr": "versions {releases}"},
    "no_releases": {"en": "no release numbers in its docs", "fr": "aucun numéro de version dans ses documents"},
    "unnumbered": {
        "en": "The docs quoted carry no release numbers: they cannot say whether this holds for {asked}.",
        "fr": "Les documents cités ne portent aucun numéro de version : ils ne disent pas si cela vaut pour {asked}.",
    },
    "release_owners": {
        "en": "{asked} is a release of more than one product ({owners}); this answer quotes {taken}.",
        "fr": "{asked} est une version de plusieurs produits ({owners}) ; cette réponse cite {taken}.",
    },
    "truncated": {
        "en": "Your question was cut to its first {n} characters; only those were read.",
        "fr": "La question a été coupée à {n} caractères ; seul ce début a été lu.",
    },
}


def say(key: str, language: str = "en", **slots: object) -> str:
    """Message `key` in `language` (English when there is no translation), its slots filled."""
    texts = MESSAGES[key]
    return texts.get(language, texts["en"]).format(**slots)


def joined(items: Sequence[str], language: str = "en") -> str:
    """'a, b and c' / 'a, b et c'."""
    if len(items) < 2:
        return "".join(items)
    last = " et " if language == "fr" else " and "
    return ", ".join(items[:-1]) + last + items[-1]
