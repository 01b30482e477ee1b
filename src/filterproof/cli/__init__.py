"""The ``filterproof`` command line: compare, sweep, generate, matrix, fuzz, freshness, check, backends,
new-adapter, version."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from filterproof import __version__
from filterproof.cli import signals
from filterproof.cli.common import console, usage_errors
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

app.command("compare")(compare_command)
app.command("sweep")(sweep_command)
app.command("generate")(generate_command)
app.command("freshness")(freshness_command)
register_new_adapter(app)
register_matrix(app)
register_fuzz(app)


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
