"""Synthetic release notes for the scale benchmark: seeded, release-notes-like Markdown of any size.

Each file is one version of a made-up product laid out like PyTorch's notes: a heading per category,
a subheading per module, bulleted entries naming dotted symbols (`torch.nn.fused_gelu_kernel`), PR links,
and now and then a before/after code fence. The real chunker decides how many chunks that makes; the
generator calibrates files-per-target on a sample so a target of N yields about N chunks.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from assistant.model.records import Chunk

PRODUCT = "synthlib"
_SYMBOL_IN_TEXT = re.compile(r"`(torch\.[\w.]+)`")
CATEGORIES = (
    "Backwards Incompatible Changes",
    "Deprecations",
    "New Features",
    "Improvements",
    "Bug fixes",
    "Performance",
    "Documentation",
    "Developers",
)
MODULES = (
    "nn",
    "nn.functional",
    "optim",
    "distributed",
    "distributed.fsdp",
    "fx",
    "export",
    "compiler",
    "cuda",
    "mps",
    "xpu",
    "quantization",
    "sparse",
    "linalg",
    "fft",
    "autograd",
    "onnx",
    "utils.data",
    "profiler",
    "inductor",
    "dynamo",
    "nested",
    "special",
    "backends.cudnn",
)
_VERBS = (
    "fused",
    "scaled",
    "masked",
    "sharded",
    "batched",
    "cached",
    "async",
    "lazy",
    "strided",
    "packed",
    "blocked",
    "padded",
    "quantized",
    "grouped",
    "varlen",
    "chunked",
    "flat",
    "dense",
    "sparse",
    "paged",
)
_NOUNS = (
    "gelu",
    "softmax",
    "attention",
    "conv",
    "matmul",
    "layer_norm",
    "embedding",
    "allreduce",
    "reduce_scatter",
    "checkpoint",
    "allocator",
    "kernel",
    "graph",
    "tracer",
    "pool",
    "scheduler",
    "sampler",
    "loader",
    "rnn",
    "lstm",
    "topk",
    "scatter",
    "gather",
    "einsum",
    "histogram",
    "cumsum",
    "dropout",
    "lerp",
    "adamw",
    "rmsprop",
)
_SUFFIXES = ("", "", "", "_kernel", "_impl", "_backward", "_", "_v2", "_inplace", "_out")
_ARGS = ("dtype", "device", "fused", "foreach", "dim", "out", "strict", "inplace", "generator", "layout", "pin_memory")
_DEVICES = ("CUDA", "ROCm", "MPS", "XPU", "CPU", "Hopper", "Blackwell", "AArch64", "Windows", "macOS")
_ERRORS = ("RuntimeError", "ValueError", "TypeError", "NotImplementedError", "UserWarning", "FutureWarning")
_ENTRY_TEMPLATES = {
    "Backwards Incompatible Changes": (
        "`{sym}` now raises a `{err}` when `{arg}` is not given explicitly",
        "The `{arg}` argument of `{sym}` is now keyword-only",
        "`{sym}` no longer accepts `{arg}=None`; pass a value instead",
        "Removed `{sym}`, use `{sym2}` instead",
    ),
    "Deprecations": (
        "`{sym}` is deprecated and will be removed in a future release; use `{sym2}`",
        "Passing `{arg}` positionally to `{sym}` is deprecated",
        "Deprecated the `{arg}` flag of `{sym}` in favor of `{sym2}`",
    ),
    "New Features": (
        "Add `{sym}` with `{arg}` support on {dev}",
        "Introduce `{sym}`, a {adj} variant of `{sym2}`",
        "Support `{arg}=True` in `{sym}` for {dev} tensors",
    ),
    "Improvements": (
        "`{sym}` now supports {dev} and complex inputs",
        "Better error message when `{sym}` receives mismatched `{arg}`",
        "Allow `{sym}` to take a `{arg}` tuple",
        "Make `{sym}` traceable by the compiler",
    ),
    "Bug fixes": (
        "Fix `{sym}` returning wrong results for non-contiguous inputs on {dev}",
        "Fix a crash in `{sym}` when `{arg}` is empty",
        "Fix memory leak in `{sym}` under `{sym2}`",
        "Fix `{err}` in `{sym}` with zero-sized tensors",
    ),
    "Performance": (
        "Speed up `{sym}` by {n}% on {dev}",
        "Use a {adj} kernel for `{sym}` when `{arg}` is set",
        "Reduce peak memory of `{sym}` by avoiding a copy in `{sym2}`",
    ),
    "Documentation": (
        "Document the `{arg}` argument of `{sym}`",
        "Add an example for `{sym}` to the {dev} notes",
        "Clarify how `{sym}` interacts with `{sym2}`",
    ),
    "Developers": (
        "Add a benchmark for `{sym}` on {dev}",
        "Move `{sym}` tests to the {adj} suite",
        "Add logging to `{sym}` behind `{arg}`",
    ),
}
_DETAILS = (
    "Previously this silently produced an incorrect result.",
    "This matches the behavior of NumPy.",
    "Users who relied on the old behavior should pass `{arg}` explicitly.",
    "The change only affects {dev} builds.",
    "See the migration notes below for before/after code.",
    "This brings parity with the eager implementation.",
)


@dataclass(frozen=True)
class SyntheticCorpus:
    """What `generate` wrote: how many files, and the chunk count it aimed at."""

    root: Path
    files: int
    target_chunks: int


def _symbol(rng: random.Random) -> str:
    return f"torch.{rng.choice(MODULES)}.{rng.choice(_VERBS)}_{rng.choice(_NOUNS)}{rng.choice(_SUFFIXES)}".rstrip("_")


def _entry(rng: random.Random, category: str, sym: str) -> str:
    slots = {
        "sym": sym,
        "sym2": _symbol(rng),
        "arg": rng.choice(_ARGS),
        "err": rng.choice(_ERRORS),
        "dev": rng.choice(_DEVICES),
        "adj": rng.choice(_VERBS),
        "n": rng.randint(5, 80),
    }
    text = rng.choice(_ENTRY_TEMPLATES[category]).format(**slots)
    pr = rng.randint(100000, 199999)
    line = f"- {text} ([#{pr}](https://github.com/example/{PRODUCT}/pull/{pr}))"
    if rng.random() < 0.35:
        line += "\n  " + rng.choice(_DETAILS).format(**slots)
    if category == "Backwards Incompatible Changes" and rng.random() < 0.5:
        line += (
            f"\n\n  ```python\n  # before\n  y = {sym}(x, {slots['arg']}=None)\n"
            f"  # after\n  y = {sym}(x, {slots['arg']}=True)\n  ```"
        )
    return line


def _version(i: int) -> str:
    return f"{1 + i // 400}.{(i // 20) % 20}.{i % 20}"


def release_notes(rng: random.Random, version: str, entries: int) -> str:
    """One release-notes file with about `entries` bulleted entries."""
    lines = [
        "---",
        f"title: {PRODUCT.capitalize()} {version} Release Notes",
        f"product: {PRODUCT}",
        f"version: {version}",
        "kind: release-notes",
        f"url: https://example.org/{PRODUCT}/releases/v{version}",
        "---",
        f"# {PRODUCT.capitalize()} {version} Release Notes",
        "",
    ]
    per_category = max(1, entries // len(CATEGORIES))
    for category in CATEGORIES:
        lines += [f"# {category}", ""]
        remaining = per_category
        while remaining > 0:
            module = rng.choice(MODULES)
            lines += [f"## torch.{module}", ""]
            for _ in range(min(remaining, rng.randint(2, 6))):
                sym = f"torch.{module}.{rng.choice(_VERBS)}_{rng.choice(_NOUNS)}{rng.choice(_SUFFIXES)}".rstrip("_")
                lines += [_entry(rng, category, sym), ""]
                remaining -= 1
    return "\n".join(lines)


def _chunks_per_entry(entries: int, seed: int) -> float:
    """Chunks the real chunker makes per generated entry, measured on a throwaway sample."""
    from ingest.chunking import chunk_document
    from ingest.loader import Document, infer_metadata, split_front_matter

    rng = random.Random(seed ^ 0x5EED)
    made = 0
    for i in range(3):
        source = f"{PRODUCT}/{_version(i)}/release-notes.md"
        front, body = split_front_matter(release_notes(rng, _version(i), entries))
        made += len(chunk_document(Document(source, body, "", infer_metadata(source, body, front))))
    return made / (3 * entries)


def generate(root: Path, target_chunks: int, *, seed: int = 0, entries_per_file: int = 400) -> SyntheticCorpus:
    """Write about `target_chunks` chunks of release notes under `root/synthlib/<version>/`."""
    root = Path(root)
    rate = _chunks_per_entry(entries_per_file, seed)
    total_entries = max(1, round(target_chunks / rate))
    files = max(1, -(-total_entries // entries_per_file))
    per_file = -(-total_entries // files)
    rng = random.Random(seed)
    for i in range(files):
        path = root / PRODUCT / _version(i) / "release-notes.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(release_notes(rng, _version(i), per_file), encoding="utf-8")
    return SyntheticCorpus(root, files, target_chunks)


def sample_questions(chunks: Sequence[Chunk], n: int, *, seed: int = 0) -> list[dict[str, str]]:
    """Questions about symbols of randomly drawn chunks, half naming the chunk's version."""
    rng = random.Random(seed)
    pool = [c for c in chunks if _SYMBOL_IN_TEXT.search(c.text)]
    out = []
    for i, chunk in enumerate(rng.sample(pool, min(n, len(pool)))):
        symbol = rng.choice(_SYMBOL_IN_TEXT.findall(chunk.text))
        where = f" in {PRODUCT} {chunk.version}" if i % 2 else ""
        out.append({"question": f"What changed about `{symbol}`{where}?", "source": chunk.source})
    return out
