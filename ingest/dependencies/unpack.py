"""A release's Python source written out of its archive for the API diff, as data that is never run.

Only `.py` and `.pyi` members are written (and an `*.egg-info` or `*.dist-info` `top_level.txt`, which names the
import packages), never a `setup.py`: nothing that Python runs on its own (a `.pth` file, a build script, a
compiled module) is ever on disk, and nothing here imports, builds or runs what is written; the paths of the
compiled modules' sources and binaries are listed, in `COMPILED_LIST`, without their contents. Every member passes
the checks `ingest.dependencies.archive` applies to any archive (no absolute path, no `..`, no device or FIFO:
the archive is refused; links are never followed or written), under its caps and a cap on the source bytes.

The files go to a staging folder beside the target, which is renamed into place once all are written: a folder
named by the archive's sha256 is always complete, so a second call finds it and reads nothing.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from assistant.model.api import COMPILED_LIST, COMPILED_LIST_CUT
from ingest.dependencies.archive import ArchiveRefused, Reader, read_archive
from ingest.dependencies.limits import ArchiveLimits
from ingest.dependencies.store import STAGING

SOURCE_SUFFIXES = frozenset({".py", ".pyi"})
# A compiled module's source or binary: only its path is kept (`COMPILED_LIST`), so that a module the package's
# own code never imports (`lxml.etree`, from `etree.pyx`) is known to be there.
# (`.tp` and `.in`: templates of Cython sources, `_x.pyx.tp`; `.pyf`, `.f`: Fortran modules for f2py)
COMPILED_SUFFIXES = frozenset({".pyx", ".tp", ".in", ".c", ".cc", ".cpp", ".cxx", ".so", ".pyd", ".f", ".pyf"})
# A build script is no API, and an unpacked one is one `python setup.py` away from running: never written
NEVER_WRITTEN = frozenset({"setup.py"})
METADATA_FOLDERS = (".egg-info", ".dist-info")
MAX_COMPILED = 20_000  # compiled-module paths listed at most (a C library's sdist has thousands of `.c` files)


@dataclass(frozen=True)
class Unpacked:
    folder: Path
    files: int  # written
    bytes: int
    notes: tuple[str, ...] = ()  # what was left out and why (a link, a file over its cap)


def is_source(path: str) -> bool:
    """Whether a member (its path below the archive's top folder) is written: Python source, or the metadata file
    that names the top-level packages."""
    parts = PurePosixPath(path).parts
    if not parts:
        return False
    name = parts[-1]
    if name == "top_level.txt":
        return len(parts) >= 2 and parts[-2].endswith(METADATA_FOLDERS)
    return PurePosixPath(name).suffix in SOURCE_SUFFIXES and name not in NEVER_WRITTEN


class _SourceReader(Reader):
    """Writes the source members into `staging` as they are read."""

    def __init__(self, limits: ArchiveLimits, staging: Path, *, strip_top: bool) -> None:
        super().__init__(limits, strip_top=strip_top)
        self.read_limit = limits.source_file_bytes
        self.staging = staging
        self.resolved = staging.resolve()
        self.files = 0
        self.bytes = 0
        self.notes: list[str] = []
        self.compiled: list[str] = []
        self.cut = False  # more compiled files than listed

    def wants(self, path: str, size: int) -> bool:
        if not path or self._compiled(path) or not is_source(path):
            return False
        if size > self.limits.source_file_bytes:
            self.notes.append(f"{path}: {size} bytes, more than the {self.limits.source_file_bytes} a file may have")
            return False
        if self.bytes + size > self.limits.sources_bytes:
            raise ArchiveRefused(f"its .py and .pyi files come to more than {self.limits.sources_bytes} bytes")
        return True

    def _compiled(self, path: str) -> bool:
        """Whether a member is listed, not written: a compiled module's source or binary (its path kept), or a
        member under the list's own name (which would stand in its way)."""
        if PurePosixPath(path).parts[0] == COMPILED_LIST:
            self.notes.append(f"{path}: named as the list of compiled modules, not written")
            return True
        if PurePosixPath(path).suffix not in COMPILED_SUFFIXES:
            return False
        if len(self.compiled) < MAX_COMPILED:
            self.compiled.append(path)
        else:
            self.cut = True
        return True

    def keep(self, path: str, data: bytes) -> None:
        target = self.staging.joinpath(*PurePosixPath(path).parts)
        # `check` refused absolute paths and `..`, and no link is ever written, so no parent can lead out; this
        # says so once more, cheaply, before anything is written
        if not target.resolve().is_relative_to(self.resolved):
            raise ArchiveRefused(f"member {path[:120]!r} leads outside the folder")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        except OSError as e:  # a name that is a folder elsewhere in the archive, a name too long for the disk
            self.notes.append(f"{path}: not written ({e.strerror or type(e).__name__})")
            return
        self.files += 1
        self.bytes += len(data)

    def link(self, path: str, kind: str) -> None:
        if path and is_source(path):
            self.notes.append(f"{path}: a {kind}, not followed")


class _ListReader(_SourceReader):
    """Lists the compiled modules' members and writes nothing."""

    def wants(self, path: str, size: int) -> bool:
        if path:
            self._compiled(path)
        return False


def compiled_list(data: bytes, folder: Path, *, wheel: bool, limits: ArchiveLimits) -> None:
    """Write the list of compiled modules of `data` into `folder`, a release unpacked before the list was kept:
    the member names only are read (the archive's checks apply), and the list is renamed into place whole."""
    reader = _ListReader(limits, folder, strip_top=not wheel)
    read_archive(data, reader)
    write_compiled_list(folder, reader)


def write_compiled_list(folder: Path, reader: _SourceReader) -> None:
    """Write what `reader` listed as `folder`'s `COMPILED_LIST`, whole or not at all; its last line says when it was
    cut at `MAX_COMPILED`."""
    lines = [*reader.compiled, *([COMPILED_LIST_CUT] if reader.cut else [])]
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f"{STAGING}list-")
    try:
        # a member's name is whatever bytes the archive holds: kept as they are, never a reason to fail
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write("".join(f"{line}\n" for line in lines))
        os.replace(tmp, folder / COMPILED_LIST)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def unpack_sources(data: bytes, target: Path, *, wheel: bool, limits: ArchiveLimits) -> Unpacked:
    """Write the Python source of `data` (an sdist, or a wheel: no top folder) into `target`, which must not
    exist yet; `ArchiveRefused` naming why when the archive is not read (then nothing is left on disk)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f"{STAGING}{target.name[:16]}-", dir=target.parent))
    try:
        reader = _SourceReader(limits, staging, strip_top=not wheel)
        read_archive(data, reader)
        write_compiled_list(staging, reader)
        try:
            os.rename(staging, target)
        except OSError:
            if not target.is_dir():
                raise
            # Another run unpacked the same archive meanwhile: its folder is as complete as this one
            shutil.rmtree(staging, ignore_errors=True)
    except BaseException:
        with contextlib.suppress(OSError):
            shutil.rmtree(staging)
        raise
    return Unpacked(target, reader.files, reader.bytes, tuple(reader.notes))
