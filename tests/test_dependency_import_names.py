"""Which top-level import names an unpacked release provides and where they sit (`import_names.resolve`), on
small trees the tests write: `top_level.txt`, `src/` and `lib/` layouts, a root with tests, docs and tooling
beside the code. The provenance record's names, through the fetch, are in `test_dependency_sources.py`."""

from __future__ import annotations

from pathlib import Path

from ingest.dependencies.import_names import resolve


def tree_of(folder: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return folder


def test_top_level_txt_names_the_packages_and_what_is_absent_is_dropped(tmp_path: Path) -> None:
    folder = tree_of(
        tmp_path,
        {
            "acme_tools.egg-info/top_level.txt": b"acmelib\n_acme_speedups\ntests\n",  # compiled-only: absent
            "acmelib/__init__.py": b"",
            "acme_tools/__init__.py": b"",  # named as the product, but top_level.txt comes first
            "tests/__init__.py": b"",
        },
    )
    assert resolve(folder, "acme-tools") == (folder, ("acmelib", "tests"))
    (folder / "acme_tools.egg-info" / "top_level.txt").write_bytes(b"_acme_speedups\n")
    assert resolve(folder, "acme-tools") == (folder, ("acme_tools", "acmelib"))  # none there: the folders decide


def test_src_and_lib_layouts_root_there(tmp_path: Path) -> None:
    beside = {"tests/__init__.py": b"", "docs/conf.py": b"", "conftest.py": b""}
    folder = tree_of(tmp_path / "src", {"src/acme/__init__.py": b"", "src/acme/core.py": b"", **beside})
    assert resolve(folder, "acme") == (folder / "src", ("acme",))
    # SQLAlchemy's layout, its top_level.txt beside the package
    files = {"lib/acme/__init__.py": b"", "lib/Acme.egg-info/top_level.txt": b"acme\n", **beside}
    folder = tree_of(tmp_path / "lib", files)
    assert resolve(folder, "acme") == (folder / "lib", ("acme",))
    (folder / "lib" / "Acme.egg-info" / "top_level.txt").unlink()
    assert resolve(folder, "acme") == (folder / "lib", ("acme",))


def test_root_layout_skips_tests_docs_and_tooling_and_puts_the_product_s_name_first(tmp_path: Path) -> None:
    beside = {
        "setup.py": b"",
        "conftest.py": b"",
        "versioneer.py": b"",
        "tests/__init__.py": b"",
        "docs/__init__.py": b"",
        "asv_bench/__init__.py": b"",
        "scripts/__init__.py": b"",
        "ci/__init__.py": b"",
        "data/readme.py": b"",  # a folder without __init__: no package
    }
    folder = tree_of(tmp_path / "one", {**beside, "acme/__init__.pyi": b"", "acme_old/__init__.py": b""})
    assert resolve(folder, "Acme") == (folder, ("acme", "acme_old"))  # the product's own name first
    folder = tree_of(tmp_path / "two", {**beside, "roadrunner/__init__.py": b"", "coyote/__init__.py": b""})
    assert resolve(folder, "acme") == (folder, ("coyote", "roadrunner"))
    folder = tree_of(tmp_path / "three", {**beside, "acme.py": b""})  # a one-module distribution (six)
    assert resolve(folder, "acme") == (folder, ("acme",))
    assert resolve(tree_of(tmp_path / "four", beside), "acme") is None
