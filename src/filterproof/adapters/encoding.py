"""The encoding toolkit: what an adapter needs, beyond the policy, to stay exact on a real engine.

The policy says what a filter must admit; an engine says how much one filter, one record or
one request may hold. The built-in adapters meet those limits with the pieces below, and a
third-party adapter or bridge over the same engine (Haystack's Chroma store, a LangChain
vector store) needs the same pieces, not a copy rebuilt from failure messages:

* ``LIMITS``: the engines' measured limits, each with what happens past it and where it
  was measured (``bench/results/engine_limits.txt``, the engines' ``limits`` modules);
* ``slices`` and ``principal_slices``: one filter per slice of the active keys or of the
  principal's groups, whose answers the adapter merges (keys: disjoint; groups: a document
  in two slices' groups comes back twice, keep it once);
* refusals: a document past a per-record limit is refused before the write and reported
  by ``not_indexable()`` (``filterproof.adapters.refusals.Refusals`` keeps the record);
* ``NEVER_MATCHING``: the filter for an empty list (a principal without groups, a tenant
  with no active keys), per engine: an engine's ``in []`` is not always "nothing"
  (qdrant-haystack renders it ``should=[]``, which admits every point).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import filterproof.adapters.chroma.limits as chroma_limits
import filterproof.adapters.milvus.limits as milvus_limits
import filterproof.adapters.pgvector.limits as pgvector_limits
from filterproof.policy import PolicyFilter, Principal

T = TypeVar("T")


@dataclass(frozen=True)
class Limit:
    """One engine's measured limit: ``value`` of ``what``; ``past`` it, what the engine does."""

    engine: str
    name: str
    value: int
    what: str
    past: str
    home: str
    """The module that holds the constant (the built-in adapter's own)."""


LIMITS: tuple[Limit, ...] = (
    Limit("chroma", "MAX_LIST_VALUES", chroma_limits.MAX_LIST_VALUES, "list values in one record (all its lists)",
          "the write fails in compaction and the collection stays broken: refuse the record",
          "filterproof.adapters.chroma.limits"),
    Limit("chroma", "MAX_SCALAR_KEYS", chroma_limits.MAX_SCALAR_KEYS, "scalar metadata keys in one record",
          "as above: refuse the record", "filterproof.adapters.chroma.limits"),
    Limit("chroma", "KEYS_PER_FILTER", chroma_limits.KEYS_PER_FILTER, "values of one `$in` (the active keys)",
          "SQLite's 32,766 variables a statement: slice the keys, one query each",
          "filterproof.adapters.chroma.limits"),
    Limit("chroma", "GROUPS_PER_FILTER", chroma_limits.GROUPS_PER_FILTER, "clauses of one `$or` (the groups)",
          "SQLite refuses the expression as too deep: slice the groups, one query each",
          "filterproof.adapters.chroma.limits"),
    Limit("pgvector", "MAX_INDEXED_BYTES", pgvector_limits.MAX_INDEXED_BYTES,
          "bytes of one btree entry (an indexed identity)", "the INSERT raises: refuse the record",
          "filterproof.adapters.pgvector.limits"),
    Limit("milvus", "MAX_LENGTH", milvus_limits.MAX_LENGTH, "bytes of one VARCHAR value",
          "the insert raises: refuse the record", "filterproof.adapters.milvus.limits"),
    Limit("milvus", "MAX_CAPACITY", milvus_limits.MAX_CAPACITY, "elements of one ARRAY field (the groups)",
          "the insert raises: refuse the record", "filterproof.adapters.milvus.limits"),
)
"""The limits the built-in adapters meet, per engine (the versions measured: docs/backends/)."""


def slices(values: Sequence[T], size: int) -> list[list[T]]:
    """``values`` in consecutive slices of at most ``size`` (none for no values)."""
    if size < 1:
        raise ValueError(f"a slice holds at least one value, not {size}")
    return [list(values[start:start + size]) for start in range(0, len(values), size)]


def principal_slices(where: PolicyFilter, size: int) -> list[PolicyFilter]:
    """``where`` once per slice of at most ``size`` of its principal's distinct groups (``where`` itself for a
    principal without groups: its filter must match nothing, not be dropped)."""
    tenant, groups = where.principal.tenant, list(dict.fromkeys(where.principal.groups))
    return [replace(where, principal=Principal(tenant, tuple(part))) for part in slices(groups, size)] or [where]


NEVER_MATCHING: dict[str, Any] = {
    "chroma": {"fp_never": {"$eq": 1}},
    "lancedb": "FALSE",
    "milvus": "false",
    "pgvector": "FALSE",
}
"""The filter no document meets, per engine, as its adapter renders it (each language's ``NONE_OF``; Chroma has no
false: a key no record holds). Qdrant's is a ``must`` of ``MatchAny(any=[])`` (``qdrant.compiler``): an empty
``should`` admits every point."""
