"""``filterproof generate`` and ``filterproof sweep``: a seeded corpus, and strategies x backends x selectivity.

The sweep is ``compare``'s pipeline (``truth.prepare`` -> ``runner`` -> ``scoring`` ->
``report``) with other defaults: a generated corpus (or any fixture), dense
vectors, several post_filter depths, single-query latencies, and summaries per
selectivity level. It exits 1 on a leak or a failed backend (approximate search
departing from the exact answer is what it measures, not a failure), 2 on usage.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from filterproof.adapters.descriptor import sweep_defaults
from filterproof.cli.checks import at_least, finite_number, fraction, writable_dir
from filterproof.cli.common import (
    EXIT_OK,
    InProcess,
    console,
    errors,
    fail,
    finite,
    notice,
    positive_ints,
    run_all,
    status,
    usage_errors,
)
from filterproof.servers.guardian import end_stopped

DEFAULT_SWEEP_BACKENDS = sweep_defaults()
"""What the stores' descriptions name for a sweep by default (``adapters.descriptor``)."""
DEFAULT_FIT_SAMPLE = 100_000
"""As ``truth.DEFAULT_FIT_SAMPLE`` (not imported: ``filterproof --help`` loads no numpy)."""
SELECTIVITY_HELP = "Selectivities (fractions of the corpus a case's principal may use), comma separated."

Docs = Annotated[int, typer.Option("--docs", "-n", help="Number of documents.")]
Seed = Annotated[int, typer.Option(help="Seed: same seed and options, same corpus.")]
Levels = Annotated[str | None, typer.Option(help=SELECTIVITY_HELP + " Default: 0.01% to 50%.")]
CasesPerLevel = Annotated[int, typer.Option(help="Cases (principals with a query) per selectivity.")]
Tenants = Annotated[int, typer.Option(help="Number of tenants.")]
Skew = Annotated[float, typer.Option(help="Tenant size skew: tenant i holds a share ~ 1/(i+1)^skew.")]
Malformed = Annotated[float, typer.Option(help="Share of documents with malformed metadata (never eligible).")]


def _floats(text: str, what: str) -> tuple[float, ...]:
    try:
        values = tuple(float(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise fail(f"{what} {text!r}: expected numbers separated by commas") from None
    if not values:
        raise fail(f"{what}: expected at least one number")
    return values


def generator_config(docs: int, seed: int, selectivity: str | None, cases_per_level: int, tenants: int,
                     skew: float, malformed: float) -> Any:
    from filterproof.scale.generator import DEFAULT_SELECTIVITIES, MAX_DOCUMENTS, GeneratorConfig

    # Named by their options here, before any work: numpy would refuse a negative seed or a NaN only later.
    at_least(docs, 10, "--docs", MAX_DOCUMENTS)
    at_least(seed, 0, "--seed")
    at_least(cases_per_level, 1, "--cases-per-level")
    at_least(tenants, 1, "--tenants")
    finite_number(skew, "--tenant-skew")
    fraction(malformed, "--malformed", 0, 1)
    levels = _floats(selectivity, "--selectivity") if selectivity else DEFAULT_SELECTIVITIES
    with usage_errors():
        return GeneratorConfig(documents=docs, seed=seed, selectivities=levels, cases_per_level=cases_per_level,
                               tenants=tenants, tenant_skew=skew, malformed=malformed)


def generate_command(
    out: Annotated[Path, typer.Argument(help="Lab JSON file to write.")],
    docs: Docs = 10_000, seed: Seed = 0, selectivity: Levels = None, cases_per_level: CasesPerLevel = 20,
    tenants: Tenants = 8, tenant_skew: Skew = 2.5, malformed: Malformed = 0.001,
    force: Annotated[bool, typer.Option("--force", help="Overwrite OUT if it exists.")] = False,
) -> None:
    """Generate a seeded corpus with controlled selectivity and relevant sets by construction (lab JSON)."""
    from filterproof.scale.generator import generate, write_lab_json

    if out.is_dir() or not out.parent.is_dir():
        raise fail(f"{out}: expected a file in an existing directory")
    if out.exists() and not force:
        raise fail(f"{out} exists; pass --force to overwrite it")
    cfg = generator_config(docs, seed, selectivity, cases_per_level, tenants, tenant_skew, malformed)
    start = time.perf_counter()
    with usage_errors():
        corpus = generate(cfg)
    write_lab_json(corpus, out)
    fx = corpus.fixture
    errors.print(f"wrote {out}: {len(fx.documents)} documents, {len(fx.cases)} cases, "
                 f"{len(fx.active)} logical documents, in {time.perf_counter() - start:.1f} s")
    targets = dict(zip(corpus.levels, corpus.targets, strict=True))
    errors.print("eligible per case, by construction: " + ", ".join(f"{s * 100:g}% → {t}" for s, t in targets.items()))


class Ticker:
    """rich progress bars, one per (backend, phase), created when a phase first reports.

    A phase whose total is unknown (``build``: an engine's index build reports no
    progress) shows a pulsing bar and its elapsed time instead of an ETA.
    """

    def __init__(self, progress: Any, totals: dict[str, int | None]) -> None:
        self.progress, self.totals, self.tasks = progress, totals, {}

    def __call__(self, label: str, phase: str, done: int) -> None:
        self.task(f"{label}: {phase}", self.totals.get(phase), done)

    def task(self, name: str, total: int | None, done: int) -> None:
        if name not in self.tasks:
            self.tasks[name] = self.progress.add_task(name, total=total)
        self.progress.advance(self.tasks[name], done)

    def phase(self, phase: str, done: int, total: int) -> None:
        """``truth.prepare``'s progress: (phase, units done, units in the phase)."""
        self.task(phase, total, done)


def sweep_command(
    fixture: Annotated[Path | None, typer.Argument(help="A fixture to sweep instead of generating one.")] = None,
    backend: Annotated[list[str] | None, typer.Option(
        "--backend", "-b", help="name or name:key=value,... (one index build each); repeat. "
                                f"Default: {', '.join(DEFAULT_SWEEP_BACKENDS)}.")] = None,
    docs: Docs = 100_000, seed: Seed = 0, selectivity: Levels = None, cases_per_level: CasesPerLevel = 20,
    tenants: Tenants = 8, tenant_skew: Skew = 2.5, malformed: Malformed = 0.001,
    k: Annotated[str, typer.Option("--k", help="Cut-offs K, comma separated.")] = "1,10",
    candidates: Annotated[str, typer.Option(help="post_filter candidate depths C (N or NK).")] = "1K,2K,10K,100K",
    embedding: Annotated[str | None, typer.Option(
        help="Shared vectors: svd (TF-IDF + TruncatedSVD, dense, --dim; the default unless the fixture carries its "
             "own), tfidf (exact, as compare), fixture (its own), or module:callable (your function that embeds a "
             "list of texts; see docs/guides/your-own-vectors.md).")] = None,
    dim: Annotated[int, typer.Option(min=2, max=4096, help="Dense dimension of the svd embedding.")] = 128,
    batch: Annotated[int, typer.Option(min=1, help="Queries per batched call.")] = 64,
    latency_samples: Annotated[int, typer.Option(min=0, help="Single-query timings per level and strategy.")] = 10,
    fit_sample: Annotated[int, typer.Option(
        min=0, help="Fit the embedding on a seeded sample of this many documents, then embed every document "
                    "with it, chunk by chunk (0: fit on all documents).")] = DEFAULT_FIT_SAMPLE,
    vectors: Annotated[Literal["disk", "memory"], typer.Option(
        help="Keep the documents' vectors in a temporary file (read back a chunk at a time) or in memory.")] = "disk",
    vectors_dir: Annotated[Path | None, typer.Option(
        help="Directory for that file (default: the system's temporary directory).")] = None,
    min_score: Annotated[float | None, typer.Option(
        help="Top-1 threshold (default: the fixture's, else 0.25).")] = None,
    out: Annotated[Path | None, typer.Option(help="Directory for report.json, report.html and the PNGs "
                                                  "(default: ./sweep, or beside the --replot file).")] = None,
    plots: Annotated[bool, typer.Option("--plots/--no-plots", help="Write figures and the HTML report.")] = True,
    replot: Annotated[Path | None, typer.Option(help="Run nothing: redraw tables, figures and HTML from this "
                                                     "report.json into --out.")] = None,
    no_fail: Annotated[bool, typer.Option("--no-fail", help="Exit 0 even when a backend leaks or fails.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Replace the report a sweep wrote into --out before "
                                                        "(without it, such a directory is refused).")] = False,
    in_process: InProcess = False,
) -> None:
    """Sweep strategies x backends x selectivities x K against the exact filtered ground truth."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from filterproof.adapters import parse_specs, resolve
    from filterproof.embedding.embedders import request_of
    from filterproof.evaluation.runner import Settings
    from filterproof.evaluation.strategies import CandidateDepth
    from filterproof.report import Results, fixture_info, load, settings_info, write
    from filterproof.report.levels import render_sweep

    if replot is not None:
        with usage_errors():
            results = load(replot)
        if plots:
            writable_dir(out or replot.parent, "--out")
        render_sweep(console, results)
        _figures(results, out or replot.parent, plots)
        raise typer.Exit(EXIT_OK)
    out = writable_dir(out or Path("sweep"), "--out")  # before the run: its report would be lost after it
    held = [name for name in ("report.json", "report.html") if (out / name).exists()]
    if held and not force:
        raise fail(f"--out {out}: already holds {' and '.join(held)} (an earlier sweep's): give another directory, "
                   "or --force to replace them")
    if vectors_dir is not None and not vectors_dir.is_dir():
        raise fail(f"--vectors-dir {vectors_dir}: not a directory")
    if vectors_dir is not None:
        writable_dir(vectors_dir, "--vectors-dir")
    with usage_errors():
        depths = tuple(CandidateDepth.parse(p) for p in candidates.split(",") if p.strip())
        settings = Settings(ks=positive_ints(k, "--k"), depths=depths, min_score=finite(min_score, "--min-score"),
                            batch=batch, upsert_batch=2048, latency_samples=latency_samples)
        resolved = [resolve(spec) for spec in parse_specs(backend or DEFAULT_SWEEP_BACKENDS)]
        request = request_of(embedding)  # a module:callable is imported now, before any work
    gen = None if fixture else generator_config(docs, seed, selectivity, cases_per_level, tenants, tenant_skew,
                                                malformed)
    started = time.perf_counter()
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TimeRemainingColumn())
    with Progress(*columns, console=errors, transient=False) as progress, _bars_erased_on_error(progress):
        ticker = Ticker(progress, {})
        on_disk = (vectors == "disk", vectors_dir)
        prepared, generated, timings = _prepared(fixture, gen, settings, request, dim, fit_sample, on_disk, ticker)
        n = len(prepared.truths)
        ticker.totals = {"ingest": len(prepared.fixture.documents), "build": 1, "queries": 2 * n,
                         "latency": len(prepared.levels) * (len(depths) + 2) * min(
                             latency_samples, max(v["cases"] for v in fixture_info(prepared)["levels"].values()))}
        results = Results("sweep", settings_info(settings, [r.label for r in resolved], prepared.embedding_kind,
                                                 prepared.dim))
        results.fixtures = [fixture_info(prepared, generated)]
        run_all([prepared], resolved, settings, results, by_level=True, tick=ticker, isolate=not in_process)
    for b in results.backends:
        if b["status"] == "unavailable":
            notice(f"skipped {b['label']}: {b['reason']}")
    timings["total_s"] = time.perf_counter() - started
    results.timings = timings
    results.judge(against_reference=False)
    out.mkdir(parents=True, exist_ok=True)
    write(results, out / "report.json")
    if results.stopped is not None:  # what completed is written; the tables and figures would take seconds
        console.print(f"wrote {out}/report.json (stopped: incomplete)")
        end_stopped(results.stopped)
    render_sweep(console, results)
    _figures(results, out, plots)
    console.print(f"wrote {out}/report.json" + (f", {out}/report.html and figures" if plots else ""))
    raise typer.Exit(EXIT_OK if no_fail else status(results))


@contextlib.contextmanager
def _bars_erased_on_error(progress: Any) -> Iterator[None]:
    """On an error, the bars go (a one-line error is the last word); after a run, they stay on screen."""
    try:
        yield
    except BaseException:
        progress.live.transient = True
        raise


def _prepared(path: Path | None, gen: Any, settings: Any, embedding: Any, dim: int, fit_sample: int,
              on_disk: tuple[bool, Path | None], ticker: Ticker) -> tuple[Any, dict[str, Any] | None, dict[str, float]]:
    """Load or generate the fixture, then embed it and compute the truths (with progress bars)."""
    from dataclasses import asdict

    from filterproof.embedding.embedders import resolved
    from filterproof.evaluation.truth import prepare
    from filterproof.fixtures import load_fixture
    from filterproof.scale.generator import generate

    timings: dict[str, float] = {}
    start = time.perf_counter()
    with usage_errors():
        if gen:
            ticker.task("corpus (cases planted)", None, 0)
            corpus = generate(gen, progress=lambda done, total: ticker.task("corpus (cases planted)", total, 1))
        else:
            corpus = None
        fixture = corpus.fixture if corpus else load_fixture(path)  # type: ignore[arg-type]
    timings["generate_s"] = time.perf_counter() - start
    with usage_errors():  # the sweep's default is svd, unless the fixture carries its own vectors
        embedding = resolved(fixture, embedding, fallback="svd")
    errors.print(f"corpus: {len(fixture.documents)} documents, {len(fixture.cases)} cases "
                 f"({timings['generate_s']:.1f} s); {_vectors_line(embedding, fixture, fit_sample)} ...")
    with usage_errors():
        prepared = prepare(fixture, depth=settings.kmax, embedding=embedding, dim=dim,
                           levels=corpus.levels if corpus else None, progress=ticker.phase, fit_sample=fit_sample,
                           vectors_on_disk=on_disk[0], vectors_dir=on_disk[1])
    return prepared, asdict(gen) if gen else None, timings


def _vectors_line(request: Any, fixture: Any, fit_sample: int) -> str:
    """What the sweep embeds with, before it starts: ``embedding (svd) fitted on every document``."""
    from filterproof.evaluation.truth import sampled

    if request.kind == "fixture":
        return "vectors: the fixture's own"
    if request.kind not in ("tfidf", "svd"):
        return f"embedding ({request.label.removeprefix('embedding:')}) on every document"
    sample = f"a sample of {fit_sample:,}" if sampled(len(fixture.documents), fit_sample) else "every document"
    return f"embedding ({request.label}) fitted on {sample}"


def _figures(results: Any, out: Path, plots: bool) -> None:
    """The PNGs and the HTML page, unless --no-plots or matplotlib is missing (then say how to get it)."""
    if not plots or not results.labels():
        return
    from filterproof.report.figures import PlotsUnavailable, write_figures
    from filterproof.report.html import write_html

    out.mkdir(parents=True, exist_ok=True)
    try:
        figures = write_figures(results, out)
    except PlotsUnavailable as error:
        notice(f"no figures: {error}")
        figures = {}
    write_html(results, out / "report.html", figures, "report.json")
