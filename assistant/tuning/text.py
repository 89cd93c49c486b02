"""The tuned values of the shared lower layers the stages read at question time: which words are an acronym or
an instruction, how French is read (`TextTuning`), and what a sentence of a chunk is and how a quote is cut
(`UnitsTuning`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_VERBS = (
    r"use|call|set|pass|import|migrate|replace|update|install|enable|disable|remove|switch|wrap|add|opt|build|"
    r"upgrade|downgrade|move|rename|make use of|specify|convert|change|apply|define|declare|run|uninstall|"
    r"subclass|inherit|configure|provide|write|create|annotate"
)
# A sentence that tells the reader what to do: the fix is worded as an imperative, a modal, or a pointer to the
# replacement; these phrases are English grammar, not any product's vocabulary.
INSTRUCTION = re.compile(
    # An imperative, maybe after the purpose or condition it serves: "Use X", "To keep Y, set Z" (the comma
    # may be missing: "To keep checksums set it to true"),
    # "If you still need it, install it directly", "Therefore, to ensure …, pass …".
    rf"^(?:(?:therefore|instead|alternatively|otherwise|so),?\s*+)?"  # possessive: what follows is a word
    rf"(?:(?:to|if|when|where|for) [^,]{{3,80}},\s*"
    rf"|to \w+ [^,]{{3,60}}? (?=(?:{_VERBS}) (?:it|them|this|these|the|a|an|`)))?"
    rf"(?:please\s+)?(?:just\s+|simply\s+)?(?:{_VERBS})\b"
    # "The method … is to make use of X", "the recommended approach is to call Y".
    rf"|\b(?:is|are) to (?:{_VERBS})\b"
    # "To enable X, we enable the Y variable": the purpose, then what the docs have the reader do.
    rf"|^(?:to|if|when) [^,]{{3,80}},\s*(?:we|you)(?: can| should| must| need to| will)? (?:{_VERBS}|enable)\b"
    # Addressed to the reader ("you should", "applications must"); a bare "it should" describes behaviour,
    # and "you should not do X" forbids without saying what to do instead.
    r"|\b(?:you|users?|applications?|code|callers?|one)(?:'ll| will)?(?: now| still| also| then)? "
    r"(?:should|must|need to|needs to|have to|has to)\b(?!\s+not\b)"
    r"|\bplease\b|\binstead\b(?!\s+of)"
    # The reader's way to a behaviour: "… only used if you opt-in by setting `[run] sigterm = true`".
    r"|\bif you (?:[\w-]+ ){0,3}by (?:setting|passing|using|calling|adding)\b"
    # ... or how it is had: "The former behavior is available by setting `use_align_attribute`".
    r"|\b(?:is|are|remains?) (?:still |now |also )?(?:available|possible|restored|kept|retained|preserved|obtained) "
    r"(?:by|via|through|with) (?:setting|passing|using|calling|adding|enabling|disabling)\b"
    # The fix as what may or must be done to the code: "X may be used", "can be safely removed",
    # "may be indicated explicitly", "must be uninstalled"; or where it points: "in favour of Y", "replaced by Y",
    # "Y serves as a replacement for X".
    r"|\b(?:may|can|could|should|must)(?: now| still| also| safely| instead| simply| just| then)* be (?:\w+ly )?"
    r"(?!(?:considered|expected|noted|observed|affected|impacted|used to)\b)(?:\w+ed|set|put|given|written|done)\b"
    # An option's value and what it gets: "If `scale_down` is `True`, they will be at 1x."
    r"|^(?:if|when) `[^`]{1,40}` (?:is|are) (?:set to )?`[^`]{1,20}`,"
    r"|\brecommended\b|\bin fav(?:ou|o)r of\b|\breplaced (?:by|with)\b|\bthe (?:new|preferred|modern) way\b"
    r"|\breplacement (?:for|of)\b|\bsupersedes\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class TextTuning:
    """Word-level rules the stages share: acronyms, dotted names, instructions, and how French is read in English."""

    # A short all-capitals word ("CI", "LAN", "GPUs", "REST"): a name of the asker's setting, which release notes
    # leave unsaid.
    acronym: re.Pattern[str] = re.compile(r"[A-Z]{2,5}s?")
    # A dotted name's last part this long stands for it: search looks a member used through a receiver of unknown
    # type (`df.append`) up as the docs' `Class.member`, and takes it as what a question says is gone; the gate
    # knows the name when the docs know that part.
    member_chars: int = 4
    instruction: re.Pattern[str] = INSTRUCTION  # a sentence that tells the reader what to do (see above)
    # French release-doc words are read through the glossary (`assistant.text.french`), so a French question
    # reaches English passages lexically too.
    french_glossary: bool = True
    # French function words ("notre", "après") are dropped: left untranslated, each would count as a question
    # term no English doc contains ...
    french_function_words: bool = True
    # ... and a question's inverted verb is the verb: "faut-il", "dois-je", "existe-t-il" ("t" is euphony).
    french_inversion: re.Pattern[str] = re.compile(
        r"\b([^\W\d_]+)-(?:t-)?(?:il|elle|on|je|tu|nous|vous|ils|elles)\b", re.IGNORECASE
    )


@dataclass(frozen=True)
class UnitsTuning:
    """What a readable sentence of a chunk is, and how much of a chunk a citation quotes."""

    quote_chars: int = 600  # a citation's excerpt is cut to this many characters, keeping the quote inside
    quote_lead_chars: int = 80  # ... showing this much of what leads to the quote, when it is cut before it
    # A heading that states a change ("… now raises `NotImplementedError` …"), not a topic ("Release Engineering").
    headline: re.Pattern[str] = re.compile(
        r"^(?=(?:\S+\s+){3,})(?=.*\b(?:is|are|was|were|now|no longer|removed?|added|changed?|fails?|deprecated|"
        r"raises?|switched|renamed|moved|requires?|default|dropped|replaced|supports?)\b)"
    )
