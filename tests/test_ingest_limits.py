"""One small corpus file cannot stall or sink the ingest (issue 36): bombs and pathological lines are named and
skipped within their budget, a good file beside them is indexed, and symbolic links are never followed."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from assistant.index.store import ChunkStore
from assistant.runtime.settings import Settings
from ingest import is_current, sync
from ingest.loader import DocumentError, corpus_files, split_front_matter
from ingest.rst import rst_to_markdown
from ingest.rst_limits import SubstitutionOverflow

GOOD = "acme/1.0/release-notes.md"
GOOD_TEXT = "# Acme 1.0 release notes\n\n## Breaking changes\n\n- The `frobnicate()` function now returns a list.\n"


def substitution_bomb(levels: int = 16) -> str:
    """Chained substitutions, each using the previous one twice: images with an empty alt text have no
    characters, so docutils' own line-length limit never stops the doubling (about 550 bytes)."""
    chain = [f".. |s{i}| replace:: |s{i - 1}|\\ |s{i - 1}|" for i in range(1, levels + 1)]
    return "\n".join([".. |s0| image:: x.png\n   :alt:", *chain, "", "Title\n=====", "", f"Text |s{levels}| here.", ""])


def alias_bomb() -> str:
    """Nine levels of lists of nine aliases of the level before (about 400 bytes, 9**9 strings expanded)."""
    lines = ["a: &a [" + ",".join(['"lol"'] * 9) + "]"]
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "---\n" + "\n".join(lines) + "\ntitle: Bomb\n---\n# Bomb\n\nbody\n"


HOSTILE = {
    "acme/1.0/substitutions.rst": (substitution_bomb(), "substitutions expand past"),
    "acme/1.0/aliases.md": (alias_bomb(), "YAML aliases are not allowed"),
    # Two that made regular expressions backtrack for minutes: skipped past their budget, or indexed once fixed.
    "acme/CHANGELOG.md": ("# Changelog\n\n## 1.0" + " " * 40_000 + "x\n\n- Fixed a thing.\n", None),
    "acme/1.0/brackets.md": ("# Notes\n\n" + "[" * 100_000 + "\n", None),
}


class FlatEmbedder:
    """One vector for every text: these tests time the reading, not the model (a 100 KB line of `[`, once the
    regular expressions no longer backtrack on it, is a hundred chunks)."""

    name = "flat"

    def encode(self, texts: list[str], *, batch_size: int = 32) -> np.ndarray:
        return np.full((len(texts), 8), 8**-0.5, dtype=np.float32)


EMBEDDER = FlatEmbedder()


def _write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _settings(tmp_path: Path, **fields: object) -> Settings:
    # A base budget below the default leaves the 10 s bound room for a loaded machine's worker start and
    # embedding; a 100 KB file still gets 2 s + 20 s/MB = 4 s.
    fields = {"document_budget_s": 2.0, **fields}
    return Settings(corpus_dir=tmp_path / "corpus", data_dir=tmp_path / "data", **fields)  # type: ignore[arg-type]


@pytest.mark.slow  # a whole ingest per hostile file, up to a second each: CI's slow tier runs them
@pytest.mark.parametrize("hostile", sorted(HOSTILE))
def test_a_hostile_file_is_named_and_skipped_within_10_s_beside_a_good_one(hostile: str, tmp_path: Path) -> None:
    text, message = HOSTILE[hostile]
    _write(tmp_path / "corpus", GOOD, GOOD_TEXT)
    _write(tmp_path / "corpus", hostile, text)
    settings = _settings(tmp_path)
    started = time.perf_counter()
    report = sync(settings, progress=False, embedder=EMBEDDER)
    assert time.perf_counter() - started < 10
    errors = {e["file"]: e["error"] for e in report.errors}
    assert set(errors) <= {hostile}
    if message is not None:  # the bombs fail fast, with what is wrong
        assert message in errors[hostile] and "\n" not in errors[hostile]
    sources = {c.source for c in ChunkStore.open(settings).load_chunks()}
    assert GOOD in sources and (hostile in sources) == (hostile not in errors)


@pytest.mark.slow  # two whole syncs with a file that spends its reading budget: in CI's slow tier
def test_a_file_past_its_budget_is_named_skipped_and_read_again_on_rebuild(tmp_path: Path) -> None:
    slow = "acme/1.0/slow.rst"  # within the substitution limit, yet about a second of docutils' copying
    _write(tmp_path / "corpus", GOOD, GOOD_TEXT)
    _write(tmp_path / "corpus", slow, substitution_bomb(13))
    tight = _settings(tmp_path, document_budget_s=0.1, document_budget_s_per_mb=0)
    report = sync(tight, progress=False, embedder=EMBEDDER)
    assert [e["file"] for e in report.errors] == [slow]
    assert "took longer than 0.1 s" in report.errors[0]["error"]
    assert "RELDOCS_DOCUMENT_BUDGET_S" in report.errors[0]["error"]
    assert {c.source for c in ChunkStore.open(tight).load_chunks()} == {GOOD}

    roomy = Settings(corpus_dir=tmp_path / "corpus", data_dir=tmp_path / "data", document_budget_s=60)
    rebuilt = sync(roomy, rebuild=True, progress=False, embedder=EMBEDDER)
    assert rebuilt.errors == [] and {c.source for c in ChunkStore.open(roomy).load_chunks()} == {GOOD, slow}


def test_symbolic_links_are_never_followed_and_are_named(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    _write(outside, "secret.txt", "Release notes: the root password is hunter2.\n")
    _write(outside, "9.9/release-notes.md", "# Secret 9.9 notes\n\nThe root password is hunter2.\n")
    corpus = tmp_path / "corpus"
    _write(corpus, GOOD, GOOD_TEXT)
    (corpus / "acme/1.0/linked.txt").symlink_to(outside / "secret.txt")
    (corpus / "acme/9.9").symlink_to(outside / "9.9", target_is_directory=True)
    (corpus / "acme/1.0/inside.md").symlink_to(corpus / GOOD)  # even a link within the corpus
    settings = _settings(tmp_path)

    report = sync(settings, progress=False, embedder=EMBEDDER)
    linked = ["acme/1.0/inside.md", "acme/1.0/linked.txt", "acme/9.9"]
    assert [w["file"] for w in report.warnings if w["field"] == "link"] == linked
    assert report.errors == [] and report.files == 1
    chunks = ChunkStore.open(settings).load_chunks()
    assert {c.source for c in chunks} == {GOOD} and not any("hunter2" in c.text for c in chunks)

    again = sync(settings, progress=False, embedder=EMBEDDER)  # unchanged: the links are named again
    assert [w["file"] for w in again.warnings] == linked and again.added == again.updated == 0
    (corpus / "acme/1.0/linked.txt").unlink()
    (corpus / "acme/2.0").mkdir()
    (corpus / "acme/2.0/notes.md").symlink_to(outside / "secret.txt")
    assert not is_current(settings)  # a link added or removed is a change to report
    moved = sync(settings, progress=False, embedder=EMBEDDER)
    assert [w["file"] for w in moved.warnings] == ["acme/1.0/inside.md", "acme/2.0/notes.md", "acme/9.9"]


def test_corpus_files_lists_links_apart_and_never_enters_a_linked_folder(tmp_path: Path) -> None:
    _write(tmp_path / "outside", "deep/notes.md", "# Outside\n")
    _write(tmp_path / "corpus", "acme/1.0/notes.md", "# Inside\n")
    (tmp_path / "corpus/acme/2.0").symlink_to(tmp_path / "outside", target_is_directory=True)
    (tmp_path / "corpus/acme/1.0/image.png").symlink_to(tmp_path / "outside/deep/notes.md")  # not a corpus name
    files, links = corpus_files(tmp_path / "corpus")
    assert files == [tmp_path / "corpus/acme/1.0/notes.md"]
    assert links == [tmp_path / "corpus/acme/2.0"]


@pytest.mark.slow  # a whole ingest of a bomb-shaped file: two seconds, in CI's slow tier
def test_yaml_aliases_in_front_matter_are_refused_at_once() -> None:
    started = time.perf_counter()
    with pytest.raises(DocumentError, match=r"YAML aliases are not allowed \(\*a, line 3\)"):
        split_front_matter(alias_bomb())
    assert time.perf_counter() - started < 1
    front, body = split_front_matter("---\ntitle: &t Acme 1.0\nversion: 1.0\n---\n# Notes\n")  # an anchor alone
    assert front == {"title": "Acme 1.0", "version": "1.0"} and body == "# Notes\n"
    with pytest.raises(DocumentError, match="nested too deeply"):
        split_front_matter("---\ntitle: " + "[" * 50_000 + "\n---\nbody\n")


@pytest.mark.parametrize("levels", [16, 40])
def test_chained_substitutions_are_refused_before_docutils_expands_them(levels: int) -> None:
    started = time.perf_counter()
    with pytest.raises(SubstitutionOverflow, match=rf"\|s{levels}\| alone is [\d,]+ nodes"):
        rst_to_markdown(substitution_bomb(levels))
    assert time.perf_counter() - started < 2
    backwards = [f".. |s{i}| replace:: |s{i - 1}| |s{i - 1}|" for i in range(levels, 0, -1)]
    with pytest.raises(SubstitutionOverflow):
        rst_to_markdown("\n".join([*backwards, ".. |s0| replace:: lol", "", "Title\n=====", "", "Text.", ""]))


def test_ordinary_substitutions_still_expand() -> None:
    source = ".. |version| replace:: 2.12\n.. |pkg| replace:: Acme |version|\n\nTitle\n=====\n\n"
    markdown = rst_to_markdown(source + "Upgrade to |pkg| today. " * 400 + "\n\n.. |loop| replace:: |loop|\n")
    assert markdown.count("Upgrade to Acme 2.12 today.") == 400


def test_a_raw_role_keeps_the_text_of_its_html_never_its_tags() -> None:
    source = """Title
=====

.. role:: raw-html(raw)
   :format: html

.. role:: raw-latex(raw)
   :format: latex

The :raw-html:`<b>fused</b> <script>alert(1)</script>option` is on; :raw-latex:`\\LaTeX{}` is dropped.
"""
    markdown = rst_to_markdown(source)
    assert "The fused option is on" in markdown
    assert "<" not in markdown and "alert" not in markdown and "LaTeX" not in markdown
