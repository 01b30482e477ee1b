"""Defects of a second client: a reader that caches answers, one that refreshes every few seconds while its
store declares that every change is visible at once (``staleness_bound_s=0``), and one that never opens (its
checks skip: ``--conformance-require reader`` makes that a failure).

Both are the reference with a reader of its own, in this process only (the reference
keeps its store in memory); ``tests/conformance/test_across_clients.py`` has LanceDB's real reader,
across processes, with the same defect as the second.
"""

from __future__ import annotations

import time

import numpy as np

from filterproof.adapters.base import Hit, Record
from filterproof.adapters.reference import ReferenceAdapter
from filterproof.adapters.reference.store import ReferenceReader
from filterproof.errors import NoSecondClient
from filterproof.policy import PolicyFilter

REFRESH_S = 3.0


class CachingReader:
    """Answers each (vector, k, filter) once, and from memory ever after."""

    name = "caching-reader"

    def __init__(self, store: ReferenceAdapter) -> None:
        self._store = store
        self._cache: dict[tuple[bytes, int, PolicyFilter | None], list[Hit]] = {}

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        key = (np.asarray(vector, dtype=np.float32).tobytes(), k, where)
        if key not in self._cache:
            self._cache[key] = self._store.search(vector, k, where)
        return self._cache[key]

    def close(self) -> None:
        self._cache.clear()


class ReaderCachesResults(ReferenceAdapter):
    """Its reader caches query results and never learns of a write (an API replica's result cache)."""

    name = "defect-reader-caches-results"

    def open_reader(self) -> CachingReader:
        return CachingReader(self)


class SnapshotReader:
    """A copy of the store, taken when opened and again whenever ``REFRESH_S`` seconds have passed."""

    name = "snapshot-reader"

    def __init__(self, store: ReferenceAdapter) -> None:
        self._store, self._taken = store, 0.0
        self._copy = ReferenceAdapter(store.options)
        self._refresh()

    def _refresh(self) -> None:
        store, copy = self._store, self._copy
        copy.reset(store._dim)
        copy.upsert([Record(i, v, m) for i, v, m in zip(store._ids, store._vectors, store._metadata, strict=True)])
        copy.set_active_revisions(store.active)
        self._taken = time.monotonic()

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        if time.monotonic() - self._taken >= REFRESH_S:
            self._refresh()
        return self._copy.search(vector, k, where)

    def close(self) -> None:
        self._copy.close()


class ReaderRefreshesLate(ReferenceAdapter):
    """Its reader sees the store as of its last refresh, every ``REFRESH_S`` seconds, while the store declares
    ``staleness_bound_s=0`` (a replica's snapshot, an index reloaded on a timer)."""

    name = "defect-reader-refreshes-late"

    def open_reader(self) -> SnapshotReader:
        return SnapshotReader(self)


class ReaderNeverOpens(ReferenceAdapter):
    """Its reader refuses to open as if the store had none (``NoSecondClient``), though it has one: a claim lost,
    as in a reader path whose check that the writer was reset is written the wrong way round. Every check it
    still runs passes; the reader's check skips, and fails under ``--conformance-require reader``."""

    name = "defect-reader-never-opens"

    def open_reader(self) -> ReferenceReader:
        raise NoSecondClient(f"{self.name}: call reset(dim) before opening a reader")
