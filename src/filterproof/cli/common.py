"""What the commands share: errors printed in one line with exit code 2, parsers for comma lists, the run loop.

Only typer, rich and the standard library load at import time: ``filterproof --help``
stays fast; numpy work, backends and matplotlib load when a command runs.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.text import Text

if TYPE_CHECKING:
    from filterproof.adapters.registry import Resolved
    from filterproof.evaluation.runner import Settings
    from filterproof.evaluation.truth import Prepared
    from filterproof.report import Results

# Not a terminal (a pipe, CI): wide enough that the tables are never cut.
console = Console() if Console().is_terminal else Console(width=200)
errors = Console(stderr=True)

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 130
"""Ctrl-C (128 + SIGINT); a SIGTERM ends with 143."""

InProcess = Annotated[bool, typer.Option(
    "--in-process", help="Run every backend in this process (for a debugger) instead of each but the reference in "
                         "a worker process of its own, where a native crash costs only that backend's results.")]


def fail(message: str) -> typer.Exit:
    """Print ``error: message`` (as plain text: ids may hold brackets) and return the exit to raise."""
    errors.print(Text.assemble(("error: ", "bold red"), message), highlight=False, soft_wrap=True)
    return typer.Exit(EXIT_USAGE)


def notice(message: str, style: str = "yellow") -> None:
    errors.print(Text(message, style=style), highlight=False, soft_wrap=True)


@contextmanager
def usage_errors() -> Iterator[None]:
    """Turn filterproof's usage errors (bad specs, options, fixtures) into one line and exit code 2."""
    from filterproof.errors import UsageError

    try:
        yield
    except UsageError as error:
        raise fail(str(error)) from None


def positive_ints(text: str, what: str) -> tuple[int, ...]:
    try:
        values = tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError:
        raise fail(f"{what} {text!r}: expected positive integers separated by commas") from None
    if not values or values[0] < 1 or values[-1] > 100_000:
        raise fail(f"{what} {text!r}: expected integers from 1 to 100000 separated by commas")
    return values


def finite(value: float | None, what: str) -> float | None:
    if value is not None and not math.isfinite(value):
        raise fail(f"{what} {value}: expected a finite number")
    return value


def writable(path: Path | None, what: str) -> Path | None:
    """Check an output file's place before the run, not after it (the results would be lost)."""
    if path is None:
        return None
    if path.is_dir():
        raise fail(f"{what} {path}: is a directory; give a file name")
    if not path.parent.is_dir():
        raise fail(f"{what} {path}: directory {path.parent} does not exist")
    try:  # the file is written through a temporary file beside it (report.write): that must be possible too
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", suffix=".check"):
            pass
    except OSError as error:
        raise fail(f"{what} {path}: cannot write in {path.parent}: {error.strerror or error}") from None
    return path


def run_all(prepared: Sequence[Prepared], backends: Sequence[Resolved], settings: Settings, results: Results,
            by_level: bool, tick: Callable[[str, str, int], None] | None = None, isolate: bool = True) -> None:
    """Every backend over every prepared fixture, into ``results`` (fixture by fixture); a failure is noted.

    Each backend but the reference runs in a worker process of its own unless not ``isolate``
    (``filterproof.evaluation.isolation``): a native crash then costs that backend's results only. One that
    would write into an object filterproof did not create (``refused``) ends the command at once
    with its one line, exit 2. A stop
    (SIGTERM, Ctrl-C) ends the loop: what completed is kept, and ``results.stopped`` holds the
    exit status the command should end with once it has written it.
    """
    from filterproof.evaluation.congruence import without_refused
    from filterproof.evaluation.isolation import isolated, run_isolated
    from filterproof.evaluation.runner import run_backend
    from filterproof.servers import guardian

    def no_tick(label: str, phase: str, done: int) -> None:
        """No progress display."""

    guardian.watch()  # what a SIGKILL of this process would leave behind is removed by it
    runs: dict[tuple[int, int], Any] = {}
    try:
        for b, backend in enumerate(backends):
            def keep(f: int, run: Any, b: int = b) -> None:
                runs[f, b] = run
                if run.status == "failed":
                    notice(f"{run.label} failed on {prepared[f].fixture.name}: {run.reason}", "bold red")

            if isolate and isolated(backend):
                run_isolated(prepared, backend, settings, tick or no_tick, keep)
            else:
                for f, prep in enumerate(prepared):
                    keep(f, run_backend(prep, backend, settings, tick or no_tick))
            refused = next((run for (_, bb), run in runs.items() if bb == b and run.status == "refused"), None)
            if refused is not None:  # a user's table or collection: stop here, before any other backend runs
                raise fail(str(refused.reason))
    except (KeyboardInterrupt, SystemExit) as stop:  # signals.install: the first SIGTERM or Ctrl-C, here
        results.stopped = EXIT_INTERRUPTED if isinstance(stop, KeyboardInterrupt) else int(stop.code or 1)
        results.complete = False
        notice(f"stopped ({'Ctrl-C' if results.stopped == EXIT_INTERRUPTED else 'SIGTERM'}): "
               f"{len(runs)} of {len(prepared) * len(backends)} backend runs completed; writing them", "bold red")
    for (f, _), run in sorted(runs.items()):
        if run.not_indexable and run.status == "ok" and results.stopped is None:
            run.without_refused = without_refused(prepared[f], run, settings)
        results.add(run, list(settings.ks), by_level)


def status(results: Any) -> int:
    """The exit status: a stop's (130, 143) first, then 1 for problems or an incomplete run, else 0."""
    if results.stopped is not None:
        return int(results.stopped)
    return EXIT_PROBLEMS if results.problems or not results.complete else EXIT_OK
