"""Every built-in store (its description lists it here) against the reference, on every shipped fixture.

Identical selections, decisions, top-K lists and K numbers (to 3 decimals), leaks 0
under the filtered strategies, and native eligible sets equal to the policy's.
Server backends use one server per session: a real ``chroma run`` here, PostgreSQL
from ``PGVECTOR_DSN`` or filterproof's throwaway server (one per process), Qdrant from
``QDRANT_URL`` or a container (marker ``docker``, skipped with the reason otherwise).
pgvector and LanceDB run at their exact settings (no vector index, native pre-filter); LanceDB with a
scalar index and DuckDB's HNSW mode run as well (``VARIANTS``). The adversarial metadata is a shipped fixture.

Troubleshooting: a difference on one backend only, on a fixture with ties, is usually
a score differing in the 7th digit (see ``strategies.TIE_DIGITS``); a difference in
``eligible_sets`` is a filter bug, never a ranking one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from filterproof.adapters import Adapter, BackendSpec
from filterproof.adapters.descriptor import stores
from filterproof.adapters.registry import Resolved, resolve
from filterproof.evaluation.congruence import differences, eligible_sets, policy_sets
from filterproof.evaluation.runner import BackendRun, Settings, run_backend
from filterproof.evaluation.scoring import summarize
from filterproof.evaluation.truth import Prepared
from support.paths import FIXTURES

VARIANTS = {"lancedb": ["lancedb:index_scalar=true"], "duckdb": ["duckdb:index=hnsw"]}
"""Specs beside a store's default whose filter path differs (a scalar index; the HNSW scan and its wider LIMIT)."""
NEEDS_A_CONTAINER = {"qdrant-server"}
"""Stores with no server that starts here: run with ``QDRANT_URL`` (marker ``docker``)."""


def _params() -> list[Any]:
    """Every built-in store but the oracle, from its description (a store added as a package is listed)."""
    found: list[Any] = []
    for store in stores():
        if store.kind == "oracle":
            continue
        marks = [pytest.mark.docker] if store.name in NEEDS_A_CONTAINER else []
        found += [pytest.param(spec, marks=marks, id=spec) for spec in [store.name, *VARIANTS.get(store.name, [])]]
    return found


BACKENDS = _params()
METRICS = ("recall", "arecall", "arecall_nonempty", "unusable", "precision", "ndcg", "mrr", "recall_exact")
COUNTS = ("cases", "correct", "wrong_document", "false_abstention", "correct_abstention", "leaks", "short")


@pytest.fixture(scope="module")
def every_shipped(lab_prepared: Prepared, corpus_prepared: Prepared, adversarial: Prepared) -> list[Prepared]:
    """The shipped fixtures (the session's preparations), each with the reference's run."""
    prepared = [lab_prepared, corpus_prepared, adversarial]
    assert sorted(p.fixture.name for p in prepared) == sorted(path.stem for path in FIXTURES.iterdir())
    return prepared


@pytest.fixture(scope="module")
def reference_runs(every_shipped: list[Prepared]) -> dict[str, BackendRun]:
    return {p.fixture.name: run_backend(p, "reference", Settings()) for p in every_shipped}


class KeptOpen:
    """The opened adapter for ``run_backend``, which closes what it opens: the test closes it after its own check."""

    def __init__(self, inner: Adapter) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def close(self) -> None:
        pass


@pytest.mark.slow  # about 2 minutes: every store on every shipped fixture; the quick tier asks them per backend
@pytest.mark.parametrize("backend", BACKENDS)
def test_same_selections_decisions_k_numbers_and_eligible_sets(
    every_shipped: list[Prepared], reference_runs: dict[str, BackendRun], backend: str,
    backend_options: Callable[[str], dict[str, Any]],
) -> None:
    """On each shipped fixture in turn, in one store (opened once: ``reset`` between fixtures, as a run between
    worlds), the store's run equals the reference's; then, on the same indexed store, each case's native filter
    asked for every document returns exactly the policy's eligible set (a difference there is a filter bug, never a
    ranking one)."""
    resolved = resolve(BackendSpec.of(backend, backend_options(backend)))
    adapter = resolved.open()
    try:
        kept = Resolved(resolved.spec, resolved.options, lambda: lambda _options: KeptOpen(adapter))
        for prepared in every_shipped:
            name = prepared.fixture.name
            run = run_backend(prepared, kept, Settings())
            assert run.status == "ok", (name, run.reason)
            assert [str(d) for d in differences(reference_runs[name].rows, run.rows)] == [], name
            _same_summaries(reference_runs[name], run, name)
            assert eligible_sets(adapter, prepared) == policy_sets(prepared), name
    finally:
        adapter.close()


def _same_summaries(reference: BackendRun, run: BackendRun, fixture: str) -> None:
    ks = list(Settings().ks)
    ref = summarize(reference.rows, ks)
    mine = summarize(run.rows, ks)
    assert len(ref) == len(mine)
    for a, b in zip(ref, mine, strict=True):
        where = (fixture, b["strategy"], b["k"])
        assert (a["strategy"], a["candidates"], a["k"]) == (b["strategy"], b["candidates"], b["k"]), fixture
        assert {c: a[c] for c in COUNTS} == {c: b[c] for c in COUNTS}, where
        if b["strategy"] != "rank_only":
            assert b["leaks"] == 0, where
        for metric in METRICS:
            assert (a[metric] is None) == (b[metric] is None), (*where, metric)
            if a[metric] is not None:
                assert round(a[metric], 3) == round(b[metric], 3), (*where, metric)
