"""``filterproof freshness``: readers of other clients query under load while the writer revokes, supersedes,
deletes and publishes; how long each change stays invisible to them, and which backends leak past their bound.

Exit codes: 0 when no backend's readers returned a changed document past the store's
declared ``staleness_bound_s`` (0 when it declares none) and every backend ran; 1
otherwise; 2 for usage; 143 / 130 when stopped by SIGTERM / Ctrl-C (what was
measured is written, ``complete: false``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from filterproof.adapters.descriptor import freshness_defaults
from filterproof.cli.checks import at_least
from filterproof.cli.common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PROBLEMS,
    console,
    fail,
    notice,
    usage_errors,
    writable,
)
from filterproof.servers.guardian import end_stopped

PHASES = {"indexing": "indexing the documents", "readers": "opening the readers",
          "changes": "readers querying; making the changes", "settling": "the last change made; settling"}
DEFAULT_BACKENDS = freshness_defaults()
"""What each store's description names for freshness by default (``adapters.descriptor``)."""

ReadersIn = Annotated[str, typer.Option(
    "--readers-in", help="threads: each reader a thread of this process with its own client (open_reader); "
                         "processes: each a child process opened from the store's reader_spec (an API replica).")]


def freshness_command(
    backend: Annotated[list[str] | None, typer.Option(
        "--backend", "-b", help=f"name or name:key=value,...; repeat for several. Default: "
                                f"{', '.join(DEFAULT_BACKENDS)}.")] = None,
    readers: Annotated[int, typer.Option(min=1, max=64, help="Readers querying continuously.")] = 4,
    readers_in: ReadersIn = "threads",
    changes: Annotated[int, typer.Option(min=1, max=100_000, help="Changes the writer makes: revoke, supersede, "
                                                                  "delete, publish in turn.")] = 40,
    rate: Annotated[float, typer.Option(min=0.01, max=10_000, help="Changes per second.")] = 4.0,
    documents: Annotated[int, typer.Option(min=10, max=1_000_000, help="Documents in the store.")] = 1000,
    principals: Annotated[int, typer.Option(min=1, max=1000, help="Principals the readers query for, in turn; "
                                                                  "each sees documents/principals documents.")] = 10,
    settle: Annotated[float, typer.Option(min=0, max=600, help="Seconds the readers go on after the last change.")
                      ] = 3.0,
    seed: Annotated[int, typer.Option(help="Seed of the documents, vectors and changes.")] = 0,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the results as JSON to this file.")] = None,
    html_out: Annotated[Path | None, typer.Option("--html", help="Write an HTML page with the CDF figure.")] = None,
    no_fail: Annotated[bool, typer.Option("--no-fail", help="Exit 0 even when a backend leaks past its bound.")
                       ] = False,
) -> None:
    """Measure how long a revoked document stays visible to readers of other clients, under load."""
    from filterproof.adapters import parse_specs, resolve
    from filterproof.freshness import measure, report
    from filterproof.freshness.world import build
    from filterproof.report import Results, write
    from filterproof.servers import guardian

    at_least(seed, 0, "--seed")  # numpy's generator refuses a negative seed, but only once the world is built
    if readers_in not in ("threads", "processes"):
        raise fail(f"--readers-in {readers_in!r}: expected threads or processes")
    if changes > documents:
        raise fail(f"--changes {changes}: at most --documents ({documents}) changes")
    with usage_errors():
        resolved = [resolve(spec) for spec in parse_specs(backend or DEFAULT_BACKENDS)]
    writable(json_out, "--json")
    writable(html_out, "--html")
    settings = measure.Settings(readers=readers, readers_in=readers_in, rate=rate, settle_s=settle)  # type: ignore[arg-type]
    world = build(documents, principals, changes, seed=seed)
    results = Results("freshness", {"backends": [r.label for r in resolved], "readers": readers,
                                    "readers_in": readers_in, "changes": changes, "rate": rate,
                                    "documents": documents, "principals": principals, "settle_s": settle,
                                    "warmup_s": settings.warmup_s, "seed": seed, "k": world.depth()})
    guardian.watch()
    for spec in resolved:
        notice(f"{spec.label}: {readers} readers ({readers_in}), {changes} changes at {rate:g}/s ...", "dim")
        try:
            with usage_errors():  # a user's table or collection (adapters.ownership): one line, exit 2, at once
                row = measure.run(spec, world, settings, lambda phase, label=spec.label: notice(
                    f"  {label}: {PHASES[phase]}", "dim"))
        except (KeyboardInterrupt, SystemExit) as stop:  # between two phases of a backend's run
            row = {"backend": spec.label, "status": "stopped", "reason": "stopped before anything was measured",
                   "_stop": stop}
        stop = row.pop("_stop", None)
        results.freshness.append(row)
        if stop is not None:
            results.stopped = EXIT_INTERRUPTED if isinstance(stop, KeyboardInterrupt) else int(stop.code or 1)
            results.complete = False
            notice(f"stopped: {len(results.freshness) - 1} of {len(resolved)} backends measured, and part of "
                   f"{spec.label}; writing them", "bold red")
            break
        if row["status"] == "failed":
            notice(f"{spec.label} failed: {row['reason']}", "bold red")
            results.complete = False
    results.problems = report.problems(results.freshness)
    report.render(console, results)
    if json_out is not None:
        write(results, json_out)
        console.print(f"wrote {json_out}")
    if html_out is not None and results.stopped is None:
        report.write_html(results, html_out, json_out.name if json_out else None)
        console.print(f"wrote {html_out}")
    if results.stopped is not None:
        end_stopped(results.stopped)
    code = EXIT_PROBLEMS if results.problems or not results.complete else EXIT_OK
    raise typer.Exit(EXIT_OK if no_fail else code)
