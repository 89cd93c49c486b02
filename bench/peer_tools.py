"""The peers of `bench/peers.py`: their environments, running each tool, and its output as flagged lines.

Each tool runs on one set's files laid out at their repositories' paths (`lay_out`) from the peers' venv
(`tools_env`; mypy with the set's new release in a venv of its own, `mypy_env`), and what it reports, diagnostics
or the old lines its rewrite removes or replaces, becomes an `Outcome`: the (saved file name, line) pairs it flagged.
`bench/peers.py` scores them; its docstring has the exact commands and versions.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from bench.common import REPO_ROOT, log
from bench.fetch_scan_sets import manifest

ENV_ROOT = REPO_ROOT / "data" / "peers-env"
PEERS = ("ruff==0.17.6", "torchfix==0.7.0", "bump-pydantic==0.8.0", "django-upgrade==1.33.0", "mypy==1.19.1")
TIMEOUT = 3600  # seconds for one tool on one set; pip installs get the same


@dataclass(frozen=True)
class MypyTarget:
    """What mypy checks a set against: the span's new release, its stubs, and the product's top-level modules."""

    release: tuple[str, ...]
    stubs: tuple[str, ...]
    modules: tuple[str, ...]


MYPY_TARGETS = {
    "numpy": MypyTarget(("numpy==2.0.2",), (), ("numpy",)),
    "pandas": MypyTarget(("pandas==3.0.*",), ("pandas-stubs==3.0.*",), ("pandas",)),
    "sqlalchemy": MypyTarget(("sqlalchemy==2.0.*",), (), ("sqlalchemy",)),
    "pydantic": MypyTarget(("pydantic==2.0.*",), (), ("pydantic",)),
    "django": MypyTarget(("django==5.2.*",), ("django-stubs==5.2.*",), ("django",)),
    "flask": MypyTarget(("flask==3.1.3",), (), ("flask",)),
    "matplotlib": MypyTarget(("matplotlib==3.9.*",), (), ("matplotlib", "mpl_toolkits")),
    "networkx": MypyTarget(("networkx==3.6.1",), ("types-networkx==3.6.1.*",), ("networkx",)),
    "scipy": MypyTarget(("scipy==1.15.*",), ("scipy-stubs==1.15.*",), ("scipy",)),
    "sklearn": MypyTarget(("scikit-learn==1.9.1",), (), ("sklearn",)),
}
MYPY_SKIPPED = {"pytorch": "not run: torch's wheels are 66–766 MB, so the new release is not installed"}
# The product's own tool, per set: (tool name in the rows, the peers env's executable)
OWN_TOOL = {
    "numpy": "ruff NPY201",
    "pandas": "ruff PD",
    "pytorch": "torchfix",
    "pydantic": "bump-pydantic",
    "django": "django-upgrade",
}
# A product whose recorded peer is not among the pinned ones: (tool, why it did not run)
NO_TOOL = {"sqlalchemy": ("flake8-sqlalchemy", "not run: not one of the pinned peers (it has style rules only)")}
ERROR_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+): (?P<severity>error|note): (?P<message>.*)$")
ERROR_CODE = re.compile(r"\s\s\[(?P<code>[a-z0-9-]+)\]$")
FLAKE8_LINE = re.compile(r"^(?P<path>.+?\.py):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]+\d+) (?P<message>.*)$")
HUNK = re.compile(r"^@@ -(?P<old>\d+)(?:,(?P<old_n>\d+))? \+\d+(?:,(?P<new_n>\d+))? @@")

Line = tuple[str, int]  # (saved file name, line)


class ToolError(Exception):
    """A peer that could not be installed or run; the message is the row's reason."""


@dataclass
class Outcome:
    """What one tool flagged on one set, and what it could not do."""

    lines: set[Line] = field(default_factory=set)
    apart: dict[str, set[Line]] = field(default_factory=dict)  # flagged lines scored separately ("deprecated")
    by_code: dict[str, set[Line]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    command: str = ""


def _run(
    cmd: list[str], cwd: Path | None = None, env: dict[str, str] | None = None, timeout: int = TIMEOUT
) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False, encoding="utf-8"
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ToolError(f"{Path(cmd[0]).name} did not run: {e}") from e


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


def make_env(path: Path, requirements: Iterable[str]) -> Path:
    """A venv at `path` with exactly `requirements` installed, made once and reused; its python."""
    wanted = sorted(requirements)
    python = path / "bin" / "python"
    record = path / "reldocs-peers.json"
    if python.exists() and record.is_file() and json.loads(record.read_text(encoding="utf-8")) == wanted:
        return python
    if path.exists():
        shutil.rmtree(path)
    log(f"making {path.relative_to(REPO_ROOT)} with {' '.join(wanted)}")
    made = _run([sys.executable, "-m", "venv", str(path)])
    if made.returncode != 0:
        raise ToolError(f"venv {path.name} not made: {_last_line(made.stderr)}")
    got = _run([str(python), "-m", "pip", "install", "--quiet", *wanted])
    if got.returncode != 0:
        shutil.rmtree(path, ignore_errors=True)
        raise ToolError(f"pip install {' '.join(wanted)} failed: {_last_line(got.stderr)}")
    record.write_text(json.dumps(wanted), encoding="utf-8")
    return python


def tools_env(root: Path = ENV_ROOT) -> tuple[Path | None, str]:
    """The peers' bin folder, or None and why."""
    try:
        return make_env(root / "tools", PEERS).parent, ""
    except ToolError as e:
        return None, str(e)


def mypy_env(name: str, root: Path = ENV_ROOT) -> tuple[Path, str]:
    """The python of the set's mypy venv, and what it holds ("pandas 3.0.6, pandas-stubs 3.0.5.260914"; a note when
    the stubs would not install and the release is there alone)."""
    target = MYPY_TARGETS[name]
    note = ""
    try:
        python = make_env(root / f"mypy-{name}", (*target.release, *target.stubs))
    except ToolError as e:
        if not target.stubs:
            raise
        log(f"{name}: {e}; the release without its stubs")
        python, note = make_env(root / f"mypy-{name}", target.release), f"; stubs not installed ({e})"
    names = {re.split(r"[=<>!~ ]", r)[0].lower() for r in (*target.release, *target.stubs)}
    listed = _run([str(python), "-m", "pip", "list", "--format", "json"])
    held = [f"{d['name']} {d['version']}" for d in json.loads(listed.stdout or "[]") if d["name"].lower() in names]
    return python, ", ".join(held) + note


def lay_out(name: str, files: Path, root: Path) -> dict[Path, str]:
    """Copy the set's files to `root/<owner>+<name>/<path>`; each laid-out path (resolved) -> its saved name."""
    placed: dict[Path, str] = {}
    for row in manifest(name):
        repo_dir = str(row["repo"]).replace("/", "+")
        dest = root / repo_dir / str(row["path"])
        if ".." in Path(str(row["path"])).parts or Path(str(row["path"])).is_absolute():
            raise ValueError(f"not a path inside a repository: {row['path']!r}")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(files / name / str(row["file"]), dest)
        placed[dest.resolve()] = str(row["file"])
    return placed


def _relative(placed: dict[Path, str], root: Path) -> list[str]:
    return sorted(p.relative_to(root.resolve()).as_posix() for p in placed)


def old_lines(diff: str) -> dict[str, set[int]]:
    """From a unified diff of one or more files: each old file's lines the diff removes or replaces."""
    out: dict[str, set[int]] = {}
    current, number, old_left, new_left = "", 0, 0, 0
    for raw in diff.splitlines():
        if old_left > 0 or new_left > 0:
            if raw.startswith("\\"):  # "\ No newline at end of file"
                continue
            mark = raw[:1]
            if mark == "-":
                out.setdefault(current, set()).add(number)
            if mark in ("-", " ", ""):
                number, old_left = number + 1, old_left - 1
            if mark in ("+", " ", ""):
                new_left -= 1
            continue
        if raw.startswith("--- "):
            current = raw[4:].split("\t")[0].strip()
        elif hunk := HUNK.match(raw):
            number = int(hunk["old"])
            old_left = int(hunk["old_n"]) if hunk["old_n"] is not None else 1
            new_left = int(hunk["new_n"]) if hunk["new_n"] is not None else 1
    return out


def changed_lines(old: str, new: str) -> set[int]:
    """The lines of `old` that the unified diff to `new` removes or replaces (as `diff -u` shows them)."""
    diff = "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), "a", "b", n=0))
    return old_lines(diff).get("a", set())


def _saved(placed: dict[Path, str], base: Path, path: str) -> str | None:
    return placed.get((base / path).resolve())


def run_ruff(bin_dir: Path, root: Path, placed: dict[Path, str], select: str) -> Outcome:
    """ruff's `select` rules on the laid-out files: each diagnostic's row."""
    cmd = ["ruff", "check", "--isolated", "--no-cache", "--exit-zero", "--select", select, "--output-format", "json"]
    out = Outcome(command=" ".join(cmd) + " FILES")
    got = _run([str(bin_dir / "ruff"), *cmd[1:], *_relative(placed, root)], cwd=root)
    if got.returncode != 0:
        raise ToolError(f"ruff exited {got.returncode}: {_last_line(got.stderr)}")
    for d in json.loads(got.stdout or "[]"):
        saved = _saved(placed, root, d["filename"])
        if saved is None:
            continue
        if not d.get("code"):  # a file ruff cannot parse is no finding
            out.problems.append(f"ruff could not parse {saved}:{d['location']['row']}")
            continue
        line = (saved, int(d["location"]["row"]))
        out.lines.add(line)
        out.by_code.setdefault(d["code"], set()).add(line)
    return out


def run_torchfix(bin_dir: Path, root: Path, placed: dict[Path, str]) -> Outcome:
    """TorchFix's every rule, no fixes: its flake8-style lines on stdout."""
    out = Outcome(command="torchfix --select ALL FILES")
    got = _run([str(bin_dir / "torchfix"), "--select", "ALL", *_relative(placed, root)], cwd=root)
    if got.returncode not in (0, 1):
        raise ToolError(f"torchfix exited {got.returncode}: {_last_line(got.stderr)}")
    for raw in got.stdout.splitlines():
        if m := FLAKE8_LINE.match(raw.strip()):
            saved = _saved(placed, root, m["path"])
            if saved is not None:
                line = (saved, int(m["line"]))
                out.lines.add(line)
                out.by_code.setdefault(m["code"], set()).add(line)
    return out


def run_bump_pydantic(bin_dir: Path, root: Path, placed: dict[Path, str], work: Path) -> Outcome:
    """bump-pydantic's diff, per repository, on a copy: the old lines it removes or replaces."""
    out = Outcome(command="bump-pydantic --diff <owner>+<name>")
    copy = work / "bump-pydantic"
    shutil.copytree(root, copy)
    # It prints the diff through rich: as wide a console as any line, so no line wraps (the padding is stripped)
    env = {**os.environ, "COLUMNS": "100000", "NO_COLOR": "1", "TERM": "dumb"}
    for repo in sorted(p.name for p in copy.iterdir() if p.is_dir()):
        log_file = work / f"bump-pydantic-{repo}.log"
        cmd = [str(bin_dir / "bump-pydantic"), "--diff", "--log-file", str(log_file), repo]
        got = _run(cmd, cwd=copy, env=env)
        if got.returncode in (0, 1):  # 1: it has a diff to show
            diff = "\n".join(line.rstrip() for line in got.stdout.splitlines())
            changed = old_lines(diff)
        else:  # rich reads `[/x]` in code as markup and stops: rewrite the copy and diff it as --diff would
            out.problems.append(f"bump-pydantic --diff on {repo} exited {got.returncode}; its rewrite diffed instead")
            rewrite = _run([str(bin_dir / "bump-pydantic"), "--log-file", str(log_file), repo], cwd=copy, env=env)
            if rewrite.returncode != 0:
                out.problems.append(
                    f"bump-pydantic on {repo} exited {rewrite.returncode}: {_last_line(rewrite.stderr)}"
                )
                continue
            changed = {
                rel: changed_lines((root / rel).read_text(encoding="utf-8"), (copy / rel).read_text(encoding="utf-8"))
                for rel in _relative(placed, root)
                if rel.startswith(repo + "/")
            }
        if log_file.is_file() and (errors := log_file.read_text(encoding="utf-8", errors="replace").strip()):
            out.problems.append(f"bump-pydantic on {repo}: {_last_line(errors)}")
        for path, numbers in changed.items():
            saved = _saved(placed, root, path)
            if saved is None:
                out.problems.append(f"bump-pydantic's diff names {path!r}, no file of the set")
                continue
            out.lines |= {(saved, n) for n in numbers}
    return out


def run_django_upgrade(bin_dir: Path, root: Path, placed: dict[Path, str], work: Path) -> Outcome:
    """django-upgrade on a copy: the old lines its rewrite removes or replaces."""
    out = Outcome(command="django-upgrade --target-version 5.2 FILES")
    copy = work / "django-upgrade"
    shutil.copytree(root, copy)
    files = _relative(placed, root)
    got = _run([str(bin_dir / "django-upgrade"), "--target-version", "5.2", *files], cwd=copy)
    if got.returncode not in (0, 1):  # 1: it rewrote a file
        raise ToolError(f"django-upgrade exited {got.returncode}: {_last_line(got.stderr)}")
    for rel in files:
        old = (root / rel).read_text(encoding="utf-8")
        new = (copy / rel).read_text(encoding="utf-8")
        saved = placed[(root / rel).resolve()]
        out.lines |= {(saved, n) for n in changed_lines(old, new)}
    return out


def _mypy_base(repo: Path, rel: Path) -> Path:
    """The folder mypy runs from for one file: the repository's, or below the last part that is no identifier."""
    base = repo
    for i, part in enumerate(rel.parts[:-1]):
        if not part.isidentifier():
            base = repo.joinpath(*rel.parts[: i + 1])
    return base


def run_mypy(bin_dir: Path, python: Path, name: str, root: Path, placed: dict[Path, str], work: Path) -> Outcome:
    """mypy against the set's new release, once per repository (or per folder mypy can name modules from)."""
    target = MYPY_TARGETS[name]
    config = work / f"mypy-{name}.ini"
    config.write_text(
        "[mypy]\nignore_missing_imports = True\n\n"
        + "".join(f"[mypy-{m},{m}.*]\nignore_missing_imports = False\n\n" for m in target.modules),
        encoding="utf-8",
    )
    cache = ENV_ROOT / "cache" / name
    flags = [
        "--check-untyped-defs",
        "--follow-imports=silent",
        "--enable-error-code",
        "deprecated",
        "--explicit-package-bases",
        "--config-file",
        str(config),
        "--cache-dir",
        str(cache),
        "--no-error-summary",
        "--show-error-codes",
        "--no-pretty",
        "--no-color-output",
    ]
    out = Outcome(
        command=f"mypy --python-executable data/peers-env/mypy-{name}/bin/python "
        + " ".join(flags)
        .replace(str(config), f"<tmp>/mypy-{name}.ini")
        .replace(str(cache), f"data/peers-env/cache/{name}")
        + " FILES"
    )
    groups: dict[Path, list[str]] = {}
    for path in placed:
        rel = path.relative_to(root.resolve())
        repo = root.resolve() / rel.parts[0]
        base = _mypy_base(repo, rel.relative_to(rel.parts[0]))
        groups.setdefault(base, []).append(path.relative_to(base).as_posix())
    for base, files in sorted(groups.items()):
        files = sorted(files)
        while files:
            got = _run([str(bin_dir / "mypy"), "--python-executable", str(python), *flags, *files], cwd=base)
            found: list[tuple[str, int, str]] = []
            broken: set[str] = set()
            for raw in got.stdout.splitlines():
                m = ERROR_LINE.match(raw)
                if not m or m["severity"] != "error":
                    continue
                code = m2["code"] if (m2 := ERROR_CODE.search(m["message"])) else ""
                if code == "syntax":
                    broken.add(m["path"])
                saved = _saved(placed, base, m["path"])
                if saved is not None:
                    found.append((saved, int(m["line"]), code))
            if got.returncode == 2 and broken & set(files):
                for path in sorted(broken & set(files)):
                    out.problems.append(f"mypy could not parse {_saved(placed, base, path) or path}: left out")
                files = [f for f in files if f not in broken]
                continue
            if got.returncode not in (0, 1):
                out.problems.append(
                    f"mypy in {base.relative_to(root)} exited {got.returncode}: {_last_line(got.stdout + got.stderr)}"
                )
                break
            for saved, number, code in found:
                line = (saved, number)
                (out.apart.setdefault("deprecated", set()) if code == "deprecated" else out.lines).add(line)
                out.by_code.setdefault(code or "?", set()).add(line)
            break
    return out


def planned(
    name: str, root: Path, placed: dict[Path, str], work: Path, notes: dict[str, str]
) -> list[tuple[str, Callable[[Path], Outcome]]]:
    """The tools for one set, in order (its own tool, then mypy), each a runner given the peers' bin folder; mypy's
    puts what its venv holds in `notes`."""
    tools: list[tuple[str, Callable[[Path], Outcome]]] = []
    own = OWN_TOOL.get(name)
    if own == "ruff NPY201":
        tools.append((own, lambda b: run_ruff(b, root, placed, "NPY201")))
    elif own == "ruff PD":
        tools.append((own, lambda b: run_ruff(b, root, placed, "PD")))
    elif own == "torchfix":
        tools.append((own, lambda b: run_torchfix(b, root, placed)))
    elif own == "bump-pydantic":
        tools.append((own, lambda b: run_bump_pydantic(b, root, placed, work / f"{name}-copies")))
    elif own == "django-upgrade":
        tools.append((own, lambda b: run_django_upgrade(b, root, placed, work / f"{name}-copies")))
    if name in MYPY_TARGETS:

        def mypy(b: Path) -> Outcome:
            python, held = mypy_env(name)
            notes["mypy"] = held
            return run_mypy(b, python, name, root, placed, work)

        tools.append(("mypy", mypy))
    return tools
