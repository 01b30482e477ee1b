"""What filterproof owns on a PostgreSQL server, and how it says so: a ``COMMENT`` holding the marker.

The ``pgvector`` backend's tables, the pgvector bridges' databases and the fuzzer's
schemas each get ``COMMENT ON ... IS '<marker>'`` when they are created
(``adapters.ownership``). Only a table with that comment is ever dropped or emptied;
``owned`` lists every commented object on a server, for ``filterproof clean``.
Commenting an object needs only its ownership, which its creator has.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

from psycopg import sql

from filterproof.adapters.ownership import Marker, Owned
from filterproof.adapters.pgvector.options import PgvectorOptions
from filterproof.errors import BackendUnavailable, UsageError

DSN_ENV = "PGVECTOR_DSN"
CONNECT_TIMEOUT = 10
_LIKE = '%"created_by": "filterproof"%'
"""What a marker's text holds (``Marker.text``): a prefilter in SQL, each hit parsed in full."""


def table_mark(conn: Any, table: str) -> tuple[bool, str | None]:
    """Whether ``table`` exists (as the search path resolves it), and its comment."""
    row = conn.execute("SELECT to_regclass(quote_ident(%s)) IS NOT NULL, "
                       "obj_description(to_regclass(quote_ident(%s)), 'pg_class')", (table, table)).fetchone()
    return bool(row[0]), row[1]


def mark(conn: Any, kind: str, name: str, marker: Marker) -> None:
    """``COMMENT ON <kind> name IS marker`` (kind: TABLE, SCHEMA, DATABASE)."""
    conn.execute(sql.SQL("COMMENT ON {} {} IS {}").format(sql.SQL(kind), sql.Identifier(name),
                                                           sql.Literal(marker.text())))


_FOUND = {
    "table": ("SELECT n.nspname, c.relname, d.description FROM pg_class c "
              "JOIN pg_namespace n ON n.oid = c.relnamespace "
              "JOIN pg_description d ON d.objoid = c.oid AND d.classoid = 'pg_class'::regclass AND d.objsubid = 0 "
              "WHERE c.relkind = 'r' AND d.description LIKE %s"),
    "schema": ("SELECT NULL, n.nspname, d.description FROM pg_namespace n "
               "JOIN pg_description d ON d.objoid = n.oid AND d.classoid = 'pg_namespace'::regclass "
               "WHERE d.description LIKE %s"),
    "database": ("SELECT NULL, b.datname, d.description FROM pg_database b "
                 "JOIN pg_shdescription d ON d.objoid = b.oid AND d.classoid = 'pg_database'::regclass "
                 "WHERE d.description LIKE %s"),
}
_DROP = {"table": "DROP TABLE IF EXISTS {}", "schema": "DROP SCHEMA IF EXISTS {} CASCADE",
         "database": "DROP DATABASE IF EXISTS {} WITH (FORCE)"}


@contextlib.contextmanager
def owned(options: PgvectorOptions) -> Iterator[list[Owned]]:
    """Every marked table, schema and database on the server of ``dsn`` / ``$PGVECTOR_DSN``, each droppable."""
    import psycopg

    dsn = options.dsn or os.environ.get(DSN_ENV)
    if not dsn:
        raise UsageError(f"pgvector: nothing to clean without a server: give dsn=... or set {DSN_ENV} (the "
                         "throwaway server filterproof starts otherwise is removed with everything in it)")
    try:
        conn = psycopg.connect(dsn, autocommit=True, connect_timeout=CONNECT_TIMEOUT)
    except psycopg.Error as error:  # the DSN may hold a password: not repeated
        raise BackendUnavailable(f"pgvector: cannot connect to the server of the DSN: {error}") from None
    with conn:
        found = []
        for kind, query in _FOUND.items():
            for schema, name, text in conn.execute(query, (_LIKE,)).fetchall():
                marker = Marker.parse(text)
                if marker is None:
                    continue
                ident = sql.Identifier(schema, name) if schema else sql.Identifier(name)
                statement = sql.SQL(_DROP[kind]).format(ident)
                found.append(Owned(f"{kind} {schema + '.' if schema else ''}{name}", marker,
                                   lambda statement=statement: conn.execute(statement)))
        yield found
