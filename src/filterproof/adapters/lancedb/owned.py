"""What filterproof owns in a LanceDB directory, and how it says so: the table's schema metadata ``filterproof``.

Every table the ``lancedb`` backend creates carries the marker of ``adapters.ownership``
in its Arrow schema's metadata, which Lance keeps through writes, deletes, indexes and
``optimize()``. Only such a table is ever dropped; ``owned`` lists them in a directory
(``lancedb:path=DIR``) for ``filterproof clean``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from filterproof.adapters.lancedb.options import LanceDBOptions
from filterproof.adapters.ownership import KEY, Marker, Owned
from filterproof.errors import UsageError

MARK = KEY.encode()


def marked(temporary: bool) -> dict[bytes, bytes]:
    """The schema metadata a new table is created with."""
    return {MARK: Marker.new(temporary).text().encode()}


def mark_of(table: Any) -> object:
    """The marker a table's schema carries (None: none)."""
    return (table.schema.metadata or {}).get(MARK)


@contextlib.contextmanager
def owned(options: LanceDBOptions) -> Iterator[list[Owned]]:
    """Every marked table of the directory ``path``, each droppable."""
    import lancedb

    if not options.path:
        raise UsageError("lancedb: nothing to clean in a temporary directory: give path=DIR")
    if not Path(options.path).is_dir():
        raise UsageError(f"lancedb: {options.path} is not a directory")
    db = lancedb.connect(options.path)
    found = []
    for name in db.list_tables().tables:
        marker = Marker.parse(mark_of(db.open_table(name)))
        if marker is not None:
            found.append(Owned(f"table {name!r} in {options.path}", marker, lambda name=name: db.drop_table(name)))
    yield found
