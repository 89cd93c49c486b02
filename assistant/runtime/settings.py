"""Typed settings, read from `RELDOCS_*` environment variables when `Settings()` is built (never at import)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_MODEL = "all-MiniLM-L6-v2"


class Settings(BaseSettings):
    """Everything reldocs can be told; app.py builds one and passes it down."""

    model_config = SettingsConfigDict(env_prefix="RELDOCS_", extra="ignore")

    corpus_dir: Path = Field(PROJECT_ROOT / "corpus", description="Folder of release docs to index.")
    data_dir: Path = Field(PROJECT_ROOT / "data", description="Folder for the index and feedback.")
    index_dir: Path | None = Field(None, description="Index folder; defaults to <data_dir>/index.")
    embedding_model: str = Field(
        DEFAULT_MODEL,
        description="Sentence-transformers model name or local path; the default ships offline.",
    )
    embedding_backend: Literal["auto", "onnx", "torch"] = Field(
        "auto",
        description="'onnx' runs the default model without torch (exported once), 'torch' uses "
        "sentence-transformers, 'auto' the first that works.",
    )
    embedding_precision: Literal["fp32", "int8"] = Field(
        "fp32",
        description="'int8' runs the default model's ONNX export quantized (made once from it; about 2x the encode "
        "speed, vectors at cosine ~0.99), 'fp32' as exported; the torch backend is always fp32. The index records "
        "which built it: switching re-embeds it.",
    )
    model_dir: Path | None = Field(None, description="Folder for exported models; defaults to <data_dir>/models.")
    embedding_batch_size: int = Field(32, ge=1, description="Chunks encoded per batch during ingest.")
    # A real 5 MB reStructuredText file reads in ~30 s on a 2-core CI machine, Markdown in ~6 s (ingest.reading).
    document_budget_s: float = Field(
        5.0, gt=0, description="Seconds one corpus file may take to read and chunk, plus the per-MB share below."
    )
    document_budget_s_per_mb: float = Field(
        20.0, ge=0, description="Seconds added to a file's reading budget per MB of the file; past it, it is skipped."
    )
    ingest_memory_mb: int = Field(
        2048, ge=256, description="Memory ceiling of the process reading corpus files; a file needing more is skipped."
    )
    top_k: int = Field(5, ge=1, le=20, description="Passages an answer is drawn from.")
    max_question_chars: int = Field(2000, ge=50, description="Longer questions are truncated.")
    llm: str | None = Field(None, description="Optional chat model, e.g. 'openai:gpt-4o-mini'.")
    llm_timeout_s: float = Field(10.0, gt=0, description="Per-request timeout of the chat model.")
    web_auth: str | None = Field(None, description="'user:password' enables basic auth on the web UI.")
    # CPython parses a MB of real code in ~0.3 s and ~100 MB (a real 900 KB module scans in 0.25 s, 110 MB).
    scan_max_file_kb: int = Field(
        1024, ge=16, description="KB of code a scanned .py file or notebook may hold; a larger one is named, skipped."
    )
    scan_max_notebook_kb: int = Field(
        20 * 1024, ge=16, description="KB a scanned notebook file may hold, outputs included; also the upload limit."
    )
    scan_max_pasted_chars: int = Field(100_000, ge=1000, description="Longer pasted code is refused (web UI).")
    scan_infer_types: bool = Field(
        True,
        description="Type a receiver a product's call returned from the product's installed source (jedi), where "
        "the code does not say its type; off, such receivers stay unknown.",
    )
    scan_timeout_s: float = Field(90.0, gt=0, description="A server's code scan taking longer stops, said in a line.")
    scan_memory_mb: int = Field(1024, ge=256, description="Memory ceiling of the process that runs a server's scans.")
    chroma_url: str | None = Field(
        None, description="A Chroma server, e.g. http://10.0.0.5:8000, instead of the local index folder."
    )
    chroma_tenant: str = Field("default_tenant", description="Tenant on the Chroma server.")
    chroma_database: str = Field("reldocs", description="Database on the Chroma server; created when missing.")
    chroma_token: str | None = Field(None, description="Sent as `Authorization: Bearer …` to the Chroma server.")
    chroma_timeout_s: float = Field(30.0, gt=0, description="A Chroma server request slower than this fails.")
    writer_wait_s: float = Field(0.0, ge=0, description="How long an ingest waits for another one to finish.")
    writer_lease_s: float = Field(60.0, ge=1, description="A writer lock on a server not renewed this long expires.")
    feedback_max_bytes: int = Field(
        4 * 1024 * 1024, ge=64 * 1024, description="The feedback log rotates before it grows past this size."
    )
    feedback_backups: int = Field(3, ge=0, le=100, description="Rotated feedback logs kept (feedback.jsonl.1, …).")
    fetched_dir: Path | None = Field(
        None,
        description="Folder of dependencies' release docs that `fetch` writes (<product>/<file>), indexed with the "
        "corpus; defaults to <data_dir>/fetched-docs.",
    )
    registry_url: str = Field(
        "https://pypi.org/pypi", description="The package registry's JSON API: {registry_url}/{name}/json."
    )
    github_api_url: str = Field("https://api.github.com", description="GitHub's REST API, for a project's Releases.")
    github_raw_url: str = Field(
        "https://raw.githubusercontent.com", description="Where a GitHub file link's raw content is read."
    )
    fetch_timeout_s: float = Field(30.0, gt=0, description="A registry or code-host request slower than this fails.")
    fetch_retries: int = Field(3, ge=0, le=10, description="Retries of a request that timed out, got 429 or a 5xx.")
    # With the network off a connection fails at once (refused, no name) or hangs until this: an upgrade that only
    # wanted the code diff then goes on with the docs in seconds, not after the read timeout's half minute.
    fetch_connect_timeout_s: float = Field(
        5.0, gt=0, description="A registry or code host that accepts no connection this fast is unreachable (no retry)."
    )
    # A 100 MB archive (the largest read) takes ~10 s at 10 MB/s; a server trickling bytes would hold a fetch forever.
    fetch_deadline_s: float = Field(
        120.0, gt=0, description="Seconds one request may take in all, redirects and body included; past it, it fails."
    )
    fetch_private_hosts: bool = Field(
        False,
        description="Let links from package metadata (changelog URLs) reach http and private, loopback or link-local "
        "hosts; off, only https on public addresses (and the configured registry and GitHub URLs).",
    )

    @field_validator("corpus_dir", "data_dir", "index_dir", "model_dir", "fetched_dir")
    @classmethod
    def _a_folder(cls, path: Path | None) -> Path | None:
        # Checked before any work: a file here would otherwise fail only after the whole corpus is embedded.
        if path is not None and path.exists() and not path.is_dir():
            raise ValueError(f"{path} is a file, not a folder")
        return path

    @field_validator("chroma_url")
    @classmethod
    def _a_server(cls, url: str | None) -> str | None:
        from urllib.parse import urlsplit

        if not url:
            return None
        parts = urlsplit(url)
        try:
            port_ok = parts.port is None or parts.port > 0
        except ValueError:
            port_ok = False
        if parts.scheme not in ("http", "https") or not parts.hostname or not port_ok or parts.path not in ("", "/"):
            raise ValueError(f"{url!r} is not a server address like http://127.0.0.1:8000")
        return url.rstrip("/")

    @field_validator("registry_url", "github_api_url", "github_raw_url")
    @classmethod
    def _a_base_url(cls, url: str) -> str:
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{url!r} is not an http(s) address")
        return url.rstrip("/")

    @property
    def index_path(self) -> Path:
        return self.index_dir or self.data_dir / "index"

    @property
    def model_path(self) -> Path:
        return self.model_dir or self.data_dir / "models"

    @property
    def types_path(self) -> Path:
        """Where the scan keeps what the products' installed source says their calls return."""
        return self.data_dir / "scan-types"

    @property
    def fetched_path(self) -> Path:
        """Where fetched release docs live: indexed with the corpus, never inside the user's source tree."""
        return self.fetched_dir or self.data_dir / "fetched-docs"

    @property
    def fetch_cache_path(self) -> Path:
        """Downloaded archives, by sha256, so a second fetch of the same release downloads nothing."""
        return self.data_dir / "fetch-cache"

    @property
    def api_diffs_path(self) -> Path:
        """The releases' API diffs, by the two archives' sha256 and the analyser's version."""
        return self.data_dir / "api-diffs"

    @property
    def api_sources_path(self) -> Path:
        """The releases' Python source, unpacked by archive sha256 (`ingest.dependencies.sources`), never run."""
        return self.data_dir / "api-sources"

    @property
    def feedback_path(self) -> Path:
        return self.data_dir / "feedback.jsonl"


def load_settings(**overrides: object) -> Settings:
    """`Settings(**overrides)` from the environment, a bad value raising one `ReldocsError` line per field."""
    from pydantic import ValidationError

    from assistant.model.errors import ReldocsError

    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as e:
        problems = []
        for err in e.errors():
            name = "RELDOCS_" + "_".join(str(p) for p in err["loc"]).upper()
            problems.append(f"{name}: {err['msg'].removeprefix('Value error, ')}")
        raise ReldocsError("; ".join(problems)) from None
