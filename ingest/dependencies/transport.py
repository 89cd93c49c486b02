"""Every request of a fetch: one `httpx.Client` built once, GETs with a byte cap and a deadline, retried with
backoff, redirects followed here (a few) so that each one is checked (`ingest.dependencies.addresses`).

Read timeouts, dropped connections, HTTP 429 (waiting what `Retry-After` asks, within a bound) and 5xx are retried a
small bounded number of times; a connection not made (refused, a name not found, the connect timeout) is
`Unreachable` at once, without retries; any other status, any other error of the HTTP client (a body that does not
decode as its `Content-Encoding` says), an address refused, a request past its deadline (a server that sends a
byte now and then, each within the read timeout), or the last failure, is a `FetchError` whose message is one
line for the package's report. The sleep is injected so tests do not wait.
"""

from __future__ import annotations

import email.utils
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urljoin

from ingest.dependencies.addresses import Addresses, Refused

if TYPE_CHECKING:
    import httpx

    from assistant.runtime.settings import Settings

logger = logging.getLogger(__name__)

USER_AGENT = "reldocs (release docs fetch; +https://pypi.org/project/reldocs)"
BACKOFF_S = 0.5  # the first retry's wait, doubled each time: 0.5, 1, 2 s for the default three retries
MAX_WAIT_S = 30.0  # a Retry-After asking longer is cut to this: the package is reported instead of a stalled run
MAX_REDIRECTS = 5  # a changelog link or a raw file may move once or twice; more is a loop


class FetchError(Exception):
    """A request that failed for good (after its retries); the message is one line."""


class Unreachable(FetchError):
    """A host that accepts no connection (refused, its name not found, no answer within the connect timeout): not
    retried, as the network is most likely off; the caller stops asking that host."""


class TooLarge(FetchError):
    """A response larger than its cap; not retried."""


class TooSlow(FetchError):
    """A request still unanswered in full at its deadline; not retried."""


@dataclass(frozen=True)
class Response:
    url: str  # where it was finally read from, after redirects
    status: int
    headers: dict[str, str]  # lower-case names
    body: bytes


_REDIRECTS = frozenset({301, 302, 303, 307, 308})


def make_client(settings: Settings) -> httpx.Client:
    """The one client of a fetch: the settings' timeout, a plain user agent; redirects are followed by `Http`."""
    import httpx

    connect = min(settings.fetch_connect_timeout_s, settings.fetch_timeout_s)
    return httpx.Client(
        timeout=httpx.Timeout(settings.fetch_timeout_s, connect=connect),
        follow_redirects=False,
        headers={"User-Agent": USER_AGENT},
    )


def addresses_of(settings: Settings) -> Addresses:
    """What a fetch with `settings` may ask: their registry and GitHub hosts; links on public https hosts."""
    bases = (settings.registry_url, settings.github_api_url, settings.github_raw_url)
    return Addresses.of(bases, private_hosts=settings.fetch_private_hosts)


class Http:
    """GETs through `client`, each at most `limit` bytes and `deadline_s` seconds, retried `retries` times on what
    may pass; every address asked (and each redirect) checked by `addresses`."""

    def __init__(
        self,
        client: httpx.Client,
        *,
        retries: int = 3,
        sleep: Callable[[float], None] = time.sleep,
        addresses: Addresses | None = None,
        deadline_s: float = 120.0,
    ) -> None:
        self.client = client
        self.retries = retries
        self.sleep = sleep
        self.addresses = addresses or Addresses.of(())
        self.deadline_s = deadline_s

    def get(self, url: str, *, limit: int, headers: dict[str, str] | None = None, link: bool = False) -> Response:
        """The response to a GET of `url` with status 200; `FetchError` for any other, after the retries. A `link`
        (an address from a package's metadata) and its redirects must be on the configured hosts or public https."""
        import httpx

        problem = ""
        for attempt in range(self.retries + 1):
            wait = BACKOFF_S * 2**attempt
            try:
                response = self._get(url, limit=limit, headers=headers or {}, link=link)
            except FetchError:
                raise
            except Refused as e:
                raise FetchError(str(e)) from None
            except (httpx.ConnectError, httpx.ConnectTimeout) as e:
                # Refused, no such name, or silence: retrying only makes an offline run wait for nothing
                raise Unreachable(f"cannot connect ({type(e).__name__}: {_first_line(e)}): {url}") from None
            except httpx.TimeoutException:
                problem = f"timed out after {self.retries + 1} tries: {url}"
            except (httpx.TransportError, httpx.InvalidURL) as e:
                if isinstance(e, httpx.UnsupportedProtocol | httpx.InvalidURL):
                    raise FetchError(f"not an http(s) address: {url}") from None
                problem = f"cannot connect ({type(e).__name__}) after {self.retries + 1} tries: {url}"
            except httpx.HTTPError as e:  # a body that does not decode, a stream read twice: not retried
                raise FetchError(f"unreadable response ({type(e).__name__}: {_first_line(e)}): {url}") from None
            else:
                if response.status == 200:
                    return response
                if response.status != 429 and response.status < 500:
                    raise FetchError(f"HTTP {response.status} from {response.url}")
                problem = f"HTTP {response.status} after {self.retries + 1} tries: {url}"
                if response.status == 429:
                    wait = retry_after(response.headers.get("retry-after"), default=wait)
            if attempt < self.retries:
                logger.info("retrying %s in %.1fs (%s)", url, wait, problem)
                self.sleep(min(wait, MAX_WAIT_S))
        raise FetchError(problem)

    def _get(self, url: str, *, limit: int, headers: dict[str, str], link: bool) -> Response:
        """One try: the redirects followed, each address checked, the whole within the deadline."""
        deadline = time.monotonic() + self.deadline_s
        came_from = ""
        for _ in range(MAX_REDIRECTS + 1):
            self.addresses.check(url, link=link, came_from=came_from)
            with self.client.stream("GET", url, headers=headers, timeout=self._timeout(deadline)) as response:
                names = {k.lower(): v for k, v in response.headers.items()}
                location = names.get("location", "")
                if response.status_code in _REDIRECTS and location:
                    came_from, url = url, urljoin(str(response.url), location)
                    continue
                if response.status_code != 200:
                    return Response(str(response.url), response.status_code, names, b"")
                return Response(str(response.url), 200, names, self._body(response, names, limit, deadline))
        raise FetchError(f"more than {MAX_REDIRECTS} redirects: {url}")

    def _timeout(self, deadline: float) -> httpx.Timeout:
        """The client's timeouts, none longer than what is left of the deadline."""
        import httpx

        left = max(0.001, deadline - time.monotonic())
        t = self.client.timeout
        return httpx.Timeout(
            connect=_least(t.connect, left), read=_least(t.read, left), write=_least(t.write, left), pool=t.pool
        )

    def _body(self, response: httpx.Response, names: dict[str, str], limit: int, deadline: float) -> bytes:
        declared = names.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise TooLarge(f"{response.url} is {int(declared)} bytes, more than the {limit} allowed")
        parts, size = [], 0
        for part in response.iter_bytes():
            size += len(part)
            if size > limit:
                raise TooLarge(f"{response.url} is more than the {limit} bytes allowed")
            # Each read waits at most the read timeout; this bounds them all together
            if time.monotonic() > deadline:
                raise TooSlow(f"{response.url} took longer than the {self.deadline_s:g} s a request may take")
            parts.append(part)
        return b"".join(parts)


def _least(value: float | None, left: float) -> float:
    return left if value is None else min(value, left)


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0][:120] if text else "no detail"


def retry_after(value: str | None, *, default: float) -> float:
    """Seconds a `Retry-After` header asks to wait (seconds or an HTTP date), else `default`."""
    if not value:
        return default
    if value.strip().isdigit():
        return float(value.strip())
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return default
    return max(0.0, when.timestamp() - time.time())
