"""Documents an adapter refused as beyond its engine's limits: why, and their vectors.

An engine that cannot hold a document does not always say so gracefully: Chroma 1.5.9
breaks the whole collection for good, PostgreSQL rolls the whole batch back
(``bench/results/engine_limits.txt``). So an adapter checks each document against its
engine's measured limits before the write, and a document past them is refused: it is
not written, an earlier version of it is deleted (a stale revision must not answer),
and it is reported through ``not_indexable()`` (``adapters.base.Refusing``). Its vector
is kept, so that an ``update_metadata`` that brings it within the limits writes it
after all, as the update of a stored document would.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


class Refusals:
    """Refused documents by id: the reason given, and the vector kept for a later update."""

    def __init__(self) -> None:
        self.reasons: dict[str, str] = {}
        self._vectors: dict[str, np.ndarray] = {}

    def refuse(self, doc_id: str, vector: np.ndarray, why: str) -> None:
        self.reasons[doc_id], self._vectors[doc_id] = why, vector

    def forget(self, ids: Iterable[str]) -> None:
        """Written after all, or deleted: no longer refused."""
        for doc_id in ids:
            self.reasons.pop(doc_id, None)
            self._vectors.pop(doc_id, None)

    def vector(self, doc_id: str) -> np.ndarray | None:
        return self._vectors.get(doc_id)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self.reasons

    def clear(self) -> None:
        self.reasons, self._vectors = {}, {}
