"""Defects of a client written by one thread while others search it: right from one thread, and right while
threads only search; wrong when a write runs in the middle of a search. ``WrittenWhileSearchedChecks`` fails each;
no other check writes through a client while another thread searches it (a second client, ``DuringChangeChecks``,
accepts an answer that was once true, and an empty one).

A round trip (``ROUND_TRIP_S``) lies between a search's statement and its rows, as a client waits on its server.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from filterproof.adapters.base import Hit, Record
from filterproof.adapters.reference import ReferenceAdapter
from filterproof.conformance.defects.steps import ROUND_TRIP_S
from filterproof.policy import ActiveRevisions, PolicyFilter

Key = tuple[bytes, int, PolicyFilter | None]


class CachesAnswers(ReferenceAdapter):
    """A result cache in front of the store, dropped by every write (a look-aside cache): a search stores the answer
    it computed once it is back from the store, a round trip later, even when a write dropped the cache meanwhile.
    Every later search is then answered as the store stood before that write, until the next write."""

    name = "defect-caches-answers"

    def _clear(self, dim: int) -> None:
        super()._clear(dim)
        self._answers: dict[Key, list[Hit]] = {}

    def _changed(self) -> None:  # every write ends here, under the store's lock
        super()._changed()
        self._answers = {}

    def set_active_revisions(self, active: ActiveRevisions) -> None:
        with self._lock:
            super().set_active_revisions(active)
            self._changed()

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        key = (np.asarray(vector, dtype=np.float32).tobytes(), k, where)
        if (cached := self._answers.get(key)) is not None:
            return list(cached)
        hits = super().search(vector, k, where)
        time.sleep(ROUND_TRIP_S)  # the answer travels back from the store
        self._answers[key] = hits
        return list(hits)


class LocksSearchesOnly(ReferenceAdapter):
    """One connection whose last statement's rows are read after it runs (``execute``, then ``fetchall``), with a
    lock around searches only (two searches once answered each other's rows): a write runs its statement on the
    same connection in the middle of a search, and the search fetches the write's rows, none."""

    name = "defect-locks-searches-only"

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self._searching = threading.Lock()
        self._rows: list[Hit] = []

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        with self._searching:
            self._rows = super().search(vector, k, where)  # execute
            time.sleep(ROUND_TRIP_S)  # the rows come back from the store
            return list(self._rows)  # fetchall

    def upsert(self, records: Sequence[Record]) -> None:
        self._rows = []  # the write's statement returns no rows
        super().upsert(records)

    def delete(self, ids: Sequence[str]) -> None:
        self._rows = []
        super().delete(ids)

    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        self._rows = []
        super().update_metadata(id, metadata)
