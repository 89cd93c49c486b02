"""What a change's entries say to do about it: the sentence after the one stating the change that instructs
("Update the compiler …", "Users … should opt in …", "To address: …"), for `ingest.changes`.

Written by hand: these are English patterns of release notes, which no library reads; they name no product.
"""

from __future__ import annotations

import re

from assistant.model.document import Entry
from assistant.text.words import sentences

# What a change's entries say to do: the first sentence, after the one stating the change, that
# instructs ("Update the compiler …", "Users … should opt in …", "No action required unless …").
_FIX = re.compile(
    r"^\W*+(?:to address:|update|use|migrate|set|pass|replace|install|remove|add|call|switch|opt|ensure|make|"
    r"rename|move|import|upgrade|no (?:specific )?(?:action|fix|change)s?\b)|"
    r"\b(?:should|must|needs? to|to (?:restore|keep|explicitly|opt|use|get))\b",
    re.IGNORECASE,
)
FIX_CHARS = 240


def fix(entries: tuple[Entry, ...], *, stated: bool = True) -> str:
    """The instruction a change's entries give, after the sentence that states the change (unless the change is
    `stated` elsewhere: a heading)."""
    said = [sentence for e in entries if e.kind != "code" for sentence in sentences(e.text)]
    for sentence in said[int(stated) :]:
        if _FIX.search(sentence):
            return sentence if len(sentence) <= FIX_CHARS else sentence[:FIX_CHARS].rsplit(" ", 1)[0] + "…"
    return ""


def detail(entries: tuple[Entry, ...], n: int) -> tuple[Entry, ...]:
    """The paragraphs after entry `n` up to the next entry that announces a change of its own (an item, a row)."""
    out = []
    for entry in entries[n + 1 :]:
        if entry.kind in ("item", "row") and not entry.continues:
            break
        out.append(entry)
    return tuple(out)
