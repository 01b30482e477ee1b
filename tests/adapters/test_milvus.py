"""The Milvus backend: an expression no value can break out of, rows Milvus can hold, and Milvus Lite's lifecycle.

The expression is checked twice, as for LanceDB: as text (its shape does not depend on
the values) and by Milvus Lite itself, on a real collection whose documents hold the
same hostile values (each matches exactly itself, and nothing else).
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from filterproof.adapters.base import Record
from filterproof.adapters.milvus import expr as mx
from filterproof.adapters.milvus.limits import MAX_CAPACITY, MAX_LENGTH, refusal
from filterproof.conformance.worlds import scenarios as sc
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal, matchable, structural_problem
from support.paths import ROOT

AS_OF = date(2026, 9, 8)
HOSTILE = ['" or 1 == 1 or "', '") or (id != "', "' or 1 == 1 --", "a\\\"b", "a\\", "\\n", "x\ny", "t\tz", "\r",
           "a\x01b", "a\x7fb", "工程", "a\x00b", "\ud800", "]", "[\"x\"]", "acme", "\\u0041", "\u2028"]
VECTOR = np.array([1.0, 0.5], dtype=np.float32)


def test_a_literal_escapes_backslash_and_quote_only_and_holds_no_control_character() -> None:
    assert mx.literal('say "hi"') == '"say \\"hi\\""'
    assert mx.literal("a\\") == '"a\\\\\\\\"'  # textcodec doubles it as stored; the literal doubles both
    assert mx.literal("x\ny") == '"x\\\\x000ay"'  # stored as \x000a: no newline ever enters the expression
    for value in HOSTILE:
        assert not any(c < " " or c == "\x7f" for c in mx.literal(value)), repr(value)
    with pytest.raises(TypeError):
        mx.literal(1)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", HOSTILE)
def test_the_shape_of_the_expression_never_depends_on_a_value(value: str) -> None:
    if not matchable(value):  # NUL, a lone surrogate: no well-formed document holds it; the filter is false
        assert mx.compile_expr(PolicyFilter(Principal(value, ("g",)), AS_OF, ActiveRevisions())) == mx.NOTHING
        return
    compiled = mx.compile_expr(PolicyFilter(Principal(value, (value,)), AS_OF, ActiveRevisions.of({(value, "x"): 1})))
    placeholder = mx.compile_expr(PolicyFilter(Principal("T", ("G",)), AS_OF, ActiveRevisions.of({("T", "x"): 1})))
    assert compiled.replace(mx.literal(value), '"T"', 1).replace(mx.literal(value), '"G"', 1).replace(
        mx.literal(f"{value}/x#1"), mx.literal("T/x#1")) == placeholder


def test_clauses_in_cost_order() -> None:
    where = PolicyFilter(Principal("acme", ("eng", "eng", "ops")), AS_OF,
                         ActiveRevisions.of({("acme", "a"): 2, ("beta", "a"): 1}))
    assert mx.compile_expr(where) == (
        '(problem == "") and (tenant == "acme") and (status == "active") and (valid_from <= 20260908) and '
        '(valid_until > 20260908) and (ARRAY_CONTAINS_ANY(groups, ["eng", "ops"])) and (revision_key in ["acme/a#2"])')
    assert mx.compile_expr(where, flag=True).endswith("(is_current == true)")
    for empty in (PolicyFilter(Principal("acme", ()), AS_OF, where.active),
                  PolicyFilter(Principal("gamma", ("eng",)), AS_OF, where.active)):
        assert mx.compile_expr(empty) == mx.NOTHING
    assert mx.id_filter([]) == mx.NOTHING
    assert mx.id_filter(["a", 'b"c']) == 'id in ["a", "b\\"c"]'


@pytest.mark.parametrize("bad", [None, 'tenant == "x"', {"tenant": "x"}])
def test_unknown_input_raises(bad: Any) -> None:
    with pytest.raises(TypeError):
        mx.compile_expr(bad)
    with pytest.raises(TypeError):
        mx.valid_from_clause(datetime(2026, 9, 8))


def test_stored_fields_fail_closed_without_nulls() -> None:
    good = mx.stored_fields(sc.meta(valid_until="2027-01-01", groups=["eng", "eng"]))
    assert (good["valid_from"], good["valid_until"], good["revision_key"], good["groups"], good["problem"]) == (
        20260101, 20270101, "acme/doc#1", ["eng"], "")
    assert mx.stored_fields(sc.meta())["valid_until"] == mx.OPEN_UNTIL
    for field, value in (("groups", "eng"), ("revision", 1.0), ("valid_from", "2026-02-30"), ("tenant", None)):
        bad = mx.stored_fields(sc.meta(**{field: value}))
        assert bad["problem"] and None not in bad.values()
        assert (bad["tenant"], bad["status"], bad["groups"], bad["is_current"]) == ("", "", [], False)
    for note in ("x" * 200_000, '"\\\u00e9\n\x01\U0001f642' * 25_000):  # its JSON grows when the head is re-escaped
        huge = mx.stored_fields(sc.meta(note=note))
        assert len(huge["metadata"]) <= mx.METADATA_KEPT and '"truncated": true' in huge["metadata"]
        assert refusal(huge) is None


def test_limits_refuse_what_milvus_cannot_hold() -> None:
    assert refusal({"tenant": "é" * (MAX_LENGTH // 2)}) is None
    assert "65,535" in (refusal({"tenant": "é" * (MAX_LENGTH // 2 + 1)}) or "")  # bytes, not characters
    assert "4,096" in (refusal({"groups": ["g"] * (MAX_CAPACITY + 1)}) or "")
    assert refusal({"groups": ["g"] * MAX_CAPACITY}) is None
    assert "ARRAY element" in (refusal({"groups": ["x" * (MAX_LENGTH + 1)]}) or "")


@pytest.fixture()
def store() -> Any:
    pytest.importorskip("milvus_lite")
    from filterproof.adapters.milvus import MilvusAdapter

    adapter = MilvusAdapter()
    adapter.reset(2)
    yield adapter
    adapter.close()


def test_hostile_values_match_exactly_themselves_in_milvus_lite(store: Any) -> None:
    """Each hostile value as a tenant, a group, a logical id and an id: its principal sees its one document,
    no other (none where the policy calls the value malformed: NUL, a lone surrogate)."""
    docs = {f"id {v}": sc.meta(tenant=v, logical_id=v, groups=[v]) for v in HOSTILE}
    store.upsert([Record(i, VECTOR, m) for i, m in docs.items()])
    active = ActiveRevisions.of({(v, v): 1 for v in HOSTILE})
    for value in HOSTILE:
        hits = store.search(VECTOR, 100, PolicyFilter(Principal(value, (value,)), AS_OF, active))
        expected = [] if structural_problem(docs[f"id {value}"]) else [f"id {value}"]
        assert [h.id for h in hits] == expected, repr(value)
    assert len(store.search(VECTOR, 100, None)) == len(HOSTILE)
    store.delete(['id " or 1 == 1 or "', "nothere\", \"id acme"])  # an id cannot name another id
    assert len(store.search(VECTOR, 100, None)) == len(HOSTILE) - 1


def test_a_zero_vector_scores_zero_and_k_beyond_the_collection_is_clamped(store: Any) -> None:
    store.upsert([Record("z", np.zeros(2, dtype=np.float32), sc.meta()), Record("a", VECTOR, sc.meta())])
    hits = store.search(VECTOR, 50, None)
    assert [h.id for h in hits] == ["a", "z"] and hits[1].score == 0.0


def test_a_partial_upsert_of_a_row_another_client_deleted_is_recognised_by_lite_and_by_a_server(store: Any) -> None:
    """Milvus Lite's refusal is read from Lite itself; a server's is the one Milvus's own partial-update tests
    expect (a new row's vector missing, code 1100). Any other refusal is not taken for an absent row."""
    from pymilvus import MilvusException

    from filterproof.adapters.milvus.store import absent_row

    store.upsert([Record("a", VECTOR, sc.meta())])
    with pytest.raises(MilvusException) as lite:
        store.client.upsert(store._name, [{mx.ID: "gone", mx.CURRENT: True}], partial_update=True)
    assert absent_row(lite.value)
    store.update_metadata("gone", sc.meta())  # ignored, not inserted
    assert [h.id for h in store.search(VECTOR, 10, None)] == ["a"]
    server = "fieldSchema(vector) has no corresponding fieldData pass in: invalid parameter"
    assert absent_row(MilvusException(code=1100, message=server))
    assert not absent_row(MilvusException(code=1100, message="fieldSchema(tenant) has no corresponding fieldData"))
    assert not absent_row(MilvusException(code=2, message="fail connecting to server"))


@pytest.mark.parametrize(("spec", "exact", "path"), [
    ("milvus", True, "exact scan"), ("milvus:index=flat", True, "exact scan"), ("milvus:index=hnsw", False, None),
    ("milvus:index=ivf_flat", False, None), ("milvus:index=autoindex", False, None),
])
def test_capabilities_and_the_search_path_follow_the_index(spec: str, exact: bool, path: str | None) -> None:
    """A FLAT index scores every vector the filter admits: exact, no tolerance, and the exact scan declared and
    explained; an ANN index promises neither and Milvus does not say which path a search took. Every index filters
    natively and keeps a document's lifecycle (the suite skips what a store declares off: a claim dropped here
    would turn checks into skips, not failures). The spec's text, not a literal, names the index."""
    pytest.importorskip("milvus_lite")
    from filterproof.adapters.milvus.store import RECALL_TOLERANCE
    from filterproof.adapters.registry import open_backend

    adapter = open_backend(spec)
    try:
        caps = adapter.capabilities
        assert (caps.native_filter, caps.lifecycle) == (True, True)
        assert (caps.exact, caps.recall_tolerance, caps.search_path) == (exact, 0.0 if exact else RECALL_TOLERANCE,
                                                                          path)
        assert adapter.explain(VECTOR, 5, None).kind == (path or "unknown")  # type: ignore[attr-defined]
    finally:
        adapter.close()


def test_close_releases_milvus_lite_so_another_process_opens_the_file(tmp_path: Path) -> None:
    """``MilvusClient.close()`` alone leaves the in-process server running and the file locked (milvus-lite#227):
    the adapter's close releases it, so a process started afterwards opens the same file."""
    pytest.importorskip("milvus_lite")
    from filterproof.adapters.milvus import MilvusAdapter

    uri = str(tmp_path / "kept.db")
    adapter = MilvusAdapter({"uri": uri, "collection": "kept"})
    adapter.reset(2)
    adapter.upsert([Record("a", VECTOR, sc.meta())])
    adapter.close()
    code = ("from pymilvus import MilvusClient; import sys; c = MilvusClient(sys.argv[1]); "
            "c.load_collection('kept'); print(c.query('kept', filter='id != \"\"', output_fields=['id']))")
    done = subprocess.run([sys.executable, "-c", code, uri], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert done.returncode == 0 and "'a'" in done.stdout, done.stderr[-2000:]


def test_the_temporary_directory_is_removed_on_close() -> None:
    pytest.importorskip("milvus_lite")
    from filterproof.adapters.milvus import MilvusAdapter

    adapter = MilvusAdapter()
    adapter.reset(2)
    root = Path(adapter.uri).parent
    assert root.exists()
    adapter.close()
    assert not root.exists()


def test_the_compose_file_pins_the_container_image_and_a_server_needs_docker_or_milvus_uri(
        monkeypatch: pytest.MonkeyPatch) -> None:
    yaml = pytest.importorskip("yaml")
    from filterproof.errors import BackendUnavailable
    from filterproof.servers.milvus_container import MilvusService

    service = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["milvus"]
    assert service["image"] == MilvusService.IMAGE and "19530:19530" in service["ports"]
    monkeypatch.delenv("MILVUS_URI", raising=False)
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    reason = MilvusService().unavailable_reason()
    assert reason and reason.startswith("no Docker engine and no MILVUS_URI")
    from filterproof.adapters.registry import open_backend

    with pytest.raises(BackendUnavailable, match="no Docker engine and no MILVUS_URI"):
        open_backend("milvus:server=docker")


def test_milvus_uri_names_the_server_and_a_dead_one_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pymilvus")
    from filterproof.adapters.registry import open_backend
    from filterproof.errors import BackendUnavailable

    monkeypatch.setenv("MILVUS_URI", "http://127.0.0.1:9")  # discard: nothing answers
    with pytest.raises(BackendUnavailable, match=r"milvus: cannot open the Milvus server at http://127.0.0.1:9"):
        open_backend("milvus")


def test_compare_on_both_seed_fixtures_is_the_references() -> None:
    """The issue's first check: ``compare`` exits 0 only when every filtered strategy agrees with the reference and
    none leaks; here on the freshness lab and the 40-dataset corpus, in both tenant modes (one compare: the fixtures
    are embedded and the reference run once for both)."""
    pytest.importorskip("milvus_lite")
    from typer.testing import CliRunner

    from filterproof.cli import app
    from filterproof.fixtures import shipped

    specs = ["milvus", "milvus:tenant_mode=partition_key,revision=flag"]
    result = CliRunner().invoke(app, ["compare", str(shipped("freshness-lab.json")), str(shipped("authorized-recall")),
                                      *(arg for spec in specs for arg in ("-b", spec))])
    assert result.exit_code == 0, result.output
    assert all(spec in result.output for spec in specs)
    assert result.output.count("identical to reference") == 2 * len(specs), result.output
