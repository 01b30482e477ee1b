"""What one Chroma record can hold, measured: a write past it breaks the whole collection, so it is refused.

Chroma 1.5.9 writes a record's metadata to SQLite during compaction, one row per
scalar key and one row per value of a list, six bound variables a row, in one
statement per kind; SQLite takes at most 32766 variables a statement. So a record
holds at most 5,461 list values (summed over its list fields) and 5,461 scalar rows: its
scalar keys, and its document text if it has one (kept as the key ``chroma:document``).
One more, and ``add`` fails with "Error in compaction: Failed to apply logs to the
metadata segment" and the collection stays broken: every later ``add``, ``count``,
``query`` and ``get`` fails the same way, after reopening a ``PersistentClient`` too,
and deleting the record does not repair it (``bench/repro/chroma_many_groups.py``;
the thresholds bisected in ``bench/results/engine_limits.txt``). The limit is on
counts, not bytes: 4,000 values of 100 characters are held.

A document over either limit is therefore never sent: the adapters over Chroma
refuse it before the write, delete any earlier version of it (so a stale one cannot
answer), keep its vector (a later update that fits brings it back) and report it
through ``not_indexable()``. The run counts it and compares the store with the
reference without it (``runner.without_refused``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MAX_LIST_VALUES = 5_461
"""List values one record may hold, over all its list fields (32766 // 6; 5,462 breaks the collection)."""
MAX_SCALAR_KEYS = 5_461
"""Scalar metadata keys one record may hold (likewise; LlamaIndex's flag encoding writes one per group)."""
KEYS_PER_FILTER = 20_000
"""Most ``$in`` keys in one filter: well under SQLite's 32766 variables, room left for many groups."""
GROUPS_PER_FILTER = 500
"""Most ``$contains`` clauses in one filter's ``$or``: half the depth at which SQLite refuses the expression."""


def refusal(stored: Mapping[str, Any], extra_keys: int = 0) -> str | None:
    """Why Chroma cannot hold a record with this (stored) metadata, or None when it can; ``extra_keys``:
    scalar rows added on the way (a framework's keys; a document text, which Chroma keeps as one more)."""
    values = sum(len(v) for v in stored.values() if isinstance(v, list))
    if values > MAX_LIST_VALUES:
        return (f"{values:,} list values in its metadata; a Chroma record holds at most {MAX_LIST_VALUES:,} "
                f"(one more breaks the collection)")
    scalars = extra_keys + sum(1 for v in stored.values() if v is not None and not isinstance(v, list))
    if scalars > MAX_SCALAR_KEYS:
        return (f"{scalars:,} metadata keys; a Chroma record holds at most {MAX_SCALAR_KEYS:,} "
                f"(one more breaks the collection)")
    return None
