"""Stage 2 of a question: find the passages for a Query (dense and lexical search, fused and filtered by release and
product).
"""
