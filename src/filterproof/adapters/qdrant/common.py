"""What the three Qdrant adapters share: the adapter contract over a few engine primitives.

``QdrantAdapter`` implements ``filterproof.adapters.base.Adapter`` once: it encodes
payloads (``payload.py``), compiles filters (``compiler.py``), batches writes and
queries, and maps point ids back to our ids. A subclass supplies six primitives
(create, put, remove, exists, replace payload, query a batch) for its engine.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np

from filterproof.adapters.base import AdapterBase, Capabilities, Hit, Record, check_batch, checked_vector
from filterproof.adapters.filterlang import Cond
from filterproof.adapters.locking import writing
from filterproof.adapters.options import AdapterOptions
from filterproof.adapters.qdrant.compiler import PolicyCompiler
from filterproof.adapters.qdrant.language import Family
from filterproof.adapters.qdrant.payload import (
    CURRENT,
    FLAG_INDEXES,
    ID,
    INDEXES,
    KEY,
    LID,
    QUERY_INDEXES,
    IndexKind,
    point_id,
    stored_payload,
)
from filterproof.adapters.revisions import flags_to_rewrite, logical_key, revision_key
from filterproof.policy import ActiveRevisions, PolicyFilter

WRITE_BATCH = 256
"""Points per write call: bounded request bodies for servers, bounded conversions for edge."""
FLAG_BATCH = 4096
"""Changed tenant/logical_ids per flag rewrite (the filter of one write carries their keys)."""
QUERY_BATCH = 64
"""Queries per batched call (fewer when their filters are long, see ``max_keys_per_call``)."""

T = TypeVar("T")
Point = tuple[str, list[float], dict[str, Any]]


class QdrantAdapter(AdapterBase, Generic[T]):
    """The adapter contract over engine primitives; subclasses are the three Qdrant forms."""

    capabilities: Capabilities
    max_keys_per_call: ClassVar[int | None] = None
    """Cap on the revision keys one batched call carries (a server's request body size); None: no cap."""

    def __init__(self, options: AdapterOptions | Mapping[str, Any] | None, family: Family) -> None:
        super().__init__(options)
        self._compiler = PolicyCompiler(family, flag=self.revision_flags)
        self._dim = 0

    @property
    def indexes(self) -> dict[str, IndexKind]:
        """Payload field -> index kind: the policy's fields, and the revision encoding's."""
        return {**INDEXES, **(FLAG_INDEXES if self.revision_flags else QUERY_INDEXES)}

    # -- engine primitives ------------------------------------------------------

    def _create(self, dim: int) -> None:
        raise NotImplementedError

    def _put(self, points: list[Point]) -> None:
        raise NotImplementedError

    def _remove(self, point_ids: list[str]) -> None:
        raise NotImplementedError

    def _exists(self, pid: str) -> bool:
        raise NotImplementedError

    def _replace_payload(self, pid: str, payload: dict[str, Any]) -> None:
        raise NotImplementedError

    def _query(self, vectors: list[list[float]], k: int, filters: list[T | None]) -> list[list[tuple[Any, float]]]:
        """Per query, (payload, score) of the hits, best first."""
        raise NotImplementedError

    def _set_payload_where(self, selector: T, payload: dict[str, Any]) -> None:
        """Set ``payload``'s fields (merging) on every point the filter selects; complete when it returns."""
        raise NotImplementedError

    # -- the adapter contract ---------------------------------------------------

    def reset(self, dim: int) -> None:
        if dim < 1:
            raise ValueError(f"dimension must be positive, got {dim}")
        self._dim = dim
        self._create(dim)

    @writing
    def upsert(self, records: Sequence[Record]) -> None:
        active = self.flag_map
        points = [(point_id(r.id), self._vector(r.vector, r.id), stored_payload(r.id, r.metadata, active))
                  for r in records]
        for start in range(0, len(points), WRITE_BATCH):
            self._put(points[start:start + WRITE_BATCH])

    @writing
    def delete(self, ids: Sequence[str]) -> None:
        pids = [point_id(i) for i in ids]
        for start in range(0, len(pids), WRITE_BATCH):
            self._remove(pids[start:start + WRITE_BATCH])

    @writing
    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        """Replace the payload as a whole (overwrite, not merge): no stale field survives."""
        pid = point_id(id)
        if self._exists(pid):  # unknown ids are ignored, as by the reference
            self._replace_payload(pid, stored_payload(id, metadata, self.flag_map))

    @writing
    def set_active_revisions(self, active: ActiveRevisions) -> None:
        """Under ``revision=flag``: rewrite the flags of every tenant/logical_id whose revision changed.

        Two filtered writes per batch, in the order that fails closed: first every
        revision of the changed documents loses its flag, then the new active one gets it.
        """
        if self.revision_flags and self._dim:
            changed = flags_to_rewrite(self.active, active)
            for start in range(0, len(changed), FLAG_BATCH):
                part = changed[start:start + FLAG_BATCH]
                self._set_payload_where(self._compiler.render(Cond("in", LID, tuple(logical_key(*p) for p in part))),
                                        {CURRENT: "no"})
                keys = tuple(revision_key(t, lid, active[(t, lid)]) for t, lid in part if (t, lid) in active)
                if keys:
                    self._set_payload_where(self._compiler.render(Cond("in", KEY, keys)), {CURRENT: "yes"})
        self.active = active

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        return self.search_batch(np.asarray(vector)[None, :], k, [where])[0]

    def search_batch(self, vectors: np.ndarray, k: int, wheres: Sequence[PolicyFilter | None]) -> list[list[Hit]]:
        check_batch(vectors, wheres)
        if k <= 0:
            return [[] for _ in wheres]
        rows = [self._vector(v, "query") for v in vectors]
        results: list[list[Hit]] = []
        for part in self._batches(wheres):
            # Compiled per call, not for the whole batch at once: a long filter is large once native.
            filters = [None if w is None else self._compiler.native(w) for w in wheres[part]]
            for hits in self._query(rows[part], k, filters):
                results.append([Hit(payload[ID], float(score)) for payload, score in hits])
        return results

    def _batches(self, wheres: Sequence[PolicyFilter | None]) -> Iterator[slice]:
        """Consecutive runs of at most ``QUERY_BATCH`` queries and ``max_keys_per_call`` keys (at least one query)."""
        start, weight = 0, 0
        for i, where in enumerate(wheres):
            size = 0 if where is None else self._compiler.size(where)
            full = i - start >= QUERY_BATCH or (
                self.max_keys_per_call is not None and weight + size > self.max_keys_per_call)
            if i > start and full:
                yield slice(start, i)
                start, weight = i, 0
            weight += size
        if start < len(wheres):
            yield slice(start, len(wheres))

    def _vector(self, vector: np.ndarray, what: str) -> list[float]:
        return checked_vector(vector, self._dim, what).tolist()
