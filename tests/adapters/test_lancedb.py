"""LanceDB specifics, embedded: generated metadata, pre- vs post-filtering, indexes, paths, options.

Congruence with the reference lives in ``test_congruence.py``, the contract and
lifecycle in the conformance suite; the compiler and hostile values in
``test_lancedb_where.py``. Nothing is mocked: every answer comes from LanceDB.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from filterproof.adapters import OptionError, open_backend
from filterproof.adapters.base import Adapter, Record
from filterproof.conformance.checks.contract import vec
from filterproof.conformance.worlds import scenarios as sc
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal, eligible_ids
from support.at_once import K, first_searches_met

pytest.importorskip("lancedb")
AS_OF = date(2026, 9, 8)


@pytest.fixture(params=["lancedb", "lancedb:index_scalar=true"])
def store(request: pytest.FixtureRequest) -> Iterator[Adapter]:
    adapter = open_backend(request.param)
    yield adapter
    adapter.close()


def random_metadata(rng: random.Random) -> dict[str, Any]:
    def pick(good: list[Any], bad: list[Any]) -> Any:
        return rng.choice(good if rng.random() < 0.75 else bad)

    meta: dict[str, Any] = {
        "tenant": pick(["acme", "ácme", "o'brien"], ["acme-corp", "acm", "a/b", 7, None]),
        "logical_id": rng.choice(["x", "y", "b/x", "x#1", "工程", "it's"]),
        "revision": pick([1, 2], [3, True, 1.0, "1", None]),
        "status": pick(["active"], ["draft", "Active", 1]),
        "groups": pick([["eng"], ["ops", "eng"], ["' OR 1=1 --"]], [["ops"], "eng", [], ["eng", 3], None]),
        "valid_from": pick(["2026-01-01", "2026-09-08"], ["2026-09-09", "2026-02-30", "20260101", 20260101]),
        "valid_until": pick([None, "2026-09-09", "2027-01-01"], ["2026-09-08", "", 20270101, "2026-09-08T00:00Z"]),
    }
    for name in list(meta):
        if rng.random() < 0.04:
            del meta[name]
    return meta


@pytest.mark.slow  # a few seconds; the quick tier's generated property asks the same of this store
def test_generated_metadata_matches_the_policy(store: Adapter) -> None:
    """Batched and single filtered searches return exactly the policy's set, with and without scalar indexes."""
    rng = random.Random(20260908)
    metas = [random_metadata(rng) for _ in range(300)]
    vectors = np.random.default_rng(7).random((300, 4)).astype(np.float32) + 0.01
    store.reset(4)
    store.upsert([Record(f"d{i}", vectors[i], m) for i, m in enumerate(metas)])
    keys = {(t, lid) for t in ("acme", "ácme", "o'brien", "acm") for lid in ("x", "y", "b/x", "x#1", "工程", "it's")}
    active = ActiveRevisions.of({key: rng.choice([1, 2]) for key in keys if rng.random() < 0.8})
    pairs = [(f"d{i}", m) for i, m in enumerate(metas)]
    wheres = [PolicyFilter(Principal(tenant, groups), as_of, active)
              for tenant in ("acme", "ácme", "o'brien", "acm", "a/b")
              for groups in ((), ("eng",), ("' OR 1=1 --", "ops"))
              for as_of in (date(2026, 9, 7), AS_OF, date(2026, 9, 9))]
    batched = store.search_batch(np.ones((len(wheres), 4), dtype=np.float32), 1000, wheres)  # type: ignore[attr-defined]
    checked = 0
    for where, hits in zip(wheres, batched, strict=True):
        assert {h.id for h in hits} == eligible_ids(pairs, where), where.principal
        checked += len(hits)
    assert checked > 30


def selective(adapter: Adapter) -> tuple[sc.Scenario, PolicyFilter]:
    docs = {f"noise-{i:02d}": sc.meta(logical_id=f"n{i}", groups=["other"]) for i in range(40)}
    docs |= {f"wanted-{i}": sc.meta(logical_id=f"w{i}") for i in range(4)}
    texts = {i: f"{sc.QUERY} {sc.QUERY} {i}" if i.startswith("noise") else f"{sc.QUERY} {i} extra words" for i in docs}
    return sc.Scenario.build(adapter, docs, texts), PolicyFilter(sc.principal(), AS_OF, sc.active_for(docs))


@pytest.mark.parametrize(("spec", "found"), [("lancedb", 4), ("lancedb:prefilter=false", 0),
                                             ("lancedb:prefilter=false,index_scalar=true", 0)])
def test_post_filtering_is_short_under_a_selective_filter(spec: str, found: int) -> None:
    """LanceDB's post-filter filters the 10 nearest rows: here all 10 are ineligible, and nothing comes back."""
    adapter = open_backend(spec)
    try:
        s, where = selective(adapter)
        hits = s.native(where, 10)
        assert len(hits) == found and {h.id for h in hits} <= s.policy_ids(where)
    finally:
        adapter.close()


SCALAR_COLUMNS = {("tenant",), ("status",), ("revision_key",), ("groups",), ("valid_from",), ("valid_until",)}


@pytest.mark.parametrize(("spec", "below", "from_min_rows"), [
    ("lancedb:index=ivf_flat,index_min_rows=256,num_partitions=2,nprobes=2,index_scalar=true", SCALAR_COLUMNS,
     SCALAR_COLUMNS | {("vector",)}),
    ("lancedb:index=ivf_flat,index_min_rows=256,num_partitions=2,nprobes=2", set(), {("vector",)}),
    ("lancedb:index=flat,index_scalar=true,index_min_rows=256", SCALAR_COLUMNS, SCALAR_COLUMNS),  # no vector index
    ("lancedb", set(), set()),  # the default asks for no index: none is built
])
def test_indexes_are_built_on_the_first_search_from_index_min_rows(spec: str, below: set[tuple[str, ...]],
                                                                   from_min_rows: set[tuple[str, ...]]) -> None:
    """Nothing at the write; at the first search the scalar indexes asked for, and the vector index once the table
    holds ``index_min_rows`` rows (100 rows: not yet; 300: built)."""
    adapter = open_backend(spec)
    rng = np.random.default_rng(3)

    def written(start: int, stop: int) -> None:
        adapter.upsert([Record(f"d{i}", rng.standard_normal(8).astype(np.float32), sc.meta(logical_id=f"l{i}"))
                        for i in range(start, stop)])

    def indexed_after_a_search() -> set[tuple[str, ...]]:
        where = PolicyFilter(sc.principal(), AS_OF, ActiveRevisions.of({("acme", f"l{i}"): 1 for i in range(300)}))
        assert len(adapter.search(rng.standard_normal(8).astype(np.float32), 10, where)) == 10
        return {tuple(i.columns) for i in adapter.table.list_indices()}  # type: ignore[attr-defined]

    try:
        adapter.reset(8)
        written(0, 100)
        assert adapter.table.list_indices() == []  # type: ignore[attr-defined]
        assert indexed_after_a_search() == below
        written(100, 300)
        assert indexed_after_a_search() == from_min_rows
        adapter.optimize()  # type: ignore[attr-defined]
    finally:
        adapter.close()


def test_reupsert_replaces_and_update_keeps_the_vector() -> None:
    adapter = open_backend("lancedb")
    try:
        where = PolicyFilter(sc.principal(), AS_OF, ActiveRevisions.of({("acme", "doc"): 1}))
        adapter.reset(2)
        adapter.upsert([Record("a", vec(1, 0), sc.meta()), Record("a", vec(0, 1), sc.meta(groups=["ops"]))])
        assert adapter.search(vec(0, 1), 10, where) == [] and adapter.table.count_rows() == 1  # type: ignore[attr-defined]
        adapter.update_metadata("a", sc.meta())
        [hit] = adapter.search(vec(0, 1), 10, where)
        assert (hit.id, round(hit.score, 6)) == ("a", 1.0)
    finally:
        adapter.close()


def test_a_path_is_kept_and_reopened_and_a_temporary_one_removed(tmp_path: Path) -> None:
    first = open_backend(f"lancedb:path={tmp_path},table=docs")
    assert first.capabilities.persistent
    first.reset(2)
    first.upsert([Record("a", vec(1, 0), sc.meta())])
    first.close()
    again = open_backend(f"lancedb:path={tmp_path},table=docs")
    try:
        assert [h.id for h in again.search(vec(1, 0), 5, None)] == ["a"]
    finally:
        again.close()
    assert any(tmp_path.iterdir())
    temporary = open_backend("lancedb")
    root = temporary._root  # type: ignore[attr-defined]
    temporary.reset(2)
    temporary.close()
    assert not root.exists()


@pytest.mark.parametrize(("spec", "message"), [
    ("lancedb:prefiltr=false", "unknown option 'prefiltr'.*did you mean 'prefilter'"),
    ("lancedb:index=hnsw", "index"), ("lancedb:index_min_rows=10", "index_min_rows"),
    ("lancedb:prefilter=maybe", "prefilter"), ("lancedb:table=a'b", "table"),
])
def test_bad_options_name_the_key(spec: str, message: str) -> None:
    with pytest.raises(OptionError, match=message):
        open_backend(spec)


def test_the_search_settings_reach_the_engine() -> None:
    """``nprobes`` and ``refine_factor`` given are in the engine's plan (both probe bounds; k times the factor
    fetched before the exact re-rank), ``ef`` in the query lancedb hands it. Read there, not on the query
    builder: lancedb 0.41 moved ``nprobes`` from the builder's two bounds to one field of its own."""
    adapter = open_backend("lancedb:index=ivf_hnsw_sq,index_min_rows=256,num_partitions=2,refine_factor=3,ef=20,"
                           "nprobes=2")
    rng = np.random.default_rng(3)
    try:
        adapter.reset(8)
        adapter.upsert([Record(f"d{i}", rng.standard_normal(8).astype(np.float32), sc.meta(logical_id=f"l{i}"))
                        for i in range(300)])
        adapter.search(rng.standard_normal(8).astype(np.float32), 5, None)  # builds the index
        query = adapter.query(np.ones((1, 8), np.float32), 5, None)  # type: ignore[attr-defined]
        plan = query.explain_plan(True)
        assert "minimum_nprobes=2, maximum_nprobes=Some(2)" in plan, plan
        assert "ANNSubIndex: name=vector_idx, k=15," in plan, plan
        assert query.to_query_object().ef == 20
    finally:
        adapter.close()


def test_search_settings_not_given_are_left_to_lancedb() -> None:
    """No ``nprobes``, ``refine_factor`` or ``ef`` given: the query lancedb hands its engine sets none of them."""
    adapter = open_backend("lancedb:index=ivf_hnsw_sq")
    try:
        adapter.reset(4)
        built = adapter.query(np.ones((1, 4), np.float32), 5, None).to_query_object()  # type: ignore[attr-defined]
        probes = [getattr(built, name, None) for name in ("nprobes", "minimum_nprobes", "maximum_nprobes")]
        assert (built.refine_factor, built.ef, probes) == (None, None, [None, None, None])
    finally:
        adapter.close()


@pytest.mark.parametrize(("spec", "exact", "tolerance"), [
    ("lancedb", True, 0.0), ("lancedb:index_scalar=true", True, 0.0), ("lancedb:prefilter=false", False, 1.0),
    ("lancedb:index=ivf_hnsw_sq", False, 0.02),
])
def test_capabilities_follow_the_options(spec: str, exact: bool, tolerance: float) -> None:
    adapter = open_backend(spec)
    try:
        assert (adapter.capabilities.exact, adapter.capabilities.recall_tolerance) == (exact, tolerance)
    finally:
        adapter.close()


def test_two_clients_whose_first_searches_meet_build_each_index_once() -> None:
    """Two clients of one table (``open_writer``), each searching first at once after the writes: both build the
    indexes asked for, and LanceDB refuses the later commit (``Retryable commit conflict``) to the one that loses.
    That one finds what the other built, and builds the rest; every search answers, and each column is indexed
    once. Five tables, one barrier each."""
    for seed in range(5):
        with first_searches_met("lancedb:index_scalar=true,read_consistency_s=0", seed) as (writer, answers):
            assert answers == [K, K]
            indexed = [tuple(i.columns) for i in writer.table.list_indices()]  # type: ignore[attr-defined]
            assert sorted(indexed) == sorted(SCALAR_COLUMNS)
