"""A source distribution read as data: its release-doc files, found by name and place, read in memory
(`read_docs`); and the member checks every reading of an archive shares (`read_archive` with a `Reader`, which
`ingest.dependencies.unpack` uses for the releases' Python source).

Nothing in the archive is run or extracted to disk: no `setup.py`, no build backend, no metadata preparation
(which is what `pip download` does). Every member is checked before anything is read, with the semantics of
`tarfile`'s `data` extraction filter and stricter: no absolute path, no `..`, no device, FIFO or other special
file (the archive is refused, in one line saying why); links, symbolic or hard, are never followed or read (each
is named in a note); and the caps of `ingest.dependencies.limits` bound the members and the bytes they expand to.
A tar is decompressed here (gzip, bzip2 or xz, told by its first bytes) through a reader that counts every byte
it hands to `tarfile`, so the headers `tarfile` reads whole (pax records, GNU long names) are bounded as well.

Which files are release docs is decided by name and place alone, the same for every project (below the
archive's top folder): at the top or directly in `docs/`, a changelog by name (`CHANGELOG*`, `CHANGES*`,
`HISTORY*`, `NEWS*`, `RELEASES*`, `RELEASE*NOTES*`, `WHATSNEW*`) or a migration or upgrading guide; anywhere
under `docs/` (or `doc/`), a changelog by name and every file of a folder for releases (`whatsnew/`,
`release*/`, `changes/`, `changelog/`, `news/`, `history/`), but for a folder's index and news fragments for
the next release (`1234.bugfix.rst`); with a suffix `.md`, `.markdown`, `.rst`, `.txt` or none.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import re
import stat
import tarfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import PurePosixPath

from ingest.changelog import is_changelog_name
from ingest.dependencies.limits import ArchiveLimits

DOC_SUFFIXES = frozenset({".md", ".markdown", ".rst", ".txt", ""})
_DOCS = frozenset({"docs", "doc", "documentation"})
_RELEASE_FOLDER = re.compile(
    r"^(?:whats?[-_]?new|release[-_]?notes?|releases?|changes|changelogs?|news|history)$", re.IGNORECASE
)
_RELEASE_NAME = re.compile(
    r"^(?:whats?[-_]?new|release[-_]?notes?|release[-_]history|changelog|changes|history|news(?![a-z]))", re.IGNORECASE
)
_GUIDE_NAME = re.compile(r"migrat|upgrad", re.IGNORECASE)
# News fragments for the next release: towncrier's and scriv's `1234.bugfix.rst`, `+orphan.feature.md`, an
# issue's `6135.rst`; and the folders that hold them (`unreleased_14/`, `changelog.d/`, `newsfragments/`)
_FRAGMENT = re.compile(r"^(?:(?:\d+|\+[\w-]*)\.[a-z]+(?:\.\d+)?|\d{3,})\.(?:md|rst|txt)$", re.IGNORECASE)
_FRAGMENTS = re.compile(r"^(?:unreleased.*|newsfragments|fragments|[\w-]+\.d)$", re.IGNORECASE)
_NOT_NOTES = frozenset({"index", "contents", "toc", "readme"})  # a release folder's table of contents or note
POINTER_BYTES = 2_000  # a docs page this small that only includes another file is a pointer, not notes
_BLOCK = 512  # a tar header, and the unit member data is padded to


class ArchiveRefused(Exception):
    """An archive that is not read at all; the message says why in one line."""


@dataclass(frozen=True)
class DocFile:
    path: str  # inside the archive, below its top folder ("docs/releases/2.0.rst")
    data: bytes


@dataclass(frozen=True)
class ArchiveDocs:
    files: tuple[DocFile, ...]
    notes: tuple[str, ...]  # what was left out and why (a link, a file over its cap)


def is_release_doc(path: str) -> bool:
    """Whether a file at `path` (below the archive's top folder) is release docs, by its name and place."""
    parts = PurePosixPath(path).parts
    name = parts[-1]
    suffix = PurePosixPath(name).suffix.lower()
    if suffix not in DOC_SUFFIXES or name.startswith(".") or _FRAGMENT.match(name):
        return False
    if not suffix and not is_changelog_name(name):
        return False  # a file without suffix is a doc only when it is a changelog by name (`NEWS`, `CHANGES`)
    release_name = is_changelog_name(name) or bool(_RELEASE_NAME.match(name))
    if len(parts) == 1 or (len(parts) == 2 and parts[0].lower() in _DOCS):
        return release_name or bool(_GUIDE_NAME.search(name))
    if parts[0].lower() not in _DOCS:
        return False
    folders = parts[1:-1]
    if any(_FRAGMENTS.match(f) for f in folders):
        return False
    if any(_RELEASE_FOLDER.match(f) for f in folders):
        return PurePosixPath(name).stem.lower() not in _NOT_NOTES
    return release_name


def read_docs(data: bytes, *, limits: ArchiveLimits) -> ArchiveDocs:
    """The release-doc files of a source distribution (a gzip/bzip2/xz tar or a zip, told by its bytes), or
    `ArchiveRefused` naming why it is not read."""
    reader = _DocReader(limits)
    read_archive(data, reader)
    return reader.result()


def read_archive(data: bytes, reader: Reader) -> None:
    """Hand each member of `data` (a gzip/bzip2/xz tar or a zip, told by its bytes) to `reader`, every member
    checked first; `ArchiveRefused` naming why the archive is not read (then `reader` may have kept some)."""
    if len(data) > reader.limits.archive_bytes:
        raise ArchiveRefused(f"the archive is {len(data)} bytes, more than the {reader.limits.archive_bytes} allowed")
    if data[:4] == b"PK\x03\x04":
        _read_zip(data, reader)
    else:
        _read_tar(data, reader)


class Reader:
    """What every reading of an archive shares: the member checks and caps, and the top folder. A subclass says
    which regular files it `wants` (by path and declared size) and what it does with them (`keep`); links are
    never followed, only named (`link`). `strip_top`: paths are given below the archive's one top folder (an
    sdist's `name-1.0/`); a wheel has none."""

    read_limit = 0  # bytes read of a member kept; one more than that is read, so a larger one shows

    def __init__(self, limits: ArchiveLimits, *, strip_top: bool = True) -> None:
        self.limits = limits
        self.strip_top = strip_top
        self.members = 0
        self.expanded = 0
        self.padded = 0  # the members' data as a tar stores it, in whole blocks
        self.top: str | None = None

    def check(self, name: str, size: int) -> str:
        """The member's path below the top folder, after the checks that refuse the whole archive."""
        self.members += 1
        if self.members > self.limits.members:
            raise ArchiveRefused(f"more than {self.limits.members} members")
        shown = name.encode("unicode_escape").decode("ascii")[:120]
        path = name.replace("\\", "/")
        if path.startswith("/") or re.match(r"^[A-Za-z]:", path):
            raise ArchiveRefused(f"member {shown!r} has an absolute path")
        if ".." in path.split("/"):
            raise ArchiveRefused(f"member {shown!r} leads outside the archive's folder (..)")
        if any(ord(c) < 32 for c in path):
            raise ArchiveRefused(f"member {shown!r} has control characters in its name")
        if size > self.limits.member_bytes:
            raise ArchiveRefused(f"member {shown!r} expands to {size} bytes, more than {self.limits.member_bytes}")
        self.expanded += max(size, 0)
        self.padded += -(-max(size, 0) // _BLOCK) * _BLOCK
        if self.expanded > self.limits.expanded_bytes:
            raise ArchiveRefused(f"the members expand to more than {self.limits.expanded_bytes} bytes")
        parts = [p for p in path.split("/") if p not in ("", ".")]
        if not self.strip_top:
            return "/".join(parts)
        if self.top is None and len(parts) > 1:
            self.top = parts[0]
        if len(parts) > 1 and parts[0] == self.top:
            parts = parts[1:]
        return "/".join(parts)

    def wants(self, path: str, size: int) -> bool:
        return False

    def keep(self, path: str, data: bytes) -> None:
        pass

    def link(self, path: str, kind: str) -> None:
        pass


class _DocReader(Reader):
    """The release-doc files, under their caps."""

    def __init__(self, limits: ArchiveLimits) -> None:
        super().__init__(limits)
        self.read_limit = limits.doc_bytes
        self.docs_bytes = 0
        self.files: list[DocFile] = []
        self.notes: list[str] = []

    def wants(self, path: str, size: int) -> bool:
        if not path or not is_release_doc(path):
            return False
        if size > self.limits.doc_bytes:
            self.notes.append(f"{path}: {size} bytes, more than the {self.limits.doc_bytes} a doc may have; skipped")
            return False
        if len(self.files) >= self.limits.doc_files or self.docs_bytes + size > self.limits.docs_bytes:
            self.notes.append(f"{path}: past the {self.limits.doc_files} files or {self.limits.docs_bytes} bytes kept")
            return False
        return True

    def keep(self, path: str, data: bytes) -> None:
        if len(data) <= POINTER_BYTES and (b".. include::" in data or b"{include}" in data):
            self.notes.append(f"{path}: only includes another file; skipped")
            return
        self.docs_bytes += len(data)
        self.files.append(DocFile(path, data))

    def link(self, path: str, kind: str) -> None:
        if path and is_release_doc(path):
            self.notes.append(f"{path}: a {kind}, not followed")

    def result(self) -> ArchiveDocs:
        return ArchiveDocs(tuple(sorted(self.files, key=lambda f: f.path)), tuple(self.notes))


def _read_tar(data: bytes, reader: Reader) -> None:
    # Stream mode reads the members in order without seeking or keeping them; the counted stream bounds what it
    # reads between two members (a pax record or long name is read whole), the expanded-size cap the rest.
    stream = _Counted(_decompressed(data), reader)
    try:
        with tarfile.open(fileobj=stream, mode="r|") as archive:
            for member in archive:
                path = reader.check(member.name, member.size)
                if member.issym() or member.islnk():
                    reader.link(path, "symbolic link" if member.issym() else "hard link")
                    continue
                if member.ischr() or member.isblk() or member.isfifo() or not (member.isreg() or member.isdir()):
                    raise ArchiveRefused(f"member {member.name[:120]!r} is a device, FIFO or other special file")
                _data_filter(member)
                if member.isreg() and reader.wants(path, member.size):
                    extracted = archive.extractfile(member)
                    reader.keep(path, extracted.read(reader.read_limit + 1) if extracted else b"")
    except ArchiveRefused:
        raise
    # zlib's, lzma's and bz2's own errors, and a truncated stream's EOFError
    except (tarfile.TarError, EOFError, OSError, ValueError, zlib.error, lzma.LZMAError) as e:
        raise ArchiveRefused(f"not a readable tar archive ({type(e).__name__}: {str(e)[:80]})") from None


def _decompressed(data: bytes) -> io.BufferedIOBase:
    """The tar inside `data`, decompressed as it is read (gzip, bzip2 or xz by their magic bytes; else plain)."""
    raw = io.BytesIO(data)
    if data[:2] == b"\x1f\x8b":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if data[:3] == b"BZh":
        return bz2.BZ2File(raw)
    if data[:6] == b"\xfd7zXZ\x00":
        return lzma.LZMAFile(raw)
    return raw


class _Counted(io.RawIOBase):
    """The decompressed tar as `tarfile` reads it, refused once it hands over more bytes than the members so far
    account for (their headers and padded data) plus `limits.header_bytes` for the rest: pax records, GNU long
    names and the end-of-archive padding, all of which `tarfile` reads whole and no member's size counts."""

    def __init__(self, stream: io.BufferedIOBase, reader: Reader) -> None:
        self.stream = stream
        self.reader = reader
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        n = self.stream.readinto(buffer)
        self.count += n
        reader = self.reader
        # members' headers and padded data, the headers' allowance, and what tarfile reads ahead (a record)
        accounted = reader.padded + (reader.members + 1) * _BLOCK + reader.limits.header_bytes + tarfile.RECORDSIZE
        if self.count > accounted:
            why = f"its tar headers (pax records, long names) come to more than {reader.limits.header_bytes} bytes"
            raise ArchiveRefused(why)
        return n


def _data_filter(member: tarfile.TarInfo) -> None:
    """`tarfile.data_filter`'s own checks (Python 3.11.4+), on top of ours: what it refuses, we refuse."""
    check = getattr(tarfile, "data_filter", None)
    if check is None:
        return
    try:
        check(member, "/nonexistent-reldocs-target")
    except tarfile.FilterError as e:
        raise ArchiveRefused(f"member {member.name[:120]!r} refused by the data filter ({type(e).__name__})") from None


def _read_zip(data: bytes, reader: Reader) -> None:
    limits = reader.limits
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
            if len(infos) > limits.members:
                raise ArchiveRefused(f"more than {limits.members} members")
            for info in infos:
                path = reader.check(info.filename, info.file_size)
                # The Unix file type, where the zip records one (many writers leave it 0: a regular file)
                kind = stat.S_IFMT(info.external_attr >> 16) if info.create_system == 3 else 0
                if kind == stat.S_IFLNK:
                    reader.link(path, "symbolic link")
                    continue
                if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
                    raise ArchiveRefused(f"member {info.filename[:120]!r} is a device, FIFO or other special file")
                if info.is_dir() or info.flag_bits & 0x1:  # encrypted members are not read
                    continue
                if reader.wants(path, info.file_size):
                    # The declared sizes were checked against the caps (`check`, `wants`); `zipfile` hands out no
                    # more than a member declares (and fails its CRC check if the data says otherwise)
                    with archive.open(info) as member:
                        reader.keep(path, member.read(reader.read_limit + 1))
    except ArchiveRefused:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError, NotImplementedError) as e:
        raise ArchiveRefused(f"not a readable zip archive ({type(e).__name__}: {str(e)[:80]})") from None
