"""The Qdrant payload encoding and policy compiler, pure: no engine runs here.

The engines are exercised in ``test_qdrant.py``; these tests pin down what each
clause compiles to, what each malformed class is stored as, and that the two
model families receive the same tree.
"""

from __future__ import annotations

import json
import uuid
from datetime import date, datetime
from typing import Any

import pytest
import qdrant_edge as qe
from qdrant_client import models

from filterproof.adapters.filterlang import And, Cond, Or, Unsupported, nodes
from filterproof.adapters.qdrant.compiler import (
    PolicyCompiler,
    compile_policy,
    form_clause,
    groups_clause,
    keys_by_tenant,
    revision_clause,
    status_clause,
    tenant_clause,
    valid_from_clause,
    valid_until_clause,
)
from filterproof.adapters.qdrant.language import EDGE, MODELS, Qdrant
from filterproof.adapters.qdrant.payload import (
    FORM,
    GROUPS,
    INDEXES,
    KEY,
    LID,
    MALFORMED,
    PROBLEM,
    RAW,
    STATUS,
    TENANT,
    VALID_FROM,
    VALID_UNTIL,
    WELL_FORMED,
    point_id,
    revision_key,
    stored_payload,
    timestamp,
)
from filterproof.fixtures import Fixture
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal, structural_problem
from support.paths import FIXTURES

AS_OF = date(2026, 9, 8)
ENG = Principal("acme", ("eng", "ops"))
POLICY_FIELDS = {TENANT, STATUS, GROUPS, KEY, VALID_FROM, VALID_UNTIL, "revision", "logical_id"}


# -- one clause each -------------------------------------------------------------


def test_each_clause_compiles_to_one_native_condition() -> None:
    assert form_clause() == Cond("eq", FORM, WELL_FORMED)
    assert tenant_clause(ENG) == Cond("eq", TENANT, "acme")
    assert status_clause() == Cond("eq", STATUS, "active")
    assert groups_clause(ENG) == Cond("contains_any", GROUPS, ("eng", "ops"))
    assert groups_clause(Principal("acme", ())) == Cond("contains_any", GROUPS, ())  # MatchAny([]): nothing matches
    assert valid_from_clause(AS_OF) == Cond("lte", VALID_FROM, AS_OF)
    assert valid_until_clause(AS_OF) == Or((Cond("gt", VALID_UNTIL, AS_OF), Cond("is_empty", VALID_UNTIL)))
    assert revision_clause(["acme/a#1"]) == Cond("in", KEY, ("acme/a#1",))


def test_the_policy_is_the_conjunction_with_the_revision_clause_last() -> None:
    where = PolicyFilter(ENG, AS_OF, ActiveRevisions.of({("acme", "a"): 2}))
    tree = compile_policy(where, ["acme/a#2"])
    assert tree == And((
        form_clause(), tenant_clause(ENG), status_clause(), groups_clause(ENG),
        valid_from_clause(AS_OF), valid_until_clause(AS_OF), revision_clause(["acme/a#2"]),
    ))


def test_the_active_map_is_split_per_tenant_into_revision_keys() -> None:
    active = ActiveRevisions.of({("acme", "b"): 1, ("acme", "a#1"): 3, ("ácme", "x/y"): 2, ("acme/x", "y"): 1})
    assert keys_by_tenant(active) == {"acme": ("acme/a#1#3", "acme/b#1"), "ácme": ("ácme/x/y#2",)}
    # a slash tenant is left out: no well-formed document has one, and "acme/x/y#1" would be ambiguous
    with pytest.raises(TypeError, match="not an integer"):
        keys_by_tenant({("acme", "a"): True})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="not an integer"):
        keys_by_tenant({("acme", "a"): 1.0})  # type: ignore[dict-item]


@pytest.mark.parametrize("bad", [
    "not a filter",
    PolicyFilter(Principal(5, ("eng",)), AS_OF, ActiveRevisions()),  # type: ignore[arg-type]
    PolicyFilter(Principal("acme", ("eng", 3)), AS_OF, ActiveRevisions()),  # type: ignore[arg-type]
    PolicyFilter(ENG, datetime(2026, 9, 8, 12), ActiveRevisions()),
    PolicyFilter(ENG, "2026-09-08", ActiveRevisions()),  # type: ignore[arg-type]
])
def test_unknown_input_raises(bad: Any) -> None:
    with pytest.raises(TypeError):
        compile_policy(bad, [])


# -- rendering ------------------------------------------------------------------


def test_render_calls_one_constructor_per_node_with_rfc3339_dates() -> None:
    """The rendering is data (``Call``) before it is objects: the same tree, as the source a reproducer runs."""
    tree = And((Cond("eq", TENANT, "acme"), valid_from_clause(AS_OF), valid_until_clause(AS_OF),
                Cond("contains_any", GROUPS, ())))
    assert Qdrant(MODELS).source(tree) == (
        f"models.Filter(must=[models.FieldCondition(key='{TENANT}', match=models.MatchValue(value='acme')), "
        f"models.FieldCondition(key='{VALID_FROM}', range=models.DatetimeRange(lte='2026-09-08T00:00:00Z')), "
        f"models.Filter(should=[models.FieldCondition(key='{VALID_UNTIL}', "
        f"range=models.DatetimeRange(gt='2026-09-08T00:00:00Z')), "
        f"models.IsEmptyCondition(is_empty=models.PayloadField(key='{VALID_UNTIL}'))]), "
        f"models.FieldCondition(key='{GROUPS}', match=models.MatchAny(any=[]))])")
    assert Qdrant(EDGE).source(Cond("eq", TENANT, "acme")) == (
        f"qe.Filter(must=[qe.FieldCondition('{TENANT}', match=qe.MatchValue('acme'))])")


def test_render_refuses_an_empty_group_and_unknown_nodes() -> None:
    with pytest.raises(Unsupported, match="no constraint"):
        Qdrant(MODELS).render(Or(()))  # an empty should would match everything: fail open
    assert Qdrant(MODELS).native(And(())) == models.Filter(must=[])  # an empty AND is true, as it reads
    with pytest.raises(TypeError, match="unknown expression"):
        Qdrant(MODELS).render("tenant == acme")  # type: ignore[arg-type]


def test_models_family_renders_the_expected_filter() -> None:
    tree = And((Cond("eq", TENANT, "acme"), Cond("contains_any", GROUPS, ("eng",)), valid_until_clause(AS_OF)))
    assert Qdrant(MODELS).native(tree) == models.Filter(must=[
        models.FieldCondition(key=TENANT, match=models.MatchValue(value="acme")),
        models.FieldCondition(key=GROUPS, match=models.MatchAny(any=["eng"])),
        models.Filter(should=[
            models.FieldCondition(key=VALID_UNTIL, range=models.DatetimeRange(gt="2026-09-08T00:00:00Z")),
            models.IsEmptyCondition(is_empty=models.PayloadField(key=VALID_UNTIL)),
        ]),
    ])


def test_edge_family_renders_the_same_tree() -> None:
    where = PolicyFilter(ENG, AS_OF, ActiveRevisions.of({("acme", "a"): 1}))
    native = Qdrant(EDGE).native(compile_policy(where, ["acme/a#1"]))
    assert isinstance(native, qe.Filter) and len(native.must) == 7
    tenant, groups, until, key = native.must[1], native.must[3], native.must[5], native.must[6]
    assert isinstance(tenant, qe.FieldCondition) and tenant.key == TENANT and tenant.match.value == "acme"
    assert groups.key == GROUPS and list(groups.match.value) == ["eng", "ops"]
    assert isinstance(until, qe.Filter) and len(until.should) == 2
    assert isinstance(until.should[1], qe.IsEmptyCondition) and until.should[1].key == VALID_UNTIL
    assert key.key == KEY and list(key.match.value) == ["acme/a#1"]


def test_policy_compiler_reuses_work_per_map_object_and_sees_a_new_map_at_once() -> None:
    compiler = PolicyCompiler(MODELS)
    active = ActiveRevisions.of({("acme", "a"): 1, ("other", "z"): 1})

    def keys(native: models.Filter) -> models.FieldCondition:
        return models.FieldCondition(key=KEY, match=models.MatchAny(any=native))

    first = compiler.native(PolicyFilter(ENG, AS_OF, active))
    assert first.must[-1] == keys(["acme/a#1"])  # only the principal's tenant
    assert compiler.native(PolicyFilter(ENG, AS_OF, active)) is first
    moved = compiler.native(PolicyFilter(ENG, AS_OF, active.replace("acme", "a", 2)))
    assert moved.must[-1] == keys(["acme/a#2"])
    unknown = compiler.native(PolicyFilter(Principal("nobody", ("eng",)), AS_OF, active))
    assert unknown.must[-1] == keys([])  # no entries for this tenant: nothing matches
    with pytest.raises(TypeError):
        compiler.native(None)  # type: ignore[arg-type]


def test_the_cache_holds_at_most_its_filters_and_its_keys_and_recompiles_the_same() -> None:
    """Bounded memory (a sweep's cached filters once held 5-6 GB): at most ``cache_size`` filters and ``keys_cached``
    revision keys between them, counted exactly; within the bounds a filter asked again is the one held, and one
    forgotten is compiled again, equal."""
    active = ActiveRevisions.of({(f"t{w}", f"d{i}"): 1 for w in range(1, 7) for i in range(w)})  # t<w>: w keys
    ask = [PolicyFilter(Principal(tenant, ("g",)), AS_OF, active) for tenant in ("t1", "t2", "nobody")]
    by_count = PolicyCompiler(MODELS, cache_size=2)
    held = [by_count.native(ask[0]), by_count.native(ask[1])]
    assert by_count.native(ask[0]) is held[0] and by_count.native(ask[1]) is held[1]  # both within the bound
    by_count.native(ask[2])
    assert len(by_count._cache.filters) <= 2
    by_keys, bound = PolicyCompiler(MODELS, keys_cached=6), 6
    first = {}
    for tenant in ("t1", "t6", "t1", "t5", "t1", "nobody", "t6", "t2", "t3", "t4", "t1", "t6"):  # nobody: 0 keys
        where = PolicyFilter(Principal(tenant, ("g",)), AS_OF, active)
        native = by_keys.native(where)
        assert first.setdefault(tenant, native) == native  # held or compiled again: the same filter
        weights = [by_keys.size(PolicyFilter(principal, AS_OF, active)) for principal, _ in by_keys._cache.filters]
        assert by_keys._cache.held == sum(weights) <= bound, (tenant, weights)


def test_a_filter_weighs_its_revision_keys_and_a_flag_filter_nothing() -> None:
    """``size`` is what a server's batching counts (``max_keys_per_call``): the tenant's keys, none under a flag."""
    active = ActiveRevisions.of({("acme", "a"): 1, ("acme", "b"): 2, ("other", "z"): 1})
    assert PolicyCompiler(MODELS).size(PolicyFilter(ENG, AS_OF, active)) == 2
    assert PolicyCompiler(MODELS).size(PolicyFilter(Principal("nobody", ("eng",)), AS_OF, active)) == 0
    assert PolicyCompiler(MODELS, flag=True).size(PolicyFilter(ENG, AS_OF, active)) == 0


# -- the stored payload -----------------------------------------------------------


def good(**changes: Any) -> dict[str, Any]:
    return {"tenant": "acme", "logical_id": "a", "revision": 3, "status": "active", "groups": ["eng"],
            "valid_from": "2026-01-01", **changes}


def test_a_well_formed_document_is_stored_with_one_field_per_clause() -> None:
    payload = stored_payload("doc-1", good(valid_until="2027-02-03", extra="kept in raw"))
    assert json.loads(payload.pop(RAW)) == good(valid_until="2027-02-03", extra="kept in raw")
    assert payload == {
        "fp_id": "doc-1", FORM: WELL_FORMED, TENANT: "acme", STATUS: "active", GROUPS: ["eng"],
        KEY: "acme/a#3", "revision": 3, "logical_id": "a",
        VALID_FROM: "2026-01-01T00:00:00Z", VALID_UNTIL: "2027-02-03T00:00:00Z",
    }
    assert VALID_UNTIL not in stored_payload("doc-1", good(valid_until=None))  # open-ended: IsEmpty holds
    assert VALID_UNTIL not in stored_payload("doc-1", good())


def test_every_malformed_adversarial_document_is_stored_without_any_filtered_field(adversarial: Fixture) -> None:
    malformed = 0
    for doc in adversarial.documents:
        payload = stored_payload(doc.id, doc.metadata)
        assert payload["fp_id"] == doc.id and json.loads(payload[RAW]) == dict(doc.metadata)
        problem = structural_problem(doc.metadata)
        if problem:
            malformed += 1
            assert payload[FORM] == MALFORMED and payload[PROBLEM] == problem
            assert not POLICY_FIELDS & payload.keys(), doc.id
        else:
            assert payload[FORM] == WELL_FORMED and POLICY_FIELDS - {VALID_UNTIL} <= payload.keys()
    assert malformed >= 20  # every fail-closed class is present in the fixture


@pytest.fixture(scope="module")
def adversarial() -> Fixture:

    from filterproof.fixtures import load_fixture

    return load_fixture(FIXTURES / "adversarial.json")


def test_point_ids_are_stable_uuids_and_keys_and_dates_are_spelled_once() -> None:
    assert point_id("a") == point_id("a") != point_id("b")
    assert uuid.UUID(point_id("工程/x#1")).version == 5
    assert revision_key("acme", "x/y", 2) == "acme/x/y#2"
    assert timestamp(date(2026, 2, 28)) == "2026-02-28T00:00:00Z"
    assert INDEXES[TENANT] == "tenant" and INDEXES[VALID_FROM] == INDEXES[VALID_UNTIL] == "datetime"


def _fields(tree: Any) -> set[str]:
    return {node.key for node in nodes(tree) if isinstance(node, Cond)}


@pytest.mark.parametrize("flag", [False, True], ids=["revision=query", "revision=flag"])
def test_exactly_the_fields_a_filter_reads_are_indexed(flag: bool) -> None:
    """An index no filter reads costs memory in every segment, twice while one is rebuilt; a filtered
    field without one is checked by reading payloads. ``fp_lid`` is read by the flag rewrite's selector."""
    from filterproof.adapters.qdrant.edge import QdrantEdgeAdapter

    where = PolicyFilter(ENG, AS_OF, ActiveRevisions.of({("acme", "a"): 2}))
    read = _fields(compile_policy(where, None if flag else ["acme/a#2"]))
    adapter = QdrantEdgeAdapter({"revision": "flag" if flag else "query"})
    try:
        assert set(adapter.indexes) == read | ({LID} if flag else set())
    finally:
        adapter.close()


@pytest.mark.parametrize("principal", [Principal("acme\ud800", ("eng",)), Principal("acme", ("eng\ud800",)),
                                       Principal("acme\x00", ("eng",)), Principal("acme", ("eng\x00x",))],
                         ids=["surrogate tenant", "surrogate group", "NUL tenant", "NUL group"])
def test_an_identity_no_document_can_hold_compiles_to_nothing_and_renders(principal: Principal) -> None:
    """A principal's tenant or group that no well-formed document can hold (a lone surrogate, a NUL) matches
    nothing, and never reaches the engine: qdrant-edge cannot even take a lone surrogate (UTF-8)."""
    tenant, groups = tenant_clause(principal), groups_clause(principal)
    assert tenant == Cond("in", TENANT, ()) or groups == Cond("contains_any", GROUPS, ())
    for node in (tenant, groups):
        Qdrant(EDGE).native(node)
        Qdrant(MODELS).native(node)


def test_two_threads_asking_under_two_maps_each_get_their_own_map() -> None:
    """One client's threads compile under two maps at once (an application moves its map while requests are under
    way): each filter must carry its own map's keys, never the other call's (found by
    ``test_one_client_searched_while_written_answers_as_it_stands``, in ``adapters.revisions.KeyCache``, which
    this cache had the same way)."""
    import sys
    import threading

    compiler, calls = PolicyCompiler(MODELS), 3_000
    maps = [ActiveRevisions.of({("acme", "a"): revision}) for revision in (1, 2)]
    wrong: list[int] = []

    def ask(revision: int) -> None:
        want = [f"acme/a#{revision}"]
        for _ in range(calls):
            native = compiler.native(PolicyFilter(ENG, AS_OF, maps[revision - 1]))
            if list(native.must[-1].match.any) != want:
                wrong.append(revision)

    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=ask, args=(revision,)) for revision in (1, 2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
    finally:
        sys.setswitchinterval(before)
    assert not wrong, f"{len(wrong)} of {2 * calls} filters carried the other thread's map"
