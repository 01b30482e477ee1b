"""The ``generate`` and ``sweep`` commands, added to the main typer app by ``register``.

Only typer and the standard library are imported at module level: ``filterproof
--help`` must stay fast, so numpy work, backends and matplotlib load when a
command runs.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Any

import typer

DEFAULT_SWEEP_BACKENDS = ["reference", "chroma", "qdrant-edge"]
SELECTIVITY_HELP = "Selectivities (fractions of the corpus a case's principal may use), comma separated."


def _floats(text: str, what: str) -> tuple[float, ...]:
    try:
        values = tuple(float(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise typer.BadParameter(f"{what}: expected numbers separated by commas") from None
    if not values:
        raise typer.BadParameter(f"{what}: expected at least one number")
    return values


def _config(docs: int, seed: int, selectivity: str | None, cases_per_level: int, tenants: int, skew: float,
            malformed: float) -> Any:
    from filterproof.scale.generator import DEFAULT_SELECTIVITIES, GeneratorConfig, GeneratorError

    levels = _floats(selectivity, "--selectivity") if selectivity else DEFAULT_SELECTIVITIES
    try:
        return GeneratorConfig(documents=docs, seed=seed, selectivities=levels, cases_per_level=cases_per_level,
                               tenants=tenants, tenant_skew=skew, malformed=malformed)
    except GeneratorError as error:
        raise typer.BadParameter(str(error)) from None


Docs = Annotated[int, typer.Option("--docs", "-n", help="Number of documents.")]
Seed = Annotated[int, typer.Option(help="Seed: same seed and options, same corpus.")]
Levels = Annotated[str | None, typer.Option(help=SELECTIVITY_HELP + " Default: 0.01% to 50%.")]
CasesPerLevel = Annotated[int, typer.Option(help="Cases (principals with a query) per selectivity.")]
Tenants = Annotated[int, typer.Option(help="Number of tenants.")]
Skew = Annotated[float, typer.Option(help="Tenant size skew: tenant i holds a share ~ 1/(i+1)^skew.")]
Malformed = Annotated[float, typer.Option(help="Share of documents with malformed metadata (never eligible).")]


def generate_command(
    out: Annotated[Path, typer.Argument(help="Lab JSON file to write.")],
    docs: Docs = 10_000, seed: Seed = 0, selectivity: Levels = None, cases_per_level: CasesPerLevel = 20,
    tenants: Tenants = 8, tenant_skew: Skew = 2.5, malformed: Malformed = 0.001,
) -> None:
    """Generate a seeded corpus with controlled selectivity and relevant sets by construction (lab JSON)."""
    from rich.console import Console

    from filterproof.scale.generator import GeneratorError, generate, write_lab_json

    console = Console(stderr=True)
    cfg = _config(docs, seed, selectivity, cases_per_level, tenants, tenant_skew, malformed)
    start = time.perf_counter()
    try:
        corpus = generate(cfg)
    except GeneratorError as error:
        console.print(f"[bold red]error:[/] {error}")
        raise typer.Exit(2) from None
    write_lab_json(corpus, out)
    fx = corpus.fixture
    console.print(f"wrote {out}: {len(fx.documents)} documents, {len(fx.cases)} cases, "
                  f"{len(fx.active)} logical documents, in {time.perf_counter() - start:.1f} s")
    targets = dict(zip(corpus.levels, corpus.targets, strict=True))
    console.print("eligible per case, by construction: " +
                  ", ".join(f"{s * 100:g}% → {t}" for s, t in targets.items()))


class Ticker:
    """rich progress bars, one per (backend, phase), created when a phase first reports."""

    def __init__(self, progress: Any, totals: dict[str, int]) -> None:
        self.progress, self.totals, self.tasks = progress, totals, {}

    def __call__(self, label: str, phase: str, done: int) -> None:
        key = (label, phase)
        if key not in self.tasks:
            self.tasks[key] = self.progress.add_task(f"{label}: {phase}", total=self.totals.get(phase))
        self.progress.advance(self.tasks[key], done)


def sweep_command(
    fixture: Annotated[Path | None, typer.Argument(help="A fixture to sweep instead of generating one.")] = None,
    backend: Annotated[list[str] | None, typer.Option(
        "--backend", "-b", help="name or name:key=value,... (one index build each); repeat. "
                                "Default: reference, chroma, qdrant-edge.")] = None,
    docs: Docs = 100_000, seed: Seed = 0, selectivity: Levels = None, cases_per_level: CasesPerLevel = 20,
    tenants: Tenants = 8, tenant_skew: Skew = 2.5, malformed: Malformed = 0.001,
    k: Annotated[str, typer.Option("--k", help="Cut-offs K, comma separated.")] = "1,10",
    candidates: Annotated[str, typer.Option(help="post_filter candidate depths C (N or NK).")] = "1K,2K,10K,100K",
    dim: Annotated[int, typer.Option(help="Dense dimension (TF-IDF + TruncatedSVD), shared by every backend.")] = 128,
    batch: Annotated[int, typer.Option(help="Queries per batched call.")] = 64,
    latency_samples: Annotated[int, typer.Option(help="Single-query timings per level and strategy.")] = 10,
    min_score: Annotated[float | None, typer.Option(help="Top-1 threshold (default: the fixture's, else 0.8).")] = None,
    out: Annotated[Path | None, typer.Option(help="Directory for report.json, report.html and the PNGs "
                                                  "(default: ./sweep, or beside the --replot file).")] = None,
    plots: Annotated[bool, typer.Option("--plots/--no-plots", help="Write figures and the HTML report.")] = True,
    replot: Annotated[Path | None, typer.Option(help="Run nothing: redraw tables, figures and HTML from this "
                                                     "report.json into --out.")] = None,
) -> None:
    """Sweep strategies x backends x selectivities x K against the exact filtered ground truth."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from filterproof.scale import summary
    from filterproof.scale.sweep import BackendSpec, build_data, latency_kinds, run_sweep, settings_of, sweep_config
    from filterproof.scale.truth import level_counts

    console = Console() if Console().is_terminal else Console(width=160)
    errors = Console(stderr=True)
    if replot is not None:
        rep = json.loads(replot.read_text())
        summary.render(console, rep)
        _figures(rep, out or replot.parent, plots, errors)
        return
    out = out or Path("sweep")
    try:
        specs = [BackendSpec.parse(text) for text in (backend or DEFAULT_SWEEP_BACKENDS)]
        cfg = sweep_config(k, candidates, batch, latency_samples, min_score)
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None
    gen = None if fixture else _config(docs, seed, selectivity, cases_per_level, tenants, tenant_skew, malformed)
    started = time.perf_counter()
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=errors, transient=False) as progress:
        data, corpus, timings = build_data(fixture, gen, cfg, dim, progress, errors)
        n = len(data.truths)
        totals = {"ingest": len(data.fixture.documents), "queries": 2 * n,
                  "latency": len(data.levels) * len(latency_kinds(cfg)) * min(
                      cfg.latency_samples, max(c["cases"] for c in level_counts(data).values()))}
        result = run_sweep(data, specs, cfg, Ticker(progress, totals), lambda m: errors.print(f"[yellow]{m}[/]"))
    timings["total_s"] = time.perf_counter() - started
    rep = summary.report(corpus, settings_of(cfg, dim, specs), level_counts(data), timings, result)
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(rep, indent=1) + "\n")
    summary.render(console, rep)
    _figures(rep, out, plots, errors)
    console.print(f"wrote {out}/report.json" + (f", {out}/report.html and figures" if plots else ""))


def _figures(rep: dict[str, Any], out: Path, plots: bool, errors: Any) -> None:
    """The PNGs and the HTML page, unless --no-plots or matplotlib is missing (then say how to get it)."""
    if not plots or not rep["backends"]:
        return
    from filterproof.scale.plots import PlotsUnavailable, write_figures, write_html

    try:
        figures = write_figures(rep, out)
    except PlotsUnavailable as error:
        errors.print(f"[yellow]no figures:[/] {error}")
    else:
        write_html(rep, figures, out / "report.html", "report.json")


def register(app: typer.Typer) -> None:
    """Add ``generate`` and ``sweep`` to the ``filterproof`` command line."""
    app.command("generate")(generate_command)
    app.command("sweep")(sweep_command)
