"""The Milvus Lite bridges beyond the suite: ids ``repr`` escapes, a tenant spelled like another's escape, the filters.

Both integrations build ``id in [...]`` from Python's ``repr`` of a list, which Milvus
Lite cannot read for a character ``repr`` writes as ``\\xNN``/``\\uNNNN``;
langchain-milvus's ``delete`` then returns False with the error logged, and the bridge
deletes by its own escaped expression instead (``bench/repro/langchain_milvus_delete.py``).
llama-index-vector-stores-milvus renders a scalar filter value with only ``'`` escaped, so
a tenant spelled like another tenant's stored escape reads that tenant's documents
(``bench/repro/llamaindex_milvus_filters.py``). Each integration failure is a strict
xfail naming it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import date

import pytest

pytest.importorskip("langchain_milvus")
pytest.importorskip("llama_index.vector_stores.milvus")

from llama_index.vector_stores.milvus.utils import parse_standard_filters
from pymilvus import MilvusException
from typer.testing import CliRunner

from filterproof.adapters import Adapter, open_backend
from filterproof.adapters.bridges.llamaindex_milvus import compile_filters, renderable
from filterproof.adapters.filterlang import And, Cond, Or
from filterproof.adapters.milvus import expr as mx
from filterproof.cli import app
from filterproof.conformance.worlds import scenarios as sc
from filterproof.fixtures import shipped
from filterproof.matrix.languages import milvus_expr
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal

REPR_IDS = pytest.mark.xfail(raises=MilvusException, strict=True, reason=(
    "finding: llama-index-vector-stores-milvus 1.2.0 delete_nodes(node_ids) sends id in <repr of the list>; Milvus "
    "Lite refuses repr's \\xNN and \\uNNNN escapes, so a node whose id holds a no-break or zero-width space cannot "
    "be deleted (the call raises)"))
ESCAPE_READ = pytest.mark.xfail(raises=AssertionError, strict=True, reason=(
    "finding: llama-index-vector-stores-milvus 1.2.0 renders a string MetadataFilter value with only ' escaped: "
    "the tenant x\\x0009y (stored x\\\\x0009y) is asked as 'x\\\\x0009y', which Milvus reads as x\\x0009y, the stored "
    "spelling of the tenant x<TAB>y: a principal reads another tenant's documents "
    "(bench/repro/llamaindex_milvus_filters.py)"))
ODD_IDS = ["no\u00a0break", "zero\u200bwidth", "o'brien", 'say "hi"', "back\\slash", "tail\\", "nul\x00x"]


@pytest.fixture()
def quiet() -> Iterator[None]:
    logging.disable(logging.ERROR)  # pymilvus logs each refused request with its traceback before raising it
    try:
        yield
    finally:
        logging.disable(logging.NOTSET)


def bridge(name: str) -> Iterator[Adapter]:
    store = open_backend(name)
    try:
        yield store
    finally:
        store.close()


@pytest.fixture(params=["langchain-milvus", pytest.param("llamaindex-milvus", marks=REPR_IDS)])
def for_ids(request: pytest.FixtureRequest, quiet: None) -> Iterator[Adapter]:
    yield from bridge(request.param)


@pytest.fixture(params=["langchain-milvus", pytest.param("llamaindex-milvus", marks=ESCAPE_READ)])
def for_tenants(request: pytest.FixtureRequest, quiet: None) -> Iterator[Adapter]:
    yield from bridge(request.param)


def test_documents_whose_ids_repr_escapes_are_deleted_and_updated(for_ids: Adapter) -> None:
    """Every id goes into a filter escaped: deleted documents never come back, and an update replaces."""
    docs = {i: sc.meta(logical_id=f"l{n}") for n, i in enumerate(ODD_IDS)} | {"keep": sc.meta(logical_id="keep")}
    s = sc.Scenario.build(for_ids, docs)
    where = PolicyFilter(sc.principal(), sc.AS_OF, sc.active_for(docs))
    assert s.native_ids(where) == set(docs)
    for_ids.update_metadata("no\u00a0break", sc.meta(logical_id="l0", status="superseded"))
    assert s.native_ids(where) == set(docs) - {"no\u00a0break"}
    for_ids.delete(ODD_IDS)
    assert s.native_ids(where) == {"keep"}


def test_a_tenant_spelled_like_another_tenants_escape_reads_nothing_of_it(for_tenants: Adapter) -> None:
    """The tenant ``x\\x0009y`` (a backslash, then x0009) is not the tenant x TAB y, whose stored spelling it is."""
    docs = {"tab": sc.meta(tenant="x\ty"), "escape": sc.meta(tenant="x\\x0009y"), "acme": sc.meta()}
    s = sc.Scenario.build(for_tenants, docs)
    where = PolicyFilter(sc.principal("x\\x0009y"), sc.AS_OF, sc.active_for(docs))
    got, want = s.native_ids(where), s.policy_ids(where)
    assert got == want, sc.mismatch(got, want, s.docs)


def test_the_metadata_filters_of_llamaindex_milvus_as_the_integration_renders_them() -> None:
    """The engine compiler's clauses, in its order, as MetadataFilters; no group or no key: a key nobody has."""
    active = ActiveRevisions.of({("acme", "a"): 1, ("acme", "b"): 2, ("beta", "a"): 1})
    where = PolicyFilter(Principal("acme", ("eng", "$or")), date(2026, 9, 8), active)
    keys = [mx.text(k) for k in ("acme/a#1", "acme/b#2")]
    assert parse_standard_filters(compile_filters(where, keys))[1] == (
        "problem == '' and tenant == 'acme' and status == 'active' and valid_from <= 20260908 and "
        "valid_until > 20260908 and array_contains_any(groups, ['eng', '$or']) and "
        "revision_key in ['acme/a#1', 'acme/b#2']")
    nothing = compile_filters(PolicyFilter(Principal("acme", ()), where.as_of, active), [])
    assert parse_standard_filters(nothing)[1].count("fp_never == 1") == 2


def test_renderable_names_are_those_the_rendering_carries_unchanged() -> None:
    assert all(renderable(v) for v in ("acme", "o'brien", 'say "hi"', "a b", "工程", "$or"))
    assert not any(renderable(v) for v in ("x\ty", "back\\slash", "no\u00a0break", "zero\u200bwidth", "\ufeffx"))


def test_milvus_expressions_of_the_matrix_escape_every_string() -> None:
    assert milvus_expr(Cond("eq", "color", 'a"b\\c\nd')) == 'color == "a\\"b\\\\c\\nd"'
    assert milvus_expr(And((Or((Cond("eq", "c", "r"), Cond("in", "c", ("b",)))), Cond("gt", "n", 2)))) == (
        '((c == "r") or (c in ["b"])) and (n > 2)')
    assert milvus_expr(Or(())) == "()"  # what joining no clauses gives: Milvus refuses it (the matrix: raises)
    assert milvus_expr(Cond("contains_any", "tags", ("x",))) == 'ARRAY_CONTAINS_ANY(tags, ["x"])'


@pytest.mark.slow  # 5-10 s a path: the frameworks' other search paths, with the bridges' full matrix (slow set)
@pytest.mark.parametrize("path", ["score_threshold", "mmr", "retriever"])
@pytest.mark.parametrize("name", ["langchain-milvus", "llamaindex-milvus"])
def test_every_search_path_gives_the_reference_verdicts_on_the_freshness_lab(name: str, path: str) -> None:
    """The full matrix runs these bridges on the plain path only: here each other path answers the seed's cases
    (``compare`` exits 1 when a backend disagrees with the reference or a filtered strategy leaks)."""
    result = CliRunner().invoke(app, ["compare", str(shipped("freshness-lab.json")), "-b", f"{name}:path={path}"])
    assert result.exit_code == 0, result.output
    assert f"{name}:path={path}" in result.output


@pytest.mark.parametrize(("index", "exact"), [("flat", True), ("hnsw", False), ("autoindex", False)])
def test_capabilities_and_the_index_follow_the_options(index: str, exact: bool) -> None:
    """A FLAT index is exact and promises it; an ANN index promises the tolerance; every index filters natively and
    keeps a document's lifecycle (a claim dropped would turn checks into skips, not failures). The index takes
    the HNSW build settings the option documents, and only for HNSW."""
    from filterproof.adapters.bridges.milvus import INDEX_TYPES, capabilities, index_params
    from filterproof.adapters.bridges.options import MilvusBridgeOptions
    from filterproof.adapters.milvus.store import RECALL_TOLERANCE

    options = MilvusBridgeOptions.model_validate({"index": index})
    caps = capabilities(options)
    assert (caps.native_filter, caps.lifecycle, caps.persistent) == (True, True, False)
    assert (caps.exact, caps.recall_tolerance) == (exact, 0.0 if exact else RECALL_TOLERANCE)
    settings = {"M": 16, "efConstruction": 200} if index == "hnsw" else {}
    assert index_params(options) == {"index_type": INDEX_TYPES[index], "metric_type": "COSINE", "params": settings}


@pytest.mark.parametrize(("spec", "exact"), [("langchain-milvus:index=hnsw", False),
                                             ("langchain-milvus:path=mmr", False), ("llamaindex-milvus", True)])
def test_a_bridge_declares_its_index_and_path(spec: str, exact: bool, quiet: None) -> None:
    """The plain path declares its index's promise (an ANN index's tolerance); MMR keeps the bridges' own: it
    promises no recall."""
    adapter = open_backend(spec)
    try:
        assert adapter.capabilities.exact is exact
        if ":path=mmr" in spec:
            assert adapter.capabilities.recall_tolerance > 0.02
    finally:
        adapter.close()


def test_close_disconnects_the_orm_alias_and_closes_the_client(quiet: None) -> None:
    """langchain-milvus opens pymilvus's ORM ``Collection`` under an alias the bridge registers (langchain-milvus
    #130): ``close()`` disconnects it and closes the client the bridge opened."""
    from pymilvus import connections

    adapter = open_backend("langchain-milvus")
    try:
        adapter.reset(2)
        alias, client = adapter._alias, adapter._client  # type: ignore[attr-defined]
        assert alias and connections.has_connection(alias)
    finally:
        adapter.close()
    assert not connections.has_connection(alias)
    with pytest.raises(Exception):  # noqa: B017 (pymilvus raises its own or a gRPC error for a closed client)
        client.list_collections()
