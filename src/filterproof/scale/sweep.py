"""``filterproof sweep``: strategies x backends x selectivities x K, against exact filtered ground truth.

Every backend indexes the same dense vectors (``truth.ScaleData``), is asked the
same cases through ``strategies.ranked_search`` (so ties and non-positive scores
are handled identically everywhere), and is judged against the exact answers of
``truth``. A backend spec is ``name`` or ``name:key=value,key=value`` (the options
its adapter takes, e.g. ``qdrant-edge:exact=true`` or ``chroma:ef_search=50``);
each spec is its own index build, so exactness settings are compared like for like.

Per backend, three query passes: the batched unfiltered pass (rank_only and
post_filter at every candidate depth C are prefixes of one ranking as deep as the
deepest C), the batched filtered pass (pre_filter), and a latency pass of single
queries on a sample of cases per level (p50/p95 and QPS per strategy and depth).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from filterproof.adapters import BackendSpec, BackendUnavailable, open_backend
from filterproof.adapters.base import Hit, records_of
from filterproof.scale.evaluate import Accumulator, latency_records
from filterproof.scale.generator import GeneratorConfig, generate
from filterproof.scale.summary import report
from filterproof.scale.timing import Clock, TimedAdapter, overhead
from filterproof.scale.truth import DEFAULT_DIM, ScaleData, level_counts, prepare_scale
from filterproof.strategies import TIE_MARGIN, CandidateDepth, ranked_search

DEFAULT_DEPTHS = ("1K", "2K", "10K", "100K")
DEFAULT_KS = (1, 10)

Tick = Callable[[str, str, int], None]
"""Progress callback: (backend label, phase, units done); phases "ingest", "queries", "latency"."""


@dataclass(frozen=True)
class SweepConfig:
    ks: tuple[int, ...] = DEFAULT_KS
    depths: tuple[CandidateDepth, ...] = field(default_factory=lambda: tuple(
        CandidateDepth.parse(d) for d in DEFAULT_DEPTHS))
    batch: int = 64
    """Queries per batched call (``search_many``)."""
    upsert_batch: int = 2048
    latency_samples: int = 10
    """Single-query timings per level, strategy and depth."""
    min_score: float | None = None

    @property
    def kmax(self) -> int:
        return max(self.ks)

    @property
    def deepest(self) -> int:
        return max([self.kmax, *(d.at(self.kmax) for d in self.depths)])


def ingest(adapter: TimedAdapter, data: ScaleData, batch: int, tick: Tick, label: str) -> float:
    """Reset, upsert in batches, and let the engine build its index; returns the build time."""
    docs = data.fixture.documents
    adapter.reset(data.dim)
    for start in range(0, len(docs), batch):
        chunk = docs[start:start + batch]
        adapter.upsert(records_of([d.id for d in chunk], data.doc_vectors[start:start + batch],
                                  [d.metadata for d in chunk]))
        tick(label, "ingest", len(chunk))
    return adapter.build()


def batched_rankings(adapter: TimedAdapter, data: ScaleData, cfg: SweepConfig, filtered: bool,
                     tick: Tick, label: str) -> tuple[list[list[Hit]], float]:
    """Every case's ranking (filtered at depth K, or unfiltered as deep as the deepest C), level by level."""
    n = len(data.truths)
    rankings: list[list[Hit]] = [[] for _ in range(n)]
    depth = cfg.kmax if filtered else cfg.deepest
    before = adapter.clock.inside
    for level in data.levels:
        rows = [i for i, t in enumerate(data.truths) if t.level == level]
        for start in range(0, len(rows), cfg.batch):
            chunk = rows[start:start + cfg.batch]
            wheres = [data.filters[i] if filtered else None for i in chunk]
            found = ranked_search(adapter, data.query_vectors[chunk], depth, wheres, data.fixture.order)
            for i, hits in zip(chunk, found, strict=True):
                rankings[i] = hits
            tick(label, "queries", len(chunk))
    return rankings, adapter.clock.inside - before


def latency_kinds(cfg: SweepConfig) -> list[tuple[str, str, int, bool]]:
    """(strategy, depth label, k, filtered) of every single-query timing."""
    kinds = [("rank_only", "", cfg.kmax, False), ("pre_filter", "", cfg.kmax, True)]
    return kinds + [("post_filter", str(d), d.at(cfg.kmax), False) for d in cfg.depths]


def latency_pass(adapter: TimedAdapter, data: ScaleData, cfg: SweepConfig, tick: Tick,
                 label: str) -> dict[tuple, list[float]]:
    """Single-query wall times: (strategy, depth label, level) -> seconds per query."""
    samples: dict[tuple, list[float]] = {}
    kinds = latency_kinds(cfg)
    for level in data.levels:
        rows = [i for i, t in enumerate(data.truths) if t.level == level][:cfg.latency_samples]
        for strategy, depth, k, filtered in kinds:
            times = samples.setdefault((strategy, depth, level), [])
            for i in rows:
                where = data.filters[i] if filtered else None
                start = time.perf_counter()
                adapter.search(data.query_vectors[i], k + TIE_MARGIN, where)
                times.append(time.perf_counter() - start)
            tick(label, "latency", len(rows))
    return samples


def run_spec(data: ScaleData, spec: BackendSpec, cfg: SweepConfig, tick: Tick) -> dict[str, Any]:
    """Build one backend, run all passes, and return its section of the report."""
    clock = Clock()
    adapter = TimedAdapter(open_backend(spec), clock)
    info: dict[str, Any] = {"label": spec.label, "backend": spec.name, "options": dict(spec.options),
                            "exact": adapter.capabilities.exact}
    wall = time.perf_counter()
    try:
        start = time.perf_counter()
        info["build_s"] = ingest(adapter, data, cfg.upsert_batch, tick, spec.label)
        info["ingest_s"] = time.perf_counter() - start
        ingest_inside = clock.inside
        start = time.perf_counter()
        unfiltered, t_unf = batched_rankings(adapter, data, cfg, False, tick, spec.label)
        filtered, t_fil = batched_rankings(adapter, data, cfg, True, tick, spec.label)
        info["query_s"] = time.perf_counter() - start
        n = len(data.truths)
        info["batched_qps"] = {"unfiltered": n / t_unf if t_unf else None, "filtered": n / t_fil if t_fil else None}
        info["unfiltered_depth"] = cfg.deepest
        start = time.perf_counter()
        samples = latency_pass(adapter, data, cfg, tick, spec.label)
        info["latency_s"] = time.perf_counter() - start
        start = time.perf_counter()
        acc = Accumulator(data, cfg.ks, cfg.depths, cfg.min_score)
        for i in range(n):
            acc.add(i, unfiltered[i], filtered[i] if adapter.capabilities.native_filter else None)
        records = acc.records(spec.label)
        latency = latency_records(spec.label, samples)
        info["evaluate_s"] = time.perf_counter() - start
    finally:
        adapter.close()
    info["wall_s"] = time.perf_counter() - wall
    info["inside_s"] = clock.inside
    info["calls"] = clock.calls
    info["overhead"] = overhead(info["wall_s"], clock.inside)
    info["overhead_ingest"] = overhead(info["ingest_s"], ingest_inside)
    info["overhead_queries"] = overhead(info["query_s"], t_unf + t_fil)
    return {"backend": info, "records": records, "latency": latency}


def run_sweep(data: ScaleData, specs: Sequence[BackendSpec], cfg: SweepConfig, tick: Tick,
              warn: Callable[[str], None]) -> dict[str, Any]:
    """Every spec in turn; an unavailable backend is skipped with its reason, a failing one reported."""
    backends, records, latency, skipped = [], [], [], []
    for spec in specs:
        try:
            result = run_spec(data, spec, cfg, tick)
        except BackendUnavailable as error:
            warn(f"skipping {spec.label}: {error}")
            skipped.append({"label": spec.label, "reason": str(error)})
            continue
        except Exception as error:  # one broken backend must not lose an hour of sweep
            warn(f"{spec.label} failed: {type(error).__name__}: {error}")
            skipped.append({"label": spec.label, "reason": f"{type(error).__name__}: {error}"})
            continue
        backends.append(result["backend"])
        records += result["records"]
        latency += result["latency"]
    inside = sum(b["inside_s"] for b in backends)
    wall = sum(b["wall_s"] for b in backends) + data.timings.get("truth_s", 0.0)
    return {"backends": backends, "skipped": skipped, "records": records, "latency": latency,
            "harness": {"inside_s": inside, "wall_s": wall, "overhead": overhead(wall, inside),
                        "note": "overhead = (backend phases + ground truth - time inside backend calls) / inside; "
                                "corpus generation and the embedding fit are reported apart"}}


# -- inputs and settings: shared by the command line, the bench scripts and the tests

def sweep_config(ks: str, candidates: str, batch: int = 64, latency_samples: int = 10,
                 min_score: float | None = None) -> SweepConfig:
    """A SweepConfig from the command line's strings; ValueError names the bad part."""
    try:
        k_values = tuple(sorted({int(p) for p in ks.split(",") if p.strip()}))
    except ValueError:
        raise ValueError(f"--k {ks!r}: expected positive integers separated by commas") from None
    if not k_values or k_values[0] < 1:
        raise ValueError(f"--k {ks!r}: expected positive integers separated by commas")
    depths = tuple(CandidateDepth.parse(p) for p in candidates.split(",") if p.strip())
    if batch < 1 or latency_samples < 0:
        raise ValueError("--batch must be positive and --latency-samples non-negative")
    return SweepConfig(ks=k_values, depths=depths, batch=batch, latency_samples=latency_samples,
                       min_score=min_score)


def settings_of(cfg: SweepConfig, dim: int, specs: Sequence[BackendSpec]) -> dict[str, Any]:
    return {"dim": dim, "ks": list(cfg.ks), "candidates": [str(d) for d in cfg.depths], "batch": cfg.batch,
            "latency_samples": cfg.latency_samples, "min_score": cfg.min_score,
            "backends": [s.label for s in specs]}


def corpus_info(data: ScaleData, gen: GeneratorConfig | None, path: Path | None) -> dict[str, Any]:
    fx = data.fixture
    return {"source": "generated" if gen else str(path), "generator": asdict(gen) if gen else None,
            "documents": len(fx.documents), "cases": len(fx.cases), "sha256": fx.sha256,
            "malformed": len(fx.malformed()), "min_score": fx.min_score}


def build_data(path: Path | None, gen: GeneratorConfig | None, cfg: SweepConfig, dim: int,
               progress: Any = None, console: Any = None) -> tuple[ScaleData, dict[str, Any], dict[str, float]]:
    """Load or generate the fixture, then embed it and compute the truths (with a progress bar if given)."""
    from filterproof.fixtures import load_fixture

    timings: dict[str, float] = {}
    start = time.perf_counter()
    corpus = generate(gen) if gen else None
    fixture = corpus.fixture if corpus else load_fixture(path)  # type: ignore[arg-type]
    timings["generate_s"] = time.perf_counter() - start
    if console is not None:
        console.print(f"corpus: {len(fixture.documents)} documents, {len(fixture.cases)} cases "
                      f"({timings['generate_s']:.1f} s); embedding to {dim} dimensions ...")
    task = progress.add_task("ground truth", total=len(fixture.cases)) if progress is not None else None

    def tick(what: str) -> None:
        if task is not None and what == "truth":
            progress.advance(task)

    levels = gen.selectivities if gen else None
    data = prepare_scale(fixture, cfg.kmax, dim=dim, levels=levels, tick=tick)
    timings.update(data.timings)
    return data, corpus_info(data, gen, path), timings


def sweep_in_memory(gen: GeneratorConfig, backends: Sequence[str], cfg: SweepConfig | None = None,
                    dim: int = DEFAULT_DIM, warn: Any = print) -> dict[str, Any]:
    """The whole sweep as one function call, returning the report dict (no files, no progress bars)."""
    cfg = cfg or SweepConfig()
    specs = [BackendSpec.parse(b) for b in backends]
    started = time.perf_counter()
    data, corpus, timings = build_data(None, gen, cfg, dim)
    result = run_sweep(data, specs, cfg, lambda *_: None, warn)
    timings["total_s"] = time.perf_counter() - started
    return report(corpus, settings_of(cfg, dim, specs), level_counts(data), timings, result)
