"""Defects in the store contract: writes, deletes, scores and batches, with the filter itself right.

Each keeps the reference's exact policy filter and breaks one promise of
``filterproof.adapters.base`` (the defects only a large corpus shows are in ``scale``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np

from filterproof.adapters.base import Hit, Record, checked_vector
from filterproof.adapters.reference import ReferenceAdapter, ReferenceOptions
from filterproof.policy import ActiveRevisions, PolicyFilter

SLICE = 1_000
"""The slice of a bulk call the slicing defects cut at (Milvus's ids a delete, LanceDB's rows read back)."""


class AppendsOnUpsert(ReferenceAdapter):
    """Upserting an existing id appends a second row: the old metadata stays searchable, the id comes twice."""

    name = "defect-appends-on-upsert"

    def upsert(self, records: Sequence[Record]) -> None:
        for record in records:
            vector = checked_vector(record.vector, self._dim, record.id)
            self._row[record.id] = len(self._ids)
            self._ids.append(record.id)
            self._vectors.append(vector)
            self._metadata.append(dict(record.metadata))
        self._changed()


class KeepsFirstOfRepeats(ReferenceAdapter):
    """Deduplicates an upsert's records by id keeping the first of each (``np.unique(ids, return_index=True)``):
    the earlier record of a repeated id wins."""

    name = "defect-keeps-first-of-repeats"

    def upsert(self, records: Sequence[Record]) -> None:
        first: dict[str, Record] = {}
        for record in records:
            first.setdefault(record.id, record)
        super().upsert(list(first.values()))


class RaisesOnUnknownDelete(ReferenceAdapter):
    """``delete`` of an id the store does not hold raises (the contract: unknown ids are ignored)."""

    name = "defect-raises-on-unknown-delete"

    def delete(self, ids: Sequence[str]) -> None:
        unknown = [i for i in ids if i not in self._row]
        if unknown:
            raise KeyError(f"no such ids: {unknown}")
        super().delete(ids)


class ResetKeepsGroupRows(ReferenceAdapter):
    """``reset`` empties the documents but not their groups, kept by row number in a table of their own: a
    document written to a dropped one's row gets that one's groups too (chromadb 1.5.9's ``delete_collection``
    leaves list values behind for the next collection's rows, chroma-core/chroma#7594)."""

    name = "defect-reset-keeps-group-rows"
    _left: Mapping[int, list[Any]] = {}

    def reset(self, dim: int) -> None:
        self._left = {row: list(meta["groups"]) for row, meta in enumerate(getattr(self, "_metadata", []))
                      if isinstance(meta.get("groups"), list)}
        super().reset(dim)

    def upsert(self, records: Sequence[Record]) -> None:
        super().upsert(records)
        for record in records:
            row, meta = self._row[record.id], self._metadata[self._row[record.id]]
            if isinstance(meta.get("groups"), list) and self._left.get(row):
                self._metadata[row] = {**meta, "groups": meta["groups"] + self._left[row]}
        self._changed()


class TruncatesLongVectors(ReferenceAdapter):
    """Checks that a vector is long enough for the index and keeps its first ``dim`` values: a longer vector (a
    different embedding model's) is stored cut, and answers as another document (the SQLite example's check
    written ``<`` survived the suite until the check asked a longer vector too: found by its mutation run)."""

    name = "defect-truncates-long-vectors"

    def upsert(self, records: Sequence[Record]) -> None:
        super().upsert([Record(r.id, np.asarray(r.vector)[:self._dim], r.metadata) for r in records])


class FitsQueriesToTheIndex(ReferenceAdapter):
    """Pads a shorter query vector with zeros and cuts a longer one to the index's dimension, and answers: a
    question embedded by another model ranks as if it were of this one (Milvus's query check written ``>`` let a
    shorter vector through, and only Milvus's own error stopped it: found by the mutation run of its store)."""

    name = "defect-fits-queries-to-the-index"

    def scores(self, vector: np.ndarray) -> np.ndarray:
        fitted = np.zeros(self._dim, dtype=np.float32)
        given = np.asarray(vector, dtype=np.float32)[:self._dim]
        fitted[:len(given)] = given
        return super().scores(fitted)


class DeletesOneSliceOnly(ReferenceAdapter):
    """Deletes in slices of 1,000 ids with the end of each slice written ``start | 1000``: the second slice is
    empty, and the ids past the first thousand of one call stay readable (Milvus's delete so mutated passed every
    check until the suite made one call of more than a thousand changes: found by its mutation run)."""

    name = "defect-deletes-one-slice-only"

    def delete(self, ids: Sequence[str]) -> None:
        unique = list(dict.fromkeys(ids))
        for start in range(0, len(unique), SLICE):
            super().delete(unique[start:start | SLICE])


class UpdatesOneSliceOnly(ReferenceAdapter):
    """Rewrites a bulk update a slice of 1,000 documents at a time with the end of each slice written
    ``start ^ 1000``: every slice after the first is empty, and a bulk revoke leaves the rest of the documents
    readable (LanceDB's read-back of the rows to rewrite, so mutated: found by its mutation run)."""

    name = "defect-updates-one-slice-only"

    def update_metadata_batch(self, updates: Mapping[str, Mapping[str, Any]]) -> None:
        items = list(updates.items())
        for start in range(0, len(items), SLICE):
            for id, metadata in items[start:start ^ SLICE]:
                self.update_metadata(id, metadata)


class DotProductScores(ReferenceAdapter):
    """Scores by dot product, never normalising: right for unit vectors only."""

    name = "defect-dot-product-scores"

    def scores(self, vector: np.ndarray) -> np.ndarray:
        stacked = np.vstack(self._vectors) if self._vectors else np.zeros((0, self._dim), np.float32)
        return stacked @ np.asarray(vector, dtype=np.float32)


class IdsReturnedEscaped(ReferenceAdapter):
    """Writes ids through an escape (a backslash doubled, NUL as ``\\0``) and returns them as stored: every id
    holding a backslash or NUL comes back as another string."""

    name = "defect-ids-returned-escaped"

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        return [Hit(h.id.replace("\\", "\\\\").replace("\x00", "\\0"), h.score)
                for h in super().search(vector, k, where)]


class NanCosineFirst(ReferenceAdapter):
    """Divides by the norms without a guard: a zero vector's cosine is 0/0 = NaN, and the sort (greatest
    first, with NaN compared as greater) puts it ahead of every document."""

    name = "defect-nan-cosine-first"

    def scores(self, vector: np.ndarray) -> np.ndarray:
        stacked = np.vstack(self._vectors) if self._vectors else np.zeros((0, self._dim), np.float32)
        query = np.asarray(vector, dtype=np.float32)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (stacked @ query) / (np.linalg.norm(stacked, axis=1) * np.linalg.norm(query))

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        scores = self.scores(vector)
        rows = np.flatnonzero(self.mask(where)) if where is not None else np.arange(len(scores))
        ranked = sorted(rows, key=lambda r: (not np.isnan(scores[r]), -np.nan_to_num(scores[r])))
        return [Hit(self._ids[r], float(scores[r])) for r in ranked[:max(k, 0)]]


class BatchUsesFirstFilter(ReferenceAdapter):
    """``search_batch`` applies the first query's filter to every query of the batch."""

    name = "defect-batch-uses-first-filter"

    def search_batch(self, vectors: np.ndarray, k: int, wheres: Sequence[PolicyFilter | None]) -> list[list[Hit]]:
        return [self.search(vector, k, wheres[0]) for vector in vectors]


class BatchZipsUnequal(ReferenceAdapter):
    """``search_batch`` pairs vectors and filters with ``zip``: given more of one than of the other, it answers the
    shorter count and says nothing (the LanceDB adapter's length check written ``>`` survived the suite until this
    check asked: found by its mutation run)."""

    name = "defect-batch-zips-unequal"

    def search_batch(self, vectors: np.ndarray, k: int, wheres: Sequence[PolicyFilter | None]) -> list[list[Hit]]:
        return [self.search(vector, k, where) for vector, where in zip(vectors, wheres)]  # noqa: B905 (the defect)


class BatchDropsEmptyAnswers(ReferenceAdapter):
    """``search_batch`` leaves out the queries that matched nothing (the answers of a result set grouped by
    query number have no row for them): every later answer moves onto an earlier query."""

    name = "defect-batch-drops-empty-answers"

    def search_batch(self, vectors: np.ndarray, k: int, wheres: Sequence[PolicyFilter | None]) -> list[list[Hit]]:
        answers = [self.search(vector, k, where) for vector, where in zip(vectors, wheres, strict=True)]
        return [hits for hits in answers if hits]


class FlagOptions(ReferenceOptions):
    revision: Literal["query", "flag"] = "flag"


class LazyRevisionFlag(ReferenceAdapter):
    """``revision=flag`` with the rewrite deferred: a new active map is applied at the next write,
    not before ``set_active_revisions`` returns, so a change of the map alone stays invisible."""

    name = "defect-lazy-revision-flag"
    Options = FlagOptions
    options: FlagOptions

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self._pending: ActiveRevisions | None = None

    def set_active_revisions(self, active: ActiveRevisions) -> None:
        if len(self._ids) == 0:  # nothing stored yet: the first map is taken at once
            super().set_active_revisions(active)
        else:
            self._pending = active

    def _changed(self) -> None:
        if self._pending is not None:
            self.active, self._pending = self._pending, None
        super()._changed()
