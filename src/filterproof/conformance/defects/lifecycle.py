"""Defects that only a sequence of operations shows: stored flags and tombstones.

``StoredFlags`` keeps ``revision=flag`` the way a store does: a boolean per document,
written at upsert and update from the last map, and rewritten by
``set_active_revisions`` for the pairs a change of the map touches. It is correct;
each defect below gets one step of that bookkeeping wrong, the way adapters do. Each
passes the hand-written lifecycle scenarios and fails the generated sequences
(``LifecycleChecks.test_generated_sequences_of_operations``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

import numpy as np

from filterproof.adapters.base import Hit, Record
from filterproof.adapters.locking import locked
from filterproof.adapters.reference import ReferenceAdapter
from filterproof.policy import ActiveRevisions, PolicyFilter, parse_date, structural_problem
from filterproof.policy.columns import PolicyColumns


def pair(meta: Mapping[str, Any]) -> tuple[str, str] | None:
    """The document's (tenant, logical_id), when it is well formed enough to have one."""
    return None if structural_problem(meta) else (meta["tenant"], meta["logical_id"])


class StoredFlags(ReferenceAdapter):
    """``revision=flag`` with a stored flag per document (correct: the base of the flag defects). Each write holds
    the store's lock with its flags, as the reference's writes do: a search (or a second client's) in the middle of
    a map's rewrite read a matrix the rewrite had just dropped (``matmul`` of None, found by
    ``test_a_reader_during_a_change_sees_one_state``, one run in three)."""

    name = "stored-flags"

    def _clear(self, dim: int) -> None:
        super()._clear(dim)
        self._flags: dict[str, bool] = {}

    def flag(self, meta: Mapping[str, Any]) -> bool:
        key = pair(meta)
        return key is not None and self.active.get(key) == meta["revision"]

    @locked
    def upsert(self, records: Sequence[Record]) -> None:
        super().upsert(records)
        self._flags |= {r.id: self.flag(r.metadata) for r in records}

    @locked
    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        if id in self._row:
            super().update_metadata(id, metadata)
            self._flags[id] = self.flag(metadata)

    @locked
    def delete(self, ids: Sequence[str]) -> None:
        super().delete(ids)
        for i in ids:
            self._flags.pop(i, None)

    def rewritten(self, old: ActiveRevisions, new: ActiveRevisions) -> set[tuple[str, str]]:
        """The pairs whose flags a change of the map must rewrite."""
        return set(old.changed(new))

    @locked
    def set_active_revisions(self, active: ActiveRevisions) -> None:
        touched = self.rewritten(self.active, active)
        self.active = active
        for doc_id, meta in zip(self._ids, self._metadata, strict=True):
            if pair(meta) in touched:
                self._flags[doc_id] = self.flag(meta)
        self._changed()

    def mask(self, where: PolicyFilter) -> np.ndarray:
        if self._columns is None:
            self._columns = PolicyColumns(self._metadata)
        return self._columns.mask(where, current=np.array([self._flags[i] for i in self._ids], dtype=bool))


class FlagKeptOnUpdate(StoredFlags):
    """``update_metadata`` recomputes the current-revision flag only when the revision changed: a document moved
    to another tenant or logical id keeps the flag its old key gave it."""

    name = "defect-flag-kept-on-update"

    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        if id not in self._row:
            return
        before = self._metadata[self._row[id]].get("revision")
        ReferenceAdapter.update_metadata(self, id, metadata)
        if metadata.get("revision") != before:
            self._flags[id] = self.flag(metadata)


class FlagKeptWhenPairLeaves(StoredFlags):
    """``set_active_revisions`` rewrites the flags of the pairs the new map holds, so a pair *removed* from
    the map keeps its documents flagged current."""

    name = "defect-flag-kept-when-pair-leaves"

    def rewritten(self, old: ActiveRevisions, new: ActiveRevisions) -> set[tuple[str, str]]:
        return {p for p in old.changed(new) if p in new}


class Tombstones(ReferenceAdapter):
    """Deletes leave a tombstone with the document's last metadata and vector (as log-structured stores do)."""

    def _clear(self, dim: int) -> None:
        super()._clear(dim)
        self._tombstones: dict[str, Record] = {}

    def delete(self, ids: Sequence[str]) -> None:
        for i in ids:
            if i in self._row:
                row = self._row[i]
                self._tombstones[i] = Record(i, self._vectors[row], self._metadata[row])
        super().delete(ids)


class TombstoneRevives(Tombstones):
    """Upserting an id that was deleted merges the new metadata into the tombstone's: a field the new
    document lacks comes back from the deleted one."""

    name = "defect-tombstone-revives"

    def upsert(self, records: Sequence[Record]) -> None:
        revived = [Record(r.id, r.vector, {**self._tombstones.pop(r.id).metadata, **r.metadata})
                   if r.id in self._tombstones else r for r in records]
        super().upsert(revived)


class UpdateResurrects(Tombstones):
    """``update_metadata`` of a deleted id clears its tombstone and brings the document back (the contract:
    an update of an id the store does not hold is ignored)."""

    name = "defect-update-resurrects"

    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        if id in self._tombstones:
            super().upsert([Record(id, self._tombstones.pop(id).vector, metadata)])
        else:
            super().update_metadata(id, metadata)


class BatchUpdateUpserts(ReferenceAdapter):
    """``update_metadata_batch`` as the store's upsert of every id in the batch (an upsert needs the vector: the
    unknown ones get a placeholder): an id deleted before the bulk change, or never written, is created. The
    single ``update_metadata`` ignores it, as it should; only the batch path is wrong."""

    name = "defect-batch-update-upserts"

    def update_metadata_batch(self, updates: Mapping[str, Mapping[str, Any]]) -> None:
        known = {i: m for i, m in updates.items() if i in self._row}
        for doc_id, metadata in known.items():
            self.update_metadata(doc_id, metadata)
        self.upsert([Record(i, np.ones(self._dim, np.float32), m) for i, m in updates.items() if i not in known])


class FlushesDeletesFirst(ReferenceAdapter):
    """Buffers writes and applies them at the next search by kind, deletes first, then upserts, then updates:
    an upsert and a delete of one id with no search between them leave the document in place."""

    name = "defect-flushes-deletes-first"

    def reset(self, dim: int) -> None:
        super().reset(dim)
        self._pending: dict[str, list[Any]] = {"delete": [], "upsert": [], "update": []}

    def upsert(self, records: Sequence[Record]) -> None:
        for record in records:
            if len(record.vector) != self._dim:
                raise ValueError(f"{record.id}: vector of {len(record.vector)} floats, index takes {self._dim}")
        self._pending["upsert"].extend(records)

    def delete(self, ids: Sequence[str]) -> None:
        self._pending["delete"].extend(ids)

    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        self._pending["update"].append((id, metadata))

    def _flush(self) -> None:
        pending, self._pending = self._pending, {"delete": [], "upsert": [], "update": []}
        ReferenceAdapter.delete(self, pending["delete"])
        ReferenceAdapter.upsert(self, pending["upsert"])
        for id, metadata in pending["update"]:
            ReferenceAdapter.update_metadata(self, id, metadata)

    def search(self, vector: Any, k: int, where: PolicyFilter | None) -> list[Any]:
        self._flush()
        return super().search(vector, k, where)


class OptimizeRestoresFlags(StoredFlags):
    """``optimize()`` rebuilds the store's segment from the copy the previous build made, flags included: flags
    rewritten by ``set_active_revisions`` since then come back as they were."""

    name = "defect-optimize-restores-flags"

    def _clear(self, dim: int) -> None:
        super()._clear(dim)
        self._built: dict[str, bool] = {}

    def optimize(self) -> None:
        restored = {i: self._built.get(i, flag) for i, flag in self._flags.items()}
        self._built, self._flags = dict(self._flags), restored
        self._changed()


class ZoneMapWidenedOnUpsert(ReferenceAdapter):
    """Keeps a zone map of the stored dates (the earliest ``valid_from``, the latest end, open counting as
    latest) that upserts widen and updates never touch, and answers nothing for a day outside it: a document
    updated to start earlier (or end later) than every document written stays out."""

    name = "defect-zone-map-widened-on-upsert"

    def _clear(self, dim: int) -> None:
        super()._clear(dim)
        self._first: date | None = None
        self._last: date | None = None
        self._open = False

    def upsert(self, records: Sequence[Record]) -> None:
        for record in records:
            start, raw_end = parse_date(record.metadata.get("valid_from")), record.metadata.get("valid_until")
            end = parse_date(raw_end)
            if start is not None:
                self._first = start if self._first is None else min(self._first, start)
            self._open |= raw_end is None
            if end is not None:
                self._last = end if self._last is None else max(self._last, end)
        super().upsert(records)

    def mask(self, where: PolicyFilter) -> np.ndarray:
        found = super().mask(where)
        before = self._first is None or where.as_of < self._first
        after = not self._open and (self._last is None or where.as_of >= self._last)
        return np.zeros_like(found) if before or after else found


class IndexLosesRowsAfterDelete(ReferenceAdapter):
    """An index a delete leaves broken: rows inserted after any delete are stored but never found, by a filtered
    or an unfiltered search (DuckDB's HNSW index after DELETE then INSERT; rebuilding it repairs it: ``reset``)."""

    name = "defect-index-loses-rows-after-delete"

    def _clear(self, dim: int) -> None:
        super()._clear(dim)
        self._deleted, self._unindexed = False, set[str]()

    def delete(self, ids: Sequence[str]) -> None:
        self._deleted = self._deleted or any(i in self._row for i in ids)
        super().delete(ids)

    def upsert(self, records: Sequence[Record]) -> None:
        if self._deleted:
            self._unindexed |= {r.id for r in records if r.id not in self._row}
        super().upsert(records)

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        hits = super().search(vector, k + len(self._unindexed), where)
        return [h for h in hits if h.id not in self._unindexed][:k]
