"""Defects only a corpus larger than a store's pools and thresholds shows (the scale tier).

Three search a bounded pool instead of the whole filtered set: the nearest ``window``
neighbours, one ``page`` of a metadata query, a candidate pool of fixed size whatever K.
The others get something wrong about what happens after an index exists (documents
written after it, documents changed after it) or about batches answered together.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from pydantic import Field

from filterproof.adapters.base import Hit, Record
from filterproof.adapters.reference import ReferenceAdapter, ReferenceOptions, top_k
from filterproof.policy import PolicyFilter


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


class StaleBitmapIndex(ReferenceAdapter):
    """``optimize()`` builds a bitmap of the documents each filter admitted then; afterwards a filtered search
    re-checks only the rows that bitmap (or a later write) admits: an update that grants access is invisible."""

    name = "defect-stale-bitmap-index"

    def reset(self, dim: int) -> None:
        super().reset(dim)
        self._built: set[str] | None = None
        self._admitted: dict[Any, set[str]] = {}
        self._later: set[str] = set()

    def optimize(self) -> None:
        self._built, self._admitted, self._later = set(self._ids), {}, set()

    def upsert(self, records: Sequence[Any]) -> None:
        super().upsert(records)
        self._later |= {r.id for r in records}

    def mask(self, where: PolicyFilter) -> np.ndarray:
        found = super().mask(where)
        if getattr(self, "_built", None) is None:
            return found
        key = (where.principal, where.as_of)
        if key not in self._admitted:  # the bitmap as the build left it, whatever changed since
            self._admitted[key] = {i for i, ok in zip(self._ids, found, strict=True) if ok and i in self._built}
        admitted = self._admitted[key] | self._later
        return found & np.array([i in admitted for i in self._ids], dtype=bool)


class BatchMasksWithoutDate(ReferenceAdapter):
    """``search_batch`` of 16 queries or more computes one filter mask per principal and map, and leaves the
    day out of that key: a batch that asks on two days answers both with the first day's mask."""

    name = "defect-batch-masks-without-date"

    def search_batch(self, vectors: np.ndarray, k: int, wheres: Sequence[PolicyFilter | None]) -> list[list[Hit]]:
        if len(wheres) < 16:
            return super().search_batch(vectors, k, wheres)
        masks: dict[Any, np.ndarray] = {}
        answers = []
        for vector, where in zip(vectors, wheres, strict=True):
            scores = self.scores(vector)
            if where is None:
                rows = np.arange(len(scores))
            else:
                key = (where.principal, where.active)
                if key not in masks:
                    masks[key] = self.mask(where)
                rows = np.flatnonzero(masks[key])
            answers.append([Hit(self._ids[r], float(scores[r])) for r in top_k(scores, rows, k)])
        return answers


class BatchUpdateFirstPage(ReferenceAdapter):
    """``update_metadata_batch`` looks the documents up with one metadata query of ``LOOKUP_PAGE`` rows (10,
    LanceDB's default ``limit`` when none is given) and rewrites those it found: the rest of a bulk grant or
    revoke is lost without an error, and a revoked document stays readable."""

    name = "defect-batch-update-first-page"
    LOOKUP_PAGE = 10

    def update_metadata_batch(self, updates: Mapping[str, Mapping[str, Any]]) -> None:
        found = [id for id in updates if id in self._row][: self.LOOKUP_PAGE]
        for id in found:
            self.update_metadata(id, updates[id])


class WriteOptions(ReferenceOptions):
    write_s: float = Field(0.25, ge=0, description="seconds each document's request takes")


class OneRequestPerDocument(ReferenceAdapter):
    """Upserts one document per request, each a round trip of ``write_s`` seconds (option, default 0.25): correct,
    and the scale tier's 5,000 documents would take most of an hour. The tier times its first writes and stops."""

    name = "defect-one-request-per-document"
    Options = WriteOptions
    options: WriteOptions

    def upsert(self, records: Sequence[Record]) -> None:
        for record in records:
            time.sleep(self.options.write_s)
            super().upsert([record])
