"""DuckDB specifics, in process: values bound whatever they hold, the HNSW window widened, the index rebuilt, the
engine's findings reproduced with duckdb alone, and a seeded adapter that the suite must fail.

The adapter contract and lifecycle are the conformance suite's (both tiers run ``duckdb``, the slow tier also
``duckdb:index=hnsw``); the user's tables in a database file: ``tests/cli/test_ownership.py``.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import date

import numpy as np
import pytest

from filterproof.adapters import OptionError, open_backend
from filterproof.adapters.base import Adapter, Record
from filterproof.adapters.duckdb.language import dialect, typed_condition
from filterproof.adapters.filterlang import Cond
from filterproof.conformance.checks.contract import vec
from filterproof.conformance.worlds import scenarios as sc
from filterproof.policy import PolicyFilter
from support.capabilities import declared
from support.hostile import HOSTILE, each_matches_itself
from support.paths import ROOT

pytest.importorskip("duckdb")
pytest_plugins = ["pytester"]
AS_OF = date(2026, 9, 8)


@pytest.fixture(params=["duckdb", "duckdb:index=hnsw"])
def store(request: pytest.FixtureRequest) -> Iterator[Adapter]:
    adapter = open_backend(request.param)
    yield adapter
    adapter.close()


def test_values_are_bound_and_match_exactly(store: Adapter) -> None:
    """Quotes, NUL, lone surrogates, placeholders' and functions' spellings as tenants and groups: each matches
    exactly itself (or, where the policy calls the value malformed, nothing), ids given back as written."""
    each_matches_itself(store, [*HOSTILE, "\udfff", "?", "cardinality(", "$1"])


def test_the_dialect_rewrites_placeholders_and_length_only() -> None:
    assert dialect(("(k IS NULL OR cardinality(k) = 0) AND t = %s", [1])) == (
        "(k IS NULL OR len(k) = 0) AND t = ?", [1])
    assert typed_condition(Cond("contains_any", "groups", ("a",)), {"groups": "text_list"}) == (
        "groups && ?::text[]", [["a"]])
    with pytest.raises(ValueError, match="plain identifiers"):
        typed_condition(Cond("eq", "t", "a"), {"t": "text", "x%s": "text"})


def far_tenant(store: Adapter, others: int = 300) -> tuple[PolicyFilter, list[str]]:
    """Many of another tenant's documents near the query, five of ours far from it: the index's top rows hold none
    of ours."""
    store.reset(2)
    near = [Record(f"o{i}", vec(1, i / 1000), sc.meta(tenant="other", logical_id=f"o{i}")) for i in range(others)]
    ours = [Record(f"a{i}", vec(0.01 * i, 1), sc.meta(logical_id=f"a{i}")) for i in range(5)]
    store.upsert(near + ours)
    docs = {r.id: r.metadata for r in near + ours}
    return PolicyFilter(sc.principal(), AS_OF, sc.active_for(docs)), [r.id for r in ours]


def test_hnsw_widens_its_window_until_k_pass() -> None:
    """The index's top 50 rows are all another tenant's; the window grows (and ends in an exact scan) until the
    five of ours are found, in order; the plan shows the index scan filtered after."""
    store = open_backend("duckdb:index=hnsw")
    try:
        where, ours = far_tenant(store)
        hits = store.search(vec(1, 0), 5, where)
        assert [h.id for h in hits] == sorted(ours, key=lambda i: -int(i[1:]))
        path = store.explain(vec(1, 0), 5, where)  # type: ignore[attr-defined]
        assert path.kind == "post-filter" and "HNSW_INDEX_SCAN" in path.detail
        assert store.explain(vec(1, 0), 5, None).kind == "index"  # type: ignore[attr-defined]
    finally:
        store.close()


def test_the_index_is_rebuilt_after_every_write() -> None:
    """Deletes, re-upserts and metadata updates between searches (each of which, with the index present, loses
    rows or kills the process: the findings below): every row is still found, and the index serves again."""
    store = open_backend("duckdb:index=hnsw")
    try:
        where, ours = far_tenant(store)
        store.delete(["o0", ours[0]])
        store.upsert([Record(ours[0], vec(0, 1), sc.meta(logical_id=ours[0]))])
        store.update_metadata("o1", sc.meta(tenant="other", logical_id="o1", groups=["ops"]))
        store.upsert([Record("new", vec(1, 0), sc.meta(tenant="other", logical_id="new"))])
        assert len(store.search(vec(1, 0), 1000, None)) == 300 + 5 - 2 + 1 + 1
        assert {h.id for h in store.search(vec(1, 0), 5, where)} == set(ours)
        assert store.explain(vec(1, 0), 5, None).kind == "index"  # type: ignore[attr-defined]
    finally:
        store.close()


@pytest.mark.parametrize(("spec", "exact", "tolerance", "path"), [
    ("duckdb", True, 0.0, "exact scan"), ("duckdb:index=hnsw", False, 0.02, "post-filter"),
])
def test_capabilities_follow_the_options(spec: str, exact: bool, tolerance: float, path: str) -> None:
    assert declared(spec) == (exact, tolerance, path)


@pytest.mark.parametrize(("spec", "message"), [
    ("duckdb:index=ivf", "index"), ("duckdb:windw=3", "unknown option 'windw'.*did you mean 'window'"),
    ("duckdb:table=Robert'); DROP", "table"), ("duckdb:window=0", "window"),
])
def test_bad_options_name_the_key(spec: str, message: str) -> None:
    with pytest.raises(OptionError, match=message):
        open_backend(spec)


# -- the engine's findings, each reproduced with duckdb alone (bench/repro), held as strict xfails -----------------

FINDINGS = {
    "duckdb_vss_filter_after_limit.py": "duckdb-vss #35: the WHERE filters the index's top LIMIT rows",
    "duckdb_vss_delete_insert_corrupts.py": "duckdb-vss #81: DELETE then INSERT leaves the index missing rows",
    "duckdb_vss_update_segfault.py": "duckdb-vss #81: an UPDATE after a delete, a build and an insert: SIGSEGV",
    "duckdb_vss_exists_skips_index.py": "a correlated EXISTS silently turns the index off",
    "duckdb_query_text_nul.py": "the query text ends at a NUL",
}


@pytest.mark.slow  # one interpreter each (about 1 s), as a user runs a reproducer
@pytest.mark.parametrize("script", FINDINGS)
def test_duckdb_finding_still_reproduces_alone(script: str) -> None:
    """Exit 1 and VIOLATED: the engine still behaves as the findings page says; a release that fixes it fails
    this test, and the page, the reproducer and the adapter's workaround are to be revisited."""
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "repro" / script)], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 1 and "VIOLATED" in run.stdout, FINDINGS[script] + "\n" + run.stdout + run.stderr


def test_what_turns_the_index_off_is_the_querys_shape() -> None:
    """The ways an adapter's query silently stops using the HNSW index: a score selected beside the ORDER BY, an
    ``= ANY(list)`` in the WHERE. The adapter's window keeps both outside the index's subquery."""
    store = open_backend("duckdb:index=hnsw,revision=flag")
    try:
        far_tenant(store, others=50)
        store.optimize()  # type: ignore[attr-defined]
        q, d = store._vector(vec(1, 0)), store._dim  # type: ignore[attr-defined]
        order = f"ORDER BY array_negative_inner_product(embedding, ?::FLOAT[{d}]) LIMIT 5"
        shapes = {
            "id only": (f"SELECT id FROM {{t}} WHERE tenant = ? {order}", ["acme", q]),
            "score selected": (f"SELECT id, -array_negative_inner_product(embedding, ?::FLOAT[{d}]) FROM {{t}} "
                               f"WHERE tenant = ? {order}", [q, "acme", q]),
            "= ANY": (f"SELECT id FROM {{t}} WHERE tenant = ANY(?::text[]) {order}", [["acme"], q]),
        }
        conn = store._conn  # type: ignore[attr-defined]
        used = {name: "HNSW_INDEX_SCAN" in "".join(str(r[1]) for r in conn.execute(
            "EXPLAIN " + store._q(text), params).fetchall()) for name, (text, params) in shapes.items()}  # type: ignore[attr-defined]
        assert used == {"id only": True, "score selected": False, "= ANY": False}
    finally:
        store.close()


# -- a seeded adapter the suite must fail ---------------------------------------------------------------------------


def test_the_suite_fails_the_where_beside_the_hnsw_search(pytester: pytest.Pytester) -> None:
    """``support.duckdb_defects.FilterAfterTheIndexWindow``: one query, the filter after the index's top K (what
    duckdb-vss #35 does to a WHERE written beside the search). The selective check names the short result."""
    result = pytester.runpytest("-p", "no:cacheprovider", "--pyargs", "filterproof.conformance", "--adapter",
                                "support.duckdb_defects:FilterAfterTheIndexWindow", "-k",
                                "test_selective_filter_is_not_short")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["FAILED *::test_selective_filter_is_not_short*"])
    assert "short result: 0 returned for K=2 with 2 eligible" in result.stdout.str()


def test_an_empty_table_and_k_zero_answer_nothing(store: Adapter) -> None:
    store.reset(2)
    assert store.search(vec(1, 0), 5, None) == []
    store.upsert([Record("a", np.array([1, 0], np.float32), sc.meta())])
    assert store.search(vec(1, 0), 0, None) == []


@pytest.mark.parametrize("spec", ["duckdb", "duckdb:index=hnsw"])
def test_a_store_of_one_dimension_and_none(spec: str) -> None:
    """``reset(1)`` makes a store of one-dimensional vectors (cosine: the sign), ``reset(0)`` is refused with
    ValueError before anything is written (a mutant that refused one dimension too passed the suite, whose worlds
    have two or more)."""
    store = open_backend(spec)
    try:
        with pytest.raises(ValueError, match="dimension must be positive"):
            store.reset(0)
        store.reset(1)
        store.upsert([Record("up", np.array([2.0], dtype=np.float32), sc.meta(logical_id="up")),
                      Record("down", np.array([-0.5], dtype=np.float32), sc.meta(logical_id="down"))])
        hits = store.search(np.array([1.0], dtype=np.float32), 2, None)
        assert [h.id for h in hits] == ["up", "down"]
        assert [round(h.score, 6) for h in hits] == [1.0, -1.0]
    finally:
        store.close()
