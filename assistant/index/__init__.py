"""The index: the Chroma store (folder or server), its manifest and writer lock, and the caches, vectors, lexical
index and catalog derived from it.
"""
