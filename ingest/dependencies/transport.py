"""Every request of a fetch: one `httpx.Client` built once, GETs with a byte cap, retried with backoff.

Timeouts, connection errors, HTTP 429 (waiting what `Retry-After` asks, within a bound) and 5xx are retried a
small bounded number of times; any other status, or the last failure, is a `FetchError` whose message is one
line for the package's report. The sleep is injected so tests do not wait.
"""

from __future__ import annotations

import email.utils
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

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


class TooLarge(FetchError):
    """A response larger than its cap; not retried."""


@dataclass(frozen=True)
class Response:
    url: str  # where it was finally read from, after redirects
    status: int
    headers: dict[str, str]  # lower-case names
    body: bytes


def make_client(settings: Settings) -> httpx.Client:
    """The one client of a fetch: redirects followed (a few), the settings' timeout, a plain user agent."""
    import httpx

    return httpx.Client(
        timeout=httpx.Timeout(settings.fetch_timeout_s),
        follow_redirects=True,
        max_redirects=MAX_REDIRECTS,
        headers={"User-Agent": USER_AGENT},
    )


class Http:
    """GETs through `client`, each at most `limit` bytes, retried `retries` times on what may pass."""

    def __init__(self, client: httpx.Client, *, retries: int = 3, sleep: Callable[[float], None] = time.sleep) -> None:
        self.client = client
        self.retries = retries
        self.sleep = sleep

    def get(self, url: str, *, limit: int, headers: dict[str, str] | None = None) -> Response:
        """The response to a GET of `url` with status 200; `FetchError` for any other, after the retries."""
        import httpx

        problem = ""
        for attempt in range(self.retries + 1):
            wait = BACKOFF_S * 2**attempt
            try:
                response = self._get(url, limit=limit, headers=headers or {})
            except TooLarge:
                raise
            except httpx.TimeoutException:
                problem = f"timed out after {self.retries + 1} tries: {url}"
            except httpx.TooManyRedirects:
                raise FetchError(f"more than {MAX_REDIRECTS} redirects: {url}") from None
            except (httpx.TransportError, httpx.InvalidURL) as e:
                if isinstance(e, httpx.UnsupportedProtocol | httpx.InvalidURL):
                    raise FetchError(f"not an http(s) address: {url}") from None
                problem = f"cannot connect ({type(e).__name__}) after {self.retries + 1} tries: {url}"
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

    def _get(self, url: str, *, limit: int, headers: dict[str, str]) -> Response:
        with self.client.stream("GET", url, headers=headers) as response:
            names = {k.lower(): v for k, v in response.headers.items()}
            if response.status_code != 200:
                return Response(str(response.url), response.status_code, names, b"")
            declared = names.get("content-length", "")
            if declared.isdigit() and int(declared) > limit:
                raise TooLarge(f"{response.url} is {int(declared)} bytes, more than the {limit} allowed")
            parts, size = [], 0
            for part in response.iter_bytes():
                size += len(part)
                if size > limit:
                    raise TooLarge(f"{response.url} is more than the {limit} bytes allowed")
                parts.append(part)
            return Response(str(response.url), 200, names, b"".join(parts))


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
