"""Run prepared fixtures through one backend: index, rank under every strategy, time, score.

The pipeline of every run (``compare`` and ``sweep`` are two front ends on it):

    truth.prepare  ->  index  ->  rankings (strategies)  ->  scoring  ->  report

``run_backend`` does the middle for one backend spec: it opens the adapter, indexes
the shared vectors, asks every case twice in batches (unfiltered as deep as the
deepest post_filter needs, and through the native filter as deep as the largest
K), optionally times single queries, and scores every (strategy, case). It never
lets one backend's failure lose the others' results: the failure is recorded in
the ``BackendRun`` with its reason.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from filterproof.adapters.base import Adapter, Hit, records_of, sync_active
from filterproof.adapters.ownership import NotOurs
from filterproof.adapters.registry import Resolved, resolve
from filterproof.adapters.searchpath import paths_taken
from filterproof.adapters.spec import BackendSpec
from filterproof.errors import BackendUnavailable, UsageError
from filterproof.evaluation.scoring import CaseRow, score_case
from filterproof.evaluation.strategies import TIE_MARGIN, CandidateDepth, Strategy, deepest, plan, ranked_search
from filterproof.evaluation.timing import Clock, TimedAdapter, overhead, percentile
from filterproof.evaluation.truth import Prepared
from filterproof.fixtures.chunks import chunks

DEFAULT_MIN_SCORE = 0.25
"""Top-1 threshold when neither the fixture nor the command line sets one (the freshness lab's)."""
DEFAULT_KS = (1, 3, 5, 10)
SHOWN_REFUSALS = 100
"""Refused documents named in a report (all are counted)."""
SHOWN_DIFFERENCES = 5

Tick = Callable[[str, str, int], None]
"""Progress callback: (backend label, phase, units done); phases "ingest", "build", "queries", "latency"."""


def _no_tick(label: str, phase: str, done: int) -> None:
    """No progress display."""


@dataclass(frozen=True)
class Settings:
    """Everything about a run that is not the fixture or the backend."""

    ks: tuple[int, ...] = DEFAULT_KS
    depths: tuple[CandidateDepth, ...] = (CandidateDepth(),)
    """post_filter candidate depths C (one post_filter strategy per depth)."""
    min_score: float | None = None
    """Overrides the fixture's ``min_score``; both absent: ``DEFAULT_MIN_SCORE``."""
    batch: int = 64
    """Queries per batched call."""
    upsert_batch: int = 512
    latency_samples: int = 0
    """Single-query timings per selectivity level and strategy (0: none)."""

    @property
    def kmax(self) -> int:
        return max(self.ks)

    @property
    def asked(self) -> list[int]:
        """The K of every list: the reported ones, and 1 for the top-1 decision."""
        return sorted({1, *self.ks})

    def threshold(self, prepared: Prepared) -> float:
        if self.min_score is not None:
            return self.min_score
        fixture_min = prepared.fixture.min_score
        return fixture_min if fixture_min is not None else DEFAULT_MIN_SCORE


@dataclass
class BackendRun:
    """One backend spec over one prepared fixture: its case rows, timings and status."""

    label: str
    backend: str
    fixture: str
    options: dict[str, Any]
    status: str = "ok"
    """``ok``; ``unavailable`` (not installed, no server); ``refused`` (it would write into an object filterproof
    did not create: ``adapters.ownership``); ``failed`` (an error during the run)."""
    reason: str | None = None
    capabilities: dict[str, Any] = field(default_factory=dict)
    rows: list[CaseRow] = field(default_factory=list)
    latency: list[dict[str, Any]] = field(default_factory=list)
    timings: dict[str, Any] = field(default_factory=dict)
    not_indexable: dict[str, str] = field(default_factory=dict)
    """Documents the store refused as beyond its engine's limits (id: why); never written, never returned."""
    without_refused: dict[str, Any] | None = None
    """With refusals: ``{"differences": n, "first": [...]}`` against the reference run without those documents."""
    paths: dict[str, int] = field(default_factory=dict)
    """How many sampled filtered searches took each path (``searchpath``: index, post-filter, exact scan,
    unknown)."""

    def info(self) -> dict[str, Any]:
        info = {"label": self.label, "backend": self.backend, "fixture": self.fixture, "options": self.options,
                "status": self.status, "reason": self.reason, "capabilities": self.capabilities,
                "timings": self.timings, "paths": self.paths}
        if self.not_indexable:
            shown = dict(list(self.not_indexable.items())[:SHOWN_REFUSALS])
            info["not_indexable"] = {"count": len(self.not_indexable), "documents": shown,
                                     "differences_without_them": self.without_refused}
        return info


def release_memory(collect: bool = True) -> None:
    """Collect garbage (unless not ``collect``) and hand freed heap pages back to the OS (glibc's
    ``malloc_trim``; elsewhere nothing).

    glibc keeps what a process frees for its own reuse, and it stays in the resident
    set: after qdrant-edge's ingest and index build, after a closed backend, and after
    filtered queries that carry the active map (``revision=query``), which allocate
    and free a copy of it per query; so the phases and the query loops trim (the
    measurements: ``bench/README.md``, memory).
    """
    if collect:
        gc.collect()
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to trim
        ctypes.CDLL(None).malloc_trim(0)


def index(adapter: Adapter, prepared: Prepared, batch: int = 512, tick: Tick = _no_tick, label: str = "") -> None:
    """Reset the adapter and upsert the fixture's documents with the shared vectors, ``batch`` at a time.

    The documents are read in chunks (``filterproof.fixtures.chunks``) without their texts, and
    each chunk's records are dropped once upserted: a generated corpus never exists
    as documents all at once, here or anywhere (what the store keeps is its own affair).
    The index is built once, after the ingest (``TimedAdapter.build``): building it every
    50k documents instead was measured worse, in memory and time (qdrant-edge merged the
    segments again; ``bench/results/sweep_200k_build50k``).
    """
    tick(label, "ingest", 0)  # the phase starts (a crash report names the phase it was in)
    adapter.reset(prepared.dim)
    sync_active(adapter, prepared.fixture.active)  # before the upserts: a revision=flag store writes flags from it
    for chunk in chunks(prepared.fixture, batch, texts=False):
        adapter.upsert(records_of(chunk.ids, prepared.doc_vectors[chunk.start:chunk.stop], chunk.metadata))
        tick(label, "ingest", len(chunk))


def rankings(adapter: Adapter, prepared: Prepared, settings: Settings, filtered: bool, tick: Tick = _no_tick,
             label: str = "") -> list[list[Hit]]:
    """Every case's ranking: through the native filter as deep as the largest K, or unfiltered as deep as
    the deepest post_filter needs; in batches of cases that share a level (and so, often, a filter)."""
    depth = settings.kmax if filtered else deepest(settings.depths, settings.kmax)
    truths = prepared.truths
    found: list[list[Hit]] = [[] for _ in truths]
    tick(label, "queries", 0)
    for level in prepared.levels:
        rows = [i for i, t in enumerate(truths) if t.level == level]
        for start in range(0, len(rows), settings.batch):
            chunk = rows[start:start + settings.batch]
            wheres = [truths[i].filter if filtered else None for i in chunk]
            for i, hits in zip(chunk, ranked_search(adapter, prepared.query_vectors[chunk], depth, wheres,
                                                    prepared.fixture.order), strict=True):
                found[i] = hits
            release_memory(collect=False)
            tick(label, "queries", len(chunk))
    return found


def evaluate(adapter: Adapter, prepared: Prepared, settings: Settings, label: str | None = None,
             tick: Tick = _no_tick) -> list[CaseRow]:
    """Ask every case under every strategy the adapter supports, and score it (the adapter is indexed)."""
    label = label or adapter.name
    unfiltered = rankings(adapter, prepared, settings, False, tick, label)
    native = adapter.capabilities.native_filter
    filtered = rankings(adapter, prepared, settings, True, tick, label) if native else None
    return score_rankings(prepared, settings, label, plan(settings.depths, native), unfiltered, filtered)


def score_rankings(prepared: Prepared, settings: Settings, label: str, strategies: Sequence[Strategy],
                   unfiltered: list[list[Hit]], filtered: list[list[Hit]] | None) -> list[CaseRow]:
    threshold, order = settings.threshold(prepared), prepared.fixture.order
    rows = []
    for strategy in strategies:
        for i, truth in enumerate(prepared.truths):
            def allowed(doc_id: str, mask: Any = truth.mask) -> bool:
                return bool(mask[order[doc_id]])

            lists = strategy.lists(unfiltered[i], filtered[i] if filtered is not None else None, allowed,
                                   settings.asked)
            rows.append(score_case(prepared, i, label, strategy, lists, threshold))
    return rows


def latency_pass(adapter: Adapter, prepared: Prepared, settings: Settings, strategies: Sequence[Strategy],
                 label: str, tick: Tick = _no_tick) -> list[dict[str, Any]]:
    """Single-query wall times per (strategy, depth, level): p50/p95 in ms and single-query QPS."""
    out = []
    for level in prepared.levels:
        cases = [i for i, t in enumerate(prepared.truths) if t.level == level][:settings.latency_samples]
        for strategy in strategies:
            k = strategy.depth.at(settings.kmax) if strategy.depth else settings.kmax
            times = []
            for i in cases:
                where = prepared.truths[i].filter if strategy.name == "pre_filter" else None
                start = time.perf_counter()
                adapter.search(prepared.query_vectors[i], k + TIE_MARGIN, where)
                times.append(time.perf_counter() - start)
            tick(label, "latency", len(cases))
            mean = sum(times) / len(times) if times else None
            out.append({"fixture": prepared.fixture.name, "backend": label, "strategy": strategy.name,
                        "candidates": strategy.candidates, "level": level, "samples": len(times),
                        "p50_ms": None if not times else 1000 * percentile(times, 50),  # type: ignore[operator]
                        "p95_ms": None if not times else 1000 * percentile(times, 95),  # type: ignore[operator]
                        "qps": 1.0 / mean if mean else None})
        release_memory(collect=False)  # after the timings, never inside them
    return out


def _measured(adapter: TimedAdapter, prepared: Prepared, settings: Settings, run: BackendRun, tick: Tick) -> None:
    clock, timings = adapter.clock, run.timings
    start = time.perf_counter()
    index(adapter, prepared, settings.upsert_batch, tick, run.label)
    release_memory()  # the ingest's chunks, before the engine builds its index on top
    tick(run.label, "build", 0)  # shown while it runs: an engine's index build reports no progress
    timings["build_s"] = adapter.build()
    release_memory()  # what the build replaced (qdrant-edge: the appendable segment and its indexes)
    tick(run.label, "build", 1)
    run.not_indexable = adapter.not_indexable()
    timings["ingest_s"] = time.perf_counter() - start
    inside_ingest = clock.inside
    start = time.perf_counter()
    unfiltered = rankings(adapter, prepared, settings, False, tick, run.label)
    t_unfiltered = clock.inside - inside_ingest
    native = adapter.capabilities.native_filter
    filtered = rankings(adapter, prepared, settings, True, tick, run.label) if native else None
    t_filtered = clock.inside - inside_ingest - t_unfiltered
    if native:  # after the timed queries: an EXPLAIN is not a search
        run.paths = dict(sampled_paths(adapter.inner, prepared, settings.kmax))
    timings["query_s"] = time.perf_counter() - start
    n = len(prepared.truths)
    timings["batched_qps"] = {"unfiltered": n / t_unfiltered if t_unfiltered else None,
                              "filtered": n / t_filtered if t_filtered else None}
    strategies = plan(settings.depths, native)
    if settings.latency_samples:
        start = time.perf_counter()
        run.latency = latency_pass(adapter, prepared, settings, strategies, run.label, tick)
        timings["latency_s"] = time.perf_counter() - start
    start = time.perf_counter()
    run.rows = score_rankings(prepared, settings, run.label, strategies, unfiltered, filtered)
    timings["evaluate_s"] = time.perf_counter() - start
    timings["overhead_ingest"] = overhead(timings["ingest_s"], inside_ingest)
    timings["overhead_queries"] = overhead(timings["query_s"], t_unfiltered + t_filtered)


PATH_SAMPLE = 12
"""Filtered searches explained per run (evenly spaced over the cases, so that a generated corpus's levels are
spread over the sample)."""


def sampled_paths(adapter: Adapter, prepared: Prepared, k: int) -> Counter[str]:
    """The paths ``PATH_SAMPLE`` of the fixture's filtered searches take (``explain``)."""
    n = len(prepared.truths)
    count = min(n, PATH_SAMPLE)
    rows = sorted({round(i * (n - 1) / max(count - 1, 1)) for i in range(count)})
    return paths_taken(adapter, prepared.query_vectors[rows], k, [prepared.truths[i].filter for i in rows])


def run_backend(prepared: Prepared, backend: Resolved | BackendSpec | str, settings: Settings,
                tick: Tick = _no_tick) -> BackendRun:
    """Open, index, rank, score and close one backend; a failure is recorded, never raised (but Ctrl-C is)."""
    resolved = backend if isinstance(backend, Resolved) else resolve(backend)
    options = resolved.options if isinstance(resolved.options, dict) else resolved.options.given()
    run = BackendRun(resolved.label, resolved.spec.name, prepared.fixture.name, options)
    clock = Clock()
    wall = time.perf_counter()
    try:
        adapter = TimedAdapter(resolved.open(), clock)
    except NotOurs as error:  # the user's table: nothing was written, and the command stops (exit 2)
        run.status, run.reason = "refused", str(error)
        return run
    except (BackendUnavailable, UsageError) as error:  # cannot run here, now (not installed, a path in use)
        run.status, run.reason = "unavailable", str(error)
        return run
    except Exception as error:  # a store that cannot even start is a finding about that store, not a crash
        run.status, run.reason = "failed", f"{type(error).__name__}: {error}"
        return run
    run.capabilities = vars(adapter.capabilities).copy()
    try:
        _measured(adapter, prepared, settings, run, tick)
    except NotOurs as error:
        run.status, run.reason, run.rows = "refused", str(error), []
    except Exception as error:  # keep the other backends' results; say what broke, in one line
        run.status, run.reason, run.rows = "failed", f"{type(error).__name__}: {error}", []
    finally:
        try:
            adapter.close()
        except Exception as error:
            if run.status == "ok":
                run.status, run.reason = "failed", f"close: {type(error).__name__}: {error}"
        del adapter
        release_memory()  # before the next backend: what this one held is not counted twice
    run.timings.update(wall_s=time.perf_counter() - wall, inside_s=clock.inside, calls=clock.calls)
    run.timings["overhead"] = overhead(run.timings["wall_s"], clock.inside)
    return run

