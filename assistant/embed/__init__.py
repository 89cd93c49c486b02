"""Embedding models: the ONNX export of the sentence-transformers model that runs (or its int8-quantized copy), and
the registry that makes an embedder from settings.
"""
