"""The reference adapter: exact cosine search in memory, the oracle for every other store.

Small on purpose, and public so that users can test their own code against it:

    >>> import numpy as np
    >>> from filterproof.adapters.base import Record
    >>> store = ReferenceAdapter()
    >>> store.reset(2)
    >>> store.upsert([Record("a", np.array([1.0, 0.0], dtype=np.float32), {})])
    >>> store.search(np.array([1.0, 0.0], dtype=np.float32), 5, None)
    [Hit(id='a', score=1.0)]

Search is one matrix-vector product (sparse when the vectors are, as exact TF-IDF
vectors are) and one partial sort; the native filter is ``PolicyColumns.mask``,
numpy masks over columns built once after each change.

Its second client (``open_reader``) is another object over the same memory, in this
process only: every change is visible to it at once (``staleness_bound_s=0``).
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy import sparse

from filterproof.adapters.base import AdapterBase, Capabilities, Hit, ReaderSpec, Record, checked_vector
from filterproof.adapters.locking import locked
from filterproof.adapters.options import RevisionOption
from filterproof.adapters.searchpath import SearchPath
from filterproof.embedding.spaces import unit_rows
from filterproof.errors import NoSecondClient
from filterproof.policy import ActiveRevisions, PolicyFilter
from filterproof.policy.columns import PolicyColumns

SPARSE_BELOW = 0.05
"""Stored vectors denser than this share of non-zeros are searched as a dense matrix."""


def top_k(scores: np.ndarray, rows: np.ndarray, k: int) -> np.ndarray:
    """The k best of ``rows`` by score, ties by row order (earlier first)."""
    if k <= 0:
        return rows[:0]
    if len(rows) > k:
        cut = np.partition(scores[rows], len(rows) - k)[len(rows) - k]
        rows = rows[scores[rows] >= cut]
    order = np.lexsort((rows, -scores[rows]))
    return rows[order][:k]


def owned_copy(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The oracle's own copy of a document's metadata, nested lists included: a caller that changes a ``groups``
    list after ``upsert`` (as a store of Python objects might let it) must not change what the oracle admits."""
    return copy.deepcopy(dict(metadata))


class ReferenceOptions(RevisionOption):
    """``reference``: ``revision=flag`` decides the revision clause from the map last given to
    ``set_active_revisions`` (a stored flag's semantics), ``query`` from each query's map."""


class ReferenceAdapter(AdapterBase):
    name = "reference"
    Options = ReferenceOptions
    options: ReferenceOptions
    capabilities = Capabilities(native_filter=True, exact=True, persistent=False, lifecycle=True,
                                staleness_bound_s=0.0, search_path="exact scan")
    native = False

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self._lock = threading.RLock()
        self._clear(0)

    def _clear(self, dim: int) -> None:
        self._dim = dim
        self._ids: list[str] = []
        self._row: dict[str, int] = {}
        self._vectors: list[np.ndarray] = []
        self._metadata: list[Mapping[str, Any]] = []
        self._matrix: np.ndarray | sparse.csr_matrix | None = None
        self._columns: PolicyColumns | None = None

    def reset(self, dim: int) -> None:
        self._clear(dim)

    def _changed(self) -> None:
        self._matrix, self._columns = None, None

    @locked
    def upsert(self, records: Sequence[Record]) -> None:
        for record in records:
            vector = checked_vector(record.vector, self._dim, record.id)  # a copy: the caller may reuse its array
            row = self._row.get(record.id)
            if row is None:
                self._row[record.id] = len(self._ids)
                self._ids.append(record.id)
                self._vectors.append(vector)
                self._metadata.append(owned_copy(record.metadata))
            else:
                self._vectors[row], self._metadata[row] = vector, owned_copy(record.metadata)
        self._changed()

    @locked
    def delete(self, ids: Sequence[str]) -> None:
        gone = {i for i in ids if i in self._row}
        keep = [r for r, i in enumerate(self._ids) if i not in gone]
        self._ids = [self._ids[r] for r in keep]
        self._vectors = [self._vectors[r] for r in keep]
        self._metadata = [self._metadata[r] for r in keep]
        self._row = {i: r for r, i in enumerate(self._ids)}
        self._changed()

    @locked
    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        if id in self._row:
            self._metadata[self._row[id]] = owned_copy(metadata)
            self._changed()

    def scores(self, vector: np.ndarray) -> np.ndarray:
        if self._matrix is None:
            stacked = np.vstack(self._vectors) if self._vectors else np.zeros((0, self._dim), np.float32)
            self._matrix = unit_rows(stacked)
            # Exact TF-IDF rows are almost all zeros: a sparse product reads only the weights.
            if stacked.size and np.count_nonzero(stacked) < SPARSE_BELOW * stacked.size:
                self._matrix = sparse.csr_matrix(self._matrix)
        query = unit_rows(checked_vector(vector, self._dim, "query")[None, :])[0]
        return np.asarray(self._matrix @ query).ravel()

    def mask(self, where: PolicyFilter) -> np.ndarray:
        if self._columns is None:
            self._columns = PolicyColumns(self._metadata)
        if self.options.revision == "flag":
            return self._columns.mask(where, current=self._columns.current(self.active))
        return self._columns.mask(where)

    @locked
    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        scores = self.scores(vector)
        rows = np.flatnonzero(self.mask(where)) if where is not None else np.arange(len(scores))
        return [Hit(self._ids[r], float(scores[r])) for r in top_k(scores, rows, k)]

    def explain(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> SearchPath:
        return SearchPath("exact scan", "every row scored (numpy), the filter a mask over all rows")

    def close(self) -> None:
        self._changed()

    def open_reader(self) -> ReferenceReader:
        return ReferenceReader(self)

    def reader_spec(self) -> ReaderSpec:
        raise NoSecondClient(f"{self.name} keeps its store in this process's memory: no reader in another process")

    def open_writer(self) -> ReferenceWriter:
        return ReferenceWriter(self)

    def writer_spec(self) -> ReaderSpec:
        raise NoSecondClient(f"{self.name} keeps its store in this process's memory: no writer in another process")


class ReferenceReader:
    """The reference's second client: the same memory, searched through another object."""

    name = "reference-reader"

    def __init__(self, store: ReferenceAdapter) -> None:
        self._store: ReferenceAdapter | None = store

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        if self._store is None:
            raise RuntimeError("reference-reader: closed")
        return self._store.search(vector, k, where)

    def close(self) -> None:
        self._store = None


class ReferenceWriter:
    """The reference's second writer: the same memory, written and searched through another object (each call the
    store's, under the store's lock); closing it leaves the store."""

    name = "reference-writer"

    def __init__(self, store: ReferenceAdapter) -> None:
        self._store = store
        self.capabilities = store.capabilities

    def reset(self, dim: int) -> None:
        raise NoSecondClient(f"{self.name}: a second writer does not reset the store; the first one does")

    def upsert(self, records: Sequence[Record]) -> None:
        self._store.upsert(records)

    def delete(self, ids: Sequence[str]) -> None:
        self._store.delete(ids)

    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        self._store.update_metadata(id, metadata)

    def set_active_revisions(self, active: ActiveRevisions) -> None:
        self._store.set_active_revisions(active)

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        return self._store.search(vector, k, where)

    def close(self) -> None:
        """The store is the first writer's: nothing to release."""
