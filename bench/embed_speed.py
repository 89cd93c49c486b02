"""Encode speed of the int8 model against the fp32 one, side by side in one run, on the same real chunks.

Usage:
    python bench/embed_speed.py [--corpus ../shared/corpus-more/pandas] [--chunks 384] [--rounds 3] [--ingest]
    python bench/embed_speed.py --model-dir /tmp/models --variants --out embed-speed.json

Both models are the default model's ONNX export (`RELDOCS_MODEL_DIR`, or --model-dir; exported and quantized
there first if missing), each on its own session with --threads threads. Rounds alternate fp32 and int8, so
a change in background load hits both alike; chunks/s are medians over the rounds. The cosine between the two
vectors of each chunk says what the speed costs. `--ingest` also times whole ingests of the corpus (rebuilt,
into temp folders) both ways; `--variants` measures two quantizations not chosen (per-tensor weights, and every
op the quantizer can take) against the same fp32 vectors.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

import numpy as np  # noqa: E402

from assistant.embed.embedder import make_embedder  # noqa: E402
from assistant.embed.onnx import CHECK_TEXTS, OnnxEmbedder  # noqa: E402
from assistant.embed.quantize import INT8_MODEL  # noqa: E402
from assistant.index.lexical import index_text  # noqa: E402
from assistant.runtime.settings import Settings  # noqa: E402
from bench.common import read_chunks  # noqa: E402
from bench.evaluate import default_more_dir  # noqa: E402


def sample_texts(corpus: Path, n: int) -> list[str]:
    """`n` of the corpus's chunks as ingest embeds them, spread evenly over its files (all when fewer)."""
    texts = [index_text(c) for c in read_chunks(corpus)]
    step = max(1, len(texts) // n)
    return texts[::step][:n]


def encode_seconds(embedder: OnnxEmbedder, texts: list[str], batch: int) -> tuple[float, np.ndarray]:
    """Seconds to encode `texts` in batches of `batch` (longest first, as ingest does), and the vectors."""
    started = time.perf_counter()
    vectors = embedder.encode(texts, batch_size=batch)
    return time.perf_counter() - started, vectors


def compare(reference: np.ndarray, other: np.ndarray) -> dict[str, float]:
    """Cosines between the rows of two matrices of unit vectors: mean, min and 1st percentile."""
    cosines = np.sum(reference * other, axis=1)
    return {
        "cosine_mean": round(float(cosines.mean()), 4),
        "cosine_min": round(float(cosines.min()), 4),
        "cosine_p1": round(float(np.percentile(cosines, 1)), 4),
    }


def speed(models: dict[str, OnnxEmbedder], texts: list[str], batch: int, rounds: int) -> dict[str, Any]:
    """Chunks/s of each model (median over alternating rounds), with each model's vectors of the last round."""
    for model in models.values():
        model.encode(texts[:batch], batch_size=batch)  # warm-up: the session's first run allocates its arenas
    seconds: dict[str, list[float]] = {name: [] for name in models}
    vectors: dict[str, np.ndarray] = {}
    for _ in range(rounds):
        for name, model in models.items():
            took, vectors[name] = encode_seconds(model, texts, batch)
            seconds[name].append(took)
    rates = {name: round(len(texts) / statistics.median(s), 1) for name, s in seconds.items()}
    return {"chunks_per_s": rates, "vectors": vectors}


def ingest_speed(corpus: Path, models: dict[str, OnnxEmbedder], model_dir: Path, batch: int) -> dict[str, Any]:
    """Whole rebuilt ingests of `corpus`, one per model, alternating: chunks, seconds and chunks/s of each."""
    from ingest import sync

    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="reldocs-embed-speed-") as tmp:
        for name, model in models.items():
            settings = Settings(
                corpus_dir=corpus,
                data_dir=Path(tmp) / name,
                model_dir=model_dir,
                embedding_precision=name,  # type: ignore[arg-type]
                embedding_batch_size=batch,
            )
            started = time.perf_counter()
            report = sync(settings, rebuild=True, progress=False, embedder=model)
            took = time.perf_counter() - started
            out[name] = {"chunks": report.chunks, "s": round(took, 2), "chunks_per_s": round(report.chunks / took, 1)}
    out["ratio"] = round(out["int8"]["chunks_per_s"] / out["fp32"]["chunks_per_s"], 2)
    return out


def variants(fp32: OnnxEmbedder, texts: list[str], reference: np.ndarray, batch: int, threads: int) -> dict[str, Any]:
    """Two quantizations not chosen, made into a temp folder and measured like the chosen one."""
    import shutil

    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    tried = {
        "per_tensor": {"per_channel": False, "op_types_to_quantize": ["MatMul", "Attention"]},
        "all_ops": {"per_channel": True},  # the embeddings' lookup and layer norm too
    }
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="reldocs-quant-variants-") as tmp:
        for file in ("meta.json", "tokenizer.json"):
            shutil.copyfile(fp32.export_dir / file, Path(tmp) / file)
        for name, options in tried.items():
            path = Path(tmp) / f"{name}.onnx"
            quantize_dynamic(
                fp32.export_dir / "model.onnx",
                path,
                weight_type=QuantType.QInt8,
                extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
                **options,  # type: ignore[arg-type]
            )
            model = OnnxEmbedder(name, Path(tmp), model_file=path.name, threads=threads)
            measured = speed({name: model}, texts, batch, 1)
            check = np.sum(model.encode(list(CHECK_TEXTS)) * fp32.encode(list(CHECK_TEXTS)), axis=1)
            out[name] = {
                "chunks_per_s": measured["chunks_per_s"][name],
                **compare(reference, measured["vectors"][name]),
                "check_min_cosine": round(float(check.min()), 4),
            }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus", type=Path, default=default_more_dir() / "pandas", help="the docs whose chunks are encoded"
    )
    parser.add_argument("--chunks", type=int, default=384, help="how many of its chunks to encode, spread evenly")
    parser.add_argument("--batch", type=int, default=32, help="chunks per batch, as RELDOCS_EMBEDDING_BATCH_SIZE")
    parser.add_argument("--threads", type=int, default=2, help="ONNX Runtime threads of each session")
    parser.add_argument("--rounds", type=int, default=3, help="alternating (fp32, int8) rounds; medians reported")
    parser.add_argument("--model-dir", type=Path, default=None, help="exported models (default: RELDOCS_MODEL_DIR)")
    parser.add_argument("--ingest", action="store_true", help="also time whole ingests of --corpus both ways")
    parser.add_argument("--variants", action="store_true", help="also measure per-tensor and all-op quantizations")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args(argv)

    settings = Settings(**({"model_dir": args.model_dir} if args.model_dir else {}))  # type: ignore[arg-type]
    made = make_embedder(settings.model_copy(update={"embedding_backend": "onnx", "embedding_precision": "int8"}))
    if not isinstance(made, OnnxEmbedder) or not made.name.endswith("+int8"):
        print(f"error: no int8 model in {settings.model_path} (see the warning above)", file=sys.stderr)
        return 1
    folder, name = made.export_dir, settings.embedding_model
    models = {
        "fp32": OnnxEmbedder(name, folder, threads=args.threads),
        "int8": OnnxEmbedder(made.name, folder, model_file=INT8_MODEL, threads=args.threads),
    }
    texts = sample_texts(args.corpus, args.chunks)
    measured = speed(models, texts, args.batch, args.rounds)
    rates, vectors = measured["chunks_per_s"], measured["vectors"]
    check = np.sum(models["int8"].encode(list(CHECK_TEXTS)) * models["fp32"].encode(list(CHECK_TEXTS)), axis=1)
    result: dict[str, Any] = {
        "corpus": str(args.corpus),
        "chunks": len(texts),
        "batch": args.batch,
        "threads": args.threads,
        "rounds": args.rounds,
        "fp32_chunks_per_s": rates["fp32"],
        "int8_chunks_per_s": rates["int8"],
        "ratio": round(rates["int8"] / rates["fp32"], 2),
        **compare(vectors["fp32"], vectors["int8"]),
        "check_min_cosine": round(float(check.min()), 4),
        "model_mb": {
            "fp32": round((folder / "model.onnx").stat().st_size / 2**20, 1),
            "int8": round((folder / INT8_MODEL).stat().st_size / 2**20, 1),
        },
    }
    if args.ingest:
        result["ingest"] = ingest_speed(args.corpus, models, settings.model_path, args.batch)
    if args.variants:
        result["variants"] = variants(models["fp32"], texts, vectors["fp32"], args.batch, args.threads)
    print(json.dumps(result, indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
