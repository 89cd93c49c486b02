"""Fresh sets: their docs fetched again by digest (bench/fetch_fresh_docs.py) and pooled (bench/fresh_pool.py)."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path
from unittest import mock

import pytest


def _archive(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("acme-2.0/docs/linked.rst")  # a link: never followed
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(link)
    return out.getvalue()


def test_a_fresh_sets_docs_come_from_its_sdist_by_digest_each_file_as_saved(tmp_path: Path) -> None:
    from bench import fetch_fresh_docs

    notes, changed = b"2.0\n===\n\n- Removed `acme.old`.\n", b"2.1\n===\n\n- Not the file saved.\n"
    data = _archive({"acme-2.0/docs/2.0.rst": notes, "acme-2.0/docs/2.1.rst": changed})
    url = "https://pypi.example/packages/acme-2.0.tar.gz"
    about = {
        "product": "acme",
        "sdist": f"{url}#sha256={hashlib.sha256(data).hexdigest()}",
        "files": {
            "acme-2.0/docs/2.0.rst": {"name": "2.0.rst", "sha256": hashlib.sha256(notes).hexdigest()},
            "acme-2.0/docs/2.1.rst": {"name": "2.1.rst", "sha256": "0" * 64},
            "acme-2.0/docs/linked.rst": {"name": "linked.rst", "sha256": "0" * 64},
        },
    }
    response = mock.MagicMock()
    response.__enter__.return_value.read.return_value = data
    with (
        mock.patch.object(fetch_fresh_docs, "spec", lambda name: about),
        mock.patch("bench.fetch_changelogs.urllib.request.urlopen", return_value=response),
    ):
        placed, problems = fetch_fresh_docs.fetch_docs("demo", tmp_path)
        folder = tmp_path / "demo" / "acme"
        assert placed == 1 and (folder / "2.0.rst").read_bytes() == notes
        assert sorted(p.split(": ", 1)[1].split(" ")[0] for p in problems) == [
            "acme-2.0/docs/2.1.rst",
            "acme-2.0/docs/linked.rst",
        ]
        assert not (folder / "2.1.rst").exists() and not (folder / "linked.rst").exists()
        about["sdist"] = f"{url}#sha256={'0' * 64}"  # another archive than the one named: nothing written
        (folder / "2.0.rst").unlink()
        placed, problems = fetch_fresh_docs.fetch_docs("demo", tmp_path)
    assert placed == 0 and "sha256 differs" in problems[0] and not (folder / "2.0.rst").exists()
    about["files"] = {"acme-2.0/docs/2.0.rst": {"name": "../escape.rst", "sha256": "0" * 64}}
    with mock.patch.object(fetch_fresh_docs, "spec", lambda name: about), pytest.raises(ValueError):
        fetch_fresh_docs.fetch_docs("demo", tmp_path)  # a saved name is a plain file name, never a path


def test_every_fresh_set_names_its_docs_and_they_are_the_sets_sources() -> None:
    from bench import fetch_fresh_docs

    names = fetch_fresh_docs.sets()
    assert names == sorted(p.name for p in fetch_fresh_docs.FRESH_DIR.iterdir() if p.is_dir())
    for name in names:
        about = fetch_fresh_docs.spec(name)
        sources = (fetch_fresh_docs.FRESH_DIR / name / "SOURCES.md").read_text(encoding="utf-8")
        url, _, digest = about["sdist"].partition("#sha256=")
        assert url.startswith("https://") and digest in sources and about["files"]
        assert all(f["sha256"] and "/" not in f["name"] for f in about["files"].values())


def test_the_pool_reads_tuned_values_and_counts_answers_and_refusals() -> None:
    from bench.fresh_pool import totals, tuned_value

    assert tuned_value("gate__release_leads=False") == ("gate__release_leads", False)
    assert tuned_value("search__answer_passages=4") == ("search__answer_passages", 4)
    assert tuned_value("understand__word=on") == ("understand__word", "on")
    with pytest.raises(ValueError):
        tuned_value("release_leads")
    results = [
        {"answerable": True, "ok": True},
        {"answerable": True, "ok": False},
        {"answerable": False, "ok": True},
    ]
    assert totals(results) == {"answered": 1, "answerable": 2, "refused": 1, "unanswerable": 1}
    assert json.dumps(totals([])) == '{"answered": 0, "answerable": 0, "refused": 0, "unanswerable": 0}'
