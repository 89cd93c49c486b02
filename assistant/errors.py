"""Errors users see as one line (no traceback); each says what to do next."""


class ReldocsError(Exception):
    """Base of the errors reldocs reports to users."""


class IndexNotReady(ReldocsError):
    """The index is missing, unreadable or damaged."""
