"""The LanceDB filter compiler: every value a quoted literal that no content can break out of.

The strings are checked twice: as text (the shape of the filter does not depend on
the values) and by LanceDB itself, on a real table whose metadata holds the same
hostile values (a value must match exactly itself, and nothing else).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import numpy as np
import pytest

from filterproof.adapters.base import Record
from filterproof.adapters.lancedb import where as lw
from filterproof.conformance.worlds import scenarios as sc
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal, matchable, structural_problem

AS_OF = date(2026, 9, 8)
HOSTILE = ["' OR 1=1 --", "x') OR (1=1", "$or", "a\\'b", "a\\", "a''b", "工程", "a\x00b", "x\ny", "%", "_",
           "\"q\"", "g" * 1000, "])", "\ud800", "acme"]


def test_a_literal_doubles_quotes_and_nothing_else() -> None:
    assert lw.literal("it's") == "'it''s'"
    assert lw.literal("' OR 1=1 --") == "''' OR 1=1 --'"
    assert lw.literal("a\\") == "'a\\\\'"  # textcodec doubles the backslash; DataFusion keeps both
    with pytest.raises(TypeError):
        lw.literal(1)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", HOSTILE)
def test_the_shape_of_the_filter_never_depends_on_a_value(value: str) -> None:
    compiled = lw.compile_where(PolicyFilter(Principal(value, (value,)), AS_OF,
                                             ActiveRevisions.of({(value, "x"): 1})))
    # An active-map entry no well-formed document can hold (NUL, a lone surrogate) is left out of the key list.
    placeholder_map = ActiveRevisions.of({("T", "x"): 1}) if matchable(value) else ActiveRevisions()
    placeholder = lw.compile_where(PolicyFilter(Principal("T", ("G",)), AS_OF, placeholder_map))
    assert compiled.replace(lw.literal(value), "'T'", 1).replace(lw.literal(value), "'G'", 1).replace(
        lw.literal(f"{value}/x#1"), lw.literal("T/x#1")) == placeholder


def test_clauses() -> None:
    assert lw.compile_where(PolicyFilter(Principal("acme", ("eng", "eng", "ops")), AS_OF,
                                         ActiveRevisions.of({("acme", "a"): 2, ("beta", "a"): 1}))) == (
        "(tenant = 'acme' AND status = 'active' AND revision_key IN ('acme/a#2') AND "
        "array_has_any(groups, ['eng', 'ops']) AND valid_from <= 20260908 AND valid_until > 20260908)")
    assert lw.RENDER.render(lw.revision_clause([])) == lw.RENDER.render(lw.groups_clause([])) == "FALSE"


@pytest.mark.parametrize("bad", [None, "tenant = 'x'", {"tenant": "x"}])
def test_unknown_input_raises(bad: Any) -> None:
    with pytest.raises(TypeError):
        lw.compile_where(bad)
    with pytest.raises(TypeError):
        lw.valid_from_clause(datetime(2026, 9, 8))


def test_stored_columns_fail_closed() -> None:
    good = lw.stored_columns(sc.meta(valid_until="2027-01-01"))
    assert (good["valid_from"], good["valid_until"], good["revision_key"]) == (20260101, 20270101, "acme/doc#1")
    assert lw.stored_columns(sc.meta())["valid_until"] == lw.OPEN_UNTIL
    for field, value in (("groups", "eng"), ("revision", 1.0), ("valid_from", "2026-02-30"), ("tenant", None)):
        bad = lw.stored_columns(sc.meta(**{field: value}))
        assert [bad[c] for c in lw.STORED_COLUMNS[:6]] == [None] * 6 and bad["problem"]


def test_hostile_values_match_exactly_themselves_in_lancedb() -> None:
    """Each hostile value as a tenant, a group and in a key: its principal sees its one document, no other
    (none where the policy calls the value malformed: NUL, a lone surrogate)."""
    pytest.importorskip("lancedb")
    from filterproof.adapters.lancedb import LanceDBAdapter

    store = LanceDBAdapter()
    try:
        store.reset(2)
        docs = {f"d{i}": sc.meta(tenant=v, logical_id=v, groups=[v]) for i, v in enumerate(HOSTILE)}
        store.upsert([Record(i, np.array([1.0, 0.5], dtype=np.float32), m) for i, m in docs.items()])
        active = ActiveRevisions.of({(v, v): 1 for v in HOSTILE})
        for i, value in enumerate(HOSTILE):
            hits = store.search(np.array([1.0, 0.5], dtype=np.float32), 100,
                                PolicyFilter(Principal(value, (value,)), AS_OF, active))
            assert [h.id for h in hits] == ([] if structural_problem(docs[f"d{i}"]) else [f"d{i}"]), repr(value)
        assert store.search(np.ones(2, dtype=np.float32), 100, PolicyFilter(Principal("acme", ("' OR 1=1 --",)),
                                                                             AS_OF, active)) == []
    finally:
        store.close()


def test_revision_flag_columns_and_clause() -> None:
    """revision=flag: the flag under the map given, and a filter on it instead of the key list."""
    flagged = lw.stored_columns(sc.meta(), {("acme", "doc"): 1})
    assert (flagged[lw.CURRENT], flagged[lw.LID]) == (True, "acme/doc")
    assert lw.stored_columns(sc.meta(), {})[lw.CURRENT] is False
    assert lw.stored_columns(sc.meta())[lw.CURRENT] is None
    where = lw.compile_where(PolicyFilter(Principal("acme", ("eng",)), AS_OF, ActiveRevisions()), flag=True)
    assert "is_current = TRUE" in where and "revision_key" not in where
