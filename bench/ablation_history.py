"""What the ablation report lists besides its table: heuristics an earlier run deleted, and tuned choices it
does not switch off (with the reason for each). Kept apart from `bench/ablation_table.py`, which holds the
switches themselves."""

from __future__ import annotations

# Heuristics an earlier run of this table found to lower the scores or change none, since deleted.
REMOVED: tuple[tuple[str, str], ...] = (
    ("`SYMBOL_BONUS` (retrieval)", "an exact-symbol bonus in fusion; off gained 3 answers and lost 1 source"),
    ("`INSTRUCTION_BONUS` (answering)", "a how-question's instructions ranked up; off gained 2 answers, lost 1 source"),
    (
        "`_next_instruction` and `HybridRetriever.following`",
        "the instruction after the best sentence, or in the next chunks of its section; no score changed once the "
        "best instruction near the best score is quoted (`FIX_RATIO`)",
    ),
    (
        "`FIX_RATIO` (answering)",
        "a how-question's fix was added only when it scored 0.6 of the best sentence; off gained 2 answers and lost "
        "none over twelve sets (the fix in a prose release note often ranks well below its statement of the change)",
    ),
    ("`ENGLISH_SYNONYMS` ('breaks' -> 'incompatible')", "no score changed"),
    (
        "`DENSE_MARGIN` (fusion)",
        "only dense candidates within 0.2 of the best cosine voted; off gained 4 checks and lost 1 over twelve sets "
        "(.962/.996/.960 over all products in one index, against .958/.992/.960)",
    ),
    (
        "`OWN_RELEASE` (release rule)",
        "the asked release's best coverage had to reach 0.6 of the best; no answer changed on any set once the "
        "asked release's sentence must lead the ranking and pass the evidence checks",
    ),
    (
        "`_holds` (release rule)",
        "the release asked about had to name the question's number ('Python 3.6') when another did; no answer "
        "changed once `_sibling` refuses a best sentence about a sibling release",
    ),
    (
        "`release_fixes` (following)",
        "a changelog release's other sections read for a how-question's fix; no answer changed once a changelog's "
        "chunks were indexed with their release",
    ),
    (
        "`_without_product_names` (query)",
        "a product's name taken out of the question's terms; off gained 1 answer and 2 sources (pandas)",
    ),
    ("`with_symbol_products`", "preferring the one product whose docs write all of a question's symbols; no change"),
    (
        "`_FENCE_BLOCK`, `_BULLET`, `_LABEL`, `_LIST_MARK`, `_GLUED_NUMBER`",
        "re-parsing; units now read ingest's entries",
    ),
    (
        "stop 57: `GROUP_UNITS`, `rows_instruct`, `named_fix`, `FIX_UNITS`, `CODE_LINES` and `code_line_chars`, "
        "`THEN`, `MIN_SENTENCE_CHARS`, `INTRO_CHARS`, `SHOWN_CODE_CHARS` (answer, units)",
        "each switched off alone gained or lost on at most one product besides its own set; with the rest of stop "
        "57's deletions: 1,020 -> 1,005 answers and 262 -> 270 refusals over 32 sets' own indexes (the fresh sets "
        "alone: one answer fewer, nine refusals more)",
    ),
    (
        "stop 57: `release_spellings`, `SYMBOL_HITS`, `PREFERRED_HITS` and `preferred_candidates`, `NAME_CANDIDATES`, "
        "`SHORT_NAME_CHARS`, `snake_prefix`, `HEAD_PASSAGES`, `scoped_rarity` (search)",
        "as above; `snake_prefix` and `PREFERRED_HITS` off gained on five and two fresh products and lost on none "
        "but their own",
    ),
    (
        "stop 57: `in_family`, `setting`, `no_later_fix`, `own_close`, `symbols_elsewhere` (gate)",
        "as above; `in_family` off gained on seven fresh products and lost one own question",
    ),
    (
        "stop 57: `later_releases`, `listed`, `versions_of`, `of_product`, `topic_apart` (the gate's topic; the plan "
        "question still sets product words apart), `call_keywords` (understand); then the gate's `topic` feature, "
        "which had become a copy of `coverage`, and the gate refitted without it",
        "as above: each lost one question of one set, or as many as it gained",
    ),
    (
        "stop 58: `asks_when` and the gate's `subject` (understand, gate), `ACRONYM_NAMES`, `_COMPOUND`, "
        "`CONTEXT_WEIGHT`, `ENTRY_NEIGHBOURS`, `PREFIX_CHARS`, `_from_release` narrowing (`narrow_release`)",
        "each switched off alone over 32 sets' own indexes, 1,532 questions: `asks_when` changed no answer (the "
        "refitted gate did not weigh `subject`), `PREFIX_CHARS` none; `ACRONYM_NAMES` lost one question of one "
        "set, `ENTRY_NEIGHBOURS` one of its own set, `_COMPOUND` one besides its own; `CONTEXT_WEIGHT` off gained "
        "9 answers on 7 products and lost 2; narrowing off gained on 5 products and lost on 4 (6 refusals for 6 "
        "answers)",
    ),
    (
        "stop 58: `gate.missing_symbols`, `gate.unknown_names`, `answer.max_units`, `search.no_terms_coverage`, "
        "`answer.similar_share`, `answer.release_label`, `answer.full_stop`; `gate.member_chars` one with search's",
        "switches and values that were copies: the model's `symbols` and `names` weights switch those features; "
        "`Settings.top_k` caps the quoted sentences; a question with no terms is covered by every sentence (all of "
        "none, no tuned value); a sentence is a duplicate when another holds all its words (no tuned share); the "
        "release label and the full stop are formatting, switched by patches",
    ),
)

# Tuned choices left on, and why; listed in the report so the table's coverage is plain.
NOT_SWITCHED: tuple[tuple[str, str], ...] = (
    ("`CANDIDATES` (retrieval), `ANSWER_PASSAGES` (knowledge_base)", "pool sizes: there is no neutral value"),
    ("`_VERSION`, `before_search` (release not indexed, no topic)", "the refusal contract, not a tuned heuristic"),
    ("the how-question neighbour `fix` in `choose`", "not separable without a flag; switched with `_HOW`"),
    ("the heading lead (`HEADING_ENTRY`) inside `_with_leads`", "switched with `_with_leads` and `_HEADLINE`"),
    (
        "`missing_symbols`' member/spelled leniencies, `unknown_names`' plural/prefix leniencies",
        "switched as the whole rules, through their features' weights in the gate's model (`model: symbols`, "
        "`model: names`)",
    ),
    ("alternatives inside `_INSTRUCTION` and `_HOW`", "switched as whole patterns"),
    (
        "`text.member_chars` (a dotted name's last part this long stands for it)",
        "a length in how dotted names are read, by search and the gate alike; no neutral value",
    ),
    ("`HNSW` graph settings (store)", "act when an index is built; measured by rebuilding (see the closing note)"),
    ("product vs release halves of `PREFERRED_BOOST`", "one constant, switched together"),
    ("catalog's `other_versioned` ('CUDA 12.6')", "outside the listed modules"),
    ("follow-up carry-over in `build_query`, `is_follow_up`", "no set asks a follow-up: only tests can judge them"),
    (
        "ingest's reading of changelogs and Markdown (`ingest.changelog` release headings and `DATED_CHARS`, "
        "setext headings, bold labels over lists, MyST directives, emphasis in `strip_markup`)",
        "act when documents are chunked, not per question; each pinned by tests in test_changelog.py, "
        "test_chunking.py and test_quotes_markup.py, and measured on the changelog set",
    ),
    ("other products' release numbers in `_other_versioned`", "a data fix (per product), pinned in test_products.py"),
    ("indented-paragraph continuation and the `': ' not in heading` guard in `units_of`", "inline conditions"),
)
