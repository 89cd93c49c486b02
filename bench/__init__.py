"""Evaluation set and scorer for reldocs (`python bench/evaluate.py`)."""
