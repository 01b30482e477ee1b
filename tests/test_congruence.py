"""Every backend against the reference, on every shipped fixture (adversarial metadata included).

Identical selections, decisions, top-K lists and K numbers (to 3 decimals), leaks 0
under the filtered strategies, and native eligible sets equal to the policy's.
Server backends use one server per session: a real ``chroma run`` here, Qdrant from
``QDRANT_URL`` or a container (marker ``docker``, skipped with the reason otherwise).

Troubleshooting: a difference on one backend only, on a fixture with ties, is usually
a score differing in the 7th digit (see ``strategies.TIE_DIGITS``); a difference in
``eligible_sets`` is a filter bug, never a ranking one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from filterproof.adapters import Adapter, BackendSpec, open_backend
from filterproof.congruence import differences, eligible_sets, policy_sets
from filterproof.runner import Prepared, Settings, StrategyRun, index, run_backend

BACKENDS = ["chroma", "chroma-server", "qdrant-edge", "qdrant-local",
            pytest.param("qdrant-server", marks=pytest.mark.docker),
            # The bridges: the same engines through LangChain and LlamaIndex (adapters/bridges), default path.
            "langchain-chroma", "langchain-qdrant", "llamaindex-chroma", "llamaindex-qdrant"]
METRICS = ("recall", "arecall", "arecall_nonempty", "unusable", "precision", "ndcg")


@pytest.fixture(scope="session")
def reference_runs(shipped: Prepared) -> list[StrategyRun]:
    return run_backend(shipped, "reference", Settings())


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, backend_options: Callable[[str], dict[str, Any]]) -> Iterator[Adapter]:
    adapter = open_backend(request.param, backend_options(request.param))
    yield adapter
    adapter.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_same_selections_decisions_and_k_numbers(
    shipped: Prepared, reference_runs: list[StrategyRun], backend: str,
    backend_options: Callable[[str], dict[str, Any]],
) -> None:
    runs = run_backend(shipped, BackendSpec.of(backend, backend_options(backend)), Settings())
    assert [str(d) for d in differences(reference_runs, runs)] == []
    for ref, run in zip(reference_runs, runs, strict=True):
        assert (run.backend.split(":")[0], run.strategy) == (backend, ref.strategy)
        assert run.decisions() == ref.decisions()
        if run.strategy != "rank_only":
            assert run.decisions()["leaks"] == 0
        for k, summary in ref.k.items():
            for metric in METRICS:
                mine, theirs = getattr(run.k[k], metric), getattr(summary, metric)
                assert (mine is None) == (theirs is None), (run.strategy, k, metric)
                if mine is not None:
                    assert round(mine, 3) == round(theirs, 3), (run.strategy, k, metric)


def test_eligible_sets_equal_the_policy(shipped: Prepared, store: Adapter) -> None:
    index(store, shipped)
    assert eligible_sets(store, shipped) == policy_sets(shipped)
