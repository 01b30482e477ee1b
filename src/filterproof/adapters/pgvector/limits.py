"""What one pgvector row can hold, measured: a btree entry over 2,704 bytes fails the write, and its whole batch.

PostgreSQL's btree (version 4) takes at most 2,704 bytes an index entry; the table has
btree indexes on ``id`` (its primary key), ``tenant``, and under ``revision=flag`` on
``logical_key``. A longer value fails the ``INSERT`` with "index row size ... exceeds
btree version 4 maximum 2704", and since the adapter writes a batch in one transaction,
the whole batch is rolled back. With incompressible text the largest value held is 2,692
bytes (an entry's header takes the rest; ``bench/results/engine_limits.txt``). PostgreSQL
compresses a long entry first, so repetitive text of some 230,000 characters is held too;
but whether a value compresses enough is known only after the attempt, so the adapter
refuses by the bytes as given: a document with a longer indexed value is refused before
the write (``adapters/refusals.py``). Nothing else of a row has a limit met here (groups
to 100,000 values, strings in unindexed columns to 1,000,000 characters).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MAX_INDEXED_BYTES = 2_692
"""The longest value (UTF-8 bytes as stored) of a btree-indexed column that is always held."""


def refusal(indexed: Mapping[str, Any]) -> str | None:
    """Why PostgreSQL cannot index a row with these values (column: value as stored), or None when it can."""
    for column, value in indexed.items():
        size = len(value.encode("utf-8", "surrogatepass")) if isinstance(value, str) else 0
        if size > MAX_INDEXED_BYTES:
            return (f"its {column} is {size:,} bytes; a btree index entry holds at most {MAX_INDEXED_BYTES:,} "
                    f"(a longer one fails the write and rolls back its batch)")
    return None
