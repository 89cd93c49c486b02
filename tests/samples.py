"""Sample data shared by renderer tests: one real citation from the shipped migration guide."""

from __future__ import annotations

from assistant.model.records import Citation

MIGRATION = Citation(
    1,
    "Migrating to PyTorch v2.12.0",
    "2.12.0",
    "migration-guide",
    "Breaking Changes › Issue #2",
    "pytorch/2.12.0/migration-guide.txt",
    "https://github.com/pytorch/pytorch/releases/tag/v2.12.0",
    "Updated the minimum CUDA version required to build PyTorch from source to CUDA 12.6.",
)
