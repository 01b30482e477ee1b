"""The adapter boundary: the one interface between filterproof and a vector store.

An adapter is a thin wrapper around one store. filterproof gives it plain data and
asks plain questions; everything about strategies, ties, thresholds and metrics
stays on our side of the line. The whole contract:

* ``reset(dim)`` creates the index, or empties it, for vectors of ``dim`` floats.
* ``upsert(records)`` inserts or replaces documents: an id, a float32 vector of
  ``dim`` floats (another length raises ``ValueError``; cosine space) and the
  document's metadata *exactly as the fixture gave it*, malformed values included.
  Storing metadata in a form the store can filter on is the adapter's job; so is
  making sure malformed metadata never matches.
* ``delete(ids)`` removes documents; unknown ids are ignored.
* ``update_metadata(id, metadata)`` replaces a document's metadata as a whole
  (revoke a group, supersede a revision); its vector is unchanged.
* ``search(vector, k, where)`` returns at most ``k`` hits, best first, as
  ``Hit(id, score)`` with ``score`` the cosine similarity (higher is better).
  ``where`` is None (no filter) or a ``PolicyFilter``: the adapter compiles it into
  the store's native filter, so that only documents ``policy.is_eligible`` admits
  come back. Every change made through this interface must be visible to the next
  search. Returning fewer than ``k`` hits is allowed (the harness reports it).
* ``close()`` releases the store; the adapter is not used afterwards.
* ``capabilities`` says what the adapter can do, so that tests it cannot take skip.

Optionally, ``search_batch(vectors, k, wheres)`` answers many queries in one call;
``search_many`` uses it when present. Adapters need not sort ties, drop zero
scores or know fixture order: the strategies do that, identically for all stores.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from filterproof.policy import PolicyFilter


@dataclass(frozen=True)
class Record:
    """A document as the adapter receives it."""

    id: str
    vector: np.ndarray
    metadata: Mapping[str, Any]


@dataclass(frozen=True)
class Hit:
    """One search result: a document id and its cosine similarity to the query."""

    id: str
    score: float


@dataclass(frozen=True)
class Capabilities:
    """What an adapter declares about itself; tests it cannot take are skipped with the reason."""

    native_filter: bool = True
    """``search`` honours ``where`` natively (False: only rank_only and post_filter apply)."""
    exact: bool = True
    """Search is exhaustive; False for approximate (HNSW) search, judged within ``recall_tolerance``."""
    persistent: bool = False
    """The index survives ``close()`` and a reopen on the same path."""
    lifecycle: bool = True
    """``delete`` and ``update_metadata`` are supported."""
    recall_tolerance: float = 0.0
    """For approximate adapters: how far a mean metric may fall below the exact reference."""


class AdapterError(RuntimeError):
    """An adapter broke the contract (an unknown id returned, a store refused a write)."""


@runtime_checkable
class Adapter(Protocol):
    """A vector store behind filterproof's boundary (see the module docstring)."""

    name: str
    capabilities: Capabilities

    def reset(self, dim: int) -> None: ...

    def upsert(self, records: Sequence[Record]) -> None: ...

    def delete(self, ids: Sequence[str]) -> None: ...

    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None: ...

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]: ...

    def close(self) -> None: ...


def search_many(
    adapter: Adapter, vectors: np.ndarray, k: int, wheres: Sequence[PolicyFilter | None]
) -> list[list[Hit]]:
    """One search per row of ``vectors``; a single call when the adapter batches."""
    batch = getattr(adapter, "search_batch", None)
    if batch is not None:
        return batch(vectors, k, wheres)
    return [adapter.search(vector, k, where) for vector, where in zip(vectors, wheres, strict=True)]


def records_of(ids: Sequence[str], vectors: np.ndarray, metadata: Sequence[Mapping[str, Any]]) -> list[Record]:
    return [Record(i, v, m) for i, v, m in zip(ids, vectors, metadata, strict=True)]
