"""Which addresses a fetch may ask: the hosts the user configured, and for a link taken from a package's metadata
(its `project_urls`, and every redirect of it), only https on a public address.

A package's metadata is written by whoever uploaded it: left unchecked, a changelog link to
`http://169.254.169.254/…` or `http://localhost:8080/admin` would have the machine running the fetch read its
cloud metadata or an internal service, and store and index the answer. So a link, and each redirect of it, is
asked only when it is under one of the configured base URLs (the registry, GitHub's API and raw hosts: the user
chose them) or when it is https and its host resolves to public addresses only; `fetch_private_hosts` lifts
that rule (links to an intranet on purpose, or tests that serve them on a local http port). Any request's redirect
stays on http(s) and never goes from https to http.
"""

from __future__ import annotations

import ipaddress
import posixpath
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

Resolve = Callable[[str, int], list[str]]


class Refused(Exception):
    """An address a fetch does not ask; the message says why in one line."""


def resolve(host: str, port: int) -> list[str]:
    """The IP addresses `host` resolves to (the system's resolver)."""
    return [str(info[4][0]) for info in socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)]


def is_public(address: str) -> bool:
    """Whether an IP address is a public one: not private, loopback, link-local, reserved, multicast or
    unspecified (an IPv4 address mapped into IPv6 is judged as the IPv4 one)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast and not ip.is_reserved and not ip.is_link_local


@dataclass(frozen=True)
class Addresses:
    """The rules above, for the configured `bases`."""

    bases: tuple[str, ...]
    private_hosts: bool = False
    resolve: Resolve = resolve

    @classmethod
    def of(cls, bases: Iterable[str], *, private_hosts: bool = False, resolver: Resolve = resolve) -> Addresses:
        return cls(tuple(b.rstrip("/") for b in bases), private_hosts, resolver)

    def check(self, url: str, *, link: bool, came_from: str = "") -> None:
        """`Refused` when `url` may not be asked: a link's (`link`), or a redirect from `came_from`."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise Refused(f"not an http(s) address: {_shown(url)}")
        if came_from and urlsplit(came_from).scheme == "https" and parts.scheme != "https":
            raise Refused(f"a redirect from https to http refused: {_shown(url)}")
        if not link or self.configured(url) or self.private_hosts:
            return
        if parts.scheme != "https":
            raise Refused(f"a link from package metadata that is not https refused: {_shown(url)}")
        try:
            port = parts.port or 443
            found = self.resolve(parts.hostname, port)
        except (OSError, ValueError, UnicodeError):
            raise Refused(f"cannot resolve the host of {_shown(url)}") from None
        private = [a for a in found if not is_public(a)]
        if private or not found:
            where = private[0] if private else "nothing"
            raise Refused(f"{parts.hostname} resolves to {where}, not a public address: {_shown(url)} refused")

    def configured(self, url: str) -> bool:
        """Whether `url` is under one of the configured base URLs (its path's `..` resolved first)."""
        parts = urlsplit(url)
        path = posixpath.normpath(parts.path or "/")
        for base in self.bases:
            b = urlsplit(base)
            same = (parts.scheme, parts.hostname, _port(parts)) == (b.scheme, b.hostname, _port(b))
            if same and (not b.path.strip("/") or (path + "/").startswith(b.path.rstrip("/") + "/")):
                return True
        return False


def _port(parts: SplitResult) -> int | None:
    try:
        return parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:
        return None


def _shown(url: str) -> str:
    return url.encode("unicode_escape").decode("ascii")[:200]
