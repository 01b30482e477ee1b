"""Qdrant specifics: in process (edge), local mode, and a server when ``QDRANT_URL`` or Docker is there.

Nothing here mocks Qdrant: every answer comes from a real engine. Congruence with
the reference lives in ``test_congruence.py``, the adapter contract and lifecycle
in the conformance suite (``test_conformance_builtin.py``); here: generated
metadata, path stores, edge's HNSW, option parsing, long filters. The compiler and
payload encoding: ``test_qdrant_compiler.py``; provisioning: ``test_qdrant_servers.py``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from datetime import date
from typing import Any

import numpy as np
import pytest

from filterproof.adapters import BackendUnavailable, open_backend
from filterproof.adapters.base import Adapter, Record
from filterproof.adapters.qdrant import QdrantEdgeAdapter, QdrantServerAdapter
from filterproof.conformance.checks.contract import found_ids, vec
from filterproof.conformance.worlds import scenarios as sc
from filterproof.evaluation.congruence import eligible_sets, policy_sets
from filterproof.evaluation.runner import index
from filterproof.evaluation.truth import Prepared
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal, eligible_ids

AS_OF = date(2026, 9, 8)
IN_PROCESS = ["qdrant-edge", "qdrant-local"]
BACKENDS = [*IN_PROCESS, pytest.param("qdrant-server", marks=pytest.mark.docker)]


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, backend_options: Callable[[str], dict[str, Any]]) -> Iterator[Adapter]:
    adapter = open_backend(request.param, backend_options(request.param))
    yield adapter
    adapter.close()


@pytest.fixture(params=IN_PROCESS)
def local_store(request: pytest.FixtureRequest) -> Iterator[Adapter]:
    adapter = open_backend(request.param)
    yield adapter
    adapter.close()


def random_metadata(rng: random.Random) -> dict[str, Any]:
    """Metadata from small pools: mostly good values, else malformed ones and near misses."""

    def pick(good: list[Any], bad: list[Any]) -> Any:
        return rng.choice(good if rng.random() < 0.75 else bad)

    meta: dict[str, Any] = {
        "tenant": pick(["acme", "ácme"], ["acme-corp", "acm", "a/b", 7, None]),
        "logical_id": rng.choice(["x", "y", "b/x", "x#1", "工程"]),
        "revision": pick([1, 2], [3, -1, True, 1.0, "1", None]),
        "status": pick(["active"], ["draft", "Active", 1]),
        "groups": pick([["eng"], ["ops", "eng"], ["$or"]], [["ops"], "eng", [], ["eng", 3], [["eng"]], None]),
        "valid_from": pick(["2026-01-01", "2026-09-08"], ["2026-09-09", "2026-13-01", "20260101", 20260101]),
        "valid_until": pick([None, "2026-09-09", "2027-01-01"], ["2026-09-08", "", 20270101, "2026-09-08T00:00Z"]),
    }
    for name in list(meta):
        if rng.random() < 0.04:
            del meta[name]
    return meta


@pytest.mark.slow  # a few seconds; the quick tier's generated property asks the same of this store
def test_generated_metadata_matches_the_policy(store: Adapter) -> None:
    rng = random.Random(20260908)
    metas = [random_metadata(rng) for _ in range(400)]
    store.reset(4)
    store.upsert([Record(f"d{i}", np.ones(4, dtype=np.float32), m) for i, m in enumerate(metas)])
    keys = {(t, lid) for t in ("acme", "acme-corp", "acm", "ácme", "a") for lid in ("x", "y", "b/x", "x#1", "工程")}
    active = ActiveRevisions.of({key: rng.choice([1, 2]) for key in keys if rng.random() < 0.8})
    pairs = [(f"d{i}", m) for i, m in enumerate(metas)]
    wheres = [PolicyFilter(Principal(tenant, groups), as_of, active)
              for tenant in ("acme", "acme-corp", "acm", "ácme", "a", "a/b", "ac")
              for groups in ((), ("eng",), ("ops",), ("$or", "ops"), ("e",))
              for as_of in (date(2026, 9, 7), AS_OF, date(2026, 9, 9))]
    batched = store.search_batch(np.ones((len(wheres), 4), dtype=np.float32), 1000, wheres)  # type: ignore[attr-defined]
    checked = 0
    for where, hits in zip(wheres, batched, strict=True):
        assert {h.id for h in hits} == eligible_ids(pairs, where), where.principal
        assert {h.id for h in store.search(np.ones(4, dtype=np.float32), 1000, where)} == {h.id for h in hits}
        checked += len(hits)
    assert checked > 50  # the pools do produce eligible documents


# -- local stores on a path, and their reset ------------------------------------------


START = ActiveRevisions.of({("acme", "a"): 1, ("acme", "b"): 1, ("acme", "c"): 1})


def test_a_path_store_is_used_and_reset_empties_it(local_store: Adapter, tmp_path: Any) -> None:
    name = local_store.name
    local_store.close()
    adapter = open_backend(name, {"path": str(tmp_path)})
    try:
        adapter.reset(3)
        adapter.upsert([Record("a1", vec(1, 0, 0), sc.meta(logical_id="a"))])
        assert found_ids(adapter, None) == ["a1"]
        assert any(tmp_path.iterdir())
        adapter.reset(3)
        assert found_ids(adapter, None) == []
    finally:
        adapter.close()
    assert tmp_path.exists()  # the caller's directory is never removed


def test_qdrant_local_keeps_its_collection_after_close(tmp_path: Any) -> None:
    """Under ``path=`` the collection outlives the adapter: another client of the path finds every point (it is
    dropped only by the next run's ``reset``, or by ``filterproof clean``, which reads its marker)."""
    from qdrant_client import QdrantClient

    adapter = open_backend("qdrant-local", {"path": str(tmp_path)})
    try:
        adapter.reset(3)
        adapter.upsert([Record(f"d{n}", vec(1, 0.1 * n, 0), sc.meta(logical_id=f"d{n}")) for n in range(4)])
    finally:
        adapter.close()
    client = QdrantClient(path=str(tmp_path))
    try:
        assert client.count("filterproof").count == 4
    finally:
        client.close()


# -- qdrant-edge: real HNSW, built by optimize() -----------------------------------


def test_edge_builds_hnsw_lazily_and_searches_it_well() -> None:
    rng = np.random.default_rng(7)
    n, dim, k = 4000, 32, 10
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    metas = [sc.meta(logical_id=f"l{i}", groups=[sc.GROUP] if i % 2 else ["ops"]) for i in range(n)]
    active = ActiveRevisions.of({("acme", f"l{i}"): 1 for i in range(n)})
    options = {"indexing_threshold_kb": "200", "full_scan_threshold_kb": "50"}  # 4000 x 32 floats: 500 KB
    approx, exact = QdrantEdgeAdapter(options), QdrantEdgeAdapter({**options, "exact": "true"})
    try:
        for store in (approx, exact):
            store.reset(dim)
            store.upsert([Record(f"d{i}", vectors[i], metas[i]) for i in range(n)])
        assert approx.shard.info().indexed_vectors_count == 0  # nothing built before the first search
        queries = rng.standard_normal((20, dim)).astype(np.float32)
        where = PolicyFilter(sc.principal(), AS_OF, active)
        approx_hits = approx.search_batch(queries, k, [where] * len(queries))
        info = approx.shard.info()
        assert info.points_count == n and info.indexed_vectors_count == n  # HNSW over every vector
        assert approx.capabilities.exact is False and exact.capabilities.exact is True
        unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        allowed = np.array([i % 2 == 1 for i in range(n)])
        recall = []
        for query, hits, exact_hits in zip(queries, approx_hits, exact.search_batch(queries, k, [where] * 20),
                                           strict=True):
            scores = np.where(allowed, unit @ (query / np.linalg.norm(query)), -np.inf)
            truth = [f"d{i}" for i in np.argsort(-scores)[:k]]
            assert [h.id for h in exact_hits] == truth
            assert all(int(h.id[1:]) % 2 == 1 for h in hits)  # the filter holds on the graph too
            recall.append(len({h.id for h in hits} & set(truth)) / k)
        assert np.mean(recall) >= 0.95  # 0.996 measured at the default hnsw_ef
    finally:
        approx.close()
        exact.close()


def test_edge_options_from_the_command_line_are_parsed() -> None:
    adapter = QdrantEdgeAdapter({"hnsw_ef": "32", "exact": "yes"})
    assert adapter.capabilities.exact and adapter.capabilities.recall_tolerance == 0.0
    adapter.close()
    default = QdrantEdgeAdapter({})
    assert not default.capabilities.exact and default.capabilities.recall_tolerance > 0
    default.close()
    for bad in ({"hnsw_ef": "many"}, {"exact": "perhaps"}, {"hnsw_ef": "-1"}, {"acorn": "maybe"},
                {"memory": "disk"}):
        with pytest.raises(ValueError, match="option"):
            QdrantEdgeAdapter(bad)


def test_acorn_search_keeps_the_policy(adversarial: Prepared) -> None:
    """ACORN changes how the graph is walked under a filter, never what the filter admits."""
    adapter = QdrantEdgeAdapter({"acorn": "true"})
    try:
        assert adapter._params.acorn.enable
        index(adapter, adversarial)
        assert eligible_sets(adapter, adversarial) == policy_sets(adversarial)
    finally:
        adapter.close()


def assert_same_answers(variant: Adapter, baseline: Adapter, prepared: Prepared) -> None:
    """``variant`` keeps the policy and returns, query by query, what ``baseline`` returns."""
    assert eligible_sets(variant, prepared) == policy_sets(prepared)
    for vector, where in zip(prepared.query_vectors, prepared.filters, strict=True):
        assert variant.search(vector, 10, where) == baseline.search(vector, 10, where)


@pytest.mark.parametrize("memory", ["cached", "cold"])
def test_a_shard_kept_out_of_ram_answers_as_one_in_ram(adversarial: Prepared, memory: str) -> None:
    """Where the shard lives (``memory=``) changes the resident memory, never what comes back."""
    mapped, in_ram = QdrantEdgeAdapter({"memory": memory, "exact": "true"}), QdrantEdgeAdapter({"exact": "true"})
    try:
        for adapter in (mapped, in_ram):
            index(adapter, adversarial)
        assert_same_answers(mapped, in_ram, adversarial)
    finally:
        mapped.close()
        in_ram.close()


@pytest.mark.parametrize("links", ["split", "tenant"])
def test_payload_links_kept_on_the_chosen_fields_only(adversarial: Prepared, links: str) -> None:
    """``payload_links`` keeps Qdrant's per-value links on the fields ``edge.LINKED`` names; the policy holds."""
    from filterproof.adapters.qdrant.edge import LINKED

    adapter = QdrantEdgeAdapter({"payload_links": links, "revision": "flag"})
    try:
        index(adapter, adversarial)
        schema = adapter.shard.info().payload_schema
        linked = {field for field, info in schema.items() if info.params.enable_hnsw is not False}
        assert linked == LINKED[links] & set(adapter.indexes) and "tenant" in linked
        assert set(schema) == set(adapter.indexes)
        assert eligible_sets(adapter, adversarial) == policy_sets(adversarial)
    finally:
        adapter.close()


@pytest.mark.slow  # about 3 s: segments built as documents arrive
def test_segments_built_as_documents_arrive_answer_as_one() -> None:
    """``segment_docs`` builds a segment every N writes and never merges them; the answers stay exact."""
    from filterproof.evaluation.truth import prepare
    from filterproof.scale.generator import GeneratorConfig, generate

    corpus = generate(GeneratorConfig(documents=3_000, seed=0, cases_per_level=2))
    prepared = prepare(corpus.fixture, embedding="svd", dim=32, levels=corpus.levels)
    # segments of 1,000 x 32-d (125 KB): above a 1 KB indexing threshold, so each is built
    segmented = QdrantEdgeAdapter({"segment_docs": "1000", "indexing_threshold_kb": "1", "exact": "true"})
    whole = QdrantEdgeAdapter({"exact": "true"})
    try:
        for adapter in (segmented, whole):
            index(adapter, prepared, batch=300)
        segmented.optimize()
        # A segment is cut at every 1,000th write, counted across upserts of 300: three built segments holding
        # every document, and the engine's appendable one, empty.
        info = segmented.shard.info()
        assert (info.segments_count, info.indexed_vectors_count) == (4, 3_000)
        assert_same_answers(segmented, whole, prepared)
    finally:
        segmented.close()
        whole.close()


def test_segments_an_optimize_replaced_are_released() -> None:
    """After ``optimize()`` the shard holds only its live segments: none that a build replaced.

    qdrant-edge 0.9 keeps every appendable segment that ``optimize()`` rebuilt open and on
    disk (mapped files, and its in-memory payload indexes on the heap): with ``segment_docs``
    at 1M documents that grew the resident set by about 0.45 GB per segment built
    (``bench/README.md``). If this fails, the adapter's reopen after a build
    (``_release_replaced``) is gone or no longer releases them.
    """
    adapter = QdrantEdgeAdapter({"segment_docs": "400", "indexing_threshold_kb": "1"})
    try:
        adapter.reset(8)
        rng = np.random.default_rng(0)
        vectors = rng.standard_normal((1_000, 8)).astype(np.float32)
        adapter.upsert([Record(f"d{i}", vectors[i], sc.meta(logical_id=f"l{i}")) for i in range(1_000)])
        adapter.optimize()
        live = adapter.shard.info().segments_count
        on_disk = list((adapter._path / "segments").iterdir())  # type: ignore[attr-defined]
        assert live >= 3
        assert len(on_disk) == live, f"{len(on_disk)} segment directories for {live} live segments"
        assert adapter.shard.info().points_count == 1_000
        hits = adapter.search(vectors[7], 1, None)
        assert [h.id for h in hits] == ["d7"]
    finally:
        adapter.close()


def test_server_backend_without_a_url_says_how_to_get_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("QDRANT_URL", raising=False)
    with pytest.raises(BackendUnavailable, match="QDRANT_URL"):
        QdrantServerAdapter({})


def test_long_filters_are_split_across_batched_calls(local_store: Adapter) -> None:
    """A server refuses huge bodies: ``max_keys_per_call`` bounds the revision keys one call carries."""
    local_store.reset(3)
    local_store.upsert([Record("a1", vec(1, 0, 0), sc.meta(logical_id="a")),
                        Record("b1", vec(0, 1, 0), sc.meta(logical_id="b"))])
    where, other = PolicyFilter(sc.principal(), AS_OF, START), PolicyFilter(sc.principal("beta"), AS_OF, START)
    wheres = [where, None, where, other, where]  # 3, 0, 3, 0, 3 keys
    vectors = np.ones((len(wheres), 3), dtype=np.float32)
    uncapped = local_store.search_batch(vectors, 5, wheres)  # type: ignore[attr-defined]
    local_store.max_keys_per_call = 4  # type: ignore[attr-defined]
    parts = list(local_store._batches(wheres))  # type: ignore[attr-defined]
    assert [(p.start, p.stop) for p in parts] == [(0, 2), (2, 4), (4, 5)]
    assert local_store.search_batch(vectors, 5, wheres) == uncapped  # type: ignore[attr-defined]
    assert [sorted(h.id for h in hits) for hits in uncapped] == [["a1", "b1"], ["a1", "b1"], ["a1", "b1"], [],
                                                                  ["a1", "b1"]]


def test_server_adapter_options_and_requests_are_well_formed(monkeypatch: pytest.MonkeyPatch) -> None:
    """What can be checked without a server: options, valid index requests, and a closed port said in one line.

    The adapter asks the server whether its collection exists before it writes anything (the
    ownership check), so a server that does not answer is ``BackendUnavailable`` at once (exit 2),
    as on every other backend, not an error on the first write."""
    from qdrant_client import models

    from filterproof.adapters.qdrant.client import index_schema
    from filterproof.adapters.qdrant.options import QdrantServerOptions
    from filterproof.adapters.qdrant.payload import INDEXES

    monkeypatch.delenv("QDRANT_URL", raising=False)
    nowhere = {"url": "http://127.0.0.1:9", "check_compatibility": "false"}
    options = QdrantServerOptions.coerce({**nowhere, "hnsw_ef": "32", "exact": "1"}, "qdrant-server")
    assert options.exact and options.hnsw_ef == 32 and not QdrantServerOptions.coerce(nowhere, "q").exact
    for field, kind in INDEXES.items():
        models.CreateFieldIndex(field_name=field, field_schema=index_schema(kind))  # validates the request body
    with pytest.raises(BackendUnavailable, match=r"^qdrant-server: cannot use the server at http://127.0.0.1:9: "):
        QdrantServerAdapter(nowhere)


def test_edge_reset_empties_the_open_shard_and_honours_a_new_dimension() -> None:
    """Same dimension: the shard (and its payload indexes) is kept and emptied; another: it is recreated."""
    store = QdrantEdgeAdapter()
    try:
        store.reset(3)
        store.upsert([Record("a", np.ones(3, dtype=np.float32), sc.meta())])
        assert [h.id for h in store.search(np.ones(3, dtype=np.float32), 5, None)] == ["a"]
        shard = store.shard
        store.reset(3)
        assert store.shard is shard and store.search(np.ones(3, dtype=np.float32), 5, None) == []
        store.reset(4)
        store.upsert([Record("b", np.ones(4, dtype=np.float32), sc.meta())])
        assert [h.id for h in store.search(np.ones(4, dtype=np.float32), 5, None)] == ["b"]
        with pytest.raises(ValueError):
            store.upsert([Record("c", np.ones(3, dtype=np.float32), sc.meta())])
    finally:
        store.close()


@pytest.mark.slow  # about 4 s: segments built as documents arrive
def test_builds_during_the_ingest_count_as_build_time() -> None:
    """With ``segment_docs`` the segments are built inside the upserts; the run's build time includes them.

    If this fails, ``build_s`` (the report's "of which build s") counts only the final
    ``optimize()``: a segmented 1M run once reported 0.0 s of build in a 22-minute ingest.
    """
    from filterproof.evaluation.runner import BackendRun, Settings, _measured
    from filterproof.evaluation.timing import Clock, TimedAdapter
    from filterproof.evaluation.truth import prepare
    from filterproof.scale.generator import GeneratorConfig, generate

    corpus = generate(GeneratorConfig(documents=3_000, seed=0, cases_per_level=1))
    prepared = prepare(corpus.fixture, embedding="svd", dim=16, levels=corpus.levels)
    inner = QdrantEdgeAdapter({"segment_docs": "1000", "indexing_threshold_kb": "1"})
    optimizes: list[float] = []
    original = inner.optimize

    def counted() -> bool:
        before, began = inner.build_seconds, time.perf_counter()
        built = original()
        gained = inner.build_seconds - before
        assert 0 <= gained <= time.perf_counter() - began, "build time counted is not the time the build took"
        optimizes.append(gained)
        return built

    inner.optimize = counted  # type: ignore[method-assign]
    run = BackendRun("qdrant-edge", "qdrant-edge", prepared.fixture.name, {})
    try:
        _measured(TimedAdapter(inner, Clock()), prepared, Settings(ks=(1,)), run, lambda *_: None)
    finally:
        inner.close()
    assert len(optimizes) >= 4  # three segments built during the upserts, then the final build
    assert run.timings["build_s"] == pytest.approx(sum(optimizes))
    assert run.timings["build_s"] > optimizes[-1]
