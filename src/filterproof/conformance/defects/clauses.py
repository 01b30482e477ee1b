"""Defects in single policy clauses: dates, groups, tenants, caching, short results.

``RowPredicate`` is the base for defects easiest to state as "this store's idea of
eligibility, one document at a time": it replaces the reference's vectorised mask
with a loop over the stored metadata (slow, and fine for the suite's small scenarios).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from filterproof.adapters.base import Hit, Record
from filterproof.adapters.reference import ReferenceAdapter
from filterproof.policy import PolicyFilter, Principal, is_eligible


class RowPredicate(ReferenceAdapter):
    """The reference with the native filter replaced by ``eligible(metadata, where)`` per document
    (``asked`` may rewrite the filter once per query first)."""

    def asked(self, where: PolicyFilter) -> PolicyFilter:
        return where

    def eligible(self, meta: Mapping[str, Any], where: PolicyFilter) -> bool:
        return is_eligible(meta, where)

    def mask(self, where: PolicyFilter) -> np.ndarray:
        where = self.asked(where)
        return np.array([self.eligible(m, where) for m in self._metadata], dtype=bool)


class IgnoresValidUntil(ReferenceAdapter):
    """Never stores valid_until, so expired documents stay eligible forever."""

    name = "defect-ignores-valid-until"

    def upsert(self, records: Sequence[Record]) -> None:
        super().upsert([Record(r.id, r.vector, {k: v for k, v in r.metadata.items() if k != "valid_until"})
                        for r in records])

    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        super().update_metadata(id, {k: v for k, v in metadata.items() if k != "valid_until"})


class GroupsStringAsList(ReferenceAdapter):
    """Reads ``"groups": "engineering"`` as ``["engineering"]`` (what Qdrant's MatchAny does)."""

    name = "defect-groups-string-as-list"

    @staticmethod
    def _coerce(metadata: Mapping[str, Any]) -> dict[str, Any]:
        groups = metadata.get("groups")
        return {**metadata, "groups": [groups]} if isinstance(groups, str) else dict(metadata)

    def upsert(self, records: Sequence[Record]) -> None:
        super().upsert([Record(r.id, r.vector, self._coerce(r.metadata)) for r in records])

    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        super().update_metadata(id, self._coerce(metadata))


class DropsTenantClause(ReferenceAdapter):
    """Compiles every clause but the tenant: any tenant's document with a shared group matches."""

    name = "defect-drops-tenant-clause"

    def mask(self, where: PolicyFilter) -> np.ndarray:
        tenants = {m.get("tenant") for m in self._metadata if isinstance(m.get("tenant"), str)}
        masks = [super(DropsTenantClause, self).mask(
            PolicyFilter(Principal(t, where.principal.groups), where.as_of, where.active)) for t in tenants]
        return np.logical_or.reduce(masks) if masks else super().mask(where)


class CachesAcrossRevocation(ReferenceAdapter):
    """Caches filtered results per (query, k, filter) and never invalidates them on writes."""

    name = "defect-caches-across-revocation"

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self._cache: dict[tuple[bytes, int, PolicyFilter | None], list[Hit]] = {}

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        key = (np.asarray(vector, dtype=np.float32).tobytes(), k, where)
        if key not in self._cache:
            self._cache[key] = super().search(vector, k, where)
        return self._cache[key]


class SilentlyShort(ReferenceAdapter):
    """"Pre-filters" by filtering the unfiltered top K: selective filters come back short, unannounced."""

    name = "defect-silently-short"

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        candidates = super().search(vector, k, None)
        if where is None:
            return candidates
        allowed = {self._ids[r] for r in np.flatnonzero(self.mask(where))}
        return [h for h in candidates if h.id in allowed]



class DropsOpenEnded(RowPredicate):
    """Stores valid_until in a range index where an absent or null end matches no range: open-ended
    documents never match (Chroma's ``$gt`` and Qdrant's range skip a missing key)."""

    name = "defect-drops-open-ended"

    def eligible(self, meta: Mapping[str, Any], where: PolicyFilter) -> bool:
        return meta.get("valid_until") is not None and is_eligible(meta, where)


class FirstGroupOnly(RowPredicate):
    """Writes the groups list into a scalar column, which keeps its first value (a driver casting a list into
    a text column, a schema inferred from one row): a document is found by its first group only."""

    name = "defect-first-group-only"

    def eligible(self, meta: Mapping[str, Any], where: PolicyFilter) -> bool:
        groups = meta.get("groups")
        first = {**meta, "groups": groups[:1]} if isinstance(groups, list) and groups else meta
        return is_eligible(first, where)


class GroupsListBoundAsText(RowPredicate):
    """Binds the principal's groups as one parameter the store reads as text (``"('engineering',)"``, a driver
    without list binding): no document's group equals it, so every filtered search comes back empty."""

    name = "defect-groups-list-bound-as-text"

    def asked(self, where: PolicyFilter) -> PolicyFilter:
        return PolicyFilter(Principal(where.principal.tenant, (str(where.principal.groups),)), where.as_of,
                            where.active)
