"""The releases' Python source for the API diff (`fetch_sources`), against a local registry: which releases are
chosen, sdist or wheel, the caches, offline, the import names, and hostile archives (nothing outside the target
folder, nothing run, no `.pth` or `setup.py` written). No network, no waits."""

from __future__ import annotations

import hashlib
import json
import socket
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from assistant.model.api import COMPILED_LIST
from assistant.runtime.settings import Settings
from ingest.dependencies import SourcesReport, fetch_sources
from ingest.dependencies.limits import ArchiveLimits
from ingest.dependencies.sources import choose, pick
from ingest.dependencies.store import StoredFile, write_product
from ingest.dependencies.transport import Http, Unreachable
from tests.conftest import REAL_REGISTRY
from tests.fetch_server import FakeHosts, member, serve, tar_gz, tar_with, zip_of
from tests.test_fetch_hostile import HOSTILE_IDS, HOSTILE_TARS
from tests.test_fetch_hostile import SMALL as HOSTILE_LIMITS

SMALL = ArchiveLimits(archive_bytes=50_000, expanded_bytes=200_000, member_bytes=100_000, members=40)
PACKAGE = {"acme/__init__.py": b"def old(x, y=1):\n    pass\n", "acme/core.py": b"class Frame: ...\n"}


@pytest.fixture
def hosts() -> Iterator[FakeHosts]:
    yield from serve()


def settings_for(url: str, tmp_path: Path) -> Settings:
    return Settings(corpus_dir=tmp_path / "corpus", data_dir=tmp_path / "data", registry_url=f"{url}/pypi")


def a_file(hosts: FakeHosts, filename: str, data: bytes, *, yanked: bool = False, **extra: object) -> dict:
    """One file of a release as the registry lists it, served at a URL relative to the JSON's."""
    hosts.route(f"/files/{filename}", data)
    kind = "bdist_wheel" if filename.endswith(".whl") else "sdist"
    entry = {
        "filename": filename,
        "packagetype": kind,
        "url": f"../../files/{filename}",
        "digests": {"sha256": hashlib.sha256(data).hexdigest()},
        "size": len(data),
        "yanked": yanked,
    }
    return {**entry, **extra}


def publish(hosts: FakeHosts, releases: dict[str, list[dict]], name: str = "acme") -> None:
    latest = list(releases)[-1]
    hosts.route(f"/pypi/{name}/json", {"info": {"name": name, "version": latest}, "releases": releases})


def sdist(hosts: FakeHosts, version: str, files: dict[str, bytes] = PACKAGE, **extra: object) -> list[dict]:
    return [a_file(hosts, f"acme-{version}.tar.gz", tar_gz(files, top=f"acme-{version}"), **extra)]


def sources(settings: Settings, since: str, to: str, **kw: object) -> tuple[SourcesReport, list[str]]:
    said: list[str] = []
    report = fetch_sources("Acme", since, to, settings=settings, progress=said.append, **kw)  # type: ignore[arg-type]
    return report, said


def files_under(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() or p.is_symlink()}


# -- which releases ---------------------------------------------------------------------------------------------

RELEASES = ("1.4.0", "1.5.0", "1.5.1", "1.5.3", "2.0.0", "2.0.3", "2.1.0", "2.1.4", "2.2.3", "3.0.0")


@pytest.mark.parametrize(
    ("since", "to", "chosen"),
    [
        ("1.5", "3.0", ["1.5.3", "2.0.3", "2.1.4", "2.2.3", "3.0.0"]),
        ("1.5.1", "2.0", ["1.5.1", "1.5.3", "2.0.3"]),  # an exact start: its own minor's newest patch follows
        ("1.5", "2.1.0", ["1.5.3", "2.0.3", "2.1.0"]),  # an exact end cuts its minor at that release
        ("2.2", "2.2", ["2.2.3"]),
        ("1", "2", ["1.5.3", "2.0.3", "2.1.4", "2.2.3"]),
    ],
)
def test_x_y_is_the_newest_patch_and_the_span_has_each_minor_s_newest(since: str, to: str, chosen: list) -> None:
    problems: list[str] = []
    assert choose(RELEASES, since, to, "acme", problems, where="here") == chosen and problems == []


def test_a_release_that_does_not_exist_or_a_reversed_span_is_a_problem_line() -> None:
    problems: list[str] = []
    assert choose(RELEASES, "1.5", "9.9", "acme", problems, where="the registry") == ["1.5.3"]
    assert problems == ["acme 9.9: no such release among the registry"]
    problems.clear()
    assert choose(RELEASES, "3.0", "1.5", "acme", problems, where="x") == []
    assert problems == ["acme: 3.0 (3.0.0) is newer than 1.5 (1.5.3)"]
    assert pick(RELEASES, "1.5.2") is None and pick(RELEASES, "not a version") is None
    assert pick(RELEASES, "2.0.0") == "2.0.0"


def test_yanked_and_pre_releases_are_never_chosen(hosts: FakeHosts, tmp_path: Path) -> None:
    publish(
        hosts,
        {
            "2.1.0": sdist(hosts, "2.1.0"),
            "2.1.1": sdist(hosts, "2.1.1"),
            "2.1.2": sdist(hosts, "2.1.2", yanked=True),
            "2.2.0": sdist(hosts, "2.2.0"),
            "2.2.1rc1": sdist(hosts, "2.2.1rc1"),
            "2.3.0.dev1": sdist(hosts, "2.3.0.dev1"),
        },
    )
    report, said = sources(settings_for(hosts.url, tmp_path), "2.1", "2.2")
    assert [t.version for t in report.trees] == ["2.1.1", "2.2.0"] and report.problems == ()
    assert hosts.asked("acme-2.1.2.tar.gz") == hosts.asked("acme-2.2.1rc1.tar.gz") == 0
    assert said == [
        "acme 2.1.1: sdist downloaded 0 KB, unpacked 2 files",
        "acme 2.2.0: sdist downloaded 0 KB, unpacked 2 files",
    ]
    report, _ = sources(settings_for(hosts.url, tmp_path), "2.1", "2.3")
    assert report.problems == ("acme 2.3: no such release among the registry's final releases",)


# -- sdist, wheel, the caches ---------------------------------------------------------------------------------


def test_an_sdist_is_unpacked_as_a_release_tree_and_reused_without_a_request(hosts: FakeHosts, tmp_path: Path) -> None:
    with_compiled = {**PACKAGE, "acme/_speed.pyx": b"cdef int x\n"}  # listed, not written
    publish(hosts, {"1.0": sdist(hosts, "1.0", with_compiled), "2.0": sdist(hosts, "2.0")})
    settings = settings_for(hosts.url, tmp_path)
    first, said = sources(settings, "1.0", "2.0")
    assert [(t.product, t.version, t.packages, t.archive) for t in first.trees] == [
        ("acme", "1.0", ("acme",), "sdist"),
        ("acme", "2.0", ("acme",), "sdist"),
    ]
    tree = first.trees[1]
    archive = hosts.routes["/files/acme-2.0.tar.gz"][0].body
    assert tree.sha256 == hashlib.sha256(archive).hexdigest() and tree.root == settings.api_sources_path / tree.sha256
    assert (tree.root / "acme" / "core.py").read_bytes() == PACKAGE["acme/core.py"]
    assert hosts.asked(".tar.gz") == 2
    again, said = sources(settings, "1.0", "2.0")
    assert again == first and hosts.asked(".tar.gz") == 2  # no archive asked for again
    assert said == [
        "acme 1.0: already unpacked (sdist acme-1.0.tar.gz)",
        "acme 2.0: already unpacked (sdist acme-2.0.tar.gz)",
    ]
    # The unpacked folder gone, the archive cache still answers: unpacked again, nothing downloaded
    for t in first.trees:
        for p in sorted(t.root.rglob("*"), reverse=True):
            p.unlink() if p.is_file() else p.rmdir()
        t.root.rmdir()
    third, said = sources(settings, "1.0", "2.0")
    assert third == first and hosts.asked(".tar.gz") == 2 and said[0] == "acme 1.0: sdist cached, unpacked 2 files"
    # A folder unpacked before compiled modules were listed gets its list from the cached archive, offline too;
    # its files stay as they are (a reader may be loading them)
    (first.trees[0].root / COMPILED_LIST).unlink()
    (first.trees[0].root / "acme" / "kept.py").write_text("x = 1\n")
    fourth, said = sources(settings, "1.0", "2.0", offline=True)
    assert fourth == first and hosts.asked(".tar.gz") == 2
    root = first.trees[0].root
    assert (root / COMPILED_LIST).read_text() == "acme/_speed.pyx\n" and (root / "acme" / "kept.py").exists()
    assert not [p for p in first.trees[0].root.iterdir() if p.name.startswith(".reldocs-staging-")]


def test_without_an_sdist_the_smallest_pure_wheel_is_read(hosts: FakeHosts, tmp_path: Path) -> None:
    wheel = zip_of({**PACKAGE, "acme-1.0.dist-info/RECORD": b"", "acme-1.0.dist-info/top_level.txt": b"acme\n"})
    native = zip_of({**PACKAGE, "acme/_speed.so": b"\x7fELF" + b"\0" * 500, "acme/extra.py": b"x = 1\n"})
    publish(
        hosts,
        {
            "1.0": [
                a_file(hosts, "acme-1.0-cp312-cp312-manylinux_x86_64.whl", native),
                a_file(hosts, "acme-1.0-py3-none-any.whl", wheel + b"\0" * 2_000),  # larger, but pure
            ],
            "2.0": [a_file(hosts, "acme-2.0-cp312-cp312-win_amd64.whl", native)],
        },
    )
    report, _ = sources(settings_for(hosts.url, tmp_path), "1.0", "2.0")
    assert [(t.version, t.archive, t.packages) for t in report.trees] == [
        ("1.0", "wheel", ("acme",)),
        ("2.0", "wheel", ("acme",)),
    ]
    one, two = report.trees
    assert hosts.asked("py3-none-any.whl") == 1 and hosts.asked("manylinux_x86_64.whl") == 0
    assert files_under(one.root) == {
        "acme/__init__.py",
        "acme/core.py",
        "acme-1.0.dist-info/top_level.txt",
        COMPILED_LIST,  # empty: a pure wheel
    }
    assert "acme/extra.py" in files_under(two.root) and not any(p.endswith(".so") for p in files_under(two.root))
    # the compiled module is named, never written: the names a release has include it
    listed = (two.root / COMPILED_LIST).read_text().split()
    assert (one.root / COMPILED_LIST).read_text() == "" and listed and all(p.endswith(".so") for p in listed)


def test_a_wheel_over_the_cap_is_skipped_with_one_line_and_not_downloaded(hosts: FakeHosts, tmp_path: Path) -> None:
    publish(
        hosts, {"1.0": sdist(hosts, "1.0"), "2.0": [a_file(hosts, "acme-2.0-cp312-none-any.whl", b"x", size=10**9)]}
    )
    report, _ = sources(settings_for(hosts.url, tmp_path), "1.0", "2.0", limits=SMALL)
    assert [t.version for t in report.trees] == ["1.0"]
    assert report.problems == (
        "acme 2.0: no source distribution; its smallest wheel acme-2.0-cp312-none-any.whl is 1000 MB, over the 0 MB "
        "read: skipped",
    )
    assert hosts.asked(".whl") == 0


def test_an_archive_whose_sha256_differs_is_refused_and_not_kept(hosts: FakeHosts, tmp_path: Path) -> None:
    publish(hosts, {"1.0": sdist(hosts, "1.0", digests={"sha256": "ab" * 32})})
    settings = settings_for(hosts.url, tmp_path)
    report, _ = sources(settings, "1.0", "1.0")
    assert report.trees == () and report.problems == (
        "acme 1.0: acme-1.0.tar.gz: its sha256 is not the one the registry names; not read",
    )
    assert not settings.fetch_cache_path.exists() and not (settings.api_sources_path / ("ab" * 32)).exists()


# -- offline and unreachable ------------------------------------------------------------------------------------


def test_offline_resolves_x_y_from_what_was_unpacked_and_names_what_is_missing(
    hosts: FakeHosts, tmp_path: Path
) -> None:
    publish(hosts, {"1.0.0": sdist(hosts, "1.0.0"), "1.0.2": sdist(hosts, "1.0.2"), "2.0.0": sdist(hosts, "2.0.0")})
    settings = settings_for(hosts.url, tmp_path)
    nothing, _ = sources(settings, "1.0", "2.0", offline=True)
    assert nothing.trees == () and nothing.problems == (
        "acme 1.0: no such release among the unpacked sources (fetch them online first)",
        "acme 2.0: no such release among the unpacked sources (fetch them online first)",
    )
    online, _ = sources(settings, "1.0", "2.0")
    asked = len(hosts.log)
    offline, said = sources(settings, "1.0", "2.0", offline=True)
    assert said == [
        "acme 1.0.2: already unpacked (sdist acme-1.0.2.tar.gz)",
        "acme 2.0.0: already unpacked (sdist acme-2.0.0.tar.gz)",
    ]
    assert offline == online and [t.version for t in offline.trees] == ["1.0.2", "2.0.0"] and len(hosts.log) == asked
    missing, _ = sources(settings, "1.0", "3.0", offline=True)
    assert missing.problems == ("acme 3.0: no such release among the unpacked sources (fetch them online first)",)
    # Unpacked folder and archive both gone: named, not fetched
    tree = online.trees[1]
    for p in sorted(tree.root.rglob("*"), reverse=True):
        p.unlink() if p.is_file() else p.rmdir()
    tree.root.rmdir()
    (settings.fetch_cache_path / tree.sha256[:2] / tree.sha256).unlink()
    gone, _ = sources(settings, "1.0", "2.0", offline=True)
    assert [t.version for t in gone.trees] == ["1.0.2"] and len(hosts.log) == asked
    assert gone.problems == ("acme 2.0.0: acme-2.0.0.tar.gz is neither unpacked nor in the archive cache (offline)",)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_registry_is_one_line_at_once_without_retries(tmp_path: Path) -> None:
    settings = settings_for(f"http://127.0.0.1:{_closed_port()}", tmp_path)
    slept: list[float] = []
    with httpx.Client() as client:
        started = time.monotonic()
        report = fetch_sources(
            "acme", "1.0", "2.0", settings=settings, http=Http(client, retries=3, sleep=slept.append)
        )
    assert report.trees == () and len(report.problems) == 1 and slept == []
    assert report.problems[0].startswith("acme: cannot connect (ConnectError") and time.monotonic() - started < 2


def test_a_host_unreachable_mid_span_ends_the_product_and_keeps_what_was_had(hosts: FakeHosts, tmp_path: Path) -> None:
    gone = f"http://127.0.0.1:{_closed_port()}/files/acme-2.0.tar.gz"
    publish(hosts, {"1.0": sdist(hosts, "1.0"), "2.0": sdist(hosts, "2.0", url=gone), "3.0": sdist(hosts, "3.0")})
    with httpx.Client() as client:
        http = Http(client, retries=3, sleep=lambda s: pytest.fail(f"slept {s}"))
        report = fetch_sources("acme", "1.0", "3.0", settings=settings_for(hosts.url, tmp_path), http=http)
    assert [t.version for t in report.trees] == ["1.0"] and len(report.problems) == 1
    assert report.problems[0].startswith("acme: cannot connect (ConnectError")
    assert report.problems[0].endswith("; 2.0 and the releases after it not fetched")
    assert hosts.asked("acme-3.0.tar.gz") == 0


def test_a_name_that_is_no_project_is_one_line_and_asks_nothing(tmp_path: Path) -> None:
    settings = settings_for("http://127.0.0.1:9", tmp_path)
    report = fetch_sources("../../etc", "1.0", "2.0", settings=settings)
    assert report.trees == () and report.problems == ("'../../etc' is not a package name",)
    assert not settings.data_dir.exists()


def test_a_refused_connection_is_unreachable_at_once() -> None:
    slept: list[float] = []
    with httpx.Client() as client, pytest.raises(Unreachable, match="cannot connect"):
        Http(client, retries=3, sleep=slept.append).get(f"http://127.0.0.1:{_closed_port()}/x", limit=10)
    assert slept == []


# -- hostile archives: nothing outside the folder, nothing run, no .pth or setup.py -----------------------------


def only_what_it_may_write(settings: Settings, tmp_path: Path, before: set[str]) -> set[str]:
    """What a fetch wrote beside what was there, asserted to be in the archive cache, the index (and its lock) or
    one unpacked folder of the archive; returns the unpacked files (below their folder)."""
    written = files_under(tmp_path) - before
    data = settings.data_dir.relative_to(tmp_path).as_posix()
    cached = {w for w in written if w.startswith(f"{data}/fetch-cache/")}
    index = {f"{data}/api-sources/index.json", f"{data}/api-sources/.index.lock"}
    unpacked = {w for w in written if w.startswith(f"{data}/api-sources/") and w not in index}
    assert written - cached - unpacked <= index, written
    assert len({w.split("/")[2] for w in unpacked}) <= 1  # one folder: the archive's sha256
    return {w.split("/", 3)[3] for w in unpacked}


@pytest.mark.parametrize(("members", "reason"), HOSTILE_TARS, ids=HOSTILE_IDS)
def test_a_hostile_archive_is_refused_in_one_line_and_leaves_no_folder(
    hosts: FakeHosts, tmp_path: Path, members: list, reason: str
) -> None:
    publish(hosts, {"2.0": [a_file(hosts, "acme-2.0.tar.gz", tar_with(members))]})
    settings = settings_for(hosts.url, tmp_path)
    before = files_under(tmp_path)
    report, _ = sources(settings, "2.0", "2.0", limits=HOSTILE_LIMITS)
    assert report.trees == () and len(report.problems) == 1
    assert report.problems[0].startswith("acme 2.0: archive acme-2.0.tar.gz refused: ") and reason in report.problems[0]
    assert only_what_it_may_write(settings, tmp_path, before) == set()
    assert not [p for p in settings.api_sources_path.iterdir() if p.is_dir()]  # no staging folder left either
    assert not Path("/tmp/reldocs-abs").exists() and not (tmp_path / "x").exists()


def test_links_pth_files_and_setup_py_are_never_written_and_nothing_runs(hosts: FakeHosts, tmp_path: Path) -> None:
    marker = tmp_path / "RAN"
    payload = f"open({str(marker)!r}, 'w').write('ran')\n".encode()
    archive = tar_with(
        [
            member("acme-2.0/setup.py", payload),
            member("acme-2.0/pyproject.toml", b"[build-system]\nbuild-backend = 'evil'\nbackend-path = ['.']\n"),
            member("acme-2.0/evil.py", payload),
            member("acme-2.0/acme/__init__.py", payload),  # would write the marker if imported
            member("acme-2.0/acme/core.py", b"x = 1\n"),
            member("acme-2.0/acme/tools/setup.py", payload),
            member("acme-2.0/acme-init.pth", f"import os; exec(open({str(marker)!r}).read())\n".encode()),
            member("acme-2.0/acme/paths.pth", b"/etc\n../../../outside\n"),
            member("acme-2.0/acme/passwd.py", kind=tarfile.SYMTYPE, link="/etc/passwd"),
            member("acme-2.0/acme/up.py", kind=tarfile.SYMTYPE, link="../../../../outside.py"),
            member("acme-2.0/acme/hard.py", kind=tarfile.LNKTYPE, link="acme-2.0/evil.py"),
            member("acme-2.0/acme/_speed.cpython-312-x86_64-linux-gnu.so", b"\x7fELF"),
        ]
    )
    publish(hosts, {"2.0": [a_file(hosts, "acme-2.0.tar.gz", archive)]})
    settings = settings_for(hosts.url, tmp_path)
    before = files_under(tmp_path)
    report, _ = sources(settings, "2.0", "2.0")
    (tree,) = report.trees
    assert report.problems == () and tree.packages == ("acme",) and tree.root == settings.api_sources_path / tree.sha256
    written = only_what_it_may_write(settings, tmp_path, before)
    assert written == {"evil.py", "acme/__init__.py", "acme/core.py", COMPILED_LIST}
    # the compiled module is named, never written
    assert (tree.root / COMPILED_LIST).read_text() == "acme/_speed.cpython-312-x86_64-linux-gnu.so\n"
    assert not marker.exists() and not any(p.is_symlink() for p in tree.root.rglob("*"))
    assert not (tmp_path / "outside.py").exists() and not (tmp_path / "outside").exists()


def test_a_member_named_as_the_compiled_list_is_not_written_and_blocks_nothing(
    hosts: FakeHosts, tmp_path: Path
) -> None:
    archive = tar_with(
        [
            member("acme-2.0/acme/__init__.py", b"x = 1\n"),
            member(f"acme-2.0/{COMPILED_LIST}/evil.py", b"y = 2\n"),
            member("acme-2.0/acme/_speed.pyx", b"cdef int x\n"),
            member("acme-2.0/acme/\udcff.pyx", b"cdef int y\n"),  # a name that is no UTF-8
        ]
    )
    publish(hosts, {"2.0": [a_file(hosts, "acme-2.0.tar.gz", archive)]})
    report, _ = sources(settings_for(hosts.url, tmp_path), "2.0", "2.0")
    (tree,) = report.trees
    listed = (tree.root / COMPILED_LIST).read_text(errors="replace").splitlines()
    assert report.problems == () and listed[0] == "acme/_speed.pyx" and len(listed) == 2


def test_zip_members_leading_out_are_refused_and_source_caps_hold(hosts: FakeHosts, tmp_path: Path) -> None:
    evil = zip_of({"acme/__init__.py": b"", "../evil.py": b"x"})
    big = {"acme/__init__.py": b"", "acme/table.py": b"#" * 3_000, "acme/small.py": b"y = 2\n"}
    many = {f"acme/m{i}.py": b"#" * 900 for i in range(10)}
    publish(
        hosts,
        {
            "1.0": [a_file(hosts, "acme-1.0-py3-none-any.whl", evil)],
            "2.0": sdist(hosts, "2.0", big),
            "3.0": sdist(hosts, "3.0", many),
        },
    )
    settings = settings_for(hosts.url, tmp_path)
    before = files_under(tmp_path)
    limits = ArchiveLimits(source_file_bytes=2_000, sources_bytes=5_000)
    report, _ = sources(settings, "1.0", "3.0", limits=limits)
    assert [t.version for t in report.trees] == ["2.0"]
    assert report.problems == (
        "acme 1.0: archive acme-1.0-py3-none-any.whl refused: member '../evil.py' leads outside the archive's "
        "folder (..)",
        "acme 3.0: archive acme-3.0.tar.gz refused: its .py and .pyi files come to more than 5000 bytes",
    )
    # The file over its cap is left out; the rest of the release is there
    assert only_what_it_may_write(settings, tmp_path, before) == {"acme/__init__.py", "acme/small.py", COMPILED_LIST}
    assert not (tmp_path / "data" / "evil.py").exists() and not (tmp_path / "evil.py").exists()


# -- import names through the fetch ----------------------------------------------------------------------------


def test_the_provenance_record_s_packages_come_first_and_none_found_is_a_problem(
    hosts: FakeHosts, tmp_path: Path
) -> None:
    both = {"acme/__init__.py": b"", "acmecore/__init__.py": b""}
    publish(hosts, {"1.0": sdist(hosts, "1.0", both), "2.0": sdist(hosts, "2.0", {"tests/test_acme.py": b""})})
    settings = settings_for(hosts.url, tmp_path)
    news = StoredFile("NEWS.md", "NEWS.md", hashlib.sha256(b"").hexdigest(), b"")
    write_product(settings.fetched_path, "acme", [news], {"packages": ["acmecore"]})
    report, _ = sources(settings, "1.0", "2.0")
    assert [(t.version, t.packages) for t in report.trees] == [("1.0", ("acmecore",))]
    assert report.problems == ("acme 2.0: no importable package found in acme-2.0.tar.gz",)


# -- the real registry ------------------------------------------------------------------------------------------


@pytest.mark.network
def test_two_real_releases_of_a_tiny_package_are_unpacked_from_the_registry_s_archives(tmp_path: Path) -> None:
    settings = Settings(corpus_dir=tmp_path / "corpus", data_dir=tmp_path / "data", registry_url=REAL_REGISTRY)
    try:
        project = httpx.get(f"{settings.registry_url}/six/json", timeout=10).raise_for_status().json()
    except (httpx.HTTPError, ValueError) as e:
        pytest.skip(f"the package registry {settings.registry_url} cannot be reached: {type(e).__name__}: {e}")
    said: list[str] = []
    report = fetch_sources("six", "1.15", "1.16", settings=settings, progress=said.append)
    assert report.problems == () and [t.version for t in report.trees] == ["1.15.0", "1.16.0"]
    for tree in report.trees:
        (sdist,) = [f for f in project["releases"][tree.version] if f["packagetype"] == "sdist"]
        assert tree.sha256 == sdist["digests"]["sha256"] and tree.archive == "sdist" and tree.packages == ("six",)
        assert (tree.root / "six.py").is_file() and not (tree.root / "setup.py").exists()
    assert [line.split(":")[0] for line in said] == ["six 1.15.0", "six 1.16.0"]
    again = fetch_sources("six", "1.15", "1.16", settings=settings, offline=True)
    assert again == report


def test_two_fetches_recording_releases_at_once_keep_each_other_s_entries(tmp_path: Path) -> None:
    import threading

    from ingest.dependencies.sources import INDEX, _Release, _remember

    def record(n: int) -> None:
        _remember(tmp_path, f"p{n}", _Release(f"1.{n}", f"{n:064x}", "sdist", f"p{n}-1.{n}.tar.gz"))

    threads = [threading.Thread(target=record, args=(n,)) for n in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    index = json.loads((tmp_path / INDEX).read_text())
    assert sorted(index) == sorted(f"p{n}" for n in range(16))  # unlocked, later writers drop earlier entries
    assert index["p3"] == {"1.3": {"sha256": f"{3:064x}", "archive": "sdist", "filename": "p3-1.3.tar.gz"}}
