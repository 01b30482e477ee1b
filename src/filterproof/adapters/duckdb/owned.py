"""What filterproof owns in a DuckDB database, and how it says so: a table ``COMMENT`` holding the marker.

Every table the ``duckdb`` backend creates gets ``COMMENT ON TABLE ... IS '<marker>'``
(``adapters.ownership``), which DuckDB keeps in its catalog, in a file across sessions.
Only a table with that comment is ever dropped; ``owned`` lists them in a database file
(``duckdb:path=FILE``) for ``filterproof clean``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from filterproof.adapters.duckdb.options import DuckDBOptions
from filterproof.adapters.ownership import Marker, Owned
from filterproof.errors import UsageError


def table_mark(conn: Any, table: str) -> tuple[bool, str | None]:
    """Whether ``table`` exists in the main schema, and its comment."""
    row = conn.execute("SELECT comment FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = ?",
                       [table]).fetchone()
    return row is not None, None if row is None else row[0]


def mark(conn: Any, table: str, marker: Marker) -> None:
    """``COMMENT ON TABLE table IS marker`` (a literal: COMMENT takes no parameter; the marker is JSON we wrote)."""
    conn.execute(f'COMMENT ON TABLE "{table}" IS ' + "'" + marker.text().replace("'", "''") + "'")


@contextlib.contextmanager
def owned(options: DuckDBOptions) -> Iterator[list[Owned]]:
    """Every marked table of the database file ``path``, each droppable."""
    import duckdb

    if not options.path:
        raise UsageError("duckdb: nothing to clean in an in-memory database: give path=FILE")
    if not Path(options.path).is_file():
        raise UsageError(f"duckdb: {options.path} is not a file")
    with duckdb.connect(options.path) as conn:
        found = []
        for name, comment in conn.execute("SELECT table_name, comment FROM duckdb_tables() "
                                          "WHERE schema_name = 'main'").fetchall():
            marker = Marker.parse(comment)
            if marker is not None:
                found.append(Owned(f"table {name!r} in {options.path}", marker,
                                   lambda name=name: conn.execute(f'DROP TABLE IF EXISTS "{name}"')))
        yield found
