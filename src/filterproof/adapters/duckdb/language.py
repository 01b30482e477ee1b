"""DuckDB's filter language: SQL, written by the shared SQL renderer (``pgvector.language``).

DuckDB's binder takes PostgreSQL's forms of every condition the renderer writes
(``k = ANY(?::text[])``, ``k <> ALL(...)``, ``&&`` and ``@>`` on lists, ``?::date``,
``double precision``, three-valued ``AND``/``OR``/``NOT``), with two differences:
placeholders are ``?``, and a list's length is ``len``, not ``cardinality`` (which
takes maps only). The renderer's text holds nothing but column names, operators, casts
and placeholders, never a value (every value is bound), so the two are rewritten in
the text; the column names are checked to be plain identifiers first, so no name can
hold what the rewrite looks for.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from filterproof.adapters.filterlang import Cond, Expr
from filterproof.adapters.pgvector import language as shared

Sql = shared.Sql
IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]*$")


def dialect(written: Sql) -> Sql:
    """PostgreSQL's text of the shared renderer as DuckDB's."""
    text, params = written
    return text.replace("%s", "?").replace("cardinality(", "len("), params


def typed_condition(c: Cond, fields: Mapping[str, str]) -> Sql:
    """One condition on the typed column ``c.key`` (``fields``: each column's kind), in DuckDB's SQL."""
    bad = [name for name in fields if not IDENTIFIER.match(name)]
    if bad:
        raise ValueError(f"duckdb: column names must be plain identifiers, got {bad!r}")
    return dialect(shared.typed_condition(c, fields))


def where(expr: Expr, fields: Mapping[str, str]) -> Sql:
    """A whole filter tree (SQL's three-valued AND, OR and NOT) over typed columns."""
    return shared.connective(expr, lambda c: typed_condition(c, fields))
