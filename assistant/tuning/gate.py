"""Stage 3's tuned values: the evidence a question needs to be answered, and which refusal rules apply."""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass

# "… on my Retina MacBook", "we mount a legacy Flask app", "in a slim Docker image": the asker's machine, app or
# deployment, where what is asked about happens.
SETTING = re.compile(
    r"\b(?:on|sur)\s+(?:my|our|mon|ma|mes|notre|nos)\s+((?:[\w+-]+\s+){0,2}[\w+-]+)"
    r"|\b(?:my|our|a|an|the|their)\s+((?:[\w'+-]+\s+){0,2}?[A-Z][\w+.-]*)\s+(?:apps?|applications?|images?|"
    r"containers?|projects?|services?|servers?|clusters?|deployments?|stacks?|environments?|pipelines?|codebase)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class GateTuning:
    """The refusal rules (`assistant.gate.refusals`) and the release decision (`assistant.gate.decision`)."""

    # Evidence needed to answer: a sentence carrying this share of the question's weighted terms, or a
    # passage this close in embedding space (paraphrased questions share few words with the docs).
    min_coverage: float = 0.3
    min_similarity: float = 0.4
    # ... but never on similarity alone: passages sharing next to none of its words (the product's name aside)
    # are about the product in general ("Which Python versions does X 2.0 support?" is close to all of X 2.0's guide).
    min_overlap: float = 0.1
    # A one-sentence question the two searches disagree on, sharing too few words with the docs, is refused.
    bare: bool = True
    # A best sentence about another release of a number's series (Python 3.6) is no evidence for it (3.8).
    sibling: bool = True
    # Code symbols the docs never mention are refused (an invented API) ...
    missing_symbols: bool = True
    in_family: bool = True  # ... unless the docs name their family with a wildcard (`node_link_*`)
    variable_member: bool = True  # ... or a member of the asker's variable (`f.create_dataset`) by its words
    # A dotted name's last part this long stands for it: known when the docs know it, and naming what is asked.
    member_chars: int = 4
    # Proper names the question hinges on that no document contains are refused ("TensorFlow", "hyperdrive") ...
    unknown_names: bool = True
    # ... Python's own exceptions and warnings ("ImportError", "DeprecationWarning") aside: names of the asker's
    # setting, which release notes leave unsaid ...
    builtins: frozenset[str] = frozenset(dir(builtins))
    setting: re.Pattern[str] = SETTING  # ... and so are the words of the asker's setting (see above)
    # A French question quotes its own words (« nouveau style »): the docs say them in English.
    french_names: bool = True
    prefix_chars: int = 3  # a name ending in a symbol ("C++") this long is known as a prefix ("C++20")
    shown_names: int = 3  # missing names a refusal names
    # "What was fixed in 6.5.1 compared with 6.5.0?" asks of 6.5.1: refused when 6.5.1 is not indexed.
    asks_later: bool = True
    # A question about a release is answered from that release's docs, or refused ("only other releases answer") ...
    release_rule: bool = True
    release_leads: bool = True  # ... whose sentence must lead the answer (its ranking bonus included)
    # The release asked about answers when its sentence scores this close to another release's best: 3.0's "Draft
    # 7 is now the default" answers which draft 3.0 uses, though a later "JSON Schema draft" fix has more of the
    # question's words. Further behind, the other release's change is what the question is about.
    own_close: float = 0.95
    # Where the passages together are evidence enough, the release asked about answers when its sentence is the
    # best on merit, its ranking bonus aside.
    on_merit: bool = True
    narrow_release: bool = True  # a release the joint search cannot answer for is searched alone
    # The release searched alone must write a code symbol the question names when others' passages do.
    symbols_elsewhere: bool = True
    # Asked which release fixed what the one it names broke, that release's own notes cannot say.
    skip_earlier: bool = True
    # A how-question about a release may take its fix from the release that deprecated the thing, never from one
    # after it, which the asker does not have.
    no_later_fix: bool = True
