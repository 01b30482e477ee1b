"""The reference adapter: exact search, ties by insertion order, native filter = the policy oracle."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from filterproof import congruence
from filterproof.adapters.base import Record
from filterproof.adapters.reference import ReferenceAdapter
from filterproof.columns import PolicyColumns
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal, is_eligible
from filterproof.runner import index
from filterproof.truth import Prepared

TENANTS = ["acme", "acme-corp", "beta", "", "ácme"]
GROUPS = ["eng", "sec", "$or", "fin", "e"]
DATES = ["2026-01-01", "2026-09-08", "2026-09-09", "2027-01-01", "yesterday", "", None, 20260101]


def metadata() -> st.SearchStrategy[dict]:
    """Mostly well-formed metadata, with every malformed class mixed in."""
    value = {
        "tenant": st.sampled_from([*TENANTS, None, 3, "acme/x"]),
        "logical_id": st.sampled_from(["a", "b", "c", None]),
        "revision": st.sampled_from([1, 2, 3, "1", 1.0, True, None]),
        "status": st.sampled_from(["active", "active", "superseded", "Active", None]),
        "groups": st.one_of(st.lists(st.sampled_from(GROUPS), max_size=3), st.sampled_from(["eng", [1], None])),
        "valid_from": st.sampled_from([*DATES[:5], None, 20260101]),
        "valid_until": st.sampled_from(DATES),
    }
    return st.fixed_dictionaries({}, optional=value)


ACTIVE = ActiveRevisions.of({(t, logical): r for t in TENANTS for logical, r in (("a", 1), ("b", 2))})


@settings(max_examples=300, deadline=None)
@given(
    docs=st.lists(metadata(), min_size=1, max_size=25),
    tenant=st.sampled_from(TENANTS),
    groups=st.lists(st.sampled_from(GROUPS), max_size=3),
    day=st.integers(min_value=-3, max_value=400),
)
def test_vectorised_mask_equals_the_policy(docs: list[dict], tenant: str, groups: list[str], day: int) -> None:
    where = PolicyFilter(Principal(tenant, tuple(groups)), date(2026, 1, 1) + timedelta(days=day), ACTIVE)
    mask = PolicyColumns(docs).mask(where)
    assert mask.tolist() == [is_eligible(d, where) for d in docs]


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
