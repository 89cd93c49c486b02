"""The command line as users run it: JSON contracts, exit codes, bad input, no tracebacks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from chroma_server import index_env

from assistant.runtime.settings import Settings

ROOT = Path(__file__).resolve().parents[1]


def run(args: list[str], settings: Settings, stdin: str | None = None, **env: str) -> subprocess.CompletedProcess:
    environ = {
        **os.environ,
        "RELDOCS_CORPUS_DIR": str(settings.corpus_dir),
        "RELDOCS_DATA_DIR": str(settings.data_dir),
        **index_env(settings),
        **env,
    }
    return subprocess.run(
        [sys.executable, "app.py", *args], cwd=ROOT, env=environ, input=stdin, capture_output=True, text=True
    )


def test_ask_json_many_questions_from_stdin(settings: Settings, kb) -> None:
    questions = "What is the minimum CUDA version to build PyTorch 2.12 from source?\n\nHow do I bake bread?\n"
    out = run(["ask", "--json", "-"], settings, stdin=questions)
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(lines) == 2
    cuda, bread = lines
    assert set(cuda) >= {"question", "answer", "found", "citations", "timings_ms", "mode"}
    assert cuda["found"] and "12.6" in cuda["answer"] and cuda["mode"] == "extractive"
    fields = {"n", "title", "version", "kind", "section", "source", "url", "quote", "product"}
    assert set(cuda["citations"][0]) == fields and cuda["citations"][0]["product"] == "PyTorch"
    assert cuda["timings_ms"]["total"] > 0
    assert not bread["found"] and bread["citations"] == []
    assert "Traceback" not in out.stderr


def test_ask_text_shows_sources(settings: Settings, kb) -> None:
    out = run(["ask", "why does torchrun no longer use port 29500?"], settings)
    assert out.returncode == 0 and "[1]" in out.stdout and "Sources:" in out.stdout
    assert "pytorch/2.12.0/" in out.stdout


@pytest.mark.parametrize("args", [["ask", ""], ["ask", "   "], ["search", " "]])
def test_empty_question_exits_2(settings: Settings, args: list[str]) -> None:
    out = run(args, settings)
    assert out.returncode == 2 and "empty" in out.stderr and "Traceback" not in out.stderr


def test_overlong_question_is_truncated_cleanly(settings: Settings, kb) -> None:
    out = run(["ask", "--json", "torchrun port " * 400], settings)
    assert out.returncode == 0 and "truncated" in out.stderr
    answer = json.loads(out.stdout)
    assert len(answer["question"]) <= settings.max_question_chars
    assert f"cut to its first {settings.max_question_chars} characters" in answer["notice"]


@pytest.mark.slow  # the `app.py ingest` and `ask` it runs load the model (the session's export: `model_dir`)
@pytest.mark.usefixtures("model_dir")
def test_ingest_json_contract_and_bad_files(corpus_copy: Path, tmp_path: Path) -> None:
    (corpus_copy / "pytorch/2.12.0/latin1.md").write_bytes(b"# Notes\n\ncaf\xe9\n")
    (corpus_copy / "pytorch/2.12.0/blob.txt").write_bytes(b"\x00\x01\x02binary")
    (corpus_copy / "pytorch/2.12.0/front.md").write_text("---\ntitle: : :\n  bad: [\n---\n# T\n")
    settings = Settings(corpus_dir=corpus_copy, data_dir=tmp_path / "data")
    out = run(["ingest", "--json"], settings)
    assert out.returncode == 1, out.stderr
    report = json.loads(out.stdout)
    keys = {"files", "chunks", "added", "updated", "removed", "errors", "warnings", "documents", "seconds"}
    assert set(report) == keys
    assert {d["release_from"] for d in report["documents"]} <= {"front matter", "folder"}
    assert {e["file"] for e in report["errors"]} == {
        "pytorch/2.12.0/latin1.md",
        "pytorch/2.12.0/blob.txt",
        "pytorch/2.12.0/front.md",
    }
    assert report["files"] == 2 and report["added"] == report["chunks"] > 0
    asked = run(["ask", "--json", "What is the minimum CUDA version to build PyTorch 2.12 from source?"], settings)
    assert asked.returncode == 0 and "12.6" in json.loads(asked.stdout)["answer"]
    assert "Traceback" not in out.stderr + asked.stderr


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"RELDOCS_DATA_DIR": "FILE"}, "RELDOCS_DATA_DIR: FILE is a file, not a folder"),
        ({"RELDOCS_TOP_K": "many"}, "RELDOCS_TOP_K: Input should be a valid integer"),
    ],
)
def test_bad_settings_fail_at_once_in_one_line(tmp_path: Path, env: dict[str, str], message: str) -> None:
    """Checked before any work: no model load, no embedding of the corpus (which took minutes before failing)."""
    afile = tmp_path / "data.txt"
    afile.write_text("not a folder")
    env = {k: v.replace("FILE", str(afile)) for k, v in env.items()}
    settings = Settings(corpus_dir=ROOT / "corpus", data_dir=tmp_path / "data")
    out = run(["ask", "anything?"], settings, **env)
    assert out.returncode == 1 and message.replace("FILE", str(afile)) in out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert not (tmp_path / "data").exists()  # nothing was indexed


@pytest.mark.slow  # `app.py ask` loads the model while it finds the corpus missing (see app.open_knowledge_base)
@pytest.mark.usefixtures("model_dir")
def test_missing_corpus_is_one_line_error(tmp_path: Path) -> None:
    settings = Settings(corpus_dir=tmp_path / "nope", data_dir=tmp_path / "data")
    out = run(["ask", "anything?"], settings)
    assert out.returncode == 1 and "corpus folder not found" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.slow  # six interpreters started, one per command
def test_every_command_has_help_with_an_example() -> None:
    for command in ("ask", "ingest", "search", "web", "slack", "mcp"):
        out = subprocess.run([sys.executable, "app.py", command, "--help"], cwd=ROOT, capture_output=True, text=True)
        assert out.returncode == 0 and "Example" in out.stdout, command


def test_core_and_ask_never_load_interfaces(settings: Settings, kb) -> None:
    code = (
        "import sys, app; app.main(['ask', '--json', 'torchrun port?']); "
        "print('LOADED', sorted(m for m in ('gradio', 'slack_bolt', 'langchain_openai', 'mcp') if m in sys.modules))"
    )
    env = {**os.environ, "RELDOCS_CORPUS_DIR": str(settings.corpus_dir), "RELDOCS_DATA_DIR": str(settings.data_dir)}
    env |= index_env(settings)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert "LOADED []" in out.stdout, out.stdout + out.stderr


def test_products_lists_each_products_releases_files_and_where_they_were_read(settings: Settings, kb) -> None:
    out = run(["products", "--json", "--no-sync"], settings)
    assert out.returncode == 0, out.stderr
    (pytorch,) = json.loads(out.stdout)["products"]
    # the shipped files say their version in front matter, which wins over the folder that also says it
    assert pytorch["releases"] and {f["release_from"] for f in pytorch["files"]} == {"front matter"}
    assert all(f["releases"] for f in pytorch["files"])
    text = run(["products", "--no-sync"], settings).stdout
    assert text.startswith(f"{pytorch['name']}: releases ") and "(front matter)" in text
    assert run(["products", "--product", "nope", "--no-sync"], settings).returncode == 2
