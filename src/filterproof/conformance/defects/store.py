"""Defects in the store contract: writes, deletes, scores and batches, with the filter itself right.

Each keeps the reference's exact policy filter and breaks one promise of
``filterproof.adapters.base``; and three search a bounded pool instead of the whole
filtered set, which only a corpus larger than the pool shows (the scale tier): the
nearest ``window`` neighbours, one ``page`` of a metadata query, a candidate pool of
fixed size whatever K.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
from pydantic import Field

from filterproof.adapters.base import Hit, Record
from filterproof.adapters.reference import ReferenceAdapter, ReferenceOptions, top_k
from filterproof.policy import ActiveRevisions, PolicyFilter


class AppendsOnUpsert(ReferenceAdapter):
    """Upserting an existing id appends a second row: the old metadata stays searchable, the id comes twice."""

    name = "defect-appends-on-upsert"

    def upsert(self, records: Sequence[Record]) -> None:
        for record in records:
            vector = np.asarray(record.vector, dtype=np.float32)
            if vector.shape != (self._dim,):
                raise ValueError(f"{record.id}: vector has shape {vector.shape}, index takes ({self._dim},)")
            self._row[record.id] = len(self._ids)
            self._ids.append(record.id)
            self._vectors.append(vector)
            self._metadata.append(dict(record.metadata))
        self._changed()


class RaisesOnUnknownDelete(ReferenceAdapter):
    """``delete`` of an id the store does not hold raises (the contract: unknown ids are ignored)."""

    name = "defect-raises-on-unknown-delete"

    def delete(self, ids: Sequence[str]) -> None:
        unknown = [i for i in ids if i not in self._row]
        if unknown:
            raise KeyError(f"no such ids: {unknown}")
        super().delete(ids)


class DotProductScores(ReferenceAdapter):
    """Scores by dot product, never normalising: right for unit vectors only."""

    name = "defect-dot-product-scores"

    def scores(self, vector: np.ndarray) -> np.ndarray:
        stacked = np.vstack(self._vectors) if self._vectors else np.zeros((0, self._dim), np.float32)
        return stacked @ np.asarray(vector, dtype=np.float32)


class BatchUsesFirstFilter(ReferenceAdapter):
    """``search_batch`` applies the first query's filter to every query of the batch."""

    name = "defect-batch-uses-first-filter"

    def search_batch(self, vectors: np.ndarray, k: int, wheres: Sequence[PolicyFilter | None]) -> list[list[Hit]]:
        return [self.search(vector, k, wheres[0]) for vector in vectors]


class PageOptions(ReferenceOptions):
    page: int = Field(100, ge=1, description="ids one metadata query returns")


class WindowOptions(ReferenceOptions):
    window: int = Field(200, ge=1, description="nearest neighbours taken before filtering")


class PoolOptions(ReferenceOptions):
    pool: int = Field(64, ge=1, description="candidates a search keeps, whatever K")


class WindowedNearest(ReferenceAdapter):
    """Takes the ``window`` nearest neighbours (option, default 200), then filters inside them: short or
    wrong whenever fewer than K eligible documents sit among the nearest ``window``."""

    name = "defect-windowed-nearest"
    Options = WindowOptions
    options: WindowOptions

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self.window = self.options.window

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        if where is None:
            return super().search(vector, k, None)
        scores = self.scores(vector)
        nearest = top_k(scores, np.arange(len(scores)), self.window)
        allowed = nearest[self.mask(where)[nearest]]
        return [Hit(self._ids[r], float(scores[r])) for r in top_k(scores, allowed, k)]


class OnePageMetadata(ReferenceAdapter):
    """Resolves the filter with one page (option ``page``, default 100) of a metadata query, then ranks
    that page: exact while a filter admits fewer documents than a page."""

    name = "defect-one-page-metadata"
    Options = PageOptions
    options: PageOptions

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self.page = self.options.page

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        if where is None:
            return super().search(vector, k, None)
        scores = self.scores(vector)
        page = np.flatnonzero(self.mask(where))[: self.page]
        return [Hit(self._ids[r], float(scores[r])) for r in top_k(scores, page, k)]


class FixedCandidatePool(ReferenceAdapter):
    """Keeps a candidate pool of ``pool`` filtered documents (option, default 64) however large K is, like
    an HNSW search whose ``ef`` is fixed instead of raised to K: exact for K up to the pool, short above
    it (K=100 returns 64)."""

    name = "defect-fixed-candidate-pool"
    Options = PoolOptions
    options: PoolOptions

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self.pool = self.options.pool

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        return super().search(vector, min(k, self.pool), where)


class IndexBuiltOnce(ReferenceAdapter):
    """``optimize()`` builds the filtered index over the documents stored then; documents upserted later are
    found by unfiltered search but never by a filtered one (a sealed segment whose later writes go to a buffer
    the filter path does not read)."""

    name = "defect-index-built-once"

    def reset(self, dim: int) -> None:
        super().reset(dim)
        self._sealed: set[str] | None = None

    def optimize(self) -> None:
        self._sealed = set(self._ids)

    def mask(self, where: PolicyFilter) -> np.ndarray:
        found = super().mask(where)
        if getattr(self, "_sealed", None) is None:
            return found
        return found & np.array([i in self._sealed for i in self._ids], dtype=bool)  # type: ignore[operator]


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
