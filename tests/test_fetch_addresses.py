"""What a fetch refuses on the network: addresses a package's metadata names on private hosts or through a
downgrade, a server that trickles, a body that does not decode; and the plain, indexable name a page is stored
under. Against the local registry, no waits but the server thread's."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.dependencies import Wanted
from ingest.dependencies.addresses import Addresses, Refused, is_public
from ingest.dependencies.links import stored_name
from ingest.loader import corpus_files
from tests.fetch_server import FakeHosts, Reply, serve, tar_gz
from tests.test_fetch_docs import CHANGES, fetch, publish, settings_for


@pytest.fixture
def hosts() -> Iterator[FakeHosts]:
    yield from serve()


def _link_problem(hosts: FakeHosts, tmp_path: Path, link: str, **extra: object) -> str:
    publish(hosts, "acme", None, project_urls={"Changelog": link})
    (package,) = fetch(settings_for(hosts, tmp_path, **extra), Wanted("acme"))
    assert package.files == ()
    return package.problem


def test_links_from_metadata_reach_no_private_host_or_http(hosts: FakeHosts, tmp_path: Path) -> None:
    hosts.route("/admin", CHANGES)
    local = hosts.url.replace("127.0.0.1", "localhost")  # the server, under a name no setting configures
    assert _link_problem(hosts, tmp_path, f"{local}/admin") == (
        "the release has no source distribution; its changelog link failed "
        f"({local}/admin: a link from package metadata that is not https refused: {local}/admin)"
    )
    port = hosts.url.rsplit(":", 1)[1]
    for link, resolved in [
        (f"https://127.0.0.1:{port}/admin", "127.0.0.1"),
        ("https://169.254.169.254/latest/meta-data/", "169.254.169.254"),
        ("https://[::ffff:10.0.0.1]/x", "::ffff:10.0.0.1"),
    ]:
        assert f"resolves to {resolved}, not a public address" in _link_problem(hosts, tmp_path, link), link
    assert hosts.asked("/admin") == 0 and hosts.asked("/latest/meta-data/") == 0
    # A configured host's redirect to another one is a link's redirect: checked the same
    hosts.route("/gh-raw/o/r/main/CHANGES.md", Reply(b"", 302, {"Location": f"{local}/admin"}))
    problem = _link_problem(hosts, tmp_path, "https://github.com/o/r/blob/main/CHANGES.md")
    assert f"not https refused: {local}/admin" in problem and hosts.asked("/admin") == 0
    # On, as for an intranet's links: read
    assert _link_problem(hosts, tmp_path, f"{local}/nothing", fetch_private_hosts=True).endswith(
        f"HTTP 404 from {local}/nothing)"
    )


def test_addresses_rules() -> None:
    names = {"docs.example": ["93.184.216.34"], "evil.example": ["93.184.216.34", "10.1.2.3"]}
    addresses = Addresses.of(["http://127.0.0.1:8080/pypi"], resolver=lambda host, port: names[host])
    addresses.check("https://docs.example/changes", link=True)
    addresses.check("http://127.0.0.1:8080/pypi/acme/json", link=True)  # configured: the user chose it
    refused = {
        "https://evil.example/x": "evil.example resolves to 10.1.2.3, not a public address",
        "http://docs.example/x": "not https refused",
        "http://127.0.0.1:8080/pypi/../admin": "not https refused",  # `..` leaves the configured path
        "http://127.0.0.1:8081/pypi/x": "not https refused",
        "file:///etc/passwd": "not an http(s) address",
    }
    for url, why in refused.items():
        with pytest.raises(Refused, match=re.escape(why)):
            addresses.check(url, link=True)
    with pytest.raises(Refused, match="a redirect from https to http refused"):
        addresses.check("http://127.0.0.1:8080/pypi/x", link=False, came_from="https://pypi.example/acme")
    assert [is_public(a) for a in ("8.8.8.8", "2606:4700::1111")] == [True, True]
    private = ("10.0.0.1", "172.16.0.1", "192.168.1.1", "127.0.0.1", "169.254.169.254", "100.64.0.1", "0.0.0.0")
    assert not any(
        is_public(a) for a in (*private, "::1", "fe80::1%eth0", "::ffff:127.0.0.1", "240.0.0.1", "224.0.0.1")
    )


def test_a_trickling_server_is_cut_at_the_deadline(hosts: FakeHosts, tmp_path: Path) -> None:
    hosts.route("/pypi/acme/json", Reply(b"{" + b" " * 60 + b"}", trickle_s=0.05))  # 3 s, a byte each 50 ms
    settings = settings_for(hosts, tmp_path, fetch_timeout_s=0.3, fetch_deadline_s=0.5)
    start = time.monotonic()
    (package,) = fetch(settings, Wanted("acme"))  # not retried: `fetch` fails on any sleep
    assert package.problem == f"{hosts.url}/pypi/acme/json took longer than the 0.5 s a request may take"
    assert time.monotonic() - start < 2.0


def test_a_body_that_does_not_decode_is_one_package_s_problem(hosts: FakeHosts, tmp_path: Path) -> None:
    publish(hosts, "other", tar_gz({"CHANGES.md": CHANGES}))
    hosts.route("/pypi/acme/json", Reply(b"not gzip at all", headers={"Content-Encoding": "gzip"}))
    acme, other = fetch(settings_for(hosts, tmp_path), Wanted("acme"), Wanted("other"))
    assert acme.problem.startswith("unreadable response (DecodingError: ") and "\n" not in acme.problem
    assert acme.problem.endswith(f"): {hosts.url}/pypi/acme/json") and other.problem == "" and other.files


@pytest.mark.parametrize(
    ("url", "content_type", "name"),
    [
        ("https://x.example/docs/.md", "text/plain", "changelog.md"),
        ("https://x.example/docs/versions", "text/plain", "versions.txt"),
        ("https://x.example/CHANGES", "text/plain", "CHANGES.txt"),
        ("https://x.example/notes", "text/markdown; charset=utf-8", "notes.md"),
        ("https://x.example/HISTORY.markdown", "", "HISTORY.md"),
        ("https://x.example/a%20b/..hidden%0a.rst", "", "hidden-0a.rst"),
        ("https://x.example/", "", "changelog.txt"),
        ("https://x.example/provenance.json", "application/json", "provenance.json.txt"),
    ],
)
def test_a_page_is_stored_under_a_plain_indexable_name(url: str, content_type: str, name: str, tmp_path: Path) -> None:
    assert stored_name(url, content_type) == name
    (tmp_path / name).write_text("x")
    assert corpus_files(tmp_path)[0] == [tmp_path / name]  # the sync reads it


def test_a_link_s_dot_md_file_is_stored_visible(hosts: FakeHosts, tmp_path: Path) -> None:
    publish(hosts, "acme", None, project_urls={"Changelog": "https://github.com/o/r/blob/main/docs/.md"})
    hosts.route("/gh-raw/o/r/main/docs/.md", CHANGES)
    settings = settings_for(hosts, tmp_path)
    (package,) = fetch(settings, Wanted("acme"))
    assert [f.file for f in package.files] == ["changelog.md"] and package.files[0].releases == ("1.0", "1.1", "2.0")
    assert corpus_files(settings.fetched_path)[0] == [settings.fetched_path / "acme" / "changelog.md"]
