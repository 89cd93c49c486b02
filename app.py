"""reldocs: ask release docs what breaks when you upgrade. Composition root and command line.

Builds the Settings and the knowledge base once and hands them to an interface; interfaces are
imported only by their own command, so `python app.py ask` never loads gradio or slack_bolt.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

import click

from assistant.model.errors import ReldocsError
from assistant.runtime.settings import Settings, load_settings
from interfaces.upgrade_cli import register as register_upgrade

if TYPE_CHECKING:
    from ingest.sync import SyncReport

logger = logging.getLogger("reldocs")

EXIT_ERROR = 1
EXIT_USAGE = 2


def open_knowledge_base(settings: Settings, *, sync_first: bool = True, quiet: bool = False):
    """Sync the index when the corpus changed (with progress on stderr), then load it."""
    from assistant.embed.embedder import make_embedder
    from assistant.knowledge_base import KnowledgeBase
    from assistant.model.errors import WriterBusy
    from ingest import is_current, sync

    embedder = None  # loaded by KnowledgeBase.open while it reads the index, unless a sync needs it first
    if sync_first and not is_current(settings):
        embedder = make_embedder(settings)  # one model for sync and answers
        if not quiet:
            click.echo(f"Indexing {settings.corpus_dir} …", err=True)
        try:
            report = sync(settings, progress=not quiet, embedder=embedder)
            _echo_problems(report, skipped="warning: skipped")
        except WriterBusy:  # another replica is syncing: serve what is live; its generation is picked up when made live
            click.echo("warning: another ingest is writing the index; serving the generation live now", err=True)
    return KnowledgeBase.open(settings, embedder=embedder)


def _echo_problems(report: SyncReport, *, skipped: str) -> None:
    """One stderr line per skipped file and per metadata field ingest cleaned or dropped (that file was indexed)."""
    from assistant.text.untrusted import one_line

    def echo(line: str) -> None:  # file names come from the docs' authors too: nothing a terminal acts on
        click.echo(one_line(line), err=True)

    for e in report.errors:
        echo(f"{skipped} {e['file']}: {e['error']}")
    for w in report.warnings:
        echo(f"warning: {w['file']}: {w['field']}: {w['problem']}")


def _scan_progress(files: list) -> Iterator:
    """A progress bar on stderr while the code is scanned (none when stderr is not a terminal)."""
    from tqdm import tqdm

    return iter(tqdm(files, desc="Scanning", unit="file", disable=None, file=sys.stderr, leave=False))


def _check_product(kb, product: str | None) -> None:
    if product and not kb.has_product(product):
        raise click.UsageError(f"no product {product!r} is indexed; indexed: {', '.join(kb.products()) or 'none'}")


def _questions(words: tuple[str, ...]) -> Iterator[str]:
    if words == ("-",):
        for line in sys.stdin:
            if line.strip():
                yield line.strip()
    else:
        yield " ".join(words)


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-v", "--verbose", is_flag=True, help="Log what happens, including full error tracebacks.")
@click.pass_context
def cli(ctx: click.Context, verbose: bool) -> None:
    """Answers upgrade questions from release notes and migration guides, with cited sources.

    \b
    Examples:
      python app.py ask "What is the minimum CUDA version to build PyTorch 2.12 from source?"
      python app.py ingest
      python app.py            # the web UI on http://127.0.0.1:7860, MCP at /mcp
      python app.py mcp        # MCP over stdio, for desktop clients and IDEs
    """
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s"
    )
    # griffe logs what it cannot resolve in a release's own source while the API diff loads it: nothing in the
    # user's code, nothing they can act on; shown with --verbose only.
    logging.getLogger("griffe").setLevel(logging.INFO if verbose else logging.CRITICAL)
    # A bad RELDOCS_* value fails here, in one line; the commands interfaces register open the index as these do.
    ctx.obj = {
        "settings": load_settings(),
        "verbose": verbose,
        "open_kb": open_knowledge_base,
        "scan_progress": _scan_progress,
    }
    if ctx.invoked_subcommand is None:
        ctx.invoke(web)


@cli.command()
@click.argument("question", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per question per line.")
@click.option("--version", "version", metavar="V", help="Only use docs of this version, e.g. 2.11 or 2.11.0.")
@click.option("--product", "product", metavar="P", help="Only use docs of this product (name or import name).")
@click.option("--no-sync", is_flag=True, help="Use the index as it is, even if the corpus changed.")
@click.pass_obj
def ask(
    obj: dict, question: tuple[str, ...], as_json: bool, version: str | None, product: str | None, no_sync: bool
) -> None:
    """Answer QUESTION from the docs; '-' reads one question per line from stdin.

    \b
    Examples:
      python app.py ask "why does torchrun no longer use port 29500?"
      python app.py ask --version 2.11 "What was deprecated?"
      python app.py ask --product pandas "What replaces DataFrame.append?"
      printf 'What breaks in 2.12?\\nQuel optimiseur supporte fused=True ?\\n' | python app.py ask --json -
    """
    from assistant.model.errors import IndexUnavailable
    from interfaces.terminal import answer_json, answer_text

    settings: Settings = obj["settings"]
    if question != ("-",) and not " ".join(question).strip():
        raise click.UsageError("the question is empty")
    kb = open_knowledge_base(settings, sync_first=not no_sync, quiet=as_json)
    _check_product(kb, product)
    asked = unanswered = 0
    for text in _questions(question):
        asked += 1
        if as_json and len(text) > settings.max_question_chars:  # the text form shows the answer's own notice
            click.echo(f"note: question truncated to {settings.max_question_chars} characters", err=True)
        try:
            answer = kb.ask(text, version=version, product=product)
        except IndexUnavailable as e:  # the server went away mid-stream: say so, try the next question
            click.echo(f"error: {e}", err=True)
            unanswered += 1
            continue
        click.echo(answer_json(answer) if as_json else answer_text(answer) + ("\n" if question == ("-",) else ""))
    if not asked:
        raise click.UsageError("no question given on stdin")
    if unanswered:
        sys.exit(EXIT_ERROR)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the sync report as one JSON object.")
@click.option("--rebuild", is_flag=True, help="Re-embed everything instead of syncing changes.")
@click.pass_obj
def ingest(obj: dict, as_json: bool, rebuild: bool) -> None:
    """Sync the corpus folder into the index (only changed files are embedded again).

    Exits 1 when a file could not be indexed; the others are indexed anyway. Metadata that fails its
    check (a non-http(s) url, a version that is no version) is dropped with a warning, not an error.
    Exits 1 with one line when another ingest is writing the same index (RELDOCS_WRITER_WAIT_S waits).
    With RELDOCS_CHROMA_URL set, the index (and its manifest) is on that Chroma server.

    \b
    Examples:
      python app.py ingest
      RELDOCS_CORPUS_DIR=~/docs python app.py ingest --json
      RELDOCS_CHROMA_URL=http://10.0.0.5:8000 python app.py ingest
    """
    import json

    from ingest import sync

    settings: Settings = obj["settings"]
    report = sync(settings, rebuild=rebuild, progress=not as_json)
    if as_json:
        click.echo(json.dumps(report.to_dict()))
    else:
        click.echo(
            f"{report.files} files, {report.chunks} chunks: {report.added} added, {report.updated} updated, "
            f"{report.removed} removed in {report.seconds:.1f}s"
        )
        _echo_problems(report, skipped="skipped")
    if report.errors:  # warnings leave the exit status alone
        sys.exit(EXIT_ERROR)


@cli.command()
@click.option("--product", "product", metavar="P", help="Only this product (its name, module or alias).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--no-sync", is_flag=True, help="List the index as it is, without syncing the corpus first.")
@click.pass_obj
def products(obj: dict, product: str | None, as_json: bool, no_sync: bool) -> None:
    """List each indexed product with its releases and files, and where each file's release was read.

    \b
    Examples:
      python app.py products
      python app.py products --product acme --json
    """
    from interfaces.terminal import products_json, products_text

    kb = open_knowledge_base(obj["settings"], sync_first=not no_sync, quiet=as_json)
    _check_product(kb, product)
    files, releases = kb.files(product), kb.products(product)
    click.echo(products_json(files, releases) if as_json else products_text(files, releases))


@cli.command()
@click.argument("query", nargs=-1, required=True)
@click.option("-k", "k", default=5, show_default=True, type=click.IntRange(1, 50), help="Passages to show.")
@click.option("--version", "version", metavar="V", help="Only search docs of this version.")
@click.option("--product", "product", metavar="P", help="Only search docs of this product.")
@click.option("--json", "as_json", is_flag=True, help="Print passages as a JSON array.")
@click.pass_obj
def search(obj: dict, query: tuple[str, ...], k: int, version: str | None, product: str | None, as_json: bool) -> None:
    """Show the passages hybrid search finds for QUERY, with their scores.

    \b
    Example:
      python app.py search max_autotune_defer_layout_freezing
    """
    from interfaces.terminal import passages_json, passages_text

    text = " ".join(query).strip()
    if not text:
        raise click.UsageError("the query is empty")
    kb = open_knowledge_base(obj["settings"], quiet=as_json)
    _check_product(kb, product)
    passages = kb.search(text, k=k, version=version, product=product)
    click.echo(passages_json(passages) if as_json else passages_text(passages))


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind; set RELDOCS_WEB_AUTH first.")
@click.option("--port", default=7860, show_default=True, type=int, help="Port to serve on.")
@click.pass_obj
def web(obj: dict, host: str, port: int) -> None:
    """Serve the chat UI (Gradio), and MCP tools at /mcp, over the knowledge base.

    \b
    Example:
      python app.py web --port 7860
    """
    from interfaces.web import serve

    settings: Settings = obj["settings"]
    serve(open_knowledge_base(settings), settings, host=host, port=port)


@cli.command()
@click.option("--no-sync", is_flag=True, help="Use the index as it is, even if the corpus changed.")
@click.pass_obj
def mcp(obj: dict, no_sync: bool) -> None:
    """Serve MCP tools over stdio, for desktop clients and IDEs.

    The tools are ask, search, versions and upgrade_plan. The client (Claude Desktop, an IDE) starts it;
    stdout carries only the protocol, indexing progress and logs go to stderr. `python app.py web` serves
    the same tools over HTTP at /mcp.

    \b
    Example (a client's configuration):
      {"mcpServers": {"reldocs": {"command": "python", "args": ["/path/to/app.py", "mcp"]}}}
    """
    import contextlib

    from interfaces.mcp_server import serve_stdio

    with contextlib.redirect_stdout(sys.stderr):  # a library's print while loading must not break the protocol
        kb = open_knowledge_base(obj["settings"], sync_first=not no_sync)
    serve_stdio(kb)


@cli.command()
@click.option("--http", "use_http", is_flag=True, help="Serve the Events API over HTTP instead of Socket Mode.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface for --http (behind your proxy).")
@click.option("--port", default=3000, show_default=True, type=int, help="Port for --http.")
@click.pass_obj
def slack(obj: dict, use_http: bool, host: str, port: int) -> None:
    """Run the Slack bot (Socket Mode when SLACK_APP_TOKEN is set, else --http).

    \b
    Example:
      SLACK_BOT_TOKEN=xoxb-… SLACK_APP_TOKEN=xapp-… python app.py slack
    """
    from interfaces.slack import preflight, run

    settings: Settings = obj["settings"]
    preflight(http=use_http)  # a missing token fails in a second, before the model loads
    run(open_knowledge_base(settings), settings, http=use_http, host=host, port=port)


register_upgrade(cli)  # `upgrade` and `fetch`: interfaces/upgrade_cli.py


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; errors become one line on stderr and an exit status, never a traceback."""
    try:
        cli.main(args=argv, prog_name="app.py", standalone_mode=False)
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.Abort:
        click.echo("aborted", err=True)
        return 130
    except click.ClickException as e:
        e.show()
        return EXIT_USAGE if isinstance(e, click.UsageError) else EXIT_ERROR
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except (ReldocsError, FileNotFoundError, PermissionError) as e:
        click.echo(f"error: {e}", err=True)
        return EXIT_ERROR
    except Exception as e:  # last resort: a bug must still not print a traceback at the user
        logger.debug("unexpected error", exc_info=True)
        click.echo(f"error: {type(e).__name__}: {e} (run with -v for details)", err=True)
        if os.environ.get("RELDOCS_DEBUG"):
            raise
        return EXIT_ERROR
    return 0


def run() -> None:
    """The `reldocs` console script (the pre-commit hook's entry)."""
    sys.exit(main())


if __name__ == "__main__":
    run()
