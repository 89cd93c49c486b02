"""Stage 4 of a question: write the cited answer from the passages the gate let through (extractive, LLM, or an
upgrade plan).
"""
