"""The pgvector compiler and column encoding, without a server: bound parameters only, fail closed.

The same WHERE against a real PostgreSQL: ``test_pgvector.py``.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import pytest

from filterproof.adapters.pgvector import sql as pg
from filterproof.conformance.worlds import scenarios as sc
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal, matchable

AS_OF = date(2026, 9, 8)
HOSTILE = ["' OR 1=1 --", "$or", "x'); DROP TABLE t; --", "工程", "a\x00b", "\\", "\ud800", "g" * 1000, "%s", "%(q)s",
           "'::text[] || '{x}", ""]
EXPECTED_SQL = ("(tenant = %s) AND (status = %s) AND (revision_key = ANY(%s::text[])) AND (groups && %s::text[]) "
                "AND (valid_from <= %s::date) AND (valid_until > %s::date)")


def where(tenant: str = "acme", groups: tuple[str, ...] = ("eng",),
          active: dict[Any, int] | None = None) -> PolicyFilter:
    return PolicyFilter(Principal(tenant, groups), AS_OF, ActiveRevisions.of(active or {(tenant, "doc"): 1}))


@pytest.mark.parametrize("value", HOSTILE)
def test_no_value_ever_reaches_the_sql_text(value: str) -> None:
    """Whatever the tenant, groups or keys hold, the text is the same six clauses; values are parameters
    (an active-map entry no well-formed document can hold, with NUL or a lone surrogate, is left out)."""
    compiled = pg.compile_where(where(value, (value, "eng"), {(value, value): 3}))
    assert compiled.sql == EXPECTED_SQL
    keys = [pg.pg_text(f"{value}/{value}#3")] if matchable(value) else []
    assert compiled.params == (pg.pg_text(value), "active", keys, [pg.pg_text(value), "eng"], AS_OF.isoformat(),
                              AS_OF.isoformat())
    assert all("\x00" not in str(p) for p in compiled.params)


def test_each_clause_is_one_comparison_that_null_fails() -> None:
    assert pg.tenant_clause(Principal("acme", ())) == pg.Clause("tenant = %s", ("acme",))
    assert pg.status_clause() == pg.Clause("status = %s", ("active",))
    assert pg.revision_clause([]) == pg.Clause("revision_key = ANY(%s::text[])", ([],))  # empty: matches nothing
    assert pg.groups_clause(["a", "a", "b"]).params == (["a", "b"],)
    assert pg.groups_clause([]).params == ([],)  # && '{}' is false: no groups, nothing
    assert pg.valid_from_clause(AS_OF).sql == "valid_from <= %s::date"
    assert pg.valid_until_clause(AS_OF).sql == "valid_until > %s::date"


def test_active_keys_are_the_tenants_own_and_typed() -> None:
    active = ActiveRevisions.of({("acme", "b"): 2, ("acme", "a"): 1, ("acme-corp", "a"): 1})
    assert pg.active_keys(active, "acme") == ["acme/a#1", "acme/b#2"]
    assert pg.active_keys(active, "acm") == []
    with pytest.raises(TypeError, match="not an integer"):
        pg.active_keys(ActiveRevisions.of({("acme", "a"): True}), "acme")  # type: ignore[dict-item]


@pytest.mark.parametrize("bad", [None, {"tenant": "acme"}, "tenant = 'acme'"])
def test_unknown_input_raises(bad: Any) -> None:
    with pytest.raises(TypeError):
        pg.compile_where(bad)


def test_a_principal_of_the_wrong_type_or_a_timestamp_raises() -> None:
    with pytest.raises(TypeError):
        pg.compile_where(PolicyFilter(Principal(7, ("eng",)), AS_OF, ActiveRevisions()))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        pg.compile_where(PolicyFilter(Principal("acme", (None,)), AS_OF, ActiveRevisions()))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="as_of"):
        pg.compile_where(PolicyFilter(Principal("acme", ("eng",)), datetime(2026, 9, 8), ActiveRevisions()))


def test_well_formed_rows_are_typed() -> None:
    row = dict(zip(pg.STORED_COLUMNS, pg.stored_row(sc.meta(valid_until="2027-01-01", groups=["eng", "ops"])),
                   strict=True))
    assert row == {"tenant": "acme", "status": "active", "revision_key": "acme/doc#1", "groups": ["eng", "ops"],
                   "valid_from": date(2026, 1, 1), "valid_until": date(2027, 1, 1), "problem": None,
                   "metadata": row["metadata"], "is_current": None, "logical_key": None}
    assert dict(zip(pg.STORED_COLUMNS, pg.stored_row(sc.meta()), strict=True))["valid_until"] == "infinity"


def test_revision_flag_rows_carry_the_flag_of_the_map_given() -> None:
    """revision=flag: the row says whether it is its tenant/logical_id's active revision under that map."""
    flagged = dict(zip(pg.STORED_COLUMNS, pg.stored_row(sc.meta(), {("acme", "doc"): 1}), strict=True))
    assert (flagged["is_current"], flagged["logical_key"]) == (True, "acme/doc")
    stale = dict(zip(pg.STORED_COLUMNS, pg.stored_row(sc.meta(), {("acme", "doc"): 2}), strict=True))
    assert stale["is_current"] is False
    where = pg.compile_where(PolicyFilter(Principal("acme", ("eng",)), AS_OF, ActiveRevisions()), flag=True)
    assert "is_current IS TRUE" in where.sql and "revision_key" not in where.sql


@pytest.mark.parametrize(("field", "value"), [
    ("groups", "eng"), ("groups", []), ("revision", 1.0), ("revision", True), ("revision", "1"),
    ("valid_from", "2026-02-30"), ("valid_from", "0000-01-01"), ("valid_until", ""), ("tenant", "a/b"),
    ("status", None), ("valid_from", "2026-09-08T00:00:00Z"),
])
def test_malformed_rows_have_no_filtered_column(field: str, value: object) -> None:
    """JSONB would say '"eng"' ? 'eng' and raise on '2026-02-30': here they are malformed, all NULL."""
    row = dict(zip(pg.STORED_COLUMNS, pg.stored_row(sc.meta(**{field: value})), strict=True))
    assert [row[c] for c in pg.STORED_COLUMNS[:6]] == [None] * 6
    assert row["problem"] and '"tenant"' in row["metadata"]


def test_the_text_escape_is_injective_and_reversible() -> None:
    values = ["a\\0", "a\x00", "a\\x00", "\\", "\\\\", "\ud800", "\\xd800", "plain", ""]
    stored = [pg.pg_text(v) for v in values]
    assert len(set(stored)) == len(values)
    assert [pg.from_pg_text(s) for s in stored] == values
    assert all("\x00" not in s and not any("\ud800" <= c <= "\udfff" for c in s) for s in stored)
    assert pg.pg_text("acme") == "acme"


@pytest.mark.parametrize(("element", "values", "typed"), [
    ("float", [1, 2], ("%s::double precision[]", [1.0, 2.0])),  # integers against a double column: as doubles
    ("int", [1.5], ("%s::double precision[]", [1.5])),  # a double against integers: compared as doubles
    ("int", [1, 2], ("%s::bigint[]", [1, 2])),
    ("bool", [True, False], ("%s::boolean[]", [True, False])),
    ("date", [date(2026, 9, 8)], ("%s::date[]", ["2026-09-08"])),
    ("text", ["a", "b"], ("%s::text[]", ["a", "b"])),
])
def test_an_array_is_bound_as_its_elements_type(element: str, values: list[Any], typed: tuple[str, list[Any]]) -> None:
    """``typed_array`` (the fuzz target's and the matrix's arrays; the adapter binds text only): each kind its cast."""
    from filterproof.adapters.pgvector.language import typed_array

    assert typed_array(element, values) == typed
