"""Chroma specifics, embedded and as a real ``chroma run`` server (one per session, or ``$CHROMA_URL``).

Congruence with the reference lives in ``test_congruence.py`` and the adapter
contract and lifecycle in the conformance suite (``test_conformance_builtin.py``);
here: generated metadata, active maps beyond one SQLite statement, no model
download, HNSW options, persistence. The pure compiler: ``test_chroma_where.py``.
"""

from __future__ import annotations

import random
import socket
from collections.abc import Callable, Iterator
from datetime import date
from typing import Any

import numpy as np
import pytest

from filterproof.adapters import open_backend
from filterproof.adapters.base import Adapter, Record
from filterproof.adapters.chroma import ChromaAdapter, ChromaServerAdapter
from filterproof.adapters.chroma import where as cw
from filterproof.conformance.checks.contract import found_ids, vec
from filterproof.conformance.worlds import scenarios as sc
from filterproof.evaluation.congruence import eligible_sets, policy_sets
from filterproof.evaluation.runner import index
from filterproof.evaluation.truth import Prepared
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal, eligible_ids

BACKENDS = ["chroma", "chroma-server"]
AS_OF = date(2026, 9, 8)


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, backend_options: Callable[[str], dict[str, Any]]) -> Iterator[Adapter]:
    adapter = open_backend(request.param, backend_options(request.param))
    yield adapter
    adapter.close()


PERTURBATIONS: list[tuple[str, object]] = [
    ("tenant", 7), ("tenant", None), ("tenant", "a/b"), ("revision", True), ("revision", 1.0), ("revision", "1"),
    ("revision", None), ("status", "draft"), ("status", "Active"), ("groups", "eng"), ("groups", []),
    ("groups", ["eng", 3]), ("groups", [["eng"]]), ("groups", None), ("valid_from", "2026-13-01"),
    ("valid_from", "20260101"), ("valid_from", 20260101), ("valid_from", "2026-09-09"), ("valid_until", ""),
    ("valid_until", 20270101), ("valid_until", "2026-09-08"), ("logical_id", None), ("logical_id", 5),
]
TENANTS = ("acme", "acme-corp", "acm", "ácme", "a")
LOGICAL_IDS = ("x", "y", "b/x", "x#1", "工程")


def random_metadata(rng: random.Random) -> dict[str, Any]:
    """A well-formed document, half the time with one malformed value or near miss."""
    meta: dict[str, Any] = {
        "tenant": rng.choice(TENANTS), "logical_id": rng.choice(LOGICAL_IDS), "revision": rng.choice([1, 2]),
        "status": "active", "groups": rng.choice([["eng"], ["ops", "eng"], ["$or"], ["ops"], ["eng", "eng"]]),
        "valid_from": rng.choice(["2026-01-01", "2026-09-08"]),
        "valid_until": rng.choice([None, "2026-09-09", "2027-01-01"]),
    }
    if rng.random() < 0.5:
        name, value = rng.choice(PERTURBATIONS)
        meta[name] = value
    if rng.random() < 0.1:
        del meta[rng.choice(sorted(meta))]
    return meta


@pytest.mark.slow  # a few seconds; the quick tier's generated property asks the same of this store
def test_generated_metadata_matches_the_policy(store: Adapter) -> None:
    """The native filter alone (``filter_ids``) and filtered search both give exactly the policy's set.

    Vectors are distinct: with identical vectors Chroma's HNSW graph degenerates and a search
    may miss documents the filter admits (seen with 400 equal vectors), which is recall, not filtering.
    """
    rng = random.Random(20260908)
    metas = [random_metadata(rng) for _ in range(400)]
    vectors = np.random.default_rng(7).random((400, 4)).astype(np.float32) + 0.01
    store.reset(4)
    store.upsert([Record(f"d{i}", vectors[i], m) for i, m in enumerate(metas)])
    keys = [(tenant, logical) for tenant in TENANTS for logical in LOGICAL_IDS]
    active = ActiveRevisions.of({key: rng.choice([1, 2]) for key in keys if rng.random() < 0.8})
    pairs = [(f"d{i}", m) for i, m in enumerate(metas)]
    checked = 0
    for tenant in (*TENANTS, "a/b", "ac"):
        for groups in ((), ("eng",), ("ops",), ("$or", "ops"), ("e",)):
            for as_of in (date(2026, 9, 7), AS_OF, date(2026, 9, 9)):
                where = PolicyFilter(Principal(tenant, groups), as_of, active)
                expected = eligible_ids(pairs, where)
                assert store.filter_ids(where) == expected, (tenant, groups, as_of)  # type: ignore[attr-defined]
                found = {h.id for h in store.search(np.ones(4, dtype=np.float32), 1000, where)}
                assert found == expected, (tenant, groups, as_of)
                checked += len(found)
    assert checked > 200  # the pools do produce eligible documents


# -- active maps larger than one SQLite statement ------------------------------------


START = ActiveRevisions.of({("acme", "a"): 1, ("acme", "b"): 1, ("acme", "c"): 1})


def test_maps_beyond_one_sqlite_statement(store: Adapter, monkeypatch: pytest.MonkeyPatch) -> None:
    """More active keys than SQLite takes in one statement: several filters, merged top-k, exact sets."""
    many = {("acme", f"filler-{i}"): 1 for i in range(40_000)}
    active = ActiveRevisions.of({**many, ("acme", "a"): 1, ("acme", "b"): 2, ("acme", "c"): 1})
    store.reset(3)
    store.upsert([Record("a1", vec(1, 0, 0), sc.meta(logical_id="a")),
                  Record("b2", vec(1, 1, 0), sc.meta(logical_id="b", revision=2)),
                  Record("b1", vec(1, 1, 1), sc.meta(logical_id="b")),
                  Record("c1", vec(0, 0, 1), sc.meta(logical_id="c"))])
    where = PolicyFilter(sc.principal(), AS_OF, active)
    assert len(store.compile(where)) == 3  # type: ignore[attr-defined]
    assert found_ids(store, where) == ["b2", "a1", "c1"]
    monkeypatch.setattr(cw, "KEYS_PER_FILTER", 1)  # one key per filter: the merge alone orders the hits
    small_map = ActiveRevisions.of({("acme", "a"): 1, ("acme", "b"): 2, ("acme", "c"): 1})
    small_where = PolicyFilter(sc.principal(), AS_OF, small_map)
    assert len(store.compile(small_where)) == 3  # type: ignore[attr-defined]
    assert [h.id for h in store.search(vec(1, 0.2, 0), 2, small_where)] == ["a1", "b2"]


@pytest.mark.parametrize("revision", ["query", "flag"])
def test_a_principal_in_ten_thousand_groups(revision: str) -> None:
    """An ``$or`` of about 990 ``$contains`` fails in SQLite (expression tree too deep), and over 10,000 Chroma
    1.5.9 dies with a segmentation fault (issue 26): groups in slices of GROUPS_PER_FILTER, merged, each id once."""
    groups = [f"g{n:05d}" for n in range(10_000)]
    store = open_backend("chroma", {"revision": revision})
    docs = {"first": sc.meta(logical_id="first", groups=[groups[0]]), "last": sc.meta(logical_id="last",
            groups=[groups[-1]]), "both": sc.meta(logical_id="both", groups=[groups[1], groups[-2]]),
            "none": sc.meta(logical_id="none", groups=["other"])}
    store.reset(3)
    store.upsert([Record(i, vec(1, n, 0), m) for n, (i, m) in enumerate(docs.items())])
    active = sc.active_for(docs)
    store.set_active_revisions(active)
    where = PolicyFilter(Principal("acme", tuple(groups)), AS_OF, active)
    assert len(store.compile(where)) == 10_000 // cw.GROUPS_PER_FILTER  # type: ignore[attr-defined]
    assert sorted(found_ids(store, where)) == ["both", "first", "last"]
    assert [h.id for h in store.search(vec(1, 2, 0), 2, where)] == ["both", "last"]
    store.close()


# -- no model download, HNSW options, persistence ------------------------------------


@pytest.mark.filterwarnings("ignore:legacy embedding function config:DeprecationWarning")
def test_nothing_downloads_a_model(monkeypatch: pytest.MonkeyPatch, lab_prepared: Prepared) -> None:
    """Index and query the lab embedded while any connection off the loopback is refused and recorded."""
    attempts: list[object] = []
    connect = socket.socket.connect

    def loopback_only(sock: socket.socket, address: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else str(address)
        if sock.family in (socket.AF_INET, socket.AF_INET6) and host not in ("127.0.0.1", "::1", "localhost"):
            attempts.append(address)
            raise OSError(f"test forbids connecting to {address!r}")
        return connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", loopback_only)
    adapter = ChromaAdapter({})
    try:
        index(adapter, lab_prepared)
        assert adapter._open().configuration.get("embedding_function") is None
        assert eligible_sets(adapter, lab_prepared) == policy_sets(lab_prepared)
    finally:
        adapter.close()
    assert attempts == []


@pytest.mark.filterwarnings("ignore:legacy embedding function config:DeprecationWarning")
def test_hnsw_options_reach_the_collection() -> None:
    adapter = ChromaAdapter({"ef_search": "64", "ef_construction": "80", "max_neighbors": "12"})
    try:
        adapter.reset(3)
        hnsw = adapter._open().configuration["hnsw"]
        assert (hnsw["space"], hnsw["ef_search"], hnsw["ef_construction"], hnsw["max_neighbors"]) == (
            "cosine", 64, 80, 12)
    finally:
        adapter.close()
    with pytest.raises(ValueError, match="ef_search"):
        ChromaAdapter({"ef_search": "many"})


def test_persistent_path_survives_a_reopen(tmp_path: Any) -> None:
    first = ChromaAdapter({"path": str(tmp_path)})
    assert first.capabilities.persistent
    first.reset(3)
    first.upsert([Record("a1", vec(1, 0, 0), sc.meta(logical_id="a"))])
    first.close()
    again = ChromaAdapter({"path": str(tmp_path)})
    try:
        assert found_ids(again, PolicyFilter(sc.principal(), AS_OF, START)) == ["a1"]
    finally:
        again.close()


def test_server_adapter_honours_chroma_url(monkeypatch: pytest.MonkeyPatch, chroma_url: str) -> None:
    monkeypatch.setenv("CHROMA_URL", chroma_url)
    adapter = ChromaServerAdapter({})
    try:
        assert adapter.server is None and adapter.url == chroma_url
        adapter.reset(3)
        adapter.upsert([Record("a1", vec(1, 0, 0), sc.meta(logical_id="a"))])
        assert found_ids(adapter, PolicyFilter(sc.principal(), AS_OF, START)) == ["a1"]
    finally:
        adapter.close()


def test_a_batch_update_leaves_the_store_as_updates_one_by_one() -> None:
    """``update_metadata_batch`` (one Chroma ``update`` per batch) ends where one ``update_metadata`` per document
    ends: an unknown id ignored, a document moved past Chroma's list limit refused (its vector kept), one moved to
    another group answered under it."""
    from filterproof.conformance.checks.sizes import huge_groups

    updates = {"a": sc.meta(logical_id="a", groups=["other"]), "b": sc.meta(logical_id="b", groups=huge_groups()),
               "zz": sc.meta(logical_id="zz")}
    ends = []
    for batched in (True, False):
        store = open_backend("chroma")
        try:
            store.reset(3)
            store.upsert([Record(i, vec(1.0, 0.1 * n, 0.0), sc.meta(logical_id=i)) for n, i in enumerate("abc")])
            if batched:
                store.update_metadata_batch(updates)  # type: ignore[attr-defined]
            else:
                for doc_id, metadata in updates.items():
                    store.update_metadata(doc_id, metadata)
            active = ActiveRevisions.of({(sc.TENANT, i): 1 for i in ("a", "b", "c", "zz")})
            asked = [PolicyFilter(Principal(sc.TENANT, (g,)), AS_OF, active) for g in ("other", sc.GROUP)]
            ends.append(([set(found_ids(store, w)) for w in asked],
                         sorted(store.not_indexable())))  # type: ignore[attr-defined]
        finally:
            store.close()
    assert ends[0] == ends[1] == ([{"a"}, {"c"}], ["b"])


@pytest.mark.parametrize("revision", ["query", "flag"])
def test_every_call_is_cut_into_chromas_batches(revision: str) -> None:
    """Chroma takes at most ``get_max_batch_size()`` items a call (5,461 here), so upserts, deletes, batch updates,
    flag rewrites and batched searches are cut into chunks of that many; the suite's worlds never reach it. With
    the batch size at 3, a store of 11 documents ends where the reference ends (a chunking that lost a slice,
    ``start | size`` for ``start + size``, survived the suite: #44)."""
    stores = [open_backend("chroma", {"revision": revision}), open_backend("reference")]
    stores[0]._batch = 3  # type: ignore[attr-defined]
    ids = [f"d{n}" for n in range(11)]
    ends = []
    try:
        for store in stores:
            store.reset(3)
            active = ActiveRevisions.of({(sc.TENANT, i): 1 for i in ids})
            store.set_active_revisions(active)
            store.upsert([Record(i, vec(1.0, 0.1 * n, 0.01 * n * n), sc.meta(logical_id=i)) for n, i in enumerate(ids)])
            store.update_metadata_batch({i: sc.meta(logical_id=i, groups=["other"]) for i in ids[:7]})  # type: ignore[attr-defined]
            store.delete(ids[9:])
            active = ActiveRevisions.of({**{(sc.TENANT, i): 1 for i in ids[1:]}, (sc.TENANT, ids[0]): 2})
            store.set_active_revisions(active)
            asked = [PolicyFilter(Principal(sc.TENANT, (g,)), AS_OF, active) for g in ("other", sc.GROUP)] * 4
            queries = np.stack([vec(1.0, 0.1 * n, 0.0) for n in range(len(asked))])
            ends.append([sorted(h.id for h in hits) for hits in store.search_batch(queries, 20, asked)])
    finally:
        for store in stores:
            store.close()
    assert ends[0] == ends[1]
    assert ends[0][:2] == [ids[1:7], ids[7:9]]


def test_a_rerun_on_one_path_leaves_no_segment_directories_behind(tmp_path: Any) -> None:
    """Chroma's ``delete_collection`` forgets a collection's segments but leaves their directories on disk
    (``PATH/<segment uuid>/``), so every run on one path would add some: the adapter removes the directories of
    the collection it drops, and nothing else (a directory of the user's survives)."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "keep.txt").write_text("the user's")

    def segments() -> set[str]:
        return {p.name for p in tmp_path.iterdir() if p.is_dir() and p.name != "notes"}

    after = []
    for _ in range(3):
        store = open_backend("chroma", {"path": str(tmp_path)})
        try:
            store.reset(3)
            store.upsert([Record(f"d{n}", vec(1.0, 0.1 * n, 0.0), sc.meta(logical_id=f"d{n}")) for n in range(5)])
            assert len(store.search(vec(1.0, 0.0, 0.0), 5, None)) == 5
        finally:
            store.close()
        after.append(segments())
    assert after[0] and len(after[0]) == len(after[1]) == len(after[2]), after
    assert (tmp_path / "notes" / "keep.txt").read_text() == "the user's"
