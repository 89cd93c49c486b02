"""Stage 1 of a question: turn its words into a typed Query (products, versions, symbols, language, the asker's own
code).
"""
