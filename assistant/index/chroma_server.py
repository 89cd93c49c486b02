"""Reaching the index: a Chroma server (`RELDOCS_CHROMA_URL`) or a local folder, and what "unreachable" means."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from assistant.index.manifest import ChromaManifest, FileManifest, ManifestStore
from assistant.model.errors import IndexUnavailable

logger = logging.getLogger(__name__)


class Location(Protocol):
    """Where the index is: how to reach Chroma there, where the manifest lives, what a fault looks like."""

    remote: bool  # shared with other machines (a server), rather than a folder of this one

    def connect(self) -> Any: ...

    def manifests(self, client: Callable[[], Any]) -> ManifestStore: ...

    def fault(self, e: Exception) -> IndexUnavailable | None: ...


@dataclass(frozen=True)
class Folder:
    """The index as a `PersistentClient` folder; only processes on this machine share it."""

    path: Path
    remote = False

    def __str__(self) -> str:
        return str(self.path)

    def manifests(self, client: Callable[[], Any]) -> ManifestStore:
        return FileManifest(self.path)

    def fault(self, e: Exception) -> IndexUnavailable | None:
        """A local folder does not go away between questions: its errors are what they say."""
        return None

    def connect(self) -> Any:
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        self.path.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(
            path=str(self.path / "chroma"), settings=ChromaSettings(anonymized_telemetry=False)
        )


@dataclass(frozen=True)
class Server:
    """The index on a Chroma server (`chroma run`); every replica that has the URL shares it."""

    url: str
    tenant: str = "default_tenant"
    database: str = "reldocs"
    token: str | None = None
    timeout_s: float = 30.0
    remote = True

    def __str__(self) -> str:
        return f"{self.url} (database {self.database})"

    def connect(self) -> Any:
        """A fresh `HttpClient`; the database is created on first use, so a new server needs no setup."""
        import chromadb
        from chromadb.errors import NotFoundError

        try:
            try:
                client = chromadb.HttpClient(**self._address(), tenant=self.tenant, database=self.database)
            except NotFoundError:
                self._create_database()
                client = chromadb.HttpClient(**self._address(), tenant=self.tenant, database=self.database)
        except Exception as e:
            if unreachable(e):
                raise self.unavailable() from e
            raise
        self._limit_wait(client)
        return client

    def _limit_wait(self, client: Any) -> None:
        """Chroma's HTTP session waits forever (`timeout=None`): a hung server would hang every question."""
        import httpx

        session = getattr(getattr(client, "_server", None), "_session", None)
        if isinstance(session, httpx.Client):
            session.timeout = httpx.Timeout(self.timeout_s)
        else:  # chromadb's internals moved: requests still work, only without a bound
            logger.warning("could not set a timeout on Chroma's HTTP session")

    def manifests(self, client: Callable[[], Any]) -> ManifestStore:
        return ChromaManifest(client)

    def fault(self, e: Exception) -> IndexUnavailable | None:
        """`IndexUnavailable` when `e` means the server is down, cut off or hung."""
        return self.unavailable() if unreachable(e) else None

    def unavailable(self) -> IndexUnavailable:
        return IndexUnavailable(f"index unavailable: the Chroma server at {self.url} does not answer; retrying")

    def _address(self) -> dict[str, Any]:
        from chromadb.config import Settings as ChromaSettings

        parts = urlsplit(self.url)
        ssl = parts.scheme == "https"
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else None
        return {
            "host": parts.hostname or "localhost",
            "port": parts.port or (443 if ssl else 8000),
            "ssl": ssl,
            "headers": headers,
            "settings": ChromaSettings(anonymized_telemetry=False),
        }

    def _create_database(self) -> None:
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        address = self._address()
        admin = chromadb.AdminClient(
            ChromaSettings(
                chroma_api_impl="chromadb.api.fastapi.FastAPI",
                chroma_server_host=address["host"],
                chroma_server_http_port=address["port"],
                chroma_server_ssl_enabled=address["ssl"],
                chroma_server_headers=address["headers"],
                anonymized_telemetry=False,
            )
        )
        try:
            admin.create_database(self.database, tenant=self.tenant)
            logger.info("created database %s on %s", self.database, self.url)
        except Exception as e:  # another replica created it a moment ago
            if "already exists" not in str(e):
                raise


def location(settings: Any) -> Folder | Server:
    """Where `settings` put the index: the server when `chroma_url` is set, else the index folder."""
    if settings.chroma_url:
        return Server(
            settings.chroma_url,
            settings.chroma_tenant,
            settings.chroma_database,
            settings.chroma_token,
            settings.chroma_timeout_s,
        )
    return Folder(Path(settings.index_path))


def unreachable(e: BaseException) -> bool:
    """The server is down or cut off (not: the request was wrong)."""
    import httpx

    # HttpClient's constructor re-raises what went wrong as a ValueError ("Could not connect to a Chroma
    # server", or the transport's own words, such as "Server disconnected without sending a response"): the
    # transport error is then the context it was raised in.
    seen: BaseException | None = e
    for _ in range(5):
        if seen is None:
            return False
        if isinstance(seen, httpx.TransportError):
            return True
        if isinstance(seen, ValueError) and "Could not connect to a Chroma server" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def already_exists(e: BaseException) -> bool:
    """Chroma's answer to creating a collection whose name is taken (the server's atomic step)."""
    return "already exists" in str(e)
