"""Adapters with one deliberate defect each, to show what the suite catches and how it says so.

    pytest --pyargs filterproof.conformance --adapter filterproof.conformance.defects:IgnoresValidUntil

Each is the reference adapter with one mistake that real store adapters make.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from filterproof.adapters.base import Hit, Record
from filterproof.adapters.reference import ReferenceAdapter
from filterproof.policy import PolicyFilter, Principal


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


DEFECTS = {cls.__name__: cls for cls in
           (IgnoresValidUntil, GroupsStringAsList, DropsTenantClause, CachesAcrossRevocation, SilentlyShort)}
