"""The eligibility predicate: the freshness lab's eight behaviours, checked on our own code."""

from __future__ import annotations

import copy
from datetime import date

import numpy as np
import pytest

from filterproof.adapters.reference import ReferenceAdapter
from filterproof.embedding.spaces import TfidfSpace
from filterproof.evaluation.runner import Settings, evaluate, index
from filterproof.evaluation.scoring import selections
from filterproof.evaluation.strategies import ranked_search
from filterproof.evaluation.truth import Prepared
from filterproof.fixtures import Fixture
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal, is_eligible, parse_date, problem, rejected_by

AS_OF = date(2026, 9, 8)


@pytest.fixture()
def doc(lab: Fixture) -> dict:
    """retry-v2: the active, eligible revision of acme/retry-policy."""
    return copy.deepcopy(dict(lab.documents[1].metadata))


@pytest.fixture()
def where(lab: Fixture) -> PolicyFilter:
    return PolicyFilter(Principal("acme", ("engineering",)), AS_OF, lab.active)


def test_the_baseline_document_is_eligible(doc: dict, where: PolicyFilter) -> None:
    assert is_eligible(doc, where)


@pytest.mark.parametrize(("field", "value"), [
    ("tenant", "beta"), ("revision", 1), ("status", "superseded"), ("groups", ["security"]),
    ("valid_from", "2026-09-09"), ("valid_until", "2026-09-08"),
])
def test_each_eligibility_boundary_rejects(doc: dict, where: PolicyFilter, field: str, value: object) -> None:
    assert not is_eligible({**doc, field: value}, where)
    clause = {"valid_from": "window", "valid_until": "window"}.get(field, field)
    assert rejected_by({**doc, field: value}, where)[:1] == [clause]  # (beta's pair has another revision too)


def test_the_clauses_that_reject_are_named_together_and_malformed_alone(doc: dict, where: PolicyFilter) -> None:
    """``rejected_by`` names every failing clause (a diagnosis names them); malformed metadata is one cause."""
    assert rejected_by(doc, where) == []
    assert rejected_by({**doc, "status": "draft", "groups": ["x"]}, where) == ["status", "groups"]
    assert rejected_by({**doc, "groups": "engineering", "tenant": "beta"}, where) == ["malformed"]


def test_eligible_exactly_when_no_clause_rejects(lab: Fixture) -> None:
    """One predicate, two readings: every fixture document under every case's filter."""
    for case in lab.cases:
        flt = PolicyFilter(case.principal, case.as_of, lab.active)
        for document in lab.documents:
            assert is_eligible(document.metadata, flt) == (rejected_by(document.metadata, flt) == [])


@pytest.mark.parametrize("field", ["tenant", "logical_id", "revision", "status", "groups", "valid_from"])
def test_missing_metadata_fails_closed(doc: dict, where: PolicyFilter, field: str) -> None:
    del doc[field]
    assert not is_eligible(doc, where)
    assert problem(doc, where.active) == f"missing {field}"


def test_unknown_active_revision_fails_closed(doc: dict, where: PolicyFilter) -> None:
    empty = PolicyFilter(where.principal, where.as_of, ActiveRevisions.of({}))
    assert not is_eligible(doc, empty)
    assert "absent from the active revisions" in (problem(doc, empty.active) or "")


@pytest.mark.parametrize(("field", "value"), [
    ("groups", []), ("groups", "engineering"), ("groups", [3]), ("groups", ["engineering", None]),
    ("valid_from", "yesterday"), ("valid_from", "2026-02-30"), ("valid_from", "20260801"),
    ("valid_from", "2026-08-01T00:00:00Z"), ("valid_until", ""), ("valid_until", 20270101),
    ("revision", "2"), ("revision", 2.0), ("revision", True), ("tenant", 7), ("tenant", "acme/x"),
    ("tenant", "acme\x00evil"), ("logical_id", "retry-policy\x00"), ("status", "active\x00"),
    ("groups", ["engineering\x00x"]), ("groups", ["engineering", "\x00"]), ("valid_from", "0000-01-01"),
    ("valid_from", "2026-W31-6"),
])
def test_malformed_permissions_dates_and_types_fail_closed(
    doc: dict, where: PolicyFilter, field: str, value: object
) -> None:
    assert not is_eligible({**doc, field: value}, where)
    assert problem({**doc, field: value}, where.active) is not None


def test_effective_date_is_inclusive_and_expiry_exclusive(doc: dict, where: PolicyFilter) -> None:
    first_day = PolicyFilter(where.principal, date(2026, 8, 1), where.active)
    assert is_eligible(doc, first_day)
    assert not is_eligible({**doc, "valid_until": "2026-08-01"}, first_day)
    assert is_eligible({**doc, "valid_until": "2026-08-02"}, first_day)
    assert not is_eligible(doc, PolicyFilter(where.principal, date(2026, 7, 31), where.active))


def test_null_valid_until_is_open_ended(doc: dict, where: PolicyFilter) -> None:
    assert is_eligible({**doc, "valid_until": None}, where)


def test_dates_are_strict_calendar_dates() -> None:
    assert parse_date("2026-09-08") == date(2026, 9, 8)
    for text in ("2026-W36-2", "20260908", "2026-251", "2026-9-8", " 2026-09-08", "2026-09-08T00:00", "0000-01-01",
                 "2026-02-29", "٢٠٢٦-٠٩-٠٨"):
        assert parse_date(text) is None


def test_lexical_similarity_is_not_semantic() -> None:
    space = TfidfSpace(["retry timeout", "car", "automobile"])
    docs, queries = space.documents(), space.queries(["timeout retry", "car", ""])
    assert float(queries[0] @ docs[0]) == pytest.approx(1.0)
    assert float(queries[1] @ docs[2]) == 0.0
    assert not np.any(queries[2]), "an empty query is the zero vector: it matches nothing"


def _decide(prepared: Prepared, adapter: ReferenceAdapter) -> dict[str, dict[str, str | None]]:
    rows = evaluate(adapter, prepared, Settings(ks=(1,)))
    return {strategy: selections(rows, strategy) for strategy in ("rank_only", "post_filter C=1", "pre_filter")}


def test_expected_documents_and_abstentions(lab_prepared: Prepared) -> None:
    adapter = ReferenceAdapter()
    index(adapter, lab_prepared)
    chosen = _decide(lab_prepared, adapter)["pre_filter"]
    assert chosen == {c.id: c.expected for c in lab_prepared.fixture.cases}


def test_top1_then_filter_loses_valid_results(lab_prepared: Prepared) -> None:
    adapter = ReferenceAdapter()
    index(adapter, lab_prepared)
    decisions = _decide(lab_prepared, adapter)
    for case in ("superseded", "restricted"):
        assert decisions["post_filter C=1"][case] is None
        assert decisions["pre_filter"][case] is not None


def test_revocation_between_queries_changes_output(lab_prepared: Prepared) -> None:
    adapter = ReferenceAdapter()
    index(adapter, lab_prepared)
    assert _decide(lab_prepared, adapter)["pre_filter"]["superseded"] == "retry-v2"
    revoked = {**lab_prepared.fixture.documents[1].metadata, "groups": ["security"]}
    adapter.update_metadata("retry-v2", revoked)
    # The store alone decides pre_filter: ask it again, as the next query would.
    fixture = lab_prepared.fixture
    [hits] = ranked_search(adapter, lab_prepared.query_vectors[:1], 5, lab_prepared.filters[:1], fixture.order)
    assert hits == []


def test_the_changes_between_two_active_maps() -> None:
    """What a revision=flag store must rewrite: added, removed and moved entries, nothing else."""
    old = ActiveRevisions.of({("a", "x"): 1, ("a", "y"): 2, ("b", "x"): 1})
    new = ActiveRevisions.of({("a", "x"): 1, ("a", "y"): 3, ("c", "z"): 1})
    assert old.changed(new) == [("a", "y"), ("b", "x"), ("c", "z")]
    assert old.changed(old) == [] and old.changed(ActiveRevisions.of(dict(old))) == []


def test_a_nul_character_makes_an_identity_malformed(doc: dict, where: PolicyFilter) -> None:
    """C strings end at U+0000: "acme\\x00evil" must not read as "acme" in any store, so it is malformed."""
    assert problem({**doc, "tenant": "acme\x00evil"}, where.active) == "tenant contains U+0000"
    assert problem({**doc, "groups": ["engineering", "x\x00"]}, where.active) == "a group contains U+0000"
    nul_principal = PolicyFilter(Principal("acme\x00", ("engineering",)), where.as_of, where.active)
    assert not is_eligible(doc, nul_principal)


def test_flags_are_rewritten_only_for_pairs_a_document_can_hold() -> None:
    """A map entry no well-formed document can hold rewrites no flag: joined as ``tenant/logical_id`` it could
    name another pair's documents, and a store may refuse its key."""
    from filterproof.adapters.revisions import flags_to_rewrite, logical_key

    old = ActiveRevisions.of({("acme", "x/y"): 1})
    new = ActiveRevisions.of({("acme", "x/y"): 1, ("acme/x", "y"): 2, ("acme\x00", "y"): 1, ("acme", "y\ud800"): 1,
                              ("acme", "z"): 1})
    assert logical_key("acme/x", "y") == logical_key("acme", "x/y")  # why the first entry must not be rewritten
    assert flags_to_rewrite(old, new) == [("acme", "z")]
