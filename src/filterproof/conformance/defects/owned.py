"""Defects of a store of Python objects that keeps what the caller gave it instead of a copy.
``CallerObjectChecks`` fails each; no other check changes an object after passing it on (measured: both pass the
rest of the suite)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from filterproof.adapters.base import Record
from filterproof.adapters.reference import ReferenceAdapter


class KeepsCallersMetadata(ReferenceAdapter):
    """Keeps the metadata dict each write was given (an index beside a dict of metadata): a caller that edits
    the dict afterwards (the next record built from it) moves the stored document, at the next rebuild."""

    name = "defect-keeps-callers-metadata"

    def upsert(self, records: Sequence[Record]) -> None:
        super().upsert(records)
        with self._lock:
            for record in records:
                self._metadata[self._row[record.id]] = record.metadata
            self._changed()

    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        super().update_metadata(id, metadata)
        with self._lock:
            if id in self._row:
                self._metadata[self._row[id]] = metadata
                self._changed()


class KeepsCallersVectors(ReferenceAdapter):
    """Keeps the vector array each upsert was given: a caller that fills one buffer per batch rewrites every
    stored vector with the next batch's."""

    name = "defect-keeps-callers-vectors"

    def upsert(self, records: Sequence[Record]) -> None:
        super().upsert(records)
        with self._lock:
            for record in records:
                self._vectors[self._row[record.id]] = record.vector
            self._changed()
