"""Thin adapters over the core: each parses input, calls `KnowledgeBase`, and renders the result."""
