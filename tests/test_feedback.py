"""The feedback log: one line per answer and voter, bounded entries, rotation, reading line by line."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant.feedback import ANSWER_CHARS, MAX_CITATIONS, QUESTION_CHARS, QUOTE_CHARS, FeedbackLog
from assistant.model.records import Answer, Citation
from assistant.runtime.settings import Settings

CITATION = Citation(
    1, "PyTorch 2.12 release notes", "2.12.0", "release-notes", "Build", "notes.md", "https://x.y/", "q"
)
ANSWER = Answer(question="What CUDA do I need?", text="CUDA 12.6 or newer [1].", found=True, citations=(CITATION,))
OTHER = Answer(question="Which optimizer gained fused=True?", text="Adagrad [1].", found=True, citations=(CITATION,))


def lines(log: FeedbackLog) -> list[dict]:
    """Every physical line of every file of the log, parsed (a line that does not parse fails the test)."""
    return [json.loads(line) for path in log.files() for line in path.read_text(encoding="utf-8").splitlines()]


def test_three_hundred_votes_by_one_voter_leave_one_line(tmp_path: Path) -> None:
    log = FeedbackLog(tmp_path / "feedback.jsonl")
    for _ in range(300):
        log.record(ANSWER, "up", channel="web", voter="session-a")
    assert [(e["vote"], e["question"]) for e in lines(log)] == [("up", ANSWER.question)]

    log.record(ANSWER, "down", channel="web", voter="session-a")  # a change of mind is that same line
    [entry] = lines(log)
    assert entry["vote"] == "down" and entry["answer"] == ANSWER.text and entry["citations"][0]["url"] == "https://x.y/"


def test_each_voter_and_each_answer_has_its_own_line(tmp_path: Path) -> None:
    log = FeedbackLog(tmp_path / "feedback.jsonl")
    log.record(ANSWER, "up", channel="web", voter="session-a")
    log.record(ANSWER, "down", channel="web", voter="session-b")
    log.record(OTHER, "up", channel="web", voter="session-a")
    log.record(ANSWER, "up", channel="slack", voter="session-a", user="session-a")  # another place, another voter
    log.record(ANSWER, "down", channel="web", voter="session-a")
    got = [(e["channel"], e["question"], e["vote"]) for e in lines(log)]
    assert got == [
        ("web", ANSWER.question, "down"),
        ("web", ANSWER.question, "down"),
        ("web", OTHER.question, "up"),
        ("slack", ANSWER.question, "up"),
    ]
    assert len({e["key"] for e in lines(log)}) == 4
    assert all("session-a" not in e["key"] for e in lines(log))  # the session id itself is not stored


def test_votes_from_threads_and_from_a_second_log_on_the_same_file_stay_one_line(tmp_path: Path) -> None:
    """What a restart or a second process sees: the line already written, which its votes then update."""
    first, second = FeedbackLog(tmp_path / "feedback.jsonl"), FeedbackLog(tmp_path / "feedback.jsonl")

    def vote(log: FeedbackLog) -> None:
        for _ in range(50):
            log.record(ANSWER, "up", channel="slack", voter="U2", user="U2")

    threads = [threading.Thread(target=vote, args=(log,)) for log in (first, second) * 4]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    second.record(ANSWER, "down", channel="slack", voter="U2", user="U2")
    assert [(e["user"], e["vote"]) for e in lines(first)] == [("U2", "down")]


def test_entries_are_bounded(tmp_path: Path) -> None:
    huge = Citation(
        9, "t" * 10_000, "2.12.0", "k" * 10_000, "s" * 10_000, "f" * 10_000, "https://x.y/" + "a" * 10_000, "q" * 10_000
    )
    answer = Answer(question="w" * 100_000, text="a" * 1_000_000, found=True, citations=(huge,) * 100)
    log = FeedbackLog(tmp_path / "feedback.jsonl")
    log.record(answer, "up", channel="web", voter="s", user="u" * 10_000)
    [entry] = lines(log)
    assert len(entry["question"]) == QUESTION_CHARS and entry["question"].endswith("…")
    assert len(entry["answer"]) == ANSWER_CHARS and len(entry["citations"]) == MAX_CITATIONS
    assert len(entry["citations"][0]["quote"]) == QUOTE_CHARS and len(entry["user"]) < 1000
    assert log.path.stat().st_size < 64 * 1024


def test_the_log_rotates_at_its_size_cap_keeping_its_backups(tmp_path: Path) -> None:
    log = FeedbackLog(tmp_path / "feedback.jsonl", max_bytes=4000, backups=2)
    for n in range(200):
        log.record(ANSWER, "up", channel="web", voter=f"session-{n}", user=f"session-{n}")
    assert [p.name for p in log.files()] == ["feedback.jsonl.2", "feedback.jsonl.1", "feedback.jsonl"]
    assert all(p.stat().st_size <= 4000 for p in log.files())
    assert not (tmp_path / "feedback.jsonl.3").exists()
    kept = lines(log)
    assert 0 < len(kept) < 200 and kept == list(log.entries())  # the oldest votes went with the oldest file
    assert kept[-1]["user"] == "session-199"

    # A vote on a line that was rotated away is a new line in the current file; the rotated line stays as it was.
    voter = json.loads(log.files()[1].read_text().splitlines()[0])["user"]
    log.record(ANSWER, "down", channel="web", voter=voter, user=voter)
    assert [(e["vote"], e["user"]) for e in lines(log) if e["user"] == voter] == [("up", voter), ("down", voter)]
    assert lines(log)[-1]["user"] == voter


def test_a_rotation_by_another_writer_is_noticed(tmp_path: Path) -> None:
    mine, other = (FeedbackLog(tmp_path / "feedback.jsonl", max_bytes=2000, backups=1) for _ in range(2))
    mine.record(ANSWER, "up", channel="web", voter="a")
    for n in range(10):  # fills the file past its cap: it rotates under `mine`
        other.record(OTHER, "up", channel="web", voter=f"s{n}")
    mine.record(ANSWER, "down", channel="web", voter="a")
    assert all(e["question"] == OTHER.question for e in lines(mine)[:-1])
    assert (lines(mine)[-1]["question"], lines(mine)[-1]["vote"]) == (ANSWER.question, "down")


def test_entries_read_line_by_line_and_skip_a_torn_line(tmp_path: Path) -> None:
    log = FeedbackLog(tmp_path / "feedback.jsonl")
    log.record(ANSWER, "up", channel="web", voter="a")
    with log.path.open("ab") as f:
        f.write(b'{"vote": "up"  , "time": 17')  # a writer that died mid-line
    log.record(OTHER, "down", channel="web", voter="a")
    entries = log.entries()
    assert isinstance(entries, Iterator)  # a generator: nothing is read until asked for
    assert [e["question"] for e in entries] == [ANSWER.question, OTHER.question]
    log.record(OTHER, "up", channel="web", voter="a")
    assert [e["vote"] for e in log.entries()] == ["up", "up"]


def test_text_that_json_can_carry_but_utf8_cannot_is_kept(tmp_path: Path) -> None:
    odd = Answer(question="lone \ud800 surrogate, « guillemets »", text="x", found=False)
    log = FeedbackLog(tmp_path / "feedback.jsonl")
    log.record(odd, "down", channel="web", voter="a")
    assert [e["question"] for e in log.entries()] == [odd.question]


def test_settings_size_the_log(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, feedback_max_bytes=100_000, feedback_backups=5)
    log = FeedbackLog.from_settings(settings)
    assert (log.path, log.max_bytes, log.backups) == (tmp_path / "feedback.jsonl", 100_000, 5)
    with pytest.raises(ValueError, match="up' or 'down"):
        log.record(ANSWER, "sideways", channel="web", voter="a")  # type: ignore[arg-type]
    assert list(log.entries()) == []
