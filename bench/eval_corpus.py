"""An evaluation set's corpus, staged in a temp folder: each product's docs mirrored under `<product>/`, so the
questions' `sources` match and the cached index stays valid between runs."""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path


def staged_corpus_dir(name: str, sources: Mapping[str, Path]) -> Path:
    """A temp folder per set, keyed by where its documents come from, so reruns reuse it (and its index)."""
    key = hashlib.sha256(repr(sorted((k, str(v.resolve())) for k, v in sources.items())).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"reldocs-bench-corpus-{name}-{key}"


def stage_corpus(sources: Mapping[str, Path], dest: Path) -> Path:
    """Mirror each source into `dest` (products under `dest/<product>/`, the PyTorch root as is).

    Paths stay `<product>/<version>/<file>` relative to `dest`, so the questions' `sources` match.
    Files are copied only when missing or changed and stray files are deleted, which keeps the
    cached index valid between runs. Hidden files and files outside version folders are skipped
    (e.g. corpus-more's SOURCES.md). Raises FileNotFoundError naming a missing source folder.
    """
    wanted: dict[Path, Path] = {}
    for product, src in sources.items():
        if not src.is_dir():
            raise FileNotFoundError(f"corpus folder not found: {src}")
        base = Path() if product == "pytorch" else Path(product)
        for path in sorted(src.rglob("*")):
            rel = path.relative_to(src)
            if not path.is_file() or any(part.startswith(".") for part in rel.parts):
                continue
            if len((base / rel).parts) < 3:  # not inside <product>/<version>/
                continue
            wanted[dest / base / rel] = path
    dest.mkdir(parents=True, exist_ok=True)
    for target, path in wanted.items():
        src_stat = path.stat()
        if target.is_file():
            stat = target.stat()
            if (stat.st_size, stat.st_mtime_ns) == (src_stat.st_size, src_stat.st_mtime_ns):
                continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    for path in sorted(dest.rglob("*"), reverse=True):
        if path.is_file() and path not in wanted:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()
    return dest
