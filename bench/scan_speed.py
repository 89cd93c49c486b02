"""How fast the code scan reads a project: 1,000 generated Python files against the targets of a real upgrade
plan (PyTorch 2.7 -> 2.12 from ../shared/corpus, or the shipped corpus), or a folder of real code (`--folder`),
against the floor of parsing the same files with Python's own `ast` in the same run.

Usage:
    python bench/scan_speed.py [--files 1000] [--corpus DIR] [--from 2.7] [--to 2.12] [--out FILE]
    python bench/scan_speed.py --folder CODE --corpus ../shared/corpus-more --product pandas --from 1.5 --to 3.0

The plan is built from the documents' chunks as ingest makes them (no index, no model); a tenth of the
generated files use names the plan says changed, the rest only names it does not.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import random
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from assistant.index.catalog import Catalog  # noqa: E402
from assistant.runtime.settings import Settings  # noqa: E402
from assistant.upgrade.plan import make_plan  # noqa: E402
from assistant.upgrade.scan import Target, scan  # noqa: E402
from assistant.upgrade.targeting import targets  # noqa: E402
from bench.evaluate import default_corpus_dir  # noqa: E402
from ingest.chunking import chunk_document  # noqa: E402
from ingest.loader import load_document  # noqa: E402

BODY = '''
class Model{n}(nn.Module):
    """A block of a model, as projects write them."""

    def __init__(self, width: int = 64) -> None:
        super().__init__()
        self.width = width
        self.layers = [nn.Linear(width, width) for _ in range(3)]

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x)) + np.float64(0.5) * x
        return os.path.join(str(x), "out")


def train_{n}(model, data, steps: int = 10):
    total = 0.0
    for step, batch in enumerate(data):
        loss = model(batch).sum()
        total += float(loss)
        if step >= steps:
            break
    return total / max(steps, 1)
'''


def generate(folder: Path, n_files: int, hits: list[Target], seed: int = 7) -> int:
    """`n_files` files of about 120 lines; every tenth also uses one of `hits`. Returns the lines written."""
    rng = random.Random(seed)
    lines = 0
    for i in range(n_files):
        body = "".join(BODY.format(n=f"{i}_{k}") for k in range(5))
        text = f"import os\nimport numpy as np\nimport torch\nfrom torch import nn\n{body}"
        if i % 10 == 0 and hits:
            target = rng.choice(hits)
            call = f"{target.symbol}(x, {target.parameter}=True)" if target.parameter else f"{target.symbol}"
            text += f"\n\ndef uses_{i}(x):\n    return {call}\n"
        (folder / f"module_{i:04d}.py").write_text(text, encoding="utf-8")
        lines += text.count("\n")
    return lines


def plan_targets(corpus: Path, start: str, end: str, product: str | None = None) -> list[Target]:
    chunks = []
    for path in sorted(p for p in corpus.rglob("*") if p.is_file() and not p.name.startswith(".")):
        chunks += chunk_document(load_document(path, corpus))
    catalog = Catalog.learn(chunks)
    if product is None:
        product = catalog.products[0].name if len(catalog.products) == 1 else "PyTorch"
    return targets(make_plan(chunks, catalog, start, end, product))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000, help="how many files to generate")
    parser.add_argument("--corpus", type=Path, default=default_corpus_dir(), help="the docs the plan comes from")
    parser.add_argument("--from", dest="start", default="2.7", help="the plan's from-version")
    parser.add_argument("--to", dest="end", default="2.12", help="the plan's to-version")
    parser.add_argument("--folder", type=Path, help="scan this folder of real code instead of generated files")
    parser.add_argument("--product", help="the plan's product, when the corpus holds several")
    parser.add_argument(
        "--infer",
        action="store_true",
        help="type receivers from the installed product's source: timed with no answer kept yet, then again",
    )
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args(argv)
    found = plan_targets(args.corpus, args.start, args.end, args.product)
    usable = [t for t in found if t.symbol.startswith("torch.") and not t.omitted]
    with tempfile.TemporaryDirectory(prefix="reldocs-scan-bench-") as tmp:
        folder = args.folder or Path(tmp)
        lines = 0 if args.folder else generate(folder, args.files, usable)
        files = sorted(folder.rglob("*.py"))
        started = time.perf_counter()
        for path in files:  # the floor: reading and parsing every file once with CPython's own parser
            source = path.read_text(encoding="utf-8", errors="replace")
            lines += source.count("\n") if args.folder else 0
            with contextlib.suppress(SyntaxError, ValueError):
                ast.parse(source)
        floor = time.perf_counter() - started
        settings = Settings()  # the size caps `app.py upgrade` scans with
        caps = {
            "max_bytes": settings.scan_max_file_kb * 1024,
            "max_notebook_bytes": settings.scan_max_notebook_kb * 1024,
        }
        types = {"infer": args.infer, "types_folder": Path(tmp) / ".scan-types" if args.infer else None}
        started = time.perf_counter()
        report = scan([folder], found, parallel=True, **caps, **types)  # type: ignore[arg-type] # as `upgrade` scans
        took = time.perf_counter() - started
        warm = None
        if args.infer:  # a second scan, with what jedi answered kept (as a project's next scan finds it)
            started = time.perf_counter()
            scan([folder], found, parallel=True, **caps, **types)  # type: ignore[arg-type]
            warm = round(time.perf_counter() - started, 2)
    result = {
        "files": report.files,
        "lines": lines,
        "targets": len(found),
        "findings": len(report.findings),
        "errors": len(report.errors),
        "scan_s": round(took, 2),
        "ast_floor_s": round(floor, 2),
        "ratio": round(took / floor, 1) if floor else None,
    }
    if args.infer:
        result["infer"] = True
        result["scan_warm_s"] = warm
    print(json.dumps(result))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
