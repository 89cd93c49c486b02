"""Errors users see as one line (no traceback); each says what to do next."""


class ReldocsError(Exception):
    """Base of the errors reldocs reports to users."""


class IndexNotReady(ReldocsError):
    """The index is missing, unreadable or damaged."""


class IndexUnavailable(ReldocsError):
    """The Chroma server holding the index does not answer; the next question tries again."""


class WriterBusy(ReldocsError):
    """Another ingest is writing the index (or took over an expired lock) and this one did not wait."""
