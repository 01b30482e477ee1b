"""pgvector specifics, against a real PostgreSQL (the session's throwaway server, or ``$PGVECTOR_DSN``).

Congruence with the reference lives in ``test_congruence.py``, the adapter contract
and lifecycle in the conformance suite (``test_conformance_builtin.py``); here: values
PostgreSQL cannot hold as given, options and capabilities, plans, iterative scans,
the DSN and table options. The pure compiler: ``test_pgvector_sql.py``; the server
process: ``test_postgres_server.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import numpy as np
import pytest

from filterproof.adapters import OptionError, open_backend
from filterproof.adapters.base import Adapter, Record
from filterproof.conformance.checks.contract import vec
from filterproof.conformance.worlds import scenarios as sc
from filterproof.policy import ActiveRevisions, PolicyFilter
from support.at_once import K, first_searches_met
from support.capabilities import declared
from support.hostile import HOSTILE, each_matches_itself

pytest.importorskip("psycopg")
AS_OF = date(2026, 9, 8)
FORCED_HNSW = "pgvector:index=hnsw,plan=index,m=32,ef_construction=200"
"""HNSW on small tables. m=32/ef_construction=200: at pgvector's 16/64 the suite's 44-row scenario
(40 equidistant rows) leaves 11 rows unreachable in the graph, whatever ef_search (see README)."""


@pytest.fixture()
def store() -> Iterator[Adapter]:
    adapter = open_backend("pgvector")
    yield adapter
    adapter.close()


def test_values_postgresql_cannot_hold_still_match_exactly(store: Adapter) -> None:
    """NUL, lone surrogates, quotes and 1000-character values: stored, matched exactly (or, where the
    policy calls the value malformed, never), ids given back."""
    each_matches_itself(store, HOSTILE)


def test_reupsert_replaces_and_update_keeps_the_vector(store: Adapter) -> None:
    where = PolicyFilter(sc.principal(), AS_OF, ActiveRevisions.of({("acme", "doc"): 1}))
    store.reset(2)
    store.upsert([Record("a", vec(1, 0), sc.meta()), Record("a", vec(0, 1), sc.meta())])  # the last one wins
    store.upsert([Record("a", vec(0, 1), sc.meta(groups=["ops"]))])
    assert store.search(vec(0, 1), 10, None)[0].score == pytest.approx(1.0, abs=1e-6)
    assert store.search(vec(0, 1), 10, where) == []
    store.update_metadata("a", sc.meta())
    [hit] = store.search(vec(0, 1), 10, where)
    assert (hit.id, round(hit.score, 6)) == ("a", 1.0)
    (count,) = store._conn.execute(store._sql("SELECT count(*) FROM {t}")).fetchone()  # type: ignore[attr-defined]
    assert count == 1


@pytest.mark.parametrize(("spec", "message"), [
    ("pgvector:ef_serch=10", "unknown option 'ef_serch'.*did you mean 'ef_search'"),
    ("pgvector:iterative_scan=strict", "iterative_scan"),
    ("pgvector:index=ivfflat,iterative_scan=strict_order", "iterative_scan.*strict_order is an hnsw mode"),
    ("pgvector:m=32,ef_construction=40", "ef_construction.*at least 2 \\* m"),
    ("pgvector:ef_search=0", "ef_search"),
    ("pgvector:table=Robert'); DROP", "table"),
])
def test_bad_options_name_the_key(spec: str, message: str) -> None:
    with pytest.raises(OptionError, match=message):
        open_backend(spec)


@pytest.mark.parametrize(("spec", "exact", "tolerance", "path"), [
    ("pgvector", True, 0.0, "exact scan"), ("pgvector:index=hnsw", False, 1.0, None),
    ("pgvector:index=hnsw,plan=seqscan", True, 0.0, "exact scan"),
    ("pgvector:index=hnsw,plan=index", False, 1.0, "post-filter"),
    ("pgvector:index=hnsw,iterative_scan=strict_order,plan=index", False, 0.01, "index"),
    ("pgvector:index=ivfflat,iterative_scan=relaxed_order", False, 0.05, None),
])
def test_capabilities_follow_the_options(spec: str, exact: bool, tolerance: float, path: str | None) -> None:
    """Exactness, tolerance and the declared path; plan=auto declares none (the planner decides per query)."""
    assert declared(spec) == (exact, tolerance, path)


def selective(adapter: Adapter) -> tuple[sc.Scenario, PolicyFilter]:
    """The suite's selective filter: 4 eligible documents below 40 others that score higher."""
    docs = {f"noise-{i:02d}": sc.meta(logical_id=f"n{i}", groups=["other"]) for i in range(40)}
    docs |= {f"wanted-{i}": sc.meta(logical_id=f"w{i}") for i in range(4)}
    texts = {i: f"{sc.QUERY} {sc.QUERY} {i}" if i.startswith("noise") else f"{sc.QUERY} {i} extra words" for i in docs}
    return sc.Scenario.build(adapter, docs, texts), PolicyFilter(sc.principal(), AS_OF, sc.active_for(docs))


@pytest.mark.parametrize(("iterative", "ef_search", "found"), [
    ("off", 40, 0),  # the 40 candidates are the 40 noise rows: filtered out, nothing left
    ("off", 100, 4),  # a wider beam holds them
    ("strict_order", 40, 4), ("relaxed_order", 40, 4),  # pgvector 0.8 scans on until k rows pass
])
def test_iterative_scans_on_a_forced_hnsw(iterative: str, ef_search: int, found: int) -> None:
    adapter = open_backend(f"{FORCED_HNSW},iterative_scan={iterative},ef_search={ef_search}")
    try:
        s, where = selective(adapter)
        assert len(s.native(where, 10)) == found
        path = adapter.explain(s.query, 10, where)  # type: ignore[attr-defined]
        assert "Index Scan using" in path.detail
        assert path.kind == ("post-filter" if iterative == "off" else "index")
    finally:
        adapter.close()


def test_the_planner_scans_small_tables_unless_told_not_to() -> None:
    """plan=auto: PostgreSQL scans a 44-row table exactly (4 found); plan=index: HNSW, no iterative scan, 0 found."""
    auto, forced = open_backend("pgvector:index=hnsw"), open_backend(FORCED_HNSW)
    try:
        for adapter, found in ((auto, 4), (forced, 0)):
            s, where = selective(adapter)
            adapter.optimize()  # type: ignore[attr-defined]
            path = adapter.explain(s.query, 10, where)  # type: ignore[attr-defined]
            assert ("_embedding" in path.detail) == (adapter is forced), path.detail
            assert path.kind == ("post-filter" if adapter is forced else "exact scan")
            assert len(s.native(where, 10)) == found
    finally:
        auto.close()
        forced.close()


def test_plan_seqscan_scans_exactly_beside_an_hnsw_index() -> None:
    """plan=seqscan: index scans off for the session, so the forced-HNSW table's 4 are found by an exact scan."""
    adapter = open_backend("pgvector:index=hnsw,plan=seqscan")
    try:
        s, where = selective(adapter)
        adapter.optimize()  # type: ignore[attr-defined]
        path = adapter.explain(s.query, 10, where)  # type: ignore[attr-defined]
        assert path.kind == "exact scan" and "Seq Scan" in path.detail, path.detail
        assert len(s.native(where, 10)) == 4
    finally:
        adapter.close()


def test_ivfflat_builds_lists_from_the_rows() -> None:
    adapter = open_backend("pgvector:index=ivfflat,lists=4,probes=4,plan=index")
    try:
        rng = np.random.default_rng(3)
        adapter.reset(8)
        adapter.upsert([Record(f"d{i}", rng.standard_normal(8).astype(np.float32), sc.meta(logical_id=f"l{i}"))
                        for i in range(200)])
        active = ActiveRevisions.of({("acme", f"l{i}"): 1 for i in range(200)})
        where = PolicyFilter(sc.principal(), AS_OF, active)
        hits = adapter.search(rng.standard_normal(8).astype(np.float32), 10, where)
        assert len(hits) == 10
        (definition,) = adapter._conn.execute(  # type: ignore[attr-defined]
            "SELECT indexdef FROM pg_indexes WHERE indexname = %s", (f"{adapter.table}_embedding",)).fetchone()
        assert "ivfflat" in definition and "lists='4'" in definition
    finally:
        adapter.close()


def test_a_server_that_does_not_answer_is_unavailable_and_its_password_not_repeated() -> None:
    from filterproof.adapters import BackendUnavailable

    with pytest.raises(BackendUnavailable, match="cannot connect") as caught:
        open_backend("pgvector:dsn=postgresql://user:s3cret@127.0.0.1:1/db")
    assert "s3cret" not in str(caught.value)


def test_a_named_table_and_dsn_outlive_the_adapter(monkeypatch: pytest.MonkeyPatch) -> None:
    from filterproof.servers.postgres import shared_server

    dsn = shared_server().dsn
    monkeypatch.setenv("PGVECTOR_DSN", dsn)
    first = open_backend("pgvector:table=fp_kept")
    assert first.dsn == dsn and first.capabilities.persistent  # type: ignore[attr-defined]
    first.reset(2)
    first.upsert([Record("a", vec(1, 0), sc.meta())])
    first.close()
    again = open_backend("pgvector:table=fp_kept")
    try:
        assert [h.id for h in again.search(vec(1, 0), 5, None)] == ["a"]
        again._conn.execute("DROP TABLE fp_kept")  # type: ignore[attr-defined]
    finally:
        again.close()


def test_two_clients_whose_first_searches_meet_build_the_vector_index_once() -> None:
    """Two clients of one table (``open_writer``) under HNSW, each searching first at once after the writes: both
    build the index (``CREATE INDEX`` raised ``DuplicateTable`` in the later one); under a lock of the server's,
    the later finds it built. Every search answers. Three tables, one barrier each."""
    for seed in range(3):
        with first_searches_met(FORCED_HNSW, seed) as (_, answers):
            assert answers == [K, K]
