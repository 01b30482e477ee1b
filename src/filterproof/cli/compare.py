"""``filterproof compare``: fixtures x backends x strategies, the backends side by side, and a CI verdict.

The reference backend always runs (first, when not named): it is the oracle every
other backend is compared with. Exit codes: 0 when no filtered strategy leaked, every backend ran and every backend
agreed with the reference (identical for one that declares itself exact, within its
declared tolerance for an approximate one) and no pre_filter result came back shorter than
min(K, eligible) (``--accept-short`` allows it); 1 otherwise (the output names which);
2 for bad input or usage. ``--no-fail`` keeps 0 for exploration.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from filterproof.adapters.descriptor import embedded
from filterproof.cli.common import (
    EXIT_OK,
    EXIT_USAGE,
    InProcess,
    console,
    fail,
    finite,
    notice,
    positive_ints,
    run_all,
    status,
    usage_errors,
    writable,
)
from filterproof.servers.guardian import end_stopped

if TYPE_CHECKING:
    from filterproof.evaluation.truth import Prepared

DEFAULT_BACKENDS = embedded()
"""The embedded backends (``adapters.descriptor``), run when no --backend is given; one whose extra is not
installed is left out with a notice (asked for by name, it is an error)."""

EMBEDDING_HELP = ("Vectors: by default the fixture's own when it carries them, else tfidf. module:callable: your "
                  "function that embeds a list of texts (see docs/guides/your-own-vectors.md); tfidf, svd or fixture "
                  "to insist on one.")

Backends = Annotated[list[str] | None, typer.Option(
    "--backend", "-b", help="name or name:key=value,... (options of that backend; see `filterproof backends`); "
                            "repeat for several, the same name with other options too. Default: the embedded "
                            f"ones, {', '.join(DEFAULT_BACKENDS)}.")]


def compare_command(
    fixtures: Annotated[list[Path], typer.Argument(help="Lab JSON files or authorized-recall corpus directories.")],
    backend: Backends = None,
    k: Annotated[str, typer.Option("--k", help="Cut-offs for the ranking metrics.")] = "1,3,5,10",
    candidates: Annotated[str, typer.Option(help="post_filter depths, comma separated: N (at least N, at least K) "
                                                 "or NK (N x K).")] = "1",
    min_score: Annotated[float | None, typer.Option(help="Top-1 score threshold; overrides the fixture's.")] = None,
    embedding: Annotated[str | None, typer.Option(help=EMBEDDING_HELP)] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the results as JSON to this file.")] = None,
    html_out: Annotated[Path | None, typer.Option("--html", help="Write a self-contained HTML report.")] = None,
    show_cases: Annotated[
        bool | None, typer.Option("--cases/--no-cases", help="Per-case table (default: small fixtures).")
    ] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Detail tables for every backend.")] = False,
    no_fail: Annotated[bool, typer.Option("--no-fail", help="Exit 0 even when a backend leaks or differs.")] = False,
    accept_short: Annotated[bool, typer.Option(
        "--accept-short", help="Do not fail on pre_filter results shorter than min(K, eligible) (answers lost, "
        "which no recall tolerance covers); the tables still count them.")] = False,
    in_process: InProcess = False,
) -> None:
    """Run fixtures through backends under rank_only, post_filter and pre_filter, and compare with the reference."""
    from filterproof.adapters import BackendSpec, parse_specs, resolve
    from filterproof.embedding.embedders import request_of
    from filterproof.evaluation.runner import Settings
    from filterproof.evaluation.strategies import CandidateDepth
    from filterproof.evaluation.truth import prepare
    from filterproof.fixtures import load_fixture
    from filterproof.report import Results, fixture_info, settings_info, vectors_of, write
    from filterproof.report.console import render_compare

    with usage_errors():
        depths = tuple(CandidateDepth.parse(part) for part in candidates.split(",") if part.strip())
        settings = Settings(ks=positive_ints(k, "--k"), depths=depths or (CandidateDepth(),),
                            min_score=finite(min_score, "--min-score"))
        specs = parse_specs(backend or DEFAULT_BACKENDS)
        if not any(spec.name == "reference" and not spec.options for spec in specs):
            specs.insert(0, BackendSpec("reference"))  # the oracle every backend is compared with
        resolved = [resolve(spec) for spec in specs]
        request = request_of(embedding)  # a module:callable is imported now, before any work
    writable(json_out, "--json")
    writable(html_out, "--html")
    prepared = []
    with usage_errors():
        for path in fixtures:
            prepared.append(prepare(load_fixture(path), depth=settings.kmax, embedding=request))
    unique_names(prepared)
    results = Results("compare", settings_info(settings, [r.label for r in resolved], vectors_of(prepared), None))
    results.fixtures = [fixture_info(p) for p in prepared]
    run_all(prepared, resolved, settings, results, by_level=False, isolate=not in_process)
    explicit = bool(backend)
    missing = [b for b in results.backends if b["status"] == "unavailable"]
    for b in {b["label"]: b for b in missing}.values():
        notice(f"{'error' if explicit else 'skipping'}: {b['reason']}", "bold red" if explicit else "yellow")
    if explicit and missing:
        results.complete = False
    results.judge(accept_short=accept_short)
    if results.stopped is None:  # stopped: what completed is written, the tables would only cost time
        render_compare(console, results, show_cases, verbose)
    if json_out is not None:
        write(results, json_out)
        console.print(f"wrote {json_out}")
    if html_out is not None and results.stopped is None:
        from filterproof.report.html import write_html

        write_html(results, html_out, json_name=json_out.name if json_out else None)
        console.print(f"wrote {html_out}")
    if results.stopped is not None:
        end_stopped(results.stopped)  # even with --no-fail: the run did not finish
    if explicit and missing:
        raise typer.Exit(EXIT_USAGE)
    code = status(results)
    raise typer.Exit(EXIT_OK if no_fail else code)


def unique_names(prepared: list[Prepared]) -> None:
    """Two fixtures with the same file stem would collide in the report: name them by path instead."""
    seen: dict[str, int] = {}
    for p in prepared:
        seen[p.fixture.name] = seen.get(p.fixture.name, 0) + 1
    for p in prepared:
        if seen[p.fixture.name] > 1:
            p.fixture.name = str(p.fixture.path)
    names = [p.fixture.name for p in prepared]
    if len(set(names)) != len(names):
        raise fail(f"the same fixture is given twice: {', '.join(sorted({n for n in names if names.count(n) > 1}))}")
