"""Chunking edge cases: fences, headings, list entries, the flattened migration guide."""

from __future__ import annotations

from pathlib import Path

from ingest.chunking import chunk_document, markdown_blocks
from ingest.loader import Document, load_document

ROOT = Path(__file__).resolve().parents[1]


def _doc(text: str, source: str = "lib/1.0/notes.md", **meta: str) -> Document:
    return Document(source, text, "hash", {"title": "Notes", "version": "1.0", "product": "lib", **meta})


def test_hash_lines_inside_fences_are_code_not_headings() -> None:
    text = "# Changes\n\n- Entry one\n\n  ```bash\n  # not a heading\n  make\n  ```\n\n## Next\n\nBody.\n"
    chunks = chunk_document(_doc(text))
    sections = {c.section for c in chunks}
    assert "not a heading" not in " ".join(sections)
    fenced = next(c for c in chunks if "make" in c.text)
    assert "# not a heading" in fenced.text and "Entry one" in fenced.text  # the fence stays with its entry
    assert fenced.section == "Changes"


def test_unclosed_fence_swallows_following_headings() -> None:
    blocks = list(markdown_blocks("## A\n\n```\n## inside\n"))
    assert [b.section for b in blocks] == [("A",)]


def test_heading_path_is_the_section() -> None:
    text = "# Release\n\n## Backwards Incompatible Changes\n\n### Distributed\n\n- Changed `x`.\n"
    (chunk,) = chunk_document(_doc(text, title="Release"))
    assert chunk.section == "Backwards Incompatible Changes › Distributed"


def test_list_entries_are_kept_whole_and_long_sections_split_between_entries() -> None:
    entries = [f"- Entry {i} " + "word " * 60 + f"end{i}." for i in range(6)]
    chunks = chunk_document(_doc("## Section\n\n" + "\n".join(entries) + "\n"))
    assert len(chunks) > 1
    for i in range(6):
        holding = [c for c in chunks if f"Entry {i} " in c.text]
        assert len(holding) == 1 and f"end{i}." in holding[0].text


def test_nested_list_items_stay_with_their_parent() -> None:
    text = "## S\n\n- Parent entry:\n\n  - child one\n  - child two\n\n- Other entry\n"
    chunks = chunk_document(_doc(text))
    parent = next(c for c in chunks if "Parent entry" in c.text)
    assert "child two" in parent.text


def test_flattened_migration_guide_gives_one_chunk_per_breaking_change() -> None:
    doc = load_document(ROOT / "corpus/pytorch/2.12.0/migration-guide.txt", ROOT / "corpus")
    chunks = chunk_document(doc)
    issues = [c for c in chunks if "Issue #" in c.section]
    assert len(issues) == 7
    cuda = next(c for c in issues if "Issue #2" in c.section)
    assert cuda.section.startswith("Breaking Changes › Issue #2: Updated the minimum CUDA version")
    assert "12.6" in cuda.text and "CUDA_HOME" in cuda.text  # the solution stays with its issue
    assert all(c.version == "2.12.0" and c.kind == "migration-guide" for c in chunks)


def test_chunk_ids_are_stable_and_content_derived() -> None:
    text = "## A\n\n- one\n\n## B\n\n- two\n"
    first = [c.id for c in chunk_document(_doc(text))]
    edited = [c.id for c in chunk_document(_doc(text.replace("two", "three")))]
    assert first == [c.id for c in chunk_document(_doc(text))]
    assert first[0] == edited[0] and first[1] != edited[1]


def test_html_table_rows_in_markdown_become_entries(tmp_path: Path) -> None:
    rows = "".join(f"  <tr><td><strong>Feature {i}</strong></td><td>{'word ' * 50}end{i}</td></tr>\n" for i in range(4))
    (tmp_path / "p/1.0").mkdir(parents=True)
    (tmp_path / "p/1.0/notes.md").write_text(
        f"# Notes\n\n## Highlights\n\n<table>\n{rows}</table>\n\n## Next\n\nText.\n"
    )
    chunks = chunk_document(load_document(tmp_path / "p/1.0/notes.md", tmp_path))
    for i in range(4):
        (holding,) = [c for c in chunks if f"Feature {i} |" in c.text]
        assert f"end{i}" in holding.text and holding.section == "Highlights"
        assert holding.text.startswith("- Feature") and "<" not in holding.text


def test_section_names_are_plain_text() -> None:
    heading = 'Zorblax \\`<img src="http://x/h.png">\\` and `<img src=y>` [changes](https://x.example/)'
    text = f"# Notes\n\n## {heading}\n\n- x\n"
    (chunk,) = chunk_document(_doc(text))
    assert chunk.section == "Zorblax and changes"


def test_a_fence_cut_with_an_oversize_block_stays_code_in_every_piece() -> None:
    code = "\n".join(f"value_{i} = compute({i})  # step {i}" for i in range(80))
    text = f"## S\n\n- An entry with a long example:\n\n  ```python\n{code}\n  ```\n"
    chunks = chunk_document(_doc(text))
    assert len(chunks) > 1
    coded = [c for c in chunks if "value_" in c.text]
    assert len(coded) > 1
    for chunk in coded:  # each piece of the code opens and closes its own fence, so no code reads as prose
        lines = chunk.text.split("\n")
        fences = [i for i, line in enumerate(lines) if line.strip().startswith("```")]
        assert len(fences) == 2 and lines[fences[0]].strip() == "```python", chunk.text
        assert all(fences[0] < i < fences[1] for i, line in enumerate(lines) if line.startswith("value_"))
    assert all(f"value_{i} =" in "".join(c.text for c in chunks) for i in range(80))


def test_link_reference_definitions_are_no_chunk() -> None:
    text = "## 1.0\n\n- Entry.\n\n[1.0]: https://example.com/compare/v1.0\n[0.9]: https://example.com/compare/v0.9\n"
    assert [c.text for c in chunk_document(_doc(text))] == ["- Entry."]
    assert chunk_document(_doc("## 1.0\n\n[Note]: this paragraph stays.\n"))[0].text == "[Note]: this paragraph stays."


def test_strip_markup_keeps_code_stars() -> None:
    from assistant.text.words import strip_markup

    assert strip_markup("**Removed** the `**kwargs` of `f()`") == "Removed the `**kwargs` of `f()`"
    # Emphasis goes too, also around code; stars that open or close no word stay (`*args` outside code, a * b).
    assert strip_markup("Please *do not* upgrade; *use `verify=True` instead*.") == (
        "Please do not upgrade; use `verify=True` instead."
    )
    assert strip_markup("*args, a * b and 2*3*4 stay") == "*args, a * b and 2*3*4 stay"


def test_myst_directives_are_labelled_text_and_images_go() -> None:
    from ingest.markdown_blocks import myst_directives

    body = (
        "- Hashes changed.\n\n  :::{warning}\n  Do not upgrade blindly!\n  :::\n\n"
        "```{image} https://x/logo.png\n:alt: logo\n```\n\n```{deprecated} 2.0\nUse `g()`.\n```\n\n"
        "```{code-block} python\nf()\n```\n"
    )
    out = myst_directives(body)
    assert "  Warning:\n  Do not upgrade blindly!" in out and ":::" not in out
    assert "logo" not in out and "Deprecated since 2.0:\nUse `g()`." in out
    assert "```{code-block} python\nf()\n```" in out  # code stays code
    assert myst_directives(":::{note}\n:class: tip\nHello\n:::") == "Note:\nHello"  # options are no text
    assert myst_directives("```{image} x.png\nrest of the notes") == "```{image} x.png\nrest of the notes"  # unclosed


def test_myst_roles_read_as_rst_roles_do() -> None:
    from ingest.markdown_blocks import myst_roles

    body = "- Fix help. {pr}`3805` {meth}`~click.Option.get_help_spec` {ref}`the guide <guide>`\n```\n{pr}`1`\n```"
    assert myst_roles(body) == "- Fix help. GH 3805 `click.Option.get_help_spec` the guide\n```\n{pr}`1`\n```"


def test_double_backtick_code_reads_as_code_and_escaped_hashes_as_text() -> None:
    from assistant.text.words import strip_markup
    from ingest.markup import markdown_text
    from ingest.rst import rst_to_markdown

    # RST's ``literal`` in a plain-text or Markdown changelog is the same code span as `literal`.
    assert markdown_text("Use ``default()`` or `` `x` ``.") == "Use `default()` or `` `x` ``."
    # A comment opening an example indented as a block quote is a paragraph, not a heading that cuts the notes.
    markdown = rst_to_markdown("Example:\n\n        # add a tag\n        x = 1\n")
    assert not any(line.startswith("#") for line in markdown.split("\n"))
    assert strip_markup(markdown) == "Example:\n\n# add a tag x = 1"


def test_indented_code_is_code_not_entries() -> None:
    text = (
        "If your project is:\n\n    * repo_folder\n        * my_package\n\n"
        "Then run:\n\n    cd repo\n\n- item\n\n    more\n"
    )
    blocks = [(b.kind, b.text) for b in markdown_blocks(text)]
    assert blocks == [
        ("para", "If your project is:"),
        ("code", "```\n* repo_folder\n    * my_package\n```"),  # a tree drawn in code, not list entries
        ("para", "Then run:"),
        ("code", "```\ncd repo\n```"),
        ("item", "- item\n\n    more"),  # a list entry's own indented paragraph stays the entry's
    ]


def test_a_list_cut_between_chunks_is_read_with_the_line_that_introduced_it() -> None:
    names = [f"`option_{i}` (use `new_{i}` instead{' ' + 'and more words' * 6})" for i in range(8)]
    text = "## Changes to config\n\nThe following settings have been removed:\n\n" + "".join(f"* {n}\n" for n in names)
    chunks = chunk_document(_doc(text))
    assert len(chunks) > 1  # the list is cut
    changes = [c for chunk in chunks for c in chunk.changes]
    assert [c.kind for c in changes] == ["removed"] * 8
    assert all(c.summary.startswith("The following settings have been removed:") for c in changes)
