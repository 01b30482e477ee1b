"""Defects of a write made in several steps: each leaves the store right when its call returns, and shows a reader
that queries in between what no state of the store admits.

A step is one locked call of the reference (as one statement or request is to a store), and a round trip
(``ROUND_TRIP_S``) lies between two steps, as a client waits on its server. Every check made after a call returns
passes; ``DuringChangeChecks`` (a reader querying in a thread) fails each.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from typing import Any

from filterproof.adapters.reference import ReferenceAdapter
from filterproof.conformance.defects.lifecycle import StoredFlags, pair
from filterproof.policy import ActiveRevisions

ROUND_TRIP_S = 0.002
"""Seconds between two steps of one write: a round trip to a store on this host."""


class AdmitsBeforeExcluding(StoredFlags):
    """Rewrites a changed revision's flags in two steps, the new revision's set before the old one's is cleared:
    between them, both revisions of the document are current."""

    name = "defect-admits-before-excluding"

    def set_active_revisions(self, active: ActiveRevisions) -> None:
        touched = self.rewritten(self.active, active)
        self.active = active
        flags = {i: self.flag(m) for i, m in zip(self._ids, self._metadata, strict=True) if pair(m) in touched}
        self._write_flags({i: True for i, flag in flags.items() if flag})
        time.sleep(ROUND_TRIP_S)
        self._write_flags({i: False for i, flag in flags.items() if not flag})

    def _write_flags(self, flags: Mapping[str, bool]) -> None:
        with self._lock:
            self._flags |= flags
            self._changed()


class WritesFieldByField(ReferenceAdapter):
    """``update_metadata`` writes one field at a time, in the order of their names (an UPDATE per column, a
    payload key per request): between them, a moved document holds its new groups under its old tenant."""

    name = "defect-writes-field-by-field"

    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        if id not in self._row:
            return
        for step in field_by_field(self._metadata[self._row[id]], metadata):
            super().update_metadata(id, step)
            time.sleep(ROUND_TRIP_S)


def field_by_field(before: Mapping[str, Any], after: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """The metadata after each field of ``before`` is written as ``after`` has it (or removed), one at a time in the
    order of their names; the last is ``after``."""
    current = dict(before)
    for key in sorted(set(current) | set(after)):
        if key in after:
            current[key] = after[key]
        else:
            current.pop(key)
        yield dict(current)
