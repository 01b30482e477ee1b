"""The Chroma encoding and compiler as pure functions: one test per clause, then the edges."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest

from filterproof.adapters.chroma import where as cw
from filterproof.adapters.filterlang import And, Or, Unsupported
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal, structural_problem
from support.paths import FIXTURES

ADVERSARIAL = FIXTURES / "adversarial.json"
AS_OF = date(2026, 9, 8)
GOOD: dict[str, Any] = {"tenant": "acme", "logical_id": "handbook", "revision": 2, "status": "active",
                        "groups": ["eng", "$or"], "valid_from": "2026-01-01", "valid_until": "2026-12-31"}


def test_date_int_sorts_like_dates() -> None:
    assert cw.date_int(date(2026, 9, 8)) == 20260908
    days = [date(1999, 12, 31), date(2026, 1, 1), date(2026, 9, 8), date(9999, 12, 31)]
    assert sorted(days, key=cw.date_int) == days
    assert cw.date_int(date(9999, 12, 31)) < cw.OPEN_UNTIL


def test_each_clause() -> None:
    assert cw.RENDER.render(cw.tenant_clause(Principal("acme", ()))) == {"fp_tenant": {"$eq": "acme"}}
    assert cw.RENDER.render(cw.status_clause()) == {"fp_status": {"$eq": "active"}}
    assert cw.RENDER.render(cw.revision_clause(["acme/a#1", "acme/b#2"])) == {
        "fp_key": {"$in": ["acme/a#1", "acme/b#2"]}}
    assert cw.RENDER.render(cw.valid_from_clause(AS_OF)) == {"fp_from": {"$lte": 20260908}}
    assert cw.RENDER.render(cw.valid_until_clause(AS_OF)) == {"fp_until": {"$gt": 20260908}}


def test_groups_clause_unwraps_one_group_and_ors_several() -> None:
    assert cw.RENDER.render(cw.groups_clause(["eng"])) == {"fp_groups": {"$contains": "eng"}}
    assert cw.RENDER.render(cw.groups_clause(["eng", "ops", "eng"])) == {
        "$or": [{"fp_groups": {"$contains": "eng"}}, {"fp_groups": {"$contains": "ops"}}]}


def test_a_group_named_like_an_operator_is_only_a_value() -> None:
    assert cw.RENDER.render(cw.groups_clause(["$or"])) == {"fp_groups": {"$contains": "$or"}}
    assert cw.RENDER.render(cw.groups_clause(["$and", "$contains"])) == {
        "$or": [{"fp_groups": {"$contains": "$and"}}, {"fp_groups": {"$contains": "$contains"}}]}


def test_empty_inputs_match_nothing_without_an_empty_list() -> None:
    assert cw.RENDER.render(cw.groups_clause([])) == cw.MATCH_NOTHING
    assert cw.RENDER.render(cw.revision_clause([])) == cw.MATCH_NOTHING
    assert cw.NEVER not in cw.STORED_FIELDS


def test_combinators_unwrap_and_refuse_nothing() -> None:
    one, two = {"a": {"$eq": 1}}, {"b": {"$eq": 2}}
    assert cw.RENDER.join("$and", [one]) == one and cw.RENDER.join("$or", [one]) == one
    assert cw.RENDER.join("$and", [one, two]) == {"$and": [one, two]}
    assert cw.RENDER.join("$or", [one, two]) == {"$or": [one, two]}
    with pytest.raises(Unsupported):
        cw.RENDER.render(And(()))
    with pytest.raises(Unsupported):
        cw.RENDER.render(Or(()))


def test_active_keys_take_only_the_principals_tenant_exactly() -> None:
    active = ActiveRevisions.of({("acme", "a"): 1, ("acme-corp", "a"): 1, ("acm", "a"): 3, ("acme", "b/x#1"): 2})
    assert cw.active_keys(active, "acme") == ["acme/a#1", "acme/b/x#1#2"]
    assert cw.active_keys(active, "acm") == ["acm/a#3"]
    assert cw.active_keys(active, "ac") == []


def test_compile_where_is_the_and_of_six_clauses() -> None:
    active = ActiveRevisions.of({("acme", "a"): 1})
    where = PolicyFilter(Principal("acme", ("eng",)), AS_OF, active)
    assert cw.compile_where(where) == {"$and": [
        {"fp_tenant": {"$eq": "acme"}}, {"fp_status": {"$eq": "active"}}, {"fp_key": {"$in": ["acme/a#1"]}},
        {"fp_groups": {"$contains": "eng"}}, {"fp_from": {"$lte": 20260908}}, {"fp_until": {"$gt": 20260908}},
    ]}
    assert cw.compile_where(where, keys=["acme/z#9"])["$and"][2] == {"fp_key": {"$in": ["acme/z#9"]}}
    nobody = PolicyFilter(Principal("acme", ()), AS_OF, active)
    assert cw.MATCH_NOTHING in cw.compile_where(nobody)["$and"]


@pytest.mark.parametrize("bad", [None, {}, {"tenant": "acme"}, "tenant == 'acme'"])
def test_unknown_input_raises(bad: object) -> None:
    with pytest.raises(TypeError, match="PolicyFilter"):
        cw.compile_where(bad)  # type: ignore[arg-type]


def test_wrongly_typed_principal_or_map_raises() -> None:
    active = ActiveRevisions.of({("acme", "a"): 1})
    with pytest.raises(TypeError, match="group"):
        cw.compile_where(PolicyFilter(Principal("acme", ("eng", 3)), AS_OF, active))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="tenant"):
        cw.compile_where(PolicyFilter(Principal(None, ("eng",)), AS_OF, active))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="integer"):
        cw.active_keys(ActiveRevisions((( ("acme", "a"), True),)), "acme")  # type: ignore[arg-type]


def test_stored_metadata_of_a_wellformed_document() -> None:
    stored = cw.stored_metadata(GOOD)
    assert set(stored) == set(cw.STORED_FIELDS)
    assert {name: stored[name] for name in cw.POLICY_FIELDS} == {
        "fp_tenant": "acme", "fp_status": "active", "fp_key": "acme/handbook#2", "fp_groups": ["eng", "$or"],
        "fp_from": 20260101, "fp_until": 20261231, "fp_current": None, "fp_lid": None}
    assert stored["fp_problem"] is None and json.loads(stored["fp_raw"]) == GOOD
    assert cw.stored_metadata({**GOOD, "valid_until": None})["fp_until"] == cw.OPEN_UNTIL
    assert cw.stored_metadata({k: v for k, v in GOOD.items() if k != "valid_until"})["fp_until"] == cw.OPEN_UNTIL


def test_revision_flag_is_written_from_the_map_given() -> None:
    """revision=flag: the flag says whether the document is its tenant/logical_id's active revision."""
    current = cw.stored_metadata(GOOD, {("acme", "handbook"): 2})
    assert (current["fp_current"], current["fp_lid"]) == ("yes", "acme/handbook")
    assert cw.stored_metadata(GOOD, {("acme", "handbook"): 3})["fp_current"] == "no"
    assert cw.stored_metadata(GOOD, {})["fp_current"] == "no"
    where = cw.compile_where(PolicyFilter(Principal("acme", ("eng",)), date(2026, 9, 8), ActiveRevisions()),
                             flag=True)
    assert {"fp_current": {"$eq": "yes"}} in where["$and"] and not any("fp_key" in c for c in where["$and"])


def test_every_malformed_class_stores_no_policy_field() -> None:
    documents = json.loads(ADVERSARIAL.read_text())["documents"]
    malformed = [d for d in documents if structural_problem(d)]
    assert len(malformed) >= 20
    for meta in malformed:
        stored = cw.stored_metadata(meta)
        assert all(stored[name] is None for name in cw.POLICY_FIELDS), meta["id"]
        assert stored["fp_problem"] == structural_problem(meta)
        assert json.loads(stored["fp_raw"])["id"] == meta["id"]


@pytest.mark.parametrize("revision", [True, 1.0, "1"])
def test_revisions_that_only_look_like_one_are_malformed(revision: object) -> None:
    assert cw.stored_metadata({**GOOD, "revision": revision})["fp_key"] is None


def test_keys_are_unambiguous_for_slashes_and_hashes() -> None:
    a = cw.stored_metadata({**GOOD, "logical_id": "x#1", "revision": 2})["fp_key"]
    b = cw.stored_metadata({**GOOD, "logical_id": "x", "revision": 12})["fp_key"]
    assert a == "acme/x#1#2" and b == "acme/x#12" and a != b
    assert cw.stored_metadata({**GOOD, "tenant": "ac/me"})["fp_key"] is None  # a '/' in a tenant is malformed


def test_partitions_slice_the_keys_under_the_sql_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cw, "KEYS_PER_FILTER", 2)
    where = PolicyFilter(Principal("acme", ("eng",)), AS_OF, ActiveRevisions.of({("acme", c): 1 for c in "abcde"}))
    parts = cw.compile_partitions(where)
    assert [p["$and"][2] for p in parts] == [{"fp_key": {"$in": ["acme/a#1", "acme/b#1"]}},
                                             {"fp_key": {"$in": ["acme/c#1", "acme/d#1"]}},
                                             {"fp_key": {"$in": ["acme/e#1"]}}]
    assert all(p["$and"][:2] + p["$and"][3:] == parts[0]["$and"][:2] + parts[0]["$and"][3:] for p in parts)
    with pytest.raises(ValueError, match="compile_partitions"):
        cw.compile_where(where)
    other = PolicyFilter(Principal("nobody", ("eng",)), AS_OF, where.active)
    assert cw.compile_partitions(other) == [cw.compile_where(other)]
    assert cw.MATCH_NOTHING in cw.compile_partitions(other)[0]["$and"]
