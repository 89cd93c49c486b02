"""The fetched-docs folder and the archive cache, written so that nothing half-written is ever seen.

A product's docs are `<fetched_dir>/<product>/<file>` with `provenance.json` beside them (not a corpus file:
the sync indexes only docs). They are written into a staging folder of `<fetched_dir>` (hidden, named
`.reldocs-staging-…`: the sync skips hidden folders, and the cleanup removes those names only) and renamed into
place, replacing the product's previous folder in two renames; a folder without `provenance.json` (docs someone
put there by hand) is never replaced. Archives
are kept under `<data_dir>/fetch-cache/` by their sha256 and checked against it when read back, so a second
fetch of the same release downloads nothing.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

PROVENANCE = "provenance.json"
_PRODUCT = re.compile(r"^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$")  # a canonical project name
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
STAGING = ".reldocs-staging-"  # the prefix of every folder a fetch writes before renaming: nothing else is removed


class NotFetched(Exception):
    """A product's folder that a fetch did not write (it has no provenance record): it is left as it is."""


@dataclass(frozen=True)
class StoredFile:
    file: str  # its name in the product's folder
    path: str  # where it was read: inside the archive, or the URL's path
    sha256: str
    data: bytes


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def is_sha256(value: object) -> bool:
    """A lower-case hex sha256, as archives are named here (a name that becomes a path)."""
    return isinstance(value, str) and _SHA256.match(value) is not None


def is_product(name: str) -> bool:
    """A canonical project name, safe as a folder's name."""
    return bool(_PRODUCT.match(name)) and ".." not in name


def product_folder(fetched: Path, product: str) -> Path:
    """`<fetched>/<product>`, for a canonical project name only: the name becomes a path."""
    if not is_product(product):
        raise ValueError(f"not a canonical project name: {product!r}")
    return fetched / product


def file_names(paths: Iterable[str]) -> dict[str, str]:
    """A plain, unique file name for each path: its own name, or for names that collide (`docs/releases/2.0.rst`
    and `docs/whatsnew/2.0.rst`) the path's folders joined before it (`releases-2.0.rst`), shallowest first."""
    paths = sorted(paths, key=lambda p: (p.count("/"), p))
    out: dict[str, str] = {}
    taken: set[str] = {PROVENANCE.lower()}
    for path in paths:
        parts = [_UNSAFE.sub("-", p).strip("-.") or "file" for p in PurePosixPath(path).parts]
        for depth in range(1, len(parts) + 1):
            name = "-".join(parts[-depth:])
            if name.lower() not in taken:
                break
        else:
            name = f"{sha256(path.encode())[:8]}-{parts[-1]}"
        taken.add(name.lower())
        out[path] = name
    return out


def read_provenance(fetched: Path, product: str) -> dict | None:
    """The product's provenance record, when its folder has one and every file it lists is there, unchanged."""
    folder = product_folder(fetched, product)
    try:
        record = json.loads((folder / PROVENANCE).read_text(encoding="utf-8"))
        for f in record["files"]:
            if sha256((folder / f["file"]).read_bytes()) != f["sha256"]:
                return None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return record if isinstance(record, dict) else None


def write_product(fetched: Path, product: str, files: list[StoredFile], record: dict) -> None:
    """Replace `<fetched>/<product>` with `files` and their provenance `record`: the new folder is written in
    full under a staging name, then renamed into place, so the folder never holds a half-written file or a mix of
    old and new (between the two renames, for an instant, it is absent: a sync then sees the product gone).
    `NotFetched` when the folder holds files but no `provenance.json`: docs a fetch did not write are not replaced."""
    folder = product_folder(fetched, product)
    if folder.exists() and not (folder / PROVENANCE).is_file() and any(folder.iterdir()):
        raise NotFetched(f"{folder} holds docs no fetch wrote (no {PROVENANCE}); left as it is, not replaced")
    fetched.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f"{STAGING}{product}-", dir=fetched))
    try:
        for f in files:
            (staging / f.file).write_bytes(f.data)
        when = dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat()
        files_meta = [{"file": f.file, "path": f.path, "sha256": f.sha256} for f in files]
        full = {**record, "files": files_meta, "fetched": when}
        (staging / PROVENANCE).write_text(json.dumps(full, indent=2) + "\n", encoding="utf-8")
        old = None
        if folder.exists():
            old = Path(tempfile.mkdtemp(prefix=f"{STAGING}{product}-old-", dir=fetched))
            os.rename(folder, old / product)
        os.rename(staging, folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


LEFTOVER_S = 3600  # a staging folder older than this is a killed fetch's, not a running one's


def remove_leftovers(fetched: Path) -> None:
    """The staging folders a killed fetch left behind (not those of a fetch running now); no other folder, hidden
    or not, is touched (`fetched_dir` may be any folder: a `.git` or `.venv` in it stays)."""
    if not fetched.is_dir():
        return
    now = time.time()
    for entry in fetched.iterdir():
        with contextlib.suppress(OSError):
            stale = now - entry.lstat().st_mtime > LEFTOVER_S
            if entry.name.startswith(STAGING) and stale and entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)


def cached_archive(cache: Path, digest: str) -> bytes | None:
    """The archive of sha256 `digest` from the cache, if it is there and still has that digest."""
    path = cache / digest[:2] / digest
    with contextlib.suppress(OSError):
        data = path.read_bytes()
        if sha256(data) == digest:
            return data
        path.unlink()  # damaged: fetched again
    return None


def cache_archive(cache: Path, digest: str, data: bytes) -> None:
    """Keep a verified archive under its sha256, written to a temporary file and renamed into place."""
    folder = cache / digest[:2]
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".part-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, folder / digest)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
