"""Defects of a client written by two threads at once: each write right alone and beside searches, wrong when
another write lands between its read and its write. ``ConcurrentWritersChecks`` fails each; no other check makes
two writes at once (``WrittenWhileSearchedChecks`` writes from one thread).

A round trip (``ROUND_TRIP_S``) lies between a write's read and its write, as a client waits on its server.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from filterproof.adapters.base import Record
from filterproof.adapters.reference import ReferenceAdapter
from filterproof.conformance.defects.lifecycle import StoredFlags, pair
from filterproof.conformance.defects.steps import ROUND_TRIP_S
from filterproof.policy import ActiveRevisions


class UpdatesByRewrite(ReferenceAdapter):
    """``update_metadata`` reads the stored document, then writes it back whole with the new metadata (a store
    without a partial update: Milvus's upsert, LanceDB's merge_insert), with no lock over the two steps: a document
    another thread deleted between them comes back."""

    name = "defect-updates-by-rewrite"

    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        rewrite(self, id, metadata)


def rewrite(store: ReferenceAdapter, id: str, metadata: Mapping[str, Any]) -> None:
    """Read the stored document under the store's lock, then, a round trip later, write it back whole with
    ``metadata`` (unknown ids are ignored): a delete that lands between the two is undone."""
    with store._lock:
        row = store._row.get(id)
        vector = None if row is None else store._vectors[row]
    if vector is not None:
        time.sleep(ROUND_TRIP_S)  # the row comes back from the store
        ReferenceAdapter.upsert(store, [Record(id, vector, metadata)])


class FlagsFromMapAsWriteBegan(StoredFlags):
    """``revision=flag``: ``upsert`` computes each document's flag from the map as the write begins and stores it
    a round trip later; ``set_active_revisions`` rewrites the flags of the documents already stored. A revision
    published while another thread moves the map to it is stored with the old map's flag, after the rewrite that
    would have set it: the new revision is never current."""

    name = "defect-flags-from-map-as-write-began"

    def upsert(self, records: Sequence[Record]) -> None:
        flags = {r.id: self.flag(r.metadata) for r in records}
        time.sleep(ROUND_TRIP_S)  # the rows travel to the store
        with self._lock:
            ReferenceAdapter.upsert(self, records)
            self._flags |= flags


class RewritesFlagsInTwoSteps(StoredFlags):
    """``revision=flag``: ``set_active_revisions`` clears the flags of the pairs the change moves, then, a round trip
    later, sets the flag of each pair's revision in the map it was given, with no lock over the two steps (each
    fails closed alone). Two moves at once clear, clear, set, set: both revisions are current."""

    name = "defect-rewrites-flags-in-two-steps"

    def set_active_revisions(self, active: ActiveRevisions) -> None:
        touched = self.rewritten(self.active, active)
        self.active = active
        with self._lock:
            for doc_id, meta in zip(self._ids, self._metadata, strict=True):
                if pair(meta) in touched:
                    self._flags[doc_id] = False
        time.sleep(ROUND_TRIP_S)  # the second statement's round trip
        with self._lock:
            for doc_id, meta in zip(self._ids, self._metadata, strict=True):
                key = pair(meta)
                if key in touched and active.get(key) == meta["revision"]:
                    self._flags[doc_id] = True
            self._changed()
