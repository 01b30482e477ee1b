"""The CI verdict names short pre_filter results first, and no declared tolerance waves them through (issue 45)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from filterproof.adapters import BackendSpec
from filterproof.adapters.registry import Resolved
from filterproof.conformance.defects import WindowedNearest
from filterproof.evaluation.congruence import verdict
from filterproof.evaluation.runner import BackendRun, Settings, run_backend
from filterproof.evaluation.scoring import summarize
from filterproof.evaluation.truth import Prepared

SHORT = "pre_filter returned fewer than min(K, eligible) documents"


class ApproximateWindow(WindowedNearest):
    """The windowed store declaring itself approximate with a tolerance that promises nothing (pgvector's HNSW
    at ``iterative_scan=off`` declares 1.0)."""

    capabilities = replace(WindowedNearest.capabilities, exact=False, recall_tolerance=1.0)


def run(prepared: Prepared, factory: type, options: dict[str, Any], label: str) -> BackendRun:
    resolved = Resolved(BackendSpec(label), factory.Options.coerce(options, label), lambda: factory)
    done = run_backend(prepared, resolved, Settings())
    assert done.status == "ok", done.reason
    return done


def judged(prepared: Prepared, runs: list[BackendRun], accept_short: bool = False) -> list[str]:
    rows = [row for r in runs for row in r.rows]
    summary = [s for r in runs for s in summarize(r.rows, list(Settings().ks))]
    return [f"{p.backend} {p.kind}: {p.detail}" for p in verdict([r.info() for r in runs], rows, summary,
                                                                  accept_short=accept_short)]


@pytest.fixture(scope="module")
def reference(shipped: Prepared) -> BackendRun:
    return run_backend(shipped, "reference", Settings())


def test_a_post_filtering_store_is_named_short_first(shipped: Prepared, reference: BackendRun) -> None:
    """A store filtering inside its nearest document: its first problem is the short results, before the
    differences they cause; accepted with ``accept_short``, only the differences remain."""
    windowed = run(shipped, WindowedNearest, {"window": 1}, "windowed")
    problems = judged(shipped, [reference, windowed])
    assert problems and problems[0].startswith(f"windowed short: {SHORT} ("), problems
    assert "first: " in problems[0] and "the filter ran after the index's top-N" in problems[0]
    accepted = judged(shipped, [reference, windowed], accept_short=True)
    assert not any(" short: " in p for p in accepted) and accepted, accepted


def test_a_tolerance_does_not_wave_short_results_through(shipped: Prepared, reference: BackendRun) -> None:
    """Declaring recall_tolerance=1.0 ("promises nothing") passes the recall lines, not the answers lost."""
    approximate = run(shipped, ApproximateWindow, {"window": 1}, "approximate")
    problems = judged(shipped, [reference, approximate])
    assert [p.split(":")[0] for p in problems] == ["approximate short"], problems
    assert judged(shipped, [reference, approximate], accept_short=True) == []


def test_an_exact_store_has_no_short_problem(shipped: Prepared, reference: BackendRun) -> None:
    """A window holding every document is exact: nothing short, nothing to report."""
    whole = run(shipped, WindowedNearest, {"window": 1_000_000}, "whole")
    assert judged(shipped, [reference, whole]) == []
