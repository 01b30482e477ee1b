"""Defects of a client that keeps a call's arguments on itself between two steps: right from one thread, wrong
when the threads that serve requests share it. ``SharedClientChecks`` fails each; no other check calls one client
from two threads (measured: both pass the rest of the suite)."""

from __future__ import annotations

import numpy as np

from filterproof.adapters.base import Hit
from filterproof.adapters.reference import ReferenceAdapter
from filterproof.adapters.reference.store import top_k
from filterproof.policy import PolicyFilter


class KeepsFilterOnClient(ReferenceAdapter):
    """Compiles the call's filter into an attribute, scores, then filters by the attribute (a prepared filter kept
    on the client, a retriever's ``search_kwargs`` set per request): a call that overlaps another runs under the
    other's filter, another tenant's documents included."""

    name = "defect-keeps-filter-on-client"

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        self.prepared = where  # the client's attribute: every caller's, lock or no lock
        with self._lock:
            scores = self.scores(vector)
            rows = np.flatnonzero(self.mask(self.prepared)) if self.prepared is not None else np.arange(len(scores))
            return [Hit(self._ids[r], float(scores[r])) for r in top_k(scores, rows, k)]


class KeepsQueryOnClient(ReferenceAdapter):
    """Keeps the call's query vector on the client while it builds the filter's mask, then scores the attribute:
    a call that overlaps another ranks its own documents by the other's question."""

    name = "defect-keeps-query-on-client"

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        self.query = vector  # the client's attribute: every caller's, lock or no lock
        with self._lock:
            rows = np.flatnonzero(self.mask(where)) if where is not None else np.arange(len(self._ids))
            scores = self.scores(self.query)
            return [Hit(self._ids[r], float(scores[r])) for r in top_k(scores, rows, k)]
