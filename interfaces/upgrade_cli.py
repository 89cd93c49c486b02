"""The `upgrade` and `fetch` commands: parse, call the core (and ingest's fetch), render. `register(cli)` adds them
to app.py's group; the group's `obj` carries the settings and app.py's `open_kb` and `scan_progress`.

`upgrade --from A --to B` plans one product. `upgrade --requirements FILE [--against NEW | --to-latest]` and
`upgrade --lock-diff OLD NEW` plan every dependency that moved: `ingest.dependencies.prepare_upgrade` says what
moved and fetches the docs missing (none with `--offline`), the sync indexes them with the corpus, and
`KnowledgeBase.plan_dependencies` plans each bump, with its releases' code diffed (`interfaces.code_diff`, unless
`--no-code`), and scans the code once for all of them.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from assistant.runtime.settings import Settings
    from assistant.upgrade.bumps import Bump

EXIT_ERROR = 1
EXIT_USAGE = 2

FORMATS = click.Choice(["text", "markdown", "sarif", "json"])


def register(cli: click.Group) -> None:
    cli.add_command(upgrade)
    cli.add_command(fetch)


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@click.option("--from", "from_version", metavar="A", help="The version you run (need not be indexed).")
@click.option("--to", "to_version", metavar="B", help="The version you upgrade to.")
@click.option("--product", "product", metavar="P", help="The product (name or import name); needed among several.")
@click.option(
    "--requirements",
    "-r",
    "requirements",
    type=click.Path(exists=True, dir_okay=False),
    metavar="FILE",
    help="Plan each dependency FILE pins (requirements, pip freeze, pyproject.toml, uv.lock, poetry.lock).",
)
@click.option(
    "--against",
    type=click.Path(exists=True, dir_okay=False),
    metavar="NEW",
    help="With --requirements: up to the versions NEW pins.",
)
@click.option("--to-latest", is_flag=True, help="With --requirements: up to each package's newest release (default).")
@click.option(
    "--lock-diff",
    nargs=2,
    type=click.Path(exists=True, dir_okay=False),
    metavar="OLD NEW",
    help="Plan the packages that moved between two revisions of a lock or requirements file.",
)
@click.option(
    "--offline",
    is_flag=True,
    help="Fetch nothing: use the docs and release archives fetched already; say which are missing.",
)
@click.option(
    "--baseline",
    type=click.Path(exists=True, dir_okay=False),
    metavar="FILE",
    help="An earlier run's --json output: its findings (same file, change and code line) are not reported again.",
)
@click.option(
    "--all",
    "show_all",
    is_flag=True,
    help="List every change only the releases' code shows, not only those your code hits (JSON always does).",
)
@click.option(
    "--format",
    "fmt",
    type=FORMATS,
    default="text",
    show_default=True,
    help="text, hits first; markdown as a checklist; sarif 2.1.0 for code scanning.",
)
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option(
    "--comment-limit",
    type=click.IntRange(1000),
    metavar="N",
    help="Markdown of at most N characters (65536 fits a pull-request comment): the least severe cut first.",
)
@click.option("--full-report", metavar="URL", default="", help="Where the full report is, named when a comment is cut.")
@click.option(
    "--include-new", is_flag=True, help="List the new features too (by default: what breaks or is deprecated)."
)
@click.option(
    "--no-code",
    is_flag=True,
    help="Plan from the release docs alone: fetch and diff no release's code (quicker over many packages).",
)
@click.option("--no-sync", is_flag=True, help="Use the index as it is, even if the corpus changed.")
@click.pass_obj
def upgrade(
    obj: dict,
    paths: tuple[str, ...],
    from_version: str | None,
    to_version: str | None,
    product: str | None,
    requirements: str | None,
    against: str | None,
    to_latest: bool,
    lock_diff: tuple[str, str] | None,
    offline: bool,
    fmt: str,
    as_json: bool,
    comment_limit: int | None,
    full_report: str,
    include_new: bool,
    no_sync: bool,
    baseline: str | None,
    show_all: bool,
    no_code: bool,
) -> None:
    """What the docs say changes from A to B, and where it hits your code (PATH: .py files, notebooks, folders).

    The releases' own code is compared too: their source distributions are fetched from the package registry
    (unless --offline) and their public APIs diffed without running anything; each change says whether the docs,
    the code or both show it. The changes your code hits come first, each with its lines and fix; then what
    breaks, then deprecations. `# reldocs: ignore[ID]` on a line silences it; --baseline FILE silences an
    earlier run's findings.
    With --requirements or --lock-diff: the plan for every dependency that moved, worst first, from its docs and
    its releases' code; the release docs and archives missing are fetched from the package registry first
    (unless --offline), the docs then indexed with the corpus. --no-code plans from the docs alone.

    Exits 0 when nothing in the code is hit, 1 when something is (possible hits, through a receiver of
    unknown type, are shown but do not fail), 2 on bad usage (an unknown product, A not before B, a dependency
    file that cannot be read).

    \b
    Examples:
      python app.py upgrade --from 2.10 --to 2.12
      python app.py upgrade --product pandas --from 2.2 --to 3.0 src/ notebooks/
      python app.py upgrade --from 2.10 --to 2.12 --format sarif src/ > reldocs.sarif
      python app.py upgrade --requirements requirements.txt --to-latest src/
      python app.py upgrade --lock-diff old/uv.lock uv.lock --format markdown --comment-limit 65536 src/
    """
    fmt = "json" if as_json else fmt
    if requirements or lock_diff:
        if from_version or to_version or product:
            raise click.UsageError("--from/--to/--product plan one product; --requirements and --lock-diff plan each")
        if baseline:
            raise click.UsageError("--baseline goes with --from/--to (one product's plan)")
        code = upgrade_dependencies(
            obj,
            paths,
            fmt=fmt,
            include_new=include_new,
            no_sync=no_sync,
            requirements=requirements,
            against=against,
            to_latest=to_latest,
            lock_diff=lock_diff or None,
            offline=offline,
            comment_limit=comment_limit,
            full_report=full_report,
            with_code=not no_code,
            show_all=show_all,
        )
        sys.exit(code)
    if against or to_latest:
        raise click.UsageError("--against and --to-latest go with --requirements or --lock-diff")
    if not from_version or not to_version:
        raise click.UsageError("give --from A --to B, or --requirements FILE, or --lock-diff OLD NEW")
    code = upgrade_product(
        obj,
        paths,
        a=from_version,
        b=to_version,
        product=product,
        fmt=fmt,
        include_new=include_new,
        no_sync=no_sync,
        offline=offline,
        show_all=show_all,
        baseline=baseline,
        with_code=not no_code,
    )
    sys.exit(code)


def upgrade_product(
    obj: dict,
    paths: tuple[str, ...],
    *,
    a: str,
    b: str,
    product: str | None,
    fmt: str,
    include_new: bool,
    no_sync: bool,
    offline: bool = False,
    show_all: bool = False,
    baseline: str | None = None,
    with_code: bool = True,
) -> int:
    """`upgrade --from A --to B`: one product's plan, from its docs and its releases' code, and the code's hits;
    the exit status."""
    from assistant.upgrade.baseline import BaselineError, read_baseline, without
    from assistant.upgrade.plan import PlanError
    from interfaces.code_diff import code_diff, product_to_diff

    try:
        accepted = read_baseline(Path(baseline).read_bytes()) if baseline else frozenset()
    except (BaselineError, OSError) as e:
        raise click.UsageError(f"--baseline {baseline}: {e}") from e
    kb = obj["open_kb"](obj["settings"], sync_first=not no_sync, quiet=fmt != "text")
    name = product_to_diff(kb, product) if with_code else None
    diff, notes = code_diff(kb, name, a, b, offline=offline, say=_say, paths=paths)
    try:
        plan = kb.plan(a, b, product=product or (diff.product if diff else None), code=diff, notes=notes)
    except PlanError as e:
        raise click.UsageError(str(e)) from e
    report = kb.scan(paths, plan, progress=obj["scan_progress"], parallel=True) if paths else None
    report = without(report, accepted) if report and accepted else report
    findings, errors = (report.findings, report.errors) if report else ((), ())
    if fmt == "sarif":
        from interfaces.sarif import plan_sarif

        click.echo(plan_sarif(plan, findings, errors))
    else:
        from interfaces import upgrade_render as render

        show = {"text": render.plan_text, "markdown": render.plan_markdown, "json": render.plan_json}[fmt]
        click.echo(show(plan, findings, errors, include_new=include_new, show_all=show_all))
    return EXIT_ERROR if any(f.exact for f in findings) else 0


def upgrade_dependencies(
    obj: dict,
    paths: tuple[str, ...],
    *,
    fmt: str,
    include_new: bool,
    no_sync: bool,
    requirements: str | None,
    against: str | None,
    to_latest: bool,
    lock_diff: tuple[str, str] | None,
    offline: bool,
    comment_limit: int | None,
    full_report: str,
    with_code: bool = True,
    show_all: bool = False,
) -> int:
    """Every dependency bump planned, the missing docs fetched first (`prepare_upgrade`); the exit status (as
    `upgrade_product`'s)."""
    from assistant.upgrade.bumps import Bump
    from ingest.dependencies import prepare_upgrade
    from ingest.dependencies.pins import PinsError
    from interfaces import dependency_render as render
    from interfaces.fetch_render import package_line

    settings: Settings = obj["settings"]
    if requirements and lock_diff:
        raise click.UsageError("give --requirements FILE or --lock-diff OLD NEW, not both")
    if against and to_latest:
        raise click.UsageError("--against NEW or --to-latest, not both")
    if lock_diff and (against or to_latest):
        raise click.UsageError("--against and --to-latest go with --requirements")
    old_file, new_file = lock_diff or (requirements, against)
    try:
        inputs = prepare_upgrade(
            settings,
            Path(str(old_file)),
            Path(new_file) if new_file else None,
            offline=offline,
            on_package=lambda p: click.echo(package_line(p), err=True),
        )
    except PinsError as e:
        raise click.UsageError(str(e)) from e
    for line in [f"error: {p}" for p in inputs.problems] + list(inputs.missing):  # the rest is planned all the same
        _say(line)
    kb = obj["open_kb"](settings, sync_first=not no_sync, quiet=fmt != "text")
    bumps = [Bump(m.name, m.before, m.after) for m in inputs.moves]
    diffs, notes = _code_diffs(kb, bumps, offline=offline, paths=paths) if with_code else ({}, {})
    report = kb.plan_dependencies(
        bumps, paths, progress=obj["scan_progress"], parallel=True, no_docs=inputs.no_docs, code=diffs, notes=notes
    )
    if fmt == "sarif":
        click.echo(render.report_sarif(report))
    elif fmt == "json":
        errors = [{"file": p.file, "line": p.line, "error": p.problem} for p in inputs.problems]
        errors += [{"file": "", "error": line} for line in inputs.missing]
        click.echo(render.report_json(report, urls=inputs.urls, problems=errors, include_new=include_new))
    elif fmt == "markdown":
        click.echo(
            render.report_markdown(
                report, limit=comment_limit, full_report=full_report, include_new=include_new, show_all=show_all
            )
        )
    else:
        click.echo(render.report_text(report, include_new=include_new, show_all=show_all))
    return EXIT_ERROR if any(p.hits for p in report.packages) else 0


def _code_diffs(
    kb: Any, bumps: Sequence[Bump], *, offline: bool, paths: Sequence[str] = ()
) -> tuple[dict[str, Any], dict[str, tuple[str, ...]]]:
    """Each forward bump's code diff (`code_diff`, with the names the code under `paths` takes that the newer
    release lacks) by registry name, and the notes of those missing or partial; progress and problems on stderr,
    one line each."""
    from interfaces.code_diff import code_diff

    diffs, notes = {}, {}
    for bump in (b for b in bumps if b.forward):  # added, removed or gone back: nothing to diff
        a, b = str(bump.from_version), str(bump.to_version)
        diff, said = code_diff(kb, bump.name, a, b, offline=offline, say=_say, paths=paths)
        if diff is not None:
            diffs[bump.name] = diff
        if said:
            notes[bump.name] = said
    return diffs, notes


def _say(line: str) -> None:
    """Progress or a problem, one line on stderr."""
    click.echo(_line(line), err=True)


def _line(text: str) -> str:
    from assistant.text.untrusted import one_line

    return one_line(text)


@click.command()
@click.argument("names", nargs=-1)
@click.option(
    "--requirements",
    "-r",
    "files",
    multiple=True,
    metavar="FILE",
    help="A requirements file, pip freeze output, pyproject.toml, uv.lock or poetry.lock (repeatable).",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object: the packages and the input's errors.")
@click.pass_obj
def fetch(obj: dict, names: tuple[str, ...], files: tuple[str, ...], as_json: bool) -> None:
    """Fetch the release docs of packages (NAME or NAME==VERSION) or of a project's pins from the package registry.

    Each package's newest release (or the one named) is read from its source distribution, never run, or from
    its changelog link; its docs go to RELDOCS_FETCHED_DIR (default data/fetched-docs), which the next ingest
    indexes with the corpus. A pinned package's report says which releases after the pin its docs name. A second
    fetch of the same releases downloads no archive.

    Exits 0 when every package got docs, 1 when some did not, 2 on bad input (a missing file, a line that is no
    requirement: named in one line, the rest fetched anyway).

    \b
    Examples:
      python app.py fetch flask requests==2.31.0
      python app.py fetch --requirements requirements.txt
      python app.py fetch -r pyproject.toml -r uv.lock --json
    """
    from ingest.dependencies import fetch_docs, read_all, wanted_from, wanted_from_names
    from interfaces.fetch_render import fetch_json, fetch_summary, package_line

    settings: Settings = obj["settings"]
    if not names and not files:
        raise click.UsageError("name packages or give --requirements FILE")
    wanted, errors = wanted_from_names(names)
    pins = read_all([Path(f) for f in files])
    wanted += wanted_from(pins.pins)
    errors += pins.problems
    for e in errors:  # said first, in one line each: the rest is fetched all the same
        click.echo(_line(f"error: {e}"), err=True)

    def progress(package) -> None:
        click.echo(package_line(package), err=True)

    report = fetch_docs(wanted, settings=settings, on_package=progress, errors=errors)
    click.echo(fetch_json(report) if as_json else fetch_summary(report, settings.fetched_path))
    if errors:
        sys.exit(EXIT_USAGE)
    if any(not p.files for p in report.packages):
        sys.exit(EXIT_ERROR)
