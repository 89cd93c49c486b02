"""Every cap on what a fetch reads from the network, in one place, each with why it is where it is.

An archive or a page from the registry or a code host is untrusted data: these bound the bytes downloaded, the
bytes a compressed archive may expand to, and the members it may list, so a crafted upload costs seconds and
megabytes, not the machine.
"""

from __future__ import annotations

from dataclasses import dataclass

# Source distributions of widely used pure-Python projects are 0.03-12 MB (Django 5.x: 10.8 MB); scientific ones
# with data reach 60 MB (nilearn 0.14: 57 MB). Past 100 MB it is no source distribution worth reading for notes.
MAX_ARCHIVE_BYTES = 100_000_000
# What all members together may expand to. Real sdists expand 3-6x (Django: 10.8 -> 50 MB); a gzip bomb expands
# 1000x. Reading stops at this sum of member sizes, so the work done is bounded whatever the archive claims.
MAX_EXPANDED_BYTES = 600_000_000
# What a tar's headers may add to its members' own (pax records, GNU long names, the end-of-archive padding), all
# members together: `tarfile` reads each such header whole into memory. Real sdists' come to kilobytes (a pax
# record per name over 100 characters: ~1 KB each); a crafted one of hundreds of MB compresses to kilobytes.
MAX_HEADER_BYTES = 16_000_000
# One member: the largest files in real sdists are vendored data or test fixtures of tens of MB.
MAX_MEMBER_BYTES = 200_000_000
# Members listed: Django's sdist has ~6,900, the largest sdists seen ~40,000 (test data trees).
MAX_MEMBERS = 100_000
# One release-doc file: the largest real changelogs are 1-3 MB (CPython's NEWS is 2 MB); larger files are
# skipped, as ingest would spend its reading budget on them.
MAX_DOC_BYTES = 5_000_000
# All release-doc files of one package: Django's docs/releases/ is ~4 MB over 400 files.
MAX_DOCS_BYTES = 40_000_000
MAX_DOC_FILES = 2_000
# A release's Python source, unpacked for the API diff (.py and .pyi only): pandas 2.2's come to ~30 MB, the
# largest pure-Python trees (botocore, sympy) to 80-150 MB. One file: generated tables reach a few MB; past 20 MB
# a .py file is data, not API, and is skipped with a note.
MAX_SOURCES_BYTES = 400_000_000
MAX_SOURCE_FILE_BYTES = 20_000_000
# The registry's per-project JSON: a few MB for projects with thousands of releases (botocore ~ 25 MB).
MAX_PROJECT_JSON_BYTES = 64_000_000
# A changelog page or raw file from a project's link, and one page of a Releases API answer.
MAX_PAGE_BYTES = 10_000_000
# Pages of GitHub Releases read (100 releases a page): older releases than 500 back are no upgrade's span.
MAX_RELEASE_PAGES = 5


@dataclass(frozen=True)
class ArchiveLimits:
    """The caps an archive is read under (tests pass smaller ones to build oversized archives cheaply)."""

    archive_bytes: int = MAX_ARCHIVE_BYTES
    expanded_bytes: int = MAX_EXPANDED_BYTES
    header_bytes: int = MAX_HEADER_BYTES
    member_bytes: int = MAX_MEMBER_BYTES
    members: int = MAX_MEMBERS
    doc_bytes: int = MAX_DOC_BYTES
    docs_bytes: int = MAX_DOCS_BYTES
    doc_files: int = MAX_DOC_FILES
    sources_bytes: int = MAX_SOURCES_BYTES
    source_file_bytes: int = MAX_SOURCE_FILE_BYTES
