"""The policy evaluated over all documents at once, with numpy masks.

``PolicyColumns`` turns a list of metadata dicts into integer columns once, then
answers ``mask(where)`` without a Python loop over documents: the reference
adapter's native filter, and the exact ground truth at scale. It must agree with
``policy.is_eligible`` on every document; the tests check that on every fixture
and on generated metadata.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from filterproof.policy import (
    ACTIVE_STATUS,
    ActiveRevisions,
    PolicyFilter,
    calendar_day,
    parse_date,
    structural_problem,
)

OPEN_END = np.iinfo(np.int64).max


class Codes:
    """Strings to dense integer codes; unknown strings get -1 and match nothing."""

    def __init__(self) -> None:
        self.index: dict[Any, int] = {}

    def code(self, value: Any) -> int:
        return self.index.setdefault(value, len(self.index))

    def lookup(self, value: Any) -> int:
        return self.index.get(value, -1)


class PolicyColumns:
    def __init__(self, metadata: Sequence[Mapping[str, Any]]) -> None:
        n = len(metadata)
        self.tenants, self.keys, self.groups = Codes(), Codes(), Codes()
        self.wellformed = np.zeros(n, dtype=bool)
        self.tenant = np.full(n, -1, dtype=np.int64)
        self.key = np.full(n, -1, dtype=np.int64)
        self.revision = np.zeros(n, dtype=np.int64)
        self.active_status = np.zeros(n, dtype=bool)
        self.start = np.zeros(n, dtype=np.int64)
        self.end = np.full(n, OPEN_END, dtype=np.int64)
        members: dict[int, list[int]] = {}
        for row, meta in enumerate(metadata):
            if structural_problem(meta):
                continue
            self.wellformed[row] = True
            self.tenant[row] = self.tenants.code(meta["tenant"])
            self.key[row] = self.keys.code((meta["tenant"], meta["logical_id"]))
            self.revision[row] = meta["revision"]
            self.active_status[row] = meta["status"] == ACTIVE_STATUS
            self.start[row] = parse_date(meta["valid_from"]).toordinal()  # type: ignore[union-attr]
            if meta.get("valid_until") is not None:
                self.end[row] = parse_date(meta["valid_until"]).toordinal()  # type: ignore[union-attr]
            for group in set(meta["groups"]):
                members.setdefault(self.groups.code(group), []).append(row)
        self.members = {g: np.array(rows, dtype=np.int64) for g, rows in members.items()}
        self._active_cache: tuple[ActiveRevisions, np.ndarray, np.ndarray] | None = None

    def _active_by_key(self, active: ActiveRevisions) -> tuple[np.ndarray, np.ndarray]:
        """Per key code: is it in the map, and its active revision (cached per map)."""
        if self._active_cache is None or self._active_cache[0] is not active:
            present = np.zeros(len(self.keys.index) + 1, dtype=bool)
            revision = np.zeros(len(self.keys.index) + 1, dtype=np.int64)
            for key, code in self.keys.index.items():
                if key in active:
                    present[code], revision[code] = True, active[key]
            self._active_cache = (active, present, revision)
        return self._active_cache[1], self._active_cache[2]

    def group_mask(self, groups: Sequence[str]) -> np.ndarray:
        mask = np.zeros(len(self.wellformed), dtype=bool)
        for group in groups:
            rows = self.members.get(self.groups.lookup(group))
            if rows is not None:
                mask[rows] = True
        return mask

    def current(self, active: ActiveRevisions) -> np.ndarray:
        """Rows that are the authoritative revision of their tenant/logical_id under ``active``."""
        present, revision = self._active_by_key(active)
        # key is -1 on malformed rows; index -1 reads the padding slot, which is False.
        return present[self.key] & (self.revision == revision[self.key])

    def mask(self, where: PolicyFilter, current: np.ndarray | None = None) -> np.ndarray:
        """The policy's eligible rows; ``current`` replaces the revision clause (a stored flag)."""
        as_of = calendar_day(where.as_of).toordinal()  # a datetime's toordinal would answer for its day
        return (
            self.wellformed
            & (self.tenant == self.tenants.lookup(where.principal.tenant))
            & self.active_status
            & (self.current(where.active) if current is None else current)
            & (self.start <= as_of)
            & (as_of < self.end)
            & self.group_mask(where.principal.groups)
        )
