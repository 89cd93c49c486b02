"""Encode speed of the int8 model against the fp32 one, side by side in one run, on the same real chunks.

Usage:
    python bench/embed_speed.py [--corpus ../shared/corpus-more/pandas] [--chunks 384] [--rounds 3] [--ingest]
    python bench/embed_speed.py --model-dir /tmp/models --ingest --variants --evaluation /tmp/eval --write

`--evaluation DIR` reads `<set>-fp32.json` and `<set>-int8.json` pairs, each written by
`RELDOCS_EMBEDDING_PRECISION=<p> python bench/evaluate.py --set <set> --json --show-failures` (an index folder
of its own each), into a per-set table of what changed; `--write` keeps the figures in bench/embed-speed.json and
puts the section "## int8 embeddings" in docs/benchmarks.md (`bench/report.py` renders it again from that file).

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
import os
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

from assistant.embed.onnx import CHECK_TEXTS, OnnxEmbedder  # noqa: E402
from assistant.runtime.settings import Settings  # noqa: E402
from bench.common import put_section, read_chunks  # noqa: E402

RESULT = REPO_ROOT / "bench" / "embed-speed.json"
PAGE = REPO_ROOT / "docs" / "benchmarks.md"
HEADING = "## int8 embeddings"
SETS = (
    "pytorch",
    "pandas",
    "sqlalchemy",
    "pydantic",
    "django",
    "changelogs",
    "changelogs-more",
    "changelogs-blind",
    "changelogs-blind2",
    "changelogs-blind3",
    "release-notes-blind",
    "release-notes-blind2",
    "mixed-blind",
)


def sample_texts(corpus: Path, n: int) -> list[str]:
    """`n` of the corpus's chunks as ingest embeds them, spread evenly over its files (all when fewer)."""
    from assistant.index.lexical import index_text

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
    """Whole rebuilt ingests of `corpus`, two per model in the order fp32, int8, int8, fp32 (the first ingest of
    a process also starts Chroma and the reading process: each model gets one first and one last); chunks,
    seconds and chunks/s of each, the mean of its two."""
    from ingest import sync

    seconds: dict[str, list[float]] = {name: [] for name in models}
    chunks = 0
    with tempfile.TemporaryDirectory(prefix="reldocs-embed-speed-") as tmp:
        for n, name in enumerate([*models, *reversed(models)]):
            settings = Settings(
                corpus_dir=corpus,
                data_dir=Path(tmp) / f"{name}-{n}",
                model_dir=model_dir,
                embedding_precision=name,  # type: ignore[arg-type]
                embedding_batch_size=batch,
            )
            started = time.perf_counter()
            chunks = sync(settings, rebuild=True, progress=False, embedder=models[name]).chunks
            seconds[name].append(time.perf_counter() - started)
    out: dict[str, Any] = {
        name: {
            "chunks": chunks,
            "s": round(statistics.mean(s), 2),
            "chunks_per_s": round(chunks / statistics.mean(s), 1),
        }
        for name, s in seconds.items()
    }
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
            measured = speed({"fp32": fp32, name: model}, texts, batch, 1)  # fp32 again: the load may have moved
            rates = measured["chunks_per_s"]
            check = np.sum(model.encode(list(CHECK_TEXTS)) * fp32.encode(list(CHECK_TEXTS)), axis=1)
            out[name] = {
                "chunks_per_s": rates[name],
                "ratio": round(rates[name] / rates["fp32"], 2),
                **compare(reference, measured["vectors"][name]),
                "check_min_cosine": round(float(check.min()), 4),
            }
    return out


def evaluation(folder: Path) -> list[dict[str, Any]]:
    """One row per set with both of its runs in `folder`: each check's count at fp32 and int8, the questions
    with a check int8 fails and fp32 passes (lost), and the reverse (gained)."""
    rows = []
    for name in SETS:
        try:
            runs = {p: json.loads((folder / f"{name}-{p}.json").read_text(encoding="utf-8")) for p in ("fp32", "int8")}
        except (FileNotFoundError, ValueError):  # not run, or still running
            continue
        # A question not among the failures passed every check it has.
        failed = {p: {f["id"]: f for f in run.get("failures", [])} for p, run in runs.items()}

        def passed(p: str, qid: str, check: str, failed: dict[str, dict[str, Any]] = failed) -> bool:
            return bool(failed[p].get(qid, {}).get(check, True))

        ids = set(failed["fp32"]) | set(failed["int8"])
        checks = ("answer_ok", "source_ok", "refusal_ok")
        row: dict[str, Any] = {"set": name, "questions": runs["fp32"]["questions"]}
        for check in ("answer_acc", "source_acc", "refusal_acc"):
            row[check] = {p: [run[check]["count"], run[check]["total"]] for p, run in runs.items()}
        row["lost"] = sorted(q for q in ids if any(passed("fp32", q, c) > passed("int8", q, c) for c in checks))
        row["gained"] = sorted(q for q in ids if any(passed("int8", q, c) > passed("fp32", q, c) for c in checks))
        rows.append(row)
    return rows


def section(result: dict[str, Any]) -> list[str]:
    """The page's section: encode and ingest speed both ways, the cosines, the quantizations not chosen, and
    the evaluation sets at each precision."""
    r = result
    lines = [
        HEADING,
        "",
        f"`python bench/embed_speed.py` on {r['chunks']} chunks of `{Path(r['corpus']).name}` (spread over its files), "
        f"batch {r['batch']}, {r['threads']} threads per session, {r['rounds']} alternating rounds (medians), "
        f"{r.get('load', 'load not recorded')}. int8 is `RELDOCS_EMBEDDING_PRECISION=int8`: ONNX Runtime's "
        "`quantize_dynamic` of the fp32 export, weights int8 per channel, MatMul and the fused Attention only.",
        "",
        "| measure | fp32 | int8 | int8 / fp32 |",
        "|---|---|---|---|",
        f"| encode (chunks/s) | {r['fp32_chunks_per_s']} | {r['int8_chunks_per_s']} | {r['ratio']}× |",
    ]
    if "ingest" in r:
        i = r["ingest"]
        lines.append(
            f"| whole ingest, rebuilt (chunks/s; {i['fp32']['chunks']} chunks, 2 each) | {i['fp32']['chunks_per_s']} | "
            f"{i['int8']['chunks_per_s']} | {i['ratio']}× |"
        )
    lines += [
        f"| model file (MB) | {r['model_mb']['fp32']} | {r['model_mb']['int8']} | |",
        "",
        f"Cosine of each chunk's int8 vector to its fp32 one: mean {r['cosine_mean']}, min {r['cosine_min']}, "
        f"1st percentile {r['cosine_p1']}; on the export's check texts (a blank and a two-letter text among them) "
        f"min {r['check_min_cosine']}, where the int8 model is refused below 0.95.",
        "",
    ]
    if "variants" in r:
        lines += [
            "| quantization not chosen | chunks/s (× fp32 beside it) | cosine mean | min | check texts min |",
            "|---|---|---|---|---|",
        ]
        for name, v in r["variants"].items():
            lines.append(
                f"| {name} | {v['chunks_per_s']} ({v.get('ratio', '?')}×) | {v['cosine_mean']} | {v['cosine_min']} | "
                f"{v['check_min_cosine']} |"
            )
        lines.append("")
    if r.get("evaluation"):
        lines += [
            "Every evaluation set, its own index built at each precision (`bench/evaluate.py --set S`); "
            "counts right, fp32 → int8; *lost*: questions int8 fails that fp32 passes.",
            "",
            "| set | questions | answer | source | refusal | lost | gained |",
            "|---|---|---|---|---|---|---|",
        ]
        for row in r["evaluation"]:

            def pair(check: str, row: dict[str, Any] = row) -> str:
                (a, total), (b, _) = row[check]["fp32"], row[check]["int8"]
                return f"{a} → {b} / {total}"

            lost = ", ".join(row["lost"]) or "–"
            gained = ", ".join(row["gained"]) or "–"
            lines.append(
                f"| {row['set']} | {row['questions']} | {pair('answer_acc')} | {pair('source_acc')} | "
                f"{pair('refusal_acc')} | {lost} | {gained} |"
            )
        lines.append("")
    lines += [*r.get("notes", []), ""]
    return lines


def saved_section(path: Path = RESULT) -> list[str]:
    """The section from the figures `--write` kept, for `bench/report.py`; none when there are none."""
    return section(json.loads(path.read_text(encoding="utf-8"))) if path.exists() else []


def main(argv: list[str] | None = None) -> int:
    from assistant.embed.embedder import make_embedder
    from assistant.embed.quantize import INT8_MODEL
    from bench.evaluate import default_more_dir

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
    parser.add_argument("--evaluation", type=Path, help="folder of bench/evaluate.py --json runs at each precision")
    parser.add_argument("--write", action="store_true", help="keep the figures and put the section in the docs")
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
    load_before = os.getloadavg()[0]
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
    # Other processes share the machine: its load average around the encode rounds says how much.
    result["load"] = f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after on {os.cpu_count()} cores"
    if args.evaluation:
        result["evaluation"] = evaluation(args.evaluation)
    print(json.dumps(result, indent=1))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    if args.write:
        if RESULT.exists():  # the notes are written by hand beside the figures; a rerun keeps them
            result["notes"] = json.loads(RESULT.read_text(encoding="utf-8")).get("notes", [])
        RESULT.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        put_section(PAGE, HEADING, section(result), "\n## Goals")
    return 0


if __name__ == "__main__":
    sys.exit(main())
