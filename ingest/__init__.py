"""Write side: corpus folder -> chunks -> embeddings -> Chroma. Imports the core, never the reverse."""

from ingest.sync import SyncReport, is_current, sync

__all__ = ["SyncReport", "is_current", "sync"]
