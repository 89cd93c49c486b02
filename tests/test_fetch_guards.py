"""What a fetch refuses or leaves alone on disk: tar headers that would fill memory, folders it did not write."""

from __future__ import annotations

import bz2
import io
import lzma
import os
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.dependencies import Wanted, store
from ingest.dependencies import archive as archive_module
from ingest.dependencies.archive import ArchiveRefused, read_docs
from ingest.dependencies.limits import ArchiveLimits
from tests.fetch_server import FakeHosts, serve, tar_gz
from tests.test_fetch_docs import CHANGES, fetch, publish, settings_for

HEADERS = 64_000
SMALL = ArchiveLimits(archive_bytes=200_000, expanded_bytes=200_000, member_bytes=100_000, header_bytes=HEADERS)


@pytest.fixture
def hosts() -> Iterator[FakeHosts]:
    yield from serve()


def _tar(info: tarfile.TarInfo, data: bytes, *, fmt: int, compress: str = "gz") -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=fmt) as archive:
        archive.addfile(info, io.BytesIO(data))
    raw = out.getvalue()
    return {"gz": _gzip, "bz2": bz2.compress, "xz": lzma.compress, "": bytes}[compress](raw)


def _gzip(data: bytes) -> bytes:
    import gzip

    return gzip.compress(data, compresslevel=1)


def _pax_bomb(size: int) -> bytes:
    info = tarfile.TarInfo("acme-2.0/CHANGES.md")
    info.size = len(CHANGES)
    info.pax_headers = {"comment": "x" * size}
    return _tar(info, CHANGES, fmt=tarfile.PAX_FORMAT)


def _long_name_bomb(size: int) -> bytes:
    info = tarfile.TarInfo("acme-2.0/" + "d/" * (size // 2) + "CHANGES.md")
    info.size = len(CHANGES)
    return _tar(info, CHANGES, fmt=tarfile.GNU_FORMAT)


@pytest.mark.parametrize("bomb", [_pax_bomb, _long_name_bomb], ids=["pax-record", "gnu-long-name"])
def test_a_huge_tar_header_is_refused_after_reading_little(bomb, monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[archive_module._Counted] = []

    class Recorded(archive_module._Counted):
        def __init__(self, *args: object) -> None:
            super().__init__(*args)  # type: ignore[arg-type]
            read.append(self)

    monkeypatch.setattr(archive_module, "_Counted", Recorded)
    data = bomb(4_000_000)  # 4 MB of header in a few KB: read whole by tarfile, were it not counted
    assert len(data) < 50_000
    with pytest.raises(ArchiveRefused) as refused:
        read_docs(data, limits=SMALL)
    assert str(refused.value) == f"its tar headers (pax records, long names) come to more than {HEADERS} bytes"
    (stream,) = read
    assert stream.count <= HEADERS + 2 * tarfile.RECORDSIZE + 4 * 512  # stopped at the allowance, not 4 MB in


@pytest.mark.parametrize("compress", ["gz", "bz2", "xz", ""])
def test_every_tar_compression_is_read_through_the_count(compress: str) -> None:
    info = tarfile.TarInfo("acme-2.0/docs/" + "long-folder-name/" * 8 + "CHANGES.md")  # a pax record for its path
    info.size = len(CHANGES)
    (doc,) = read_docs(_tar(info, CHANGES, fmt=tarfile.PAX_FORMAT, compress=compress), limits=SMALL).files
    assert doc.path == info.name.removeprefix("acme-2.0/") and doc.data == CHANGES


def test_a_truncated_archive_is_refused_in_one_line() -> None:
    data = tar_gz({"CHANGES.md": CHANGES * 50})
    with pytest.raises(ArchiveRefused, match=r"^not a readable tar archive \(EOFError: ") as refused:
        read_docs(data[: len(data) // 2], limits=SMALL)
    assert "\n" not in str(refused.value)


def test_cleanup_removes_only_its_own_staging_folders(hosts: FakeHosts, tmp_path: Path) -> None:
    publish(hosts, "acme", tar_gz({"CHANGES.md": CHANGES}))
    fetched = tmp_path / "project"
    kept = [fetched / ".git" / "objects", fetched / ".venv" / "lib", fetched / ".cache"]
    killed = fetched / f"{store.STAGING}acme-x1y2"
    for folder in [*kept, killed]:
        folder.mkdir(parents=True)
    hour_ago = time.time() - store.LEFTOVER_S - 60
    for entry in fetched.iterdir():
        os.utime(entry, (hour_ago, hour_ago))
    (package,) = fetch(settings_for(hosts, tmp_path, fetched_dir=fetched), Wanted("acme"))
    assert package.problem == "" and all(folder.is_dir() for folder in kept) and not killed.exists()
    assert sorted(p.name for p in fetched.iterdir()) == [".cache", ".git", ".venv", "acme"]


def test_a_folder_no_fetch_wrote_is_not_replaced(hosts: FakeHosts, tmp_path: Path) -> None:
    publish(hosts, "pandas", tar_gz({"CHANGES.md": CHANGES}, top="pandas-2.0"))
    corpus = tmp_path / "corpus"
    curated = corpus / "pandas" / "3.0" / "release-notes.md"
    curated.parent.mkdir(parents=True)
    curated.write_text("# pandas 3.0\n\nHand-curated.\n")
    settings = settings_for(hosts, tmp_path, fetched_dir=corpus)  # the fetched folder is the corpus itself
    (package,) = fetch(settings, Wanted("pandas"))
    assert package.problem == (
        f"{corpus / 'pandas'} holds docs no fetch wrote (no provenance.json); left as it is, not replaced"
    )
    assert curated.read_text() == "# pandas 3.0\n\nHand-curated.\n" and package.files == ()
    assert sorted(p.name for p in corpus.iterdir()) == ["pandas"]  # no staging folder left either
