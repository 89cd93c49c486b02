"""The support check (`assistant.answer.grounding`): numbers, names, links and words of an answer against its
passages."""

from __future__ import annotations

import pytest

from assistant.answer import extractive as answering
from assistant.answer.following import with_following
from assistant.answer.grounding import claims, names_in, numbers_in, review, unlink, urls_in
from assistant.knowledge_base import KnowledgeBase
from assistant.model.records import Chunk, Citation, Passage
from assistant.tuning import DEFAULT
from assistant.understand.query import build_query

GUIDE = "https://github.com/pytorch/pytorch/releases/tag/v2.12.0"
CUDA = Chunk(
    "c1",
    "Updated the minimum CUDA version required to build PyTorch from source to CUDA 12.6. Building PyTorch from "
    "source with CUDA versions older than 12.6 is no longer supported. Users building custom binaries should "
    "install CUDA 12.6 or newer and make sure `CUDA_HOME` points to that installation.",
    "pytorch/2.12.0/migration-guide.txt",
    "Migrating to PyTorch v2.12.0",
    "PyTorch",
    "2.12.0",
    "migration-guide",
    "Breaking Changes › Issue #2",
    url=GUIDE,
)
PORT = Chunk(
    "c2",
    "`torchrun` now defaults to an OS-assigned free port for single-node training instead of port 29500 when "
    "`--master-port` or `--standalone` are not specified. To explicitly use a fixed port, use "
    "`--master-port=29500`. See the [launcher docs](https://docs.pytorch.org/docs/stable/elastic/run.html).",
    "pytorch/2.12.0/migration-guide.txt",
    "Migrating to PyTorch v2.12.0",
    "PyTorch",
    "2.12.0",
    "migration-guide",
    "Breaking Changes › Issue #5",
    url=GUIDE,
)
FUSED = Chunk(
    "c3",
    "- Adagrad now supports `fused=True`, joining Adam, AdamW, and SGD with a single-kernel optimizer implementation.",
    "pytorch/2.12.0/release-notes.md",
    "PyTorch 2.12.0 Release Notes",
    "PyTorch",
    "2.12.0",
    "release-notes",
    "Highlights",
)


def failed(text: str, *cited: Chunk, language: str = "en") -> str | None:
    """The text of the first claim the cited passages do not carry, None when they carry all."""
    claim = review(text, cited, language).failed
    return claim.text if claim else None


def test_numbers_are_compared_in_one_spelling() -> None:
    assert numbers_in("PyTorch v2.12.0 needs CUDA 12.6, not 9.0; port 29,500") == {"2.12", "12.6", "9", "29500"}
    assert numbers_in("CUDA 12,6 et C++20") == {"12.6", "20"}  # a decimal comma, and the number in "C++20"
    assert numbers_in("float16 sm_90 x86_64") == frozenset()  # digits inside a word are part of the word
    assert numbers_in("9" * 5000) == {"9" * 5000}  # no int(): Python refuses to convert that many digits


def test_names_are_capitalised_words_a_sentence_does_not_start_with() -> None:
    assert names_in("Adagrad gained it. The optimizer RMSprop, in Kubernetes and CUDA: Use it.") == [
        "RMSprop",
        "Kubernetes",
        "CUDA",
    ]


def test_claims_run_to_the_sentence_with_markers_and_union_its_citations() -> None:
    found = claims("Two things change:\n- It needs CUDA 12.6. And C++20 [1][2]. Nothing else.\n- `x[0]` [3]")
    assert [(c.text, c.sources) for c in found] == [
        ("Two things change:", ()),
        ("- It needs CUDA 12.6. And C++20 [1][2].", (1, 2)),
        ("Nothing else.", ()),
        ("- `x[0]` [3]", (3,)),
    ]


@pytest.mark.parametrize(
    ("text", "cited"),
    [
        ("To build PyTorch 2.12 from source you need CUDA 12.6 or newer [1].", (CUDA,)),
        ("CUDA 12.6. Anything older is no longer supported, so point `CUDA_HOME` at CUDA 12.6+ [1].", (CUDA,)),
        ("The migration guide says source builds now need CUDA 12.6 [1].", (CUDA,)),
        ("Building from source (e.g. custom binaries) needs CUDA 12.6 or newer [1].", (CUDA,)),
        ("torchrun now lets the OS choose a free port for single-node training rather than 29500 [1].", (PORT,)),
        ("For a fixed port, pass `--master-port=29500` as the launcher docs say [1].", (PORT,)),
        ("Adagrad now supports `fused=True`, like Adam, AdamW and SGD [1].", (FUSED,)),
        ("Source builds need CUDA 12.6 [1], and torchrun picks a free port instead of 29500 [2].", (CUDA, PORT)),
    ],
)
def test_a_faithful_paraphrase_is_carried(text: str, cited: tuple[Chunk, ...]) -> None:
    assert failed(text, *cited) is None


@pytest.mark.parametrize(
    "text",
    [
        "PyTorch 2.12 needs CUDA 9.0 [1].",  # a number the passage does not state
        "Building from source now requires Kubernetes [1].",  # a name it does not
        "Use `torch.cuda.build_from_source` to build against CUDA 12.6 [1].",  # a code name it does not
        "PyTorch removed its bindings and the whole frontend [1].",  # not what it is about
        "Building needs CUDA 12.6 [1]. See https://evil.example/pwn for details.",  # a URL it does not hold
        "The minimum is CUDA 12.6 [1].\nCUDA 12.4 also works.",  # nor does an uncited line
    ],
)
def test_an_invented_fact_is_not_carried(text: str) -> None:
    assert failed(text, CUDA) is not None


def test_a_claim_citing_two_passages_is_read_against_both() -> None:
    text = "Source builds need CUDA 12.6 and torchrun defaults away from port 29500 [1][2]."
    assert failed(text, CUDA, PORT) is None
    assert failed(text.replace("[1][2]", "[1]"), CUDA, PORT) is not None  # 29500 is in passage 2 only


def test_a_french_answer_is_checked_by_its_numbers_and_names() -> None:
    assert failed("Il faut CUDA 12.6 ou plus récent pour compiler PyTorch 2.12 depuis les sources [1].", CUDA) is None
    assert failed("C'est Adagrad qui supporte désormais `fused=True` [1].", FUSED) is None
    assert failed("Il faut CUDA 9.0 pour compiler PyTorch 2.12 [1].", CUDA, language="fr") is not None
    assert failed("L'optimiseur RMSprop supporte `fused=True` [1].", FUSED, language="fr") is not None


def test_word_share_threshold_is_half() -> None:
    assert DEFAULT.answer.claim_word_share == 0.5
    assert failed("PyTorch from source: mind the gap, refresh toolchains [1].", CUDA) is not None  # 2 of 6 words


def test_unlink_keeps_only_links_a_cited_passage_holds() -> None:
    text = (
        "See [the official guide](https://evil.example/pwn), ![x](https://evil.example/p.png), "
        f"[the release]({GUIDE}), [the docs](<https://docs.pytorch.org/docs/stable/elastic/run.html/>) and "
        "`[kept](https://evil.example/code)` [1]."
    )
    assert unlink(text, [PORT]) == (
        f"See the official guide, x, [the release]({GUIDE}), "
        "[the docs](<https://docs.pytorch.org/docs/stable/elastic/run.html/>) and "
        "`[kept](https://evil.example/code)` [1]."
    )
    assert unlink(text, []).startswith("See the official guide, x, the release, the docs and `[kept]")
    assert urls_in("at https://evil.example/pwn. or www.Example.org/a/") == {
        "https://evil.example/pwn",
        "https://www.example.org/a",
    }


def test_a_draft_holds_back_a_sentence_with_a_figure_no_passage_has() -> None:
    given = (CUDA, PORT)
    writing = review("PyTorch 2.12 needs CUDA 9.0", (), "en", given=given, finished=False)
    assert writing.shown == "" and writing.failed is None  # not shown, not judged yet
    going = review("Builds need CUDA 12.6 [1]. And CUDA 9", (CUDA,), "en", given=given, finished=False)
    assert going.shown == "Builds need CUDA 12.6 [1]." and going.failed is None
    done = review("It needs CUDA 9.0 [1]. And", (CUDA,), "en", given=given, finished=False)
    assert done.shown == "" and done.failed is not None  # a finished sentence is judged


QUESTIONS = [
    "What is the minimum CUDA version to build PyTorch 2.12 from source?",
    "What do I need to change in my compiler setup to build 2.12 from source? Is C++17 still OK?",
    "Why does torchrun no longer use port 29500?",
    "After upgrading, how do I force torchrun back onto a fixed rendezvous port?",
    "My torch.distributed.nn.functional.all_reduce call now throws a RuntimeError inside a compiled function.",
    "Can MPS tensors still live in device-only memory on Apple GPUs?",
    "Which Inductor config flag turns the deferred layout freezing for max-autotune templates back on?",
    "My aarch64 source build with SVE enabled started failing during CMake configuration. Which file changed?",
    "Which optimizer gained fused=True?",
    "Quel optimiseur supporte fused=True ?",
    "Quelle version minimale de CUDA faut-il pour compiler PyTorch 2.12 ?",
]


@pytest.mark.parametrize("question", QUESTIONS)
def test_extractive_answers_are_carried_by_their_passages(
    kb: KnowledgeBase, question: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    behind: dict[int, Chunk] = {}
    made = answering.citation

    def recording(n: int, passage: Passage, quote: str) -> Citation:
        behind[n] = passage.chunk
        return made(n, passage, quote)

    monkeypatch.setattr(answering, "citation", recording)
    query = build_query(question, kb.versions())
    passages = with_following(kb.retriever.search(query, 8), kb.retriever.chunks, kb.retriever.by_id)
    *_, answer = kb.extractive.stream(query, passages)
    assert answer.found and answer.citations
    assert review(answer.text, [behind[n] for n in sorted(behind)], answer.language).failed is None
