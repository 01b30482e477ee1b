"""The ``filterproof`` command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from filterproof import __version__
from filterproof.adapters import BackendUnavailable, UsageError, backend_names, parse_specs, resolve
from filterproof.fixtures import FixtureError, load_fixture
from filterproof.runner import Prepared, Settings, StrategyRun, prepare, run_backend
from filterproof.strategies import CandidateDepth

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Prove that vector-store filters keep an access and freshness policy.")
# Not a terminal (a pipe, CI): wide enough that the tables are never cut.
console = Console() if Console().is_terminal else Console(width=160)
errors = Console(stderr=True)

# The embedded backends, run when no --backend is given; one whose extra is not
# installed is left out with a notice (asked for by name, it is an error).
DEFAULT_BACKENDS = ["reference", "chroma", "qdrant-edge", "qdrant-local"]


def fail(message: str) -> typer.Exit:
    errors.print(f"[bold red]error:[/] {message}", highlight=False)
    return typer.Exit(2)


def parse_ks(text: str) -> tuple[int, ...]:
    try:
        ks = tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError:
        raise fail(f"--k {text!r}: expected positive integers separated by commas") from None
    if not ks or ks[0] < 1:
        raise fail(f"--k {text!r}: expected positive integers separated by commas")
    return ks


@app.command()
def compare(
    fixtures: Annotated[list[Path], typer.Argument(help="Lab JSON files or authorized-recall corpus directories.")],
    backend: Annotated[
        list[str] | None,
        typer.Option("--backend", "-b", help="Backend; repeat for several. Default: the embedded ones."),
    ] = None,
    k: Annotated[str, typer.Option("--k", help="Cut-offs for the ranking metrics.")] = "1,3,5,10",
    candidates: Annotated[str, typer.Option(help="post_filter depth: N (at least N, at least K) or NK (N x K).")] = "1",
    min_score: Annotated[float | None, typer.Option(help="Top-1 score threshold; overrides the fixture's.")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the results as JSON to this file.")] = None,
    show_cases: Annotated[
        bool | None, typer.Option("--cases/--no-cases", help="Per-case table (default: small fixtures).")
    ] = None,
) -> None:
    """Run fixtures through backends under rank_only, post_filter and pre_filter, and compare."""
    try:
        depth = CandidateDepth.parse(candidates)
    except ValueError as error:
        raise fail(f"--candidates: {error}") from None
    settings = Settings(ks=parse_ks(k), candidates=depth, min_score=min_score)
    explicit = bool(backend)
    try:
        backends = [resolve(spec) for spec in parse_specs(backend or DEFAULT_BACKENDS)]
    except UsageError as error:
        raise fail(str(error)) from None
    results: list[tuple[Prepared, list[StrategyRun]]] = []
    for path in fixtures:
        try:
            prepared = prepare(load_fixture(path))
        except FixtureError as error:
            raise fail(str(error)) from None
        runs: list[StrategyRun] = []
        for spec in list(backends):
            try:
                runs += run_backend(prepared, spec, settings)
            except BackendUnavailable as error:
                if explicit:
                    raise fail(str(error)) from None
                errors.print(f"[yellow]skipping[/] {error}", highlight=False)
                backends.remove(spec)
        results.append((prepared, runs))
    from filterproof.report import render, to_json

    render(console, results, settings, show_cases)
    if json_out is not None:
        json_out.write_text(json.dumps(to_json(results, settings, {b.label: b.spec.options for b in backends}),
                                       indent=2) + "\n")
        console.print(f"wrote {json_out}")


@app.command()
def check(fixtures: Annotated[list[Path], typer.Argument(help="Fixtures to validate.")]) -> None:
    """Load fixtures and list malformed documents, without running any backend."""
    for path in fixtures:
        try:
            fx = load_fixture(path)
        except FixtureError as error:
            raise fail(str(error)) from None
        malformed = fx.malformed()
        console.print(f"{path}: {len(fx.documents)} documents, {len(fx.cases)} cases, {len(malformed)} malformed")
        for doc_id, why in malformed.items():
            console.print(f"  {doc_id}: {why}")


@app.command()
def backends() -> None:
    """List backend names (built in, and installed through the filterproof.adapters entry point)."""
    for name in backend_names():
        console.print(name)


@app.command()
def version() -> None:
    """Print the version."""
    console.print(__version__)

from filterproof.scale.commands import register as _register_scale  # noqa: E402

_register_scale(app)
from filterproof.matrix.commands import register as _register_matrix  # noqa: E402

_register_matrix(app)
