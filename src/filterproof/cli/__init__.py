"""The ``filterproof`` command line: compare, sweep, generate, matrix, fuzz, freshness, check, backends,
new-adapter, clean, version."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Annotated, TextIO

import typer
import typer.rich_utils
from rich.text import Text

from filterproof import __version__
from filterproof.cli import signals
from filterproof.cli.clean import register as register_clean
from filterproof.cli.common import console, errors, usage_errors
from filterproof.cli.compare import compare_command
from filterproof.cli.freshness import freshness_command
from filterproof.cli.fuzz import register as register_fuzz
from filterproof.cli.new_adapter import register as register_new_adapter
from filterproof.cli.sweep import generate_command, sweep_command
from filterproof.matrix.commands import register as register_matrix

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Prove that vector-store filters keep an access and freshness policy.")


@app.callback()
def main() -> None:
    """Prove that vector-store filters keep an access and freshness policy."""
    signals.install()
    warnings.showwarning = one_line_warning


def one_line_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                     file: TextIO | None = None, line: str | None = None) -> None:
    """A Python warning as ``warning: <message> (<category>)``, one line on stderr: not the default's two lines
    with a source path (``.../site-packages/x.py:12: DeprecationWarning: ...``, and the line of code), which tell
    a user of the command nothing. Which warnings show is still up to the filters (``-W``, ``PYTHONWARNINGS``)."""
    text = " ".join(str(message).split())
    try:
        errors.print(Text(f"warning: {text} ({category.__name__})", style="yellow"), highlight=False, soft_wrap=True)
    except Exception:  # at interpreter exit (a ResourceWarning from a finalizer) the console may be gone
        sys.stderr.write(f"warning: {text} ({category.__name__})\n")


def one_line_usage_error(error: Exception) -> None:
    """A usage error click finds (an option out of its range, an unknown option) as filterproof's own: one line,
    ``error: <command>: <message>``, where typer's rich mode draws a framed box under the usage line."""
    if type(error).__name__ == "NoArgsIsHelpError":  # a bare group: typer has printed its help already
        return
    context = getattr(error, "ctx", None)
    where = f"{context.command_path}: " if context is not None else ""
    hint = f" (see {context.command_path} --help)" if context is not None else ""
    message = " ".join(getattr(error, "format_message", error.__str__)().split())
    errors.print(Text.assemble(("error: ", "bold red"), f"{where}{message}{hint}"), highlight=False, soft_wrap=True)


# typer's core calls ``rich_utils.rich_format_error`` for every usage error its (vendored) click finds, then exits 2.
typer.rich_utils.rich_format_error = one_line_usage_error  # type: ignore[assignment]

app.command("compare")(compare_command)
app.command("sweep")(sweep_command)
app.command("generate")(generate_command)
app.command("freshness")(freshness_command)
register_new_adapter(app)
register_matrix(app)
register_fuzz(app)
register_clean(app)


@app.command()
def check(fixtures: Annotated[list[Path], typer.Argument(help="Fixtures to validate.")]) -> None:
    """Load fixtures (their own vectors too) and list malformed documents, without running any backend."""
    from filterproof.fixtures import load_fixture

    for path in fixtures:
        with usage_errors():
            fx = load_fixture(path)
        malformed = fx.malformed()
        carried = f", vectors {fx.vectors.dim}-d ({fx.vectors.origin})" if fx.vectors is not None else ""
        console.print(Text(f"{path}: {len(fx.documents)} documents, {len(fx.cases)} cases, {len(malformed)} malformed"
                           + carried))
        for doc_id, why in malformed.items():
            console.print(Text(f"  {doc_id}: {why}"))


@app.command()
def backends(
    options: Annotated[bool, typer.Option("--options", help="Also list each backend's options.")] = False,
) -> None:
    """List backend names (built in, and installed through the filterproof.adapters entry point)."""
    from filterproof.adapters import backend_names, options_of
    from filterproof.errors import FilterproofError

    for name in backend_names():
        if not options:
            console.print(Text(name))
            continue
        try:
            model = options_of(name)
            described = model.describe() if model is not None else "(not declared: passed as text)"
        except FilterproofError as error:
            described = f"(unavailable: {error})"
        console.print(Text.assemble((name, "bold"), f": {described}"))


@app.command()
def version() -> None:
    """Print the version."""
    console.print(__version__)
