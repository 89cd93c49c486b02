"""Write side: corpus folder (and fetched dependencies' release docs) -> chunks -> embeddings -> Chroma."""

from ingest.sync import SyncReport, is_current, sync

__all__ = ["SyncReport", "is_current", "sync"]
