"""Fetch each dependency's release docs into the fetched-docs folder: `fetch_docs(wanted, settings=..., client=...)`.

Per package: the registry's JSON; the newest (or named) release's source distribution, from the cache by its
sha256 or downloaded and verified; its release-doc files (`ingest.dependencies.archive`), or when it has none
the project's changelog link (`ingest.dependencies.links`); written atomically with a provenance record
(`ingest.dependencies.store`). A package whose docs in place were read from the same release and archive is
not fetched again (only its JSON is asked for). Every failure is the package's `problem`, one line; the others
go on.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from packaging.requirements import InvalidRequirement, Requirement

from ingest.dependencies import links, registry, store
from ingest.dependencies.archive import ArchiveRefused, read_docs
from ingest.dependencies.limits import ArchiveLimits
from ingest.dependencies.pins import Pin, Problem, dependencies, pin_of
from ingest.dependencies.releases import missing, named_releases, span
from ingest.dependencies.transport import FetchError, Http, addresses_of, make_client

if TYPE_CHECKING:
    import httpx

    from assistant.runtime.settings import Settings

logger = logging.getLogger(__name__)
WORKERS = 4  # packages fetched at once: the registry's CDN serves them in parallel; more gains little


@dataclass(frozen=True)
class Wanted:
    """A package to fetch docs for: `version` the release to read (None: the newest), `since` the release the
    project runs now (a pin's), whose span to the fetched release the report checks."""

    name: str
    version: str | None = None
    since: str | None = None


@dataclass(frozen=True)
class FetchedFile:
    file: str  # its name under `<fetched_dir>/<product>/`
    path: str  # inside the archive, or the URL it was read from
    sha256: str
    releases: tuple[str, ...]  # the releases its headings name, oldest first


@dataclass(frozen=True)
class FetchedPackage:
    product: str
    version: str  # the release whose docs were read ('' when the registry gave none)
    source: str  # "sdist", the URL followed, or '' when nothing was found
    files: tuple[FetchedFile, ...] = ()
    problem: str = ""  # why nothing was found, one line ('' when docs were)
    since: str | None = None
    span: tuple[str, ...] = ()  # the registry's releases after `since` up to `version`
    missing: tuple[str, ...] = ()  # those of `span` no file names
    downloaded: bool = False  # an archive was downloaded (not read from the cache or left in place)
    cached: bool = False  # the docs in place were fetched from this very release: nothing was read again
    notes: tuple[str, ...] = ()  # what was left out and why (a link in the archive, a doc over its cap)

    @property
    def releases(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r for f in self.files for r in f.releases))

    @property
    def covers_span(self) -> bool:
        """The files name the first release after `since` and the one fetched: the span's both ends."""
        return (
            bool(self.files)
            and bool(self.span)
            and self.span[0] not in self.missing
            and self.version not in (self.missing)
        )


@dataclass(frozen=True)
class FetchReport:
    packages: tuple[FetchedPackage, ...]
    errors: tuple[Problem, ...] = ()  # input that could not be read: a file, a line of one, an argument

    def to_dict(self) -> dict[str, object]:
        """The `fetch --json` object."""
        packages = []
        for p in self.packages:
            files = [{**asdict(f), "releases": list(f.releases)} for f in p.files]
            packages.append(
                {
                    "product": p.product,
                    "version": p.version,
                    "source": p.source,
                    "files": files,
                    "problem": p.problem,
                    "since": p.since,
                    "span": list(p.span),
                    "missing": list(p.missing),
                    "downloaded": p.downloaded,
                    "notes": list(p.notes),
                }
            )
        errors = [{"file": e.file, "line": e.line, "error": e.problem} for e in self.errors]
        return {"packages": packages, "errors": errors}


def wanted_from(pins: Iterable[Pin]) -> list[Wanted]:
    """One `Wanted` per dependency of `pins`: its newest release, its span from the version pinned."""
    return [Wanted(p.name, None, p.version) for p in dependencies(pins)]


def wanted_from_names(names: Iterable[str]) -> tuple[list[Wanted], list[Problem]]:
    """`NAME` or `NAME==VERSION` arguments as `Wanted` (a range such as `flask>=2` is its newest release, its span
    from 2), and a problem per argument that is no requirement."""
    out: list[Wanted] = []
    errors: list[Problem] = []
    for name in names:
        try:
            requirement = Requirement(name)
        except InvalidRequirement as e:
            why = f"{name!r} is not a package name or NAME==VERSION ({str(e).splitlines()[0]})"
            errors.append(Problem("", 0, why))
            continue
        pin = pin_of(requirement, file="", line=0)  # its exact version or lower bound, as a file's line reads
        out.append(Wanted(pin.name, pin.version, None) if pin.exact else Wanted(pin.name, None, pin.version))
    return out, errors


def fetch_docs(
    wanted: Iterable[Wanted],
    *,
    settings: Settings,
    client: httpx.Client | None = None,
    sleep: Callable[[float], None] = time.sleep,
    limits: ArchiveLimits | None = None,
    on_package: Callable[[FetchedPackage], None] | None = None,
    workers: int = WORKERS,
    errors: Iterable[Problem] = (),
) -> FetchReport:
    """Fetch the release docs of each of `wanted` into `settings.fetched_path`; one `FetchedPackage` each, in the
    order given (`on_package` is called as each is done). `client` is built from the settings when not given;
    `errors` (the input's, from `read_pins`) are carried into the report."""
    unique: dict[str, Wanted] = {}
    for w in wanted:
        unique.setdefault(w.name, w)  # the first of each name
    own = client is None
    client = client or make_client(settings)
    http = Http(
        client,
        retries=settings.fetch_retries,
        sleep=sleep,
        addresses=addresses_of(settings),
        deadline_s=settings.fetch_deadline_s,
    )
    limits = limits or ArchiveLimits()
    store.remove_leftovers(settings.fetched_path)
    try:
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            futures = [pool.submit(_fetch_safely, http, w, settings, limits) for w in unique.values()]
            results = []
            for future in futures:
                package = future.result()
                if on_package is not None:
                    on_package(package)
                results.append(package)
    finally:
        if own:
            client.close()
    return FetchReport(tuple(results), tuple(errors))


def _fetch_safely(http: Http, wanted: Wanted, settings: Settings, limits: ArchiveLimits) -> FetchedPackage:
    import httpx

    try:
        return _fetch(http, wanted, settings, limits)
    # a network failure, a folder that cannot be written or that a fetch did not write: this package's problem
    # (`Http` turns the client's errors into `FetchError`; one it did not is this package's too, not the run's)
    except (FetchError, OSError, store.NotFetched, httpx.HTTPError) as e:
        logger.debug("fetching %s failed", wanted.name, exc_info=True)
        problem = " ".join(str(e).split()) or type(e).__name__
        return FetchedPackage(wanted.name, wanted.version or "", "", problem=problem, since=wanted.since)


def _fetch(http: Http, wanted: Wanted, settings: Settings, limits: ArchiveLimits) -> FetchedPackage:
    project = registry.project(http, wanted.name, base=settings.registry_url)
    version, sdist = registry.choose(project, wanted.version)
    product = project.name
    reported = _reporter(product, version, wanted.since, project.releases)
    digest = sdist.sha256 if sdist else None
    record = store.read_provenance(settings.fetched_path, product)
    if record and record.get("version") == version and record.get("archive_sha256") == digest:
        folder = store.product_folder(settings.fetched_path, product)
        files = [(f["file"], f["path"], f["sha256"], (folder / f["file"]).read_bytes()) for f in record["files"]]
        return reported(str(record.get("source", "")), files, cached=True)

    found: list[store.StoredFile] = []
    notes: list[str] = []
    downloaded = False
    source = ""
    why = "the release has no source distribution"
    if sdist is not None:
        data, downloaded = registry.download(http, sdist, cache=settings.fetch_cache_path, limits=limits)
        try:
            docs = read_docs(data, limits=limits)
        except ArchiveRefused as e:
            problem = f"archive {sdist.filename} refused: {e}"
            return FetchedPackage(product, version, "", problem=problem, since=wanted.since, downloaded=downloaded)
        notes += docs.notes
        names = store.file_names(f.path for f in docs.files)
        found = [store.StoredFile(names[f.path], f.path, store.sha256(f.data), f.data) for f in docs.files]
        source = "sdist" if found else ""
        why = f"{sdist.filename} holds no release docs"
    if not found:
        urls = links.changelog_links(project.project_urls)
        for url in urls:
            try:
                page = links.read_link(
                    http, url, api=settings.github_api_url, raw=settings.github_raw_url, product=product
                )
            except FetchError as e:
                notes.append(f"{url}: {e}")
                continue
            found, source = [store.StoredFile(page.name, page.url, store.sha256(page.data), page.data)], page.url
            break
        else:
            tried = f"; its changelog link failed ({notes[-1]})" if urls else "; no changelog link in project_urls"
            return FetchedPackage(
                product, version, "", problem=why + tried, since=wanted.since, downloaded=downloaded, notes=tuple(notes)
            )
    record = {
        "project": product,
        "version": version,
        "source": source,
        "archive_url": sdist.url if sdist else None,
        "archive_sha256": digest,
    }
    store.write_product(settings.fetched_path, product, found, record)
    files = [(f.file, f.path, f.sha256, f.data) for f in found]
    return reported(source, files, downloaded=downloaded, notes=tuple(notes))


def _reporter(
    product: str, version: str, since: str | None, releases: tuple[str, ...]
) -> Callable[..., FetchedPackage]:
    """Builds the package's report from its files: each file's releases, the span and what it misses."""
    the_span = span(releases, since, version) if since else ()

    def report(source: str, files: list[tuple[str, str, str, bytes]], **extra: object) -> FetchedPackage:
        fetched = tuple(
            FetchedFile(name, path, digest, named_releases(data, name, product)) for name, path, digest, data in files
        )
        named = {r for f in fetched for r in f.releases}
        return FetchedPackage(
            product,
            version,
            source,
            fetched,
            since=since,
            span=the_span,
            missing=missing(the_span, named),
            **extra,  # type: ignore[arg-type]
        )

    return report
