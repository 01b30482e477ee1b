"""Every backend against the reference, on every shipped fixture (adversarial metadata included).

Identical selections, decisions, top-K lists and K numbers (to 3 decimals), leaks 0
under the filtered strategies, and native eligible sets equal to the policy's.
Server backends use one server per session: a real ``chroma run`` here, PostgreSQL
from ``PGVECTOR_DSN`` or filterproof's throwaway server (one per process), Qdrant from
``QDRANT_URL`` or a container (marker ``docker``, skipped with the reason otherwise).
pgvector and LanceDB run at their exact settings (no vector index, native pre-filter).

Troubleshooting: a difference on one backend only, on a fixture with ties, is usually
a score differing in the 7th digit (see ``strategies.TIE_DIGITS``); a difference in
``eligible_sets`` is a filter bug, never a ranking one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from filterproof.adapters import Adapter, BackendSpec, open_backend
from filterproof.evaluation.congruence import differences, eligible_sets, policy_sets
from filterproof.evaluation.runner import BackendRun, Settings, index, run_backend
from filterproof.evaluation.scoring import summarize
from filterproof.evaluation.truth import Prepared

BACKENDS = ["chroma", "chroma-server", "qdrant-edge", "qdrant-local", "pgvector", "lancedb",
            "lancedb:index_scalar=true", pytest.param("qdrant-server", marks=pytest.mark.docker),
            # The bridges: the same engines through LangChain and LlamaIndex (adapters/bridges), default path.
            "langchain-chroma", "langchain-qdrant", "llamaindex-chroma", "llamaindex-qdrant",
            "langchain-pgvector", "llamaindex-pgvector"]
METRICS = ("recall", "arecall", "arecall_nonempty", "unusable", "precision", "ndcg", "mrr", "recall_exact")
COUNTS = ("cases", "correct", "wrong_document", "false_abstention", "correct_abstention", "leaks", "short")


@pytest.fixture(scope="session")
def reference_run(shipped: Prepared) -> BackendRun:
    return run_backend(shipped, "reference", Settings())


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, backend_options: Callable[[str], dict[str, Any]]) -> Iterator[Adapter]:
    adapter = open_backend(request.param, backend_options(request.param))
    yield adapter
    adapter.close()


@pytest.mark.slow  # about 100 s: every backend on every shipped fixture; the quick tier asks them per backend
@pytest.mark.parametrize("backend", BACKENDS)
def test_same_selections_decisions_and_k_numbers(
    shipped: Prepared, reference_run: BackendRun, backend: str,
    backend_options: Callable[[str], dict[str, Any]],
) -> None:
    run = run_backend(shipped, BackendSpec.of(backend, backend_options(backend)), Settings())
    assert run.status == "ok", run.reason
    assert [str(d) for d in differences(reference_run.rows, run.rows)] == []
    ks = list(Settings().ks)
    ref = summarize(reference_run.rows, ks)
    mine = summarize(run.rows, ks)
    assert len(ref) == len(mine)
    for a, b in zip(ref, mine, strict=True):
        assert (a["strategy"], a["candidates"], a["k"]) == (b["strategy"], b["candidates"], b["k"])
        assert {c: a[c] for c in COUNTS} == {c: b[c] for c in COUNTS}, (b["strategy"], b["k"])
        if b["strategy"] != "rank_only":
            assert b["leaks"] == 0
        for metric in METRICS:
            assert (a[metric] is None) == (b[metric] is None), (b["strategy"], b["k"], metric)
            if a[metric] is not None:
                assert round(a[metric], 3) == round(b[metric], 3), (b["strategy"], b["k"], metric)


@pytest.mark.slow  # about 10 s: every backend on every shipped fixture; the quick tier asks them per backend
def test_eligible_sets_equal_the_policy(shipped: Prepared, store: Adapter) -> None:
    index(store, shipped)
    assert eligible_sets(store, shipped) == policy_sets(shipped)
