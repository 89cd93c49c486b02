"""How reldocs runs: its typed settings and the bounded worker processes that keep one request from sinking the
service.
"""
