"""Stage 3 of a question: decide from the Query and the passages found whether the docs answer it, or refuse with a
typed Reason.
"""
