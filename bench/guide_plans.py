"""Plans from migration guides of other ecosystems, as their packages ship them: how many of the topics a guide's
own "Breaking Changes" section names the plan lists, and whether it lists anything twice.

Usage:
    python bench/guide_plans.py [--out DIR] [--json]

Each guide is read out of its package's tarball on the npm registry (pinned below, its SHA-1 checked against the
registry's; read in memory with `tarfile`, nothing extracted wholesale, nothing run) into `DIR/<product>/<file>`,
the layout a user drops guides in, and planned as `upgrade --product P --from A --to B` plans it. A guide's topics
are the headings one level under its "Breaking Changes" section (every release section's headings, for a guide
with one section per release). The files are not kept in the repository; their licenses are their projects'
(all three MIT).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import re
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from assistant.index.catalog import Catalog  # noqa: E402
from assistant.upgrade.plan import PlanError, make_plan  # noqa: E402
from ingest.chunking import chunk_document  # noqa: E402
from ingest.loader import load_document  # noqa: E402

REGISTRY = "https://registry.npmjs.org"
MAX_BYTES = 20_000_000
# product -> (version, SHA-1 of the tarball as the registry gives it, files in it, the plans to make)
GUIDES: dict[str, tuple[str, str, tuple[str, ...], tuple[tuple[str, str], ...]]] = {
    "axios": ("1.21.1", "e15d57924d677aea9adb9f06b112b13b9ea0b9dd", ("MIGRATION_GUIDE.md",), (("0", "1"),)),
    "fastify": (
        "5.12.8",
        "1465a8219391618e5201696042c6de0105070a49",
        tuple(f"docs/Guides/Migration-Guide-V{v}.md" for v in (3, 4, 5)),
        (("2", "3"), ("3", "4"), ("4", "5")),
    ),
}
_HEADING = re.compile(r"^(#{2,4})\s+(.+?)\s*$", re.MULTILINE)


def fetch(out: Path) -> list[dict[str, Any]]:
    """Each guide into `out/<product>/`, with where it came from."""
    provenance = []
    for product, (version, sha1, files, _) in GUIDES.items():
        url = f"{REGISTRY}/{product}/-/{product}-{version}.tgz"
        with urllib.request.urlopen(url, timeout=60) as response:  # the registry, over https
            data = response.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES or hashlib.sha1(data).hexdigest() != sha1:  # the digest the registry gives
            raise SystemExit(f"{product} {version}: the tarball is not the one pinned ({url})")
        folder = out / product
        folder.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            for name in files:
                member = archive.getmember(f"package/{name}")
                if not member.isfile():
                    raise SystemExit(f"{product}: {name} is not a file in {url}")
                text = archive.extractfile(member).read()  # type: ignore[union-attr]
                (folder / Path(name).name).write_bytes(text)
                provenance.append({"product": product, "version": version, "url": url, "file": name})
    return provenance


def topics(text: str) -> list[str]:
    """The headings one level under a guide's "Breaking Changes" heading, marks and links removed."""
    found: list[str] = []
    level = 0
    for m in _HEADING.finditer(text):
        depth, title = len(m.group(1)), _plain(m.group(2))
        if re.fullmatch(r"breaking changes", title, re.IGNORECASE):
            level = depth
        elif level and depth <= level:
            level = 0
        elif level and depth == level + 1:
            found.append(title)
    return found


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"\[([^\]]*)\]\([^)]*\)|[`*]", r"\1", text)).strip()


def score(folder: Path) -> list[dict[str, Any]]:
    rows = []
    for product, (_, _, files, spans) in GUIDES.items():
        paths = [folder / product / Path(f).name for f in files]
        chunks = [c for p in paths for c in chunk_document(load_document(p, folder))]
        catalog = Catalog.learn(chunks)
        for (start, end), path in zip(spans, paths, strict=True):  # each span's own guide
            try:
                plan = make_plan(chunks, catalog, start, end, product)
                changes = [c for c in plan.changes if c.citation.source.endswith(path.name)]
            except PlanError:  # the guides name no release: nothing to plan
                changes = []
            said = [_plain(c.summary) for c in changes] + [_plain(c.citation.section) for c in changes]
            wanted = topics(path.read_text(encoding="utf-8"))
            listed = [t for t in wanted if any(t in s for s in said)]
            summaries = [c.summary for c in changes]
            rows.append(
                {
                    "guide": f"{product}/{path.name}",
                    "span": f"{start} → {end}",
                    "topics": len(wanted),
                    "listed": len(listed),
                    "missing": [t for t in wanted if t not in listed],
                    "changes": len(changes),
                    "listed_twice": len(summaries) - len(set(summaries)),
                }
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="where to put the guides (default: a temporary folder)")
    parser.add_argument("--json", action="store_true", help="one JSON object per guide")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp)
        fetch(out)
        for row in score(out):
            if args.json:
                print(json.dumps(row, ensure_ascii=False))
            else:
                print(
                    f"{row['guide']} ({row['span']}): {row['listed']} of {row['topics']} breaking topics listed, "
                    f"{row['changes']} changes, {row['listed_twice']} listed twice"
                    + (f"; missing: {', '.join(row['missing'])}" if row["missing"] else "")
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
