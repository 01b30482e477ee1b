"""The bridges beyond the shared suite: hostile values in the policy's own fields, and the embeddings shim.

The conformance suite's tenant and group names hold no quote; an application's may
(``o'brien``), and an integration that pastes values into SQL text turns one into a
syntax error or into a wider filter. Every bridge must keep tenants apart whatever
the value; a known integration failure is a strict xfail naming it (README, finding 7).
"""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Iterator

import numpy as np
import pytest

from filterproof.adapters import Adapter, BackendUnavailable, open_backend
from filterproof.adapters.base import Record
from filterproof.adapters.bridges.core import DOC_PREFIX, KeyedVectors
from filterproof.adapters.bridges.departed import Departed
from filterproof.conformance.worlds import scenarios as sc
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal
from support.paths import ROOT

PG_INJECTION = pytest.mark.xfail(strict=True, reason=(
    "finding: llama-index-vector-stores-postgres 0.9.0 pastes MetadataFilter values into SQL text: "
    "a tenant id with quotes breaks the query or widens the filter"))
MILVUS_RENDERING = pytest.mark.xfail(strict=True, reason=(
    "finding: llama-index-vector-stores-milvus 1.2.0 renders a MetadataFilter string as '...' escaping only ': "
    "Milvus reads the backslash of back\\slash (stored escaped) as an escape "
    "(bench/repro/llamaindex_milvus_filters.py)"))
# The PostgreSQL bridges skip (with the reason) without PGVECTOR_DSN or the pgvector backend's server.
BRIDGES = ["langchain-chroma", "langchain-qdrant", "llamaindex-chroma", "llamaindex-qdrant", "langchain-pgvector",
           pytest.param("llamaindex-pgvector", marks=PG_INJECTION), "langchain-milvus",
           pytest.param("llamaindex-milvus", marks=MILVUS_RENDERING)]
HOSTILE = ["o'brien", "x' OR 'a'='a' OR 'b'='b", 'say "hi"', "back\\slash", "100%_", "globex'--"]

pytest_plugins = ["pytester"]


@pytest.fixture(params=BRIDGES)
def bridge(request: pytest.FixtureRequest) -> Iterator[Adapter]:
    try:
        store = open_backend(request.param)
    except BackendUnavailable as error:
        pytest.skip(str(error))
    logging.disable(logging.WARNING)
    try:
        yield store
    finally:
        logging.disable(logging.NOTSET)
        store.close()


def test_hostile_tenant_and_group_values_keep_tenants_apart(bridge: Adapter) -> None:
    """Quotes, SQL comments and LIKE wildcards in a tenant or a group are plain strings to every filter."""
    docs = {"acme": sc.meta(), "globex": sc.meta(tenant="globex", logical_id="g")}
    docs |= {f"h{i}": sc.meta(tenant=value, logical_id=f"h{i}", groups=[value]) for i, value in enumerate(HOSTILE)}
    s = sc.Scenario.build(bridge, docs)
    for value in ["acme", *HOSTILE]:
        for groups in (("engineering",), (value,)):
            where = PolicyFilter(Principal(value, groups), sc.AS_OF, sc.active_for(docs))
            got, want = s.native_ids(where), s.policy_ids(where)
            assert got == want, f"tenant {value!r}, groups {groups}: {sc.mismatch(got, want, s.docs)}"


def test_the_shim_answers_only_with_given_vectors() -> None:
    keys = KeyedVectors()
    vector = np.array([0.5, 0.25], dtype=np.float32)
    with keys.query(vector) as key:
        assert keys(key) == [0.5, 0.25]
    with pytest.raises(KeyError, match="never embeds text"):
        keys(key)  # gone once its call is done
    with pytest.raises(KeyError):
        keys("what is the retry policy?")


def test_two_calls_asking_the_same_vector_at_once_keep_their_own_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two threads sharing a bridge asked the same query: both calls got the key of its digest, and the first to
    end dropped it while the second's framework still had to embed it (KeyError, found by SharedClientChecks)."""
    keys = KeyedVectors()
    vector = np.array([0.5, 0.25], dtype=np.float32)
    with keys.query(vector) as second:
        with keys.query(vector) as first:
            assert first != second
        assert keys(second) == [0.5, 0.25]
    monkeypatch.setattr("filterproof.adapters.bridges.core.MAX_QUERY_KEYS", 3)
    with keys.query(vector) as live:
        stored = [keys.key(np.array([n, 1.0], dtype=np.float32), DOC_PREFIX) for n in range(5)]  # past the limit
        assert keys(live) == [0.5, 0.25] and keys(stored[-1]) == [4.0, 1.0]


def test_the_suite_fails_one_retriever_given_each_requests_filter(pytester: pytest.Pytester) -> None:
    """``support.langchain_defects.SharedRetriever``: langchain-chroma's retriever made once and its
    ``search_kwargs`` set before each call, as applications write it; right from one thread, another tenant's
    documents when calls overlap. The check of one client shared by threads names it."""
    pytest.importorskip("langchain_chroma")
    result = pytester.runpytest("-p", "no:cacheprovider", "--pyargs", "filterproof.conformance", "--adapter",
                                "support.langchain_defects:SharedRetriever", "-k", "one_client")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["FAILED *::test_one_client_searched_from_several_threads_answers_each_caller*"])
    assert "one client answered callers otherwise than alone (another caller's filter or query): " in (
        result.stdout.str())


def test_llamaindex_pgvector_close_disposes_the_stores_engine() -> None:
    """``PGVectorStore.close`` is a coroutine: called bare it never ran, so the store's pooled connections stayed
    open until the database was dropped under them (``WITH (FORCE)``)."""
    try:
        bridge = open_backend("llamaindex-pgvector")
    except BackendUnavailable as error:
        pytest.skip(str(error))
    docs = {"acme": sc.meta()}
    s = sc.Scenario.build(bridge, docs)
    s.native_ids(PolicyFilter(Principal("acme", ("engineering",)), sc.AS_OF, sc.active_for(docs)))
    pool = bridge.store._engine.pool  # type: ignore[attr-defined]
    assert pool.checkedin() >= 1
    bridge.close()
    assert pool.checkedin() == 0


def test_llamaindex_mmr_on_the_zero_query_still_raises_alone() -> None:
    """The strict xfail of the LlamaIndex Chroma bridge's path=mmr, reproduced with llama-index-core alone (exit 1:
    still raises; when a release fixes it, this fails and the xfail and the findings page go)."""
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "repro" / "llamaindex_mmr_zero_query.py")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1 and "VIOLATED: raised KeyError" in run.stdout, run.stdout + run.stderr


def test_the_postgresql_bridges_take_the_dsn_given_first_and_quote_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``dsn`` option comes before ``$PGVECTOR_DSN``, which comes before the throwaway server; the SQLAlchemy
    URL the frameworks take carries every libpq field, a password with URL delimiters in it quoted."""
    sqlalchemy = pytest.importorskip("sqlalchemy")
    from filterproof.adapters.bridges.pgvector import libpq_dsn, sqlalchemy_url

    given = "host=db.example port=6543 user=app password=p@ss/w:r=d dbname=docs"
    monkeypatch.setenv("PGVECTOR_DSN", "host=/run/pg user=postgres")
    assert (libpq_dsn(given), libpq_dsn(None)) == (given, "host=/run/pg user=postgres")
    url = sqlalchemy.engine.make_url(sqlalchemy_url(given, "psycopg"))
    assert (url.drivername, url.username, url.password, url.host, url.port, url.database) == (
        "postgresql+psycopg", "app", "p@ss/w:r=d", "db.example", 6543, "docs")
    socket = sqlalchemy_url("host=/tmp/pg port=5433 user=u dbname=d", "psycopg2")
    assert socket == "postgresql+psycopg2://u@/d?host=/tmp/pg&port=5433"


@pytest.mark.parametrize("spec", ["langchain-chroma:path=retriever", "langchain-qdrant:path=mmr"])
def test_a_document_published_and_deleted_during_a_search_is_still_scored(spec: str) -> None:
    """A path without scores (the retriever) is scored from the vectors we hold. Another thread published a
    document after the search began and deleted it before the hits were scored, while the framework found it in
    between: neither the record as the search began nor as it ends holds it (AdapterError "not in the index",
    seen once in the slow set's client-written-while-searched check). The vector it had during the search scores
    it. The interleaving is made here in one thread, inside the framework call."""
    bridge = open_backend(spec)
    plain, call = sc.principal(), type(bridge)._query  # type: ignore[attr-defined]
    where = PolicyFilter(plain, sc.AS_OF, ActiveRevisions.of({("acme", "late"): 1, ("acme", "early"): 1}))

    def published_then_deleted(self: Adapter, *args: object, **kwargs: object) -> object:
        self.upsert([Record("late", np.array([1.0, 0.0], np.float32), sc.meta(logical_id="late"))])
        found = call(self, *args, **kwargs)
        self.delete(["late"])
        return found

    try:
        bridge.reset(2)
        bridge.upsert([Record("early", np.array([0.0, 1.0], np.float32), sc.meta(logical_id="early"))])
        bridge._query = published_then_deleted.__get__(bridge)  # type: ignore[attr-defined]
        hits = bridge.search(np.array([1.0, 0.0], np.float32), 1, where)
        assert [(h.id, round(h.score, 6)) for h in hits] == [("late", 1.0)]
    finally:
        bridge.close()


def test_a_removal_is_kept_only_for_the_searches_that_began_before_it() -> None:
    """``Departed``: nothing kept while no search runs; a removal answers the searches under way as it is made,
    not one that begins later, and is dropped when the last of those ends."""
    departed, vector = Departed(), np.array([1.0, 0.0], np.float32)
    departed.removed({"before": vector})
    with departed.searching() as first:
        departed.removed({"during": vector})
        with departed.searching() as second:
            assert first("during") is vector and second("during") is None and first("before") is None
        assert departed._gone  # first still runs
    assert departed._gone == {}
