"""Stage 1's tuned values: what a question asks (a fix, a removal, a later release), which of its words
are names, and which of the query builder's rules apply."""

from __future__ import annotations

import re
from dataclasses import dataclass

# Wants a fix or replacement ("how do I…", "what instead"), not just a fact.
HOW = re.compile(
    r"\b(how|where|instead|replac\w*|migrat\w*|alternative|what should|what do i|should i|can i|do i need|fix|"
    r"supposed to|recommend\w*|advi[cs]\w*|suggest\w*|the new (?:method|function|way|name|api|spelling)|"
    r"comment|conseill\w*|recommand\w*|où|remplac\w*|par quoi|faut-il|à la place|dois-je|devrais-je|puis-je)\b",
    re.IGNORECASE,
)
# Asks whether a problem met in the release it names was fixed since ("Has greenlet fixed this?", "Existe-t-il une
# version corrigée ?"), not whether that release fixed something ("Was it fixed in 2.1?").
FIXED_LATER = re.compile(
    r"\b(?:(?:which|what)\s+(?:[\w-]+\s+)?(?:release|version)\s+(?:\w+\s+)?(?:fix(?:e[sd])?|made\s+it\s+(?:\w+\s+)?work)|"
    r"(?:a|any)\s+(?:later\s+|newer\s+)?(?:release|version)\s+that\s+(?:fix|resolve)\w*|has\s+(?:[\w-]+\s+){0,3}"
    r"(?:been\s+)?fixed|(?:is|was)\s+(?:this|it|that)\s+(?:\w+\s+)?fixed|is there a fix|fixed (?:release|version)|"
    r"version corrig\w*|corrig\w* (?:depuis|ensuite|plus tard)|a-t-(?:il|elle) été corrig\w*)",
    re.IGNORECASE,
)
# Says a name, option or platform went away: the user wants the entry that removed it, not one that changed it.
GONE = re.compile(
    r"\b(?:disappear\w*|gone|(?:no longer|not) (?:exists?|there|available|supported|accepted)|"
    r"(?:took|taken|take|taking) (?:it |them )?out|stopp?(?:ed|s)? (?:supporting|accepting|working)|"
    r"drop(?:ped|s)? (?:support|it|them)|remov(?:ed|es|al)|deleted|ModuleNotFoundError|ImportError|AttributeError|"
    r"n'existe plus|disparu\w*|supprim\w*|retir\w*|n'est plus)\b",
    re.IGNORECASE,
)
# The blanks after the opening quote are taken at once, giving back at most the two the text needs (atomic), and
# a quote whose 40 characters after hold no closing quote nor blank is passed over at once: trying every split of
# the blanks before the words, and every length of the words, took time cubic in a run of blanks.
QUOTED = re.compile(
    r"[\"“«](?>\s*(?=[^\"”»]{2}))(?=[^\"”»]{0,40}+[\s\"”»])([^\"”»]{2,40}?)\s*+[\"”»]|\{%-?\s*(\w{2,40})"
)


@dataclass(frozen=True)
class UnderstandTuning:
    """How a question is read into a `Query`: its patterns, word lists and rule switches."""

    how: re.Pattern[str] = HOW  # a how-question (see above)
    gone: re.Pattern[str] = GONE  # says a name is gone (see above)
    fixed_later: re.Pattern[str] = FIXED_LATER  # asks which later release fixed it (see above)
    # ... unless it asks whether the release it names fixed it ("fixed in 2.1?").
    fixed_in: re.Pattern[str] = re.compile(
        r"\b(?:fix\w*|corrig\w*)\s+(?:in|dans|en)\s+(?:version\s+|release\s+)?v?\d", re.IGNORECASE
    )
    # A bare major right after a product's name ("Pydantic V3", "pandas 3", "Django 6") is that product's too.
    major: re.Pattern[str] = re.compile(r"(?<![\w.])[vV]?(\d{1,2})(?![\w.]|\.\d)")
    owner_chars: int = 24  # the text read before a number for the product it is of ("pandas 2.0")
    quoted: re.Pattern[str] = QUOTED  # quoted literals and template tag names are names the docs must hold
    name_chars: int = 3  # a capitalised word mid-sentence this long is a name ("Ray"; "An" is not)
    own_product: bool = True  # a question naming a product is answered from that product's docs
    # "Require Python 3.10 or later" says 3.9 was dropped, "Python < 3.7" that 3.7 was not (`text.bounds`).
    version_bounds: bool = True
    # "from 1.7 to 2.x": what changed for someone upgrading is in the releases they went through.
    upgrade_range: bool = True
    call_values: bool = True  # names passed in a call (`app=my_app`) are the asker's, not the docs'
    follow_up_terms: int = 2  # a question with fewer terms leans on the conversation ("and in 2.11?")
    history_questions: int = 3  # the earlier questions a follow-up's versions and products are read from
    spellings: bool = True  # a symbol's other spellings in the docs count as the same term, and are searched too
    searched_spellings: int = 3  # ... each symbol's first few of them
    # "What breaks in 2.12?", "Quels sont les changements incompatibles de PyTorch 2.12 ?": a release's whole plan.
    breaks: re.Pattern[str] = re.compile(
        r"\b(?:break\w*|incompatib\w*|cass(?:e|es|ent|ant|ants|é|ée|és)|backwards?[- ]incompatible)\b", re.I
    )
    break_terms: tuple[str, ...] = ("break", "broken", "incompat", "cass", "backward")  # ... as stemmed terms
    # A question naming an upgrade that asks about one thing ("after going from 2.5 to 2.6, my test raises X") is
    # answered from those releases' notes, not with the whole plan.
    specific_questions: bool = True
