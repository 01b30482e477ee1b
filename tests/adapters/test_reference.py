"""The reference adapter: exact search, ties by insertion order, native filter = the policy oracle."""

from __future__ import annotations

from datetime import date

import numpy as np
from hypothesis import given, settings

from filterproof.adapters.base import Record
from filterproof.adapters.reference import ReferenceAdapter
from filterproof.conformance.worlds.generated import World, worlds
from filterproof.evaluation import congruence
from filterproof.evaluation.runner import index
from filterproof.evaluation.truth import Prepared
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal, is_eligible
from filterproof.policy.columns import PolicyColumns


@settings(max_examples=200, deadline=None, database=None)
@given(world=worlds())
def test_vectorised_mask_equals_the_policy(world: World) -> None:
    """PolicyColumns (the reference's native filter, the scale tier's truth) agrees with policy.is_eligible
    on the property test's worlds: every malformed class, NUL and "/" included, and near misses."""
    docs = list(world.docs.values())
    columns = PolicyColumns(docs)
    for where in world.wheres:
        assert columns.mask(where).tolist() == [is_eligible(d, where) for d in docs], where.principal


def test_native_filter_equals_policy_on_shipped_fixtures(shipped: Prepared) -> None:
    adapter = ReferenceAdapter()
    index(adapter, shipped)
    assert congruence.eligible_sets(adapter, shipped) == congruence.policy_sets(shipped)


def test_prepared_truths_equal_the_oracle_on_shipped_fixtures(shipped: Prepared) -> None:
    """Every case's truth (numpy masks) is the policy oracle's eligible set, document for document."""
    oracle = congruence.policy_sets(shipped)
    assert {t.case.id: shipped.eligible_ids(i) for i, t in enumerate(shipped.truths)} == oracle


def unit(*xs: float) -> np.ndarray:
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_exact_top_k_with_ties_in_insertion_order() -> None:
    store = ReferenceAdapter()
    store.reset(2)
    store.upsert([Record("b", unit(1, 0), {}), Record("a", unit(1, 0), {}), Record("c", unit(0, 1), {}),
                  Record("d", unit(1, 1), {})])
    hits = store.search(unit(1, 0), 3, None)
    assert [h.id for h in hits] == ["b", "a", "d"]
    assert [round(h.score, 6) for h in hits] == [1.0, 1.0, round(float(unit(1, 1)[0]), 6)]


def test_delete_update_and_reupsert_are_visible_next_query() -> None:
    meta = {"tenant": "t", "logical_id": "x", "revision": 1, "status": "active", "groups": ["g"],
            "valid_from": "2026-01-01"}
    where = PolicyFilter(Principal("t", ("g",)), date(2026, 2, 1), ActiveRevisions.of({("t", "x"): 1}))
    store = ReferenceAdapter()
    store.reset(2)
    store.upsert([Record("x1", unit(1, 0), meta), Record("x2", unit(1, 1), meta)])
    assert [h.id for h in store.search(unit(1, 0), 5, where)] == ["x1", "x2"]
    store.update_metadata("x1", {**meta, "groups": ["other"]})
    assert [h.id for h in store.search(unit(1, 0), 5, where)] == ["x2"]
    store.delete(["x2", "never-there"])
    assert store.search(unit(1, 0), 5, where) == []
    superseded = PolicyFilter(where.principal, where.as_of, where.active.replace("t", "x", 2))
    store.upsert([Record("x3", unit(0, 1), {**meta, "revision": 2})])
    assert [h.id for h in store.search(unit(1, 0), 5, superseded)] == ["x3"]
    assert [h.id for h in store.search(unit(1, 0), 5, None)] == ["x1", "x3"]
