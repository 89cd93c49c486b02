"""What a project pins, read from each dependency file format; a broken line is named with its file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.dependencies import Pin, read_pins, wanted_from
from ingest.dependencies.pins import PinsError, dependencies


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def short(pins: tuple[Pin, ...] | list[Pin]) -> list[tuple[str, str | None, bool, int]]:
    return [(p.name, p.version, p.exact, p.line) for p in pins]


def test_requirements_with_includes_extras_markers_hashes_and_options(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()  # the project: `-r ../base.txt` stays inside it
    write(tmp_path, "reqs/base.txt", "Flask==2.0.1  # the web app\nrequests[socks]~=2.25\n")
    write(tmp_path, "reqs/constraints.txt", "SQLAlchemy==1.4.0\nnot pinned here==\n")
    path = write(
        tmp_path,
        "reqs/dev/requirements-dev.txt",
        "-i https://example.org/simple\n--extra-index-url https://example.org/other\n"
        "-r ../base.txt\n-c ../constraints.txt\n"
        "# a comment\n\n"
        "pytest>=7.0,<9 ; python_version >= '3.8'\n"
        "attrs==23.1.0 \\\n    --hash=sha256:aaaa \\\n    --hash=sha256:bbbb\n"
        "-e git+https://github.com/o/r.git#egg=local\n"
        "sqlalchemy\n"
        "python_dateutil===2.8.2\n"
        "jinja2 @ https://example.org/jinja2-3.0.tar.gz\n"
        "this is not a requirement\n"
        "click<8\n",
    )
    read = read_pins(path)
    assert short(dependencies(read.pins)) == [
        ("flask", "2.0.1", True, 1),
        ("requests", "2.25", False, 2),
        ("pytest", "7.0", False, 7),
        ("attrs", "23.1.0", True, 8),
        ("sqlalchemy", "1.4.0", True, 1),  # the version the constraints file gives it
        ("python-dateutil", "2.8.2", True, 13),
        ("jinja2", None, False, 14),
        ("click", None, False, 16),
    ]
    pytest_pin = next(p for p in read.pins if p.name == "pytest")
    assert pytest_pin.spec == "<9,>=7.0" and pytest_pin.marker == 'python_version >= "3.8"'
    # packaging's own words say why, after the line's place; the line's text is not repeated
    assert [(p.file, p.line, p.problem.startswith("not a requirement (")) for p in read.problems] == [
        (str(tmp_path / "reqs/constraints.txt"), 2, True),
        (str(path), 15, True),
    ]
    assert not any("not pinned here" in p.problem or "this is not" in p.problem for p in read.problems)
    assert [w.name for w in wanted_from(read.pins)][:2] == ["flask", "requests"]


def test_include_cycles_and_missing_includes_are_problems_not_errors(tmp_path: Path) -> None:
    a = write(tmp_path, "a.txt", "-r b.txt\nsix==1.16.0\n-r missing.txt\n")
    write(tmp_path, "b.txt", "--requirement=a.txt\nidna==3.4\n")
    read = read_pins(a)
    assert short(read.pins) == [("idna", "3.4", True, 2), ("six", "1.16.0", True, 2)]
    assert [str(p) for p in read.problems] == [
        f"{tmp_path / 'b.txt'}:1: --requirement include not read: already read",
        f"{tmp_path / 'missing.txt'}: no such file",
    ]
    with pytest.raises(PinsError, match="no such file"):
        read_pins(tmp_path / "nowhere.txt")


def test_includes_stay_inside_the_project_and_lines_are_not_echoed(tmp_path: Path) -> None:
    secret = write(tmp_path, "elsewhere/secret.txt", "leaked==1.0\n")
    project = tmp_path / "project"
    (project / "pyproject.toml").parent.mkdir()
    (project / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    write(project, "requirements/base.txt", "idna==3.4\n")
    path = write(
        project,
        "requirements/dev.txt",
        f"-r {secret}\n-r ../../elsewhere/secret.txt\n-c ../requirements/base.txt\n"
        f"-r {tmp_path / 'project' / 'requirements' / 'base.txt'}\n"
        "token=" + "s3cret" * 40 + "\n",
    )
    read = read_pins(path)
    assert short(read.pins) == [("idna", "3.4", True, 1)]
    assert [(p.line, p.problem) for p in read.problems] == [
        (1, "-r include not read: an absolute path"),
        (2, f"-r include not read: it leads outside the project folder {project}"),
        (4, "-r include not read: an absolute path"),
        (5, read.problems[-1].problem),
    ]
    assert read.problems[-1].problem.startswith("not a requirement (") and "s3cret" not in read.problems[-1].problem
    assert len(read.problems[-1].problem) <= 100
    alone = write(tmp_path, "loose/requirements.txt", "-r ../elsewhere/secret.txt\n")  # no project: its folder
    assert [p.problem for p in read_pins(alone).problems] == [
        f"-r include not read: it leads outside the project folder {tmp_path / 'loose'}"
    ]


def test_pip_freeze_output(tmp_path: Path) -> None:
    freeze = "certifi==2024.2.2\n-e git+https://github.com/o/r@abc#egg=mine\nlocal @ file:///src/local\nzipp==3.17.0\n"
    read = read_pins(write(tmp_path, "frozen.txt", freeze))
    assert short(read.pins) == [
        ("certifi", "2024.2.2", True, 1),
        ("local", None, False, 3),
        ("zipp", "3.17.0", True, 4),
    ]
    assert read.problems == ()


PYPROJECT = """\
[project]
name = "app"
dependencies = [
  "Flask>=2.0.1",
  "requests==2.25.1",
  "bad requirement here",
]

[project.optional-dependencies]
dates = ["arrow~=1.0"]

[dependency-groups]
test = ["pytest==7.0.0", {include-group = "lint"}]
lint = ["ruff>=0.8"]

[tool.poetry.dependencies]
python = "^3.11"
pydantic = "^1.10.2"
click = {version = "7.1.2", optional = true}
mine = {git = "https://github.com/o/r.git"}
celery = ">= 5.0, < 6 || 4.4.7"
broken = "^not.a.version"

[tool.poetry.group.dev.dependencies]
marshmallow = "~3.10.0"
"""


def test_pyproject_tables(tmp_path: Path) -> None:
    read = read_pins(write(tmp_path, "pyproject.toml", PYPROJECT))
    assert short(read.pins) == [
        ("flask", "2.0.1", False, 4),
        ("requests", "2.25.1", True, 5),
        ("arrow", "1.0", False, 10),
        ("pytest", "7.0.0", True, 13),
        ("ruff", "0.8", False, 14),
        ("pydantic", "1.10.2", False, 18),
        ("click", "7.1.2", True, 19),
        ("celery", "4.4.7", False, 21),
        ("marshmallow", "3.10.0", False, 25),
    ]
    assert [(p.line, p.problem.split(" (")[0]) for p in read.problems] == [
        (6, "not a requirement"),
        (22, "broken: not a version constraint"),
    ]


def test_lock_files(tmp_path: Path) -> None:
    uv = (
        'version = 1\n\n[[package]]\nname = "app"\nversion = "0.1.0"\nsource = { editable = "." }\n\n'
        '[[package]]\nname = "Flask"\nversion = "2.0.1"\nsource = { registry = "https://pypi.org/simple" }\n\n'
        '[[package]]\nname = "odd"\nversion = "not-a-version"\nsource = { registry = "https://pypi.org/simple" }\n'
    )
    read = read_pins(write(tmp_path, "uv.lock", uv))
    assert short(read.pins) == [("flask", "2.0.1", True, 9)]
    assert [str(p) for p in read.problems] == [f"{tmp_path / 'uv.lock'}:14: odd: 'not-a-version' is not a version"]
    poetry = (
        '[[package]]\nname = "requests"\nversion = "2.25.1"\ndescription = "HTTP"\n\n'
        '[[package]]\nname = "mine"\nversion = "0.1"\n\n[package.source]\ntype = "git"\nurl = "https://x/y.git"\n\n'
        '[[package]]\nname = "Jinja2"\nversion = "2.11.3"\n\n[metadata]\nlock-version = "2.0"\n'
    )
    read = read_pins(write(tmp_path / "p", "poetry.lock", poetry))
    assert short(read.pins) == [("requests", "2.25.1", True, 2), ("jinja2", "2.11.3", True, 15)]


def test_unreadable_files_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(PinsError, match="not TOML"):
        read_pins(write(tmp_path, "pyproject.toml", "[project\n"))
    (tmp_path / "bin.txt").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(PinsError, match="not UTF-8"):
        read_pins(tmp_path / "bin.txt")
