"""The data model: documents and their entries, change entries, chunks, answers and citations, errors, and what
reldocs says to users.
"""
