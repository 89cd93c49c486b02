"""Embedding models: the ONNX export of the sentence-transformers model that runs, and the registry that makes an
embedder from settings.
"""
