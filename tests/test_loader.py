"""Reading corpus files: front matter, inferred metadata, and clear errors for bad files."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.loader import DocumentError, discover, load_document
from ingest.rst import looks_like_rst

ROOT = Path(__file__).resolve().parents[1]


def _write(root: Path, rel: str, data: bytes | str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def test_front_matter_wins_and_folders_fill_the_rest(tmp_path: Path) -> None:
    _write(tmp_path, "acme/v3.1/notes.md", "---\ntitle: Acme 3.1\nkind: release-notes\n---\n# Ignored\nBody\n")
    _write(tmp_path, "acme/3.2/guide.fr.txt", "Guide de migration\n\nTexte.\n")
    docs = {d.source: d for d in (load_document(p, tmp_path) for p in discover(tmp_path))}
    first, second = docs["acme/v3.1/notes.md"], docs["acme/3.2/guide.fr.txt"]
    expected = {"title": "Acme 3.1", "product": "acme", "version": "3.1", "kind": "release-notes"}
    assert {k: first.meta[k] for k in expected} == expected
    assert second.meta["title"] == "Guide de migration"
    assert second.meta["language"] == "fr" and second.meta["version"] == "3.2"
    assert "---" not in first.text


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"caf\xe9 latin-1 text", "not valid UTF-8"),
        (b"\x89PNG\r\n\x1a\n\x00\x00binary", "binary file"),
        ("---\ntitle: [unclosed\n---\nBody\n", "broken front matter"),
        ("---\ntitle: no end\nBody\n", "broken front matter"),
        ("---\n- a\n- b\n---\nBody\n", "broken front matter"),
    ],
)
def test_bad_files_raise_one_line_errors(tmp_path: Path, data: bytes | str, message: str) -> None:
    path = _write(tmp_path, "p/1.0/bad.md", data)
    with pytest.raises(DocumentError, match=message) as err:
        load_document(path, tmp_path)
    assert "\n" not in str(err.value)


def test_html_and_rst_become_headed_text(tmp_path: Path) -> None:
    html = _write(tmp_path, "p/1.0/a.html", "<h1>Title</h1><h2>Part</h2><ul><li>Item <code>x.y</code></li></ul>")
    rst = _write(tmp_path, "p/1.0/b.rst", "Title\n=====\n\nPart\n----\n\nText.\n")
    assert "## Part" in load_document(html, tmp_path).text and "- Item `x.y`" in load_document(html, tmp_path).text
    assert "## Part" in load_document(rst, tmp_path).text


def test_html_files_drop_embedded_content_and_keep_only_safe_links(tmp_path: Path) -> None:
    page = (
        "<h1>T</h1><p>See <a href='https://docs.example.com/x'>docs</a> or <a href='javascript:alert(1)'>this</a>."
        "</p><iframe src='http://x/'>framed</iframe><script>bad()</script><p>&amp;lt;tensor&amp;gt;</p>"
    )
    text = load_document(_write(tmp_path, "p/1.0/a.html", page), tmp_path).text
    assert "See [docs](https://docs.example.com/x) or this." in text
    assert "framed" not in text and "bad()" not in text and "javascript" not in text
    assert "&lt;tensor&gt;" in text  # decoded once: the page showed the text `&lt;tensor&gt;`


@pytest.mark.parametrize("name", ["notes.md", "notes.txt"])
def test_markdown_and_text_bodies_are_extracted(tmp_path: Path, name: str) -> None:
    body = "Intro\n=====\n\nUse a &lt;tensor&gt;. <script>x()</script><img src='http://x/p.png'> `<b>code</b>`\n"
    doc = load_document(_write(tmp_path, f"p/1.0/{name}", body), tmp_path)
    assert "Use a <tensor>.  `<b>code</b>`" in doc.text and "x()" not in doc.text and "<img" not in doc.text


def test_rst_bodies_are_parsed_once_and_angle_brackets_are_its_text(tmp_path: Path) -> None:
    # RST has no inline HTML: Sphinx shows `<b>` and `&lt;` as written, so reldocs keeps them (decoded zero
    # times); `.. raw::` (the one way to embed HTML) and comments, which readers never see, are dropped.
    body = (
        "Intro\n=====\n\nUse a &lt;tensor&gt; or <T>. ``<b>code</b>``\n\n.. raw:: html\n\n   <script>x()</script>\n"
        "\n.. a hidden comment\n\n`bad <javascript:alert(1)>`_ and `good <https://docs.example.com/a>`_\n"
    )
    doc = load_document(_write(tmp_path, "p/1.0/notes.rst", body), tmp_path)
    assert "Use a &lt;tensor&gt; or <T>. `<b>code</b>`" in doc.text
    assert "x()" not in doc.text and "hidden" not in doc.text and "javascript" not in doc.text
    assert "bad and [good](https://docs.example.com/a)" in doc.text
    assert doc.format == "markdown"


def test_rst_in_txt_files_is_detected_and_shipped_text_files_stay_plain(tmp_path: Path) -> None:
    django_style = "==========\nAcme 5.0\n==========\n\nUse :func:`acme.run` now.\n\nMinor\n=====\n\n* one\n"
    doc = load_document(_write(tmp_path, "acme/5.0/release-notes.txt", django_style), tmp_path)
    assert (doc.format, doc.meta["title"]) == ("markdown", "Acme 5.0")
    assert "Use `acme.run` now." in doc.text and "- one" in doc.text and "* one" not in doc.text
    for path in sorted((ROOT / "corpus/pytorch/2.12.0").glob("*.txt")):
        shipped = load_document(path, ROOT / "corpus")
        assert shipped.format == "text" and not looks_like_rst(path.read_text()), path.name


def test_a_document_docutils_cannot_read_is_indexed_as_text_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(text: str) -> str:
        raise RecursionError("too deep")

    monkeypatch.setattr("ingest.rst.rst_to_markdown", broken)  # the loader imports it when it reads a file
    doc = load_document(_write(tmp_path, "p/1.0/notes.rst", "Title\n=====\n\nBody text.\n"), tmp_path)
    assert "Body text." in doc.text and doc.format == "text"
    assert [(w["field"], "RecursionError" in w["problem"]) for w in doc.warnings] == [("body", True)]


def test_changelogs_are_discovered_without_a_suffix(tmp_path: Path) -> None:
    for rel in ("acme/NEWS", "acme/CHANGES", "acme/Makefile", "acme/HISTORY.rst", "acme/notes"):
        _write(tmp_path, rel, "Version 1.1.0\n\n* fix\n\nVersion 1.0.0\n\n* first\n")
    found = [p.relative_to(tmp_path).as_posix() for p in discover(tmp_path)]
    assert found == ["acme/CHANGES", "acme/HISTORY.rst", "acme/NEWS"]


def test_front_matter_problems_are_carried_by_the_document(tmp_path: Path) -> None:
    path = _write(tmp_path, "p/1.0/notes.md", "---\nurl: javascript:x\nkind: <img src=x>\n---\n# Notes\n\nText.\n")
    doc = load_document(path, tmp_path)
    assert (doc.meta["url"], doc.meta["kind"]) == ("", "document")
    assert [(w["file"], w["field"]) for w in doc.warnings] == [("p/1.0/notes.md", "kind"), ("p/1.0/notes.md", "url")]
