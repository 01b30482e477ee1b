"""The policy as DuckDB columns: pgvector's typed encoding, one ``WHERE`` with bound parameters.

A DuckDB table stores each document as ``pgvector.sql`` does (its docstring gives the
columns and why each is typed): ``stored_row`` classifies a document once, at upsert,
and a malformed one gets NULL in every filtered column, where every clause is NULL,
not true. Strings go through the same injective escape (``pg_text``): DuckDB binds a
NUL, but its Python driver cannot bind a lone surrogate at all. An open end is
``'infinity'``, which DuckDB's ``date`` holds too. The clauses are neutral conditions
(``adapters.filterlang``) written in DuckDB's SQL (``language``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from filterproof.adapters.duckdb.language import Sql, typed_condition
from filterproof.adapters.filterlang import Cond
from filterproof.adapters.pgvector.sql import (
    CURRENT,
    FIELDS,
    GROUPS,
    KEY,
    STATUS,
    STORED_COLUMNS,
    TENANT,
    VALID_FROM,
    VALID_UNTIL,
    from_pg_text,
    keys_of,
    pg_text,
    stored_row,
)
from filterproof.policy import ACTIVE_STATUS, PolicyFilter

COLUMN_TYPES = ("VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR[]", "DATE", "DATE", "VARCHAR", "VARCHAR NOT NULL",
                "BOOLEAN", "VARCHAR")
"""DuckDB's type of each of ``STORED_COLUMNS`` (the raw metadata as JSON text, never filtered on)."""
TYPED = {**FIELDS, CURRENT: "bool"}
DATES = (VALID_FROM, VALID_UNTIL)
"""Bound as ISO text and cast to ``DATE`` by the statement (``'infinity'``, an open end, has no Python date)."""

__all__ = ["COLUMN_TYPES", "DATES", "STORED_COLUMNS", "Sql", "bound", "compile_where", "conditions", "from_pg_text",
           "pg_text", "stored_row"]


def bound(column: str, values: Sequence[Any]) -> list[Any]:
    """A column's values of ``stored_row`` as bound: dates as their ISO text."""
    return [None if v is None else str(v) for v in values] if column in DATES else list(values)


def conditions(where: PolicyFilter, keys: Sequence[str] | None, flag: bool) -> list[Cond]:
    """The policy's clauses as neutral conditions on the stored columns; ``keys``: the tenant's active keys
    (``pg_text`` applied; None: read from the map), ``flag``: the stored current-revision flag instead."""
    keys = keys_of(where, keys, flag)
    principal = where.principal
    return [
        Cond("eq", TENANT, pg_text(principal.tenant)),
        Cond("eq", STATUS, ACTIVE_STATUS),
        Cond("eq", CURRENT, True) if flag else Cond("in", KEY, tuple(keys)),
        Cond("contains_any", GROUPS, tuple(pg_text(g) for g in dict.fromkeys(principal.groups))),
        Cond("lte", VALID_FROM, where.as_of),
        Cond("gt", VALID_UNTIL, where.as_of),
    ]


def compile_where(where: PolicyFilter, keys: Sequence[str] | None = None, flag: bool = False) -> Sql:
    """The ``WHERE`` (text with ``?`` placeholders, and the values bound to them, in order)."""
    written = [typed_condition(c, TYPED) for c in conditions(where, keys, flag)]
    return " AND ".join(f"({text})" for text, _ in written), [v for _, params in written for v in params]
