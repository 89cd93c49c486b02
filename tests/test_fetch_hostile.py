"""Hostile source distributions: refused in one line naming why, or read without effect. Nothing in an archive is
run, and nothing is written outside the fetched-docs folder and the archive cache."""

from __future__ import annotations

import random
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.dependencies import Wanted, fetch_docs
from ingest.dependencies.archive import ArchiveRefused, read_docs
from ingest.dependencies.limits import ArchiveLimits
from tests.fetch_server import FakeHosts, member, serve, tar_gz, tar_with, zip_of
from tests.test_fetch_docs import CHANGES, publish, settings_for

SMALL = ArchiveLimits(archive_bytes=50_000, expanded_bytes=200_000, member_bytes=100_000, members=20)


@pytest.fixture
def hosts() -> Iterator[FakeHosts]:
    yield from serve()


def files_under(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() or p.is_symlink()}


# Tars refused whole, with the reason's words (the API sources' unpacking reads the same fixtures)
HOSTILE_TARS = [
    ([member("acme-2.0/CHANGES.md", CHANGES), member("acme-2.0/../../x", b"pwned")], "leads outside"),
    ([member("/tmp/reldocs-abs", b"pwned")], "has an absolute path"),
    ([member("acme-2.0/fifo", kind=tarfile.FIFOTYPE)], "is a device, FIFO or other special file"),
    ([member("acme-2.0/tty", kind=tarfile.CHRTYPE)], "is a device, FIFO or other special file"),
    ([member("acme-2.0/NEWS\x1b[2J", b"x")], "has control characters in its name"),
    ([member(f"acme-2.0/f{i}.py", b"") for i in range(21)], "more than 20 members"),
    ([member("acme-2.0/big.bin", b"\0" * 100_001)], "expands to 100001 bytes, more than 100000"),
    ([member(f"acme-2.0/b{i}.bin", b"\0" * 90_000) for i in range(3)], "expand to more than 200000 bytes"),
]
HOSTILE_IDS = ["traversal", "absolute", "fifo", "device", "control-chars", "members", "member-size", "expanded"]


@pytest.mark.parametrize(("members", "reason"), HOSTILE_TARS, ids=HOSTILE_IDS)
def test_hostile_tar_is_refused_with_its_reason(members: list, reason: str) -> None:
    with pytest.raises(ArchiveRefused, match=reason):
        read_docs(tar_with(members), limits=SMALL)


def test_refused_archive_is_one_line_and_writes_nothing(hosts: FakeHosts, tmp_path: Path) -> None:
    publish(hosts, "acme", tar_with([member("acme-2.0/CHANGES.md", CHANGES), member("acme-2.0/../../../x", b"!")]))
    settings = settings_for(hosts, tmp_path)
    (package,) = fetch_docs([Wanted("acme")], settings=settings).packages
    assert (
        package.problem == "archive acme-2.0.tar.gz refused: member 'acme-2.0/../../../x' leads outside the "
        "archive's folder (..)"
    )
    assert package.files == () and not settings.fetched_path.joinpath("acme").exists()
    assert not (tmp_path / "x").exists() and not Path("/x").exists()


def test_links_are_never_followed(hosts: FakeHosts, tmp_path: Path) -> None:
    archive = tar_with(
        [
            member("acme-2.0/CHANGES.md", kind=tarfile.SYMTYPE, link="/etc/passwd"),
            member("acme-2.0/HISTORY.md", kind=tarfile.LNKTYPE, link="acme-2.0/setup.py"),
            member("acme-2.0/setup.py", b"print('hi')\n"),
            member("acme-2.0/NEWS.md", CHANGES),
        ]
    )
    publish(hosts, "acme", archive)
    settings = settings_for(hosts, tmp_path)
    (package,) = fetch_docs([Wanted("acme")], settings=settings).packages
    assert [f.file for f in package.files] == ["NEWS.md"]
    assert package.notes == ("CHANGES.md: a symbolic link, not followed", "HISTORY.md: a hard link, not followed")
    assert sorted(p.name for p in (settings.fetched_path / "acme").iterdir()) == ["NEWS.md", "provenance.json"]


def test_zip_traversal_is_refused_and_zip_links_not_followed() -> None:
    with pytest.raises(ArchiveRefused, match="leads outside"):
        read_docs(zip_of({"acme-2.0/../../evil.md": b"x"}), limits=SMALL)
    with pytest.raises(ArchiveRefused, match="absolute path"):
        read_docs(zip_of({"C:/evil/CHANGES.md": b"x"}), limits=SMALL)
    docs = read_docs(zip_of({"acme-2.0/NEWS.md": CHANGES}, links={"acme-2.0/CHANGES.md": "/etc/passwd"}), limits=SMALL)
    assert [f.path for f in docs.files] == ["NEWS.md"] and docs.notes == ("CHANGES.md: a symbolic link, not followed",)


def test_oversized_archive_is_not_downloaded_or_not_read(hosts: FakeHosts, tmp_path: Path) -> None:
    big = tar_gz({"CHANGES.md": CHANGES, "data.bin": random.Random(0).randbytes(60_000)})  # does not compress
    publish(hosts, "acme", big, size=10**12)  # the registry says it is huge: never asked for
    settings = settings_for(hosts, tmp_path)
    (package,) = fetch_docs([Wanted("acme")], settings=settings).packages
    assert package.problem == f"acme-2.0.tar.gz is {10**12} bytes, more than the 100000000 allowed"
    assert hosts.asked(".tar.gz") == 0
    publish(hosts, "acme", big, size=10)  # the registry's size lies: the download stops at the cap
    (package,) = fetch_docs([Wanted("acme")], settings=settings, limits=SMALL).packages
    assert package.problem == f"{hosts.url}/files/acme-2.0.tar.gz is {len(big)} bytes, more than the 50000 allowed"
    assert not settings.fetch_cache_path.exists()


def test_a_setup_py_is_never_run_and_nothing_else_is_written(hosts: FakeHosts, tmp_path: Path) -> None:
    ran = tmp_path / "RAN"
    payload = f"open({str(ran)!r}, 'w').write('ran')\n".encode()
    backend = b"[build-system]\nrequires = []\nbuild-backend = 'evil'\nbackend-path = ['.']\n"
    publish(
        hosts,
        "acme",
        tar_gz({"setup.py": payload, "evil.py": payload, "pyproject.toml": backend, "CHANGES.md": CHANGES}),
    )
    settings = settings_for(hosts, tmp_path)
    before = files_under(tmp_path)
    (package,) = fetch_docs([Wanted("acme")], settings=settings).packages
    assert package.files[0].file == "CHANGES.md" and not ran.exists()
    written = files_under(tmp_path) - before
    cached = {p.relative_to(tmp_path).as_posix() for p in settings.fetch_cache_path.rglob("*") if p.is_file()}
    assert len(cached) == 1 and written == {
        "data/fetched-docs/acme/CHANGES.md",
        "data/fetched-docs/acme/provenance.json",
        *cached,
    }
