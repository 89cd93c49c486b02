"""Reading corpus files: front matter, inferred metadata, and clear errors for bad files."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.loader import DocumentError, discover, load_document


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
