"""The exact filtered top-K of every case, computed in one pass over the corpus, chunk by chunk.

For each chunk of documents (their vectors and metadata as given) ``GroundTruth.add``
evaluates every case's policy over the chunk (``columns.PolicyColumns``, held equal
to the oracle in ``policy`` by the tests), scores the chunk against every query at
once, and merges the chunk's best eligible rows into each case's running top-K.
Nothing of size N x cases is kept but one bit per (case, document): what is eligible
(``Eligible``), which scoring and post-filtering ask about returned rows. At 1M
documents and 180 cases that is 22 MB, where boolean masks took 180 MB and the
corpus's metadata dicts, needed all at once to build them, several GB.

Exact scores are computed in float64 (``exact_scores``) and rounded to
``TIE_DIGITS``: float32 products differ in their last bit with the BLAS kernel and
the chunking (about 1 score in 70 once rounded, measured on 128-d unit vectors),
float64 ones do not, so the truth is the same whatever the chunk size, and scoring
recomputes the same value for the same row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, overload

import numpy as np

from filterproof.adapters.reference import top_k
from filterproof.evaluation.strategies import TIE_DIGITS
from filterproof.policy import ActiveRevisions, PolicyFilter, problem
from filterproof.policy.columns import PolicyColumns


def exact_scores(vectors: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """Cosines of unit rows against unit queries, float64, shape (queries, rows), rounded to TIE_DIGITS."""
    return np.round(np.asarray(queries, np.float64) @ np.asarray(vectors, np.float64).T, TIE_DIGITS)


class Eligible:
    """One case's eligible rows as packed bits: indexes like the boolean mask it replaces, in 1/8 of the memory."""

    def __init__(self, bits: np.ndarray, n: int, count: int) -> None:
        self.bits, self.n, self.count = bits, n, count

    @classmethod
    def of(cls, mask: np.ndarray) -> Eligible:
        mask = np.asarray(mask, dtype=bool)
        return cls(np.packbits(mask), len(mask), int(mask.sum()))

    def __len__(self) -> int:
        return self.n

    @overload
    def __getitem__(self, rows: int | np.integer[Any]) -> bool: ...

    @overload
    def __getitem__(self, rows: np.ndarray | Sequence[int]) -> np.ndarray: ...

    def __getitem__(self, rows: int | np.integer[Any] | np.ndarray | Sequence[int]) -> bool | np.ndarray:
        if isinstance(rows, int | np.integer):
            if not 0 <= rows < self.n:
                raise IndexError(f"row {rows} out of range for {self.n} documents")
            return bool((self.bits[rows >> 3] >> (7 - (rows & 7))) & 1)
        at = np.asarray(rows, dtype=np.int64)
        if at.size and (at.min() < 0 or at.max() >= self.n):
            raise IndexError(f"rows out of range for {self.n} documents")
        return ((self.bits[at >> 3] >> (7 - (at & 7))) & 1).astype(bool)

    def sum(self) -> int:
        """How many rows are eligible (as ``mask.sum()`` said)."""
        return self.count

    def mask(self) -> np.ndarray:
        """The boolean mask (N bytes: for small fixtures and tests)."""
        return np.unpackbits(self.bits, count=self.n).astype(bool)

    def rows(self) -> np.ndarray:
        return np.flatnonzero(self.mask())


class GroundTruth:
    """Accumulates, chunk by chunk, every case's eligible bits, exact filtered top ``depth`` and counts."""

    def __init__(self, n: int, filters: Sequence[PolicyFilter], queries: np.ndarray, depth: int) -> None:
        self.n, self.filters, self.depth = n, list(filters), depth
        self.queries = np.asarray(queries, dtype=np.float32)
        cases = len(self.filters)
        self.bits = np.zeros((cases, (n + 7) // 8), dtype=np.uint8)
        self.eligible = np.zeros(cases, dtype=np.int64)
        self.available = np.zeros(cases, dtype=np.int64)
        self.positive = np.zeros(cases, dtype=np.int64)
        self.best_rows = [np.zeros(0, dtype=np.int64) for _ in range(cases)]
        self.best_scores = [np.zeros(0, dtype=np.float64) for _ in range(cases)]
        self.malformed: dict[str, str] = {}
        """Document id -> why it can never be eligible, in row order (``Fixture.malformed``, found on the way)."""
        self.seen = 0

    def add(self, start: int, ids: Sequence[str], vectors: np.ndarray, metadata: Sequence[Mapping[str, Any]],
            active: ActiveRevisions) -> None:
        """Rows ``start`` to ``start + len(ids)``, in order: chunks must come in order, each starting on a byte."""
        if start != self.seen or start % 8:
            raise ValueError(f"chunk at row {start}: expected row {self.seen}, a multiple of 8")
        self.seen += len(ids)
        if not ids:
            return
        columns = PolicyColumns(metadata)
        self._note_malformed(columns, ids, metadata, active)
        raw = np.asarray(self.queries, np.float64) @ np.asarray(vectors, np.float64).T
        positive = raw > 0
        scores = np.round(raw, TIE_DIGITS)
        self.positive += positive.sum(axis=1)
        for i, where in enumerate(self.filters):
            mask = columns.mask(where)
            self.bits[i, start // 8:start // 8 + (len(ids) + 7) // 8] = np.packbits(mask)
            self.eligible[i] += int(mask.sum())
            rows = np.flatnonzero(mask & positive[i])
            self.available[i] += len(rows)
            best = top_k(scores[i], rows, self.depth)
            if len(best):
                self._merge(i, best + start, scores[i][best])

    def _merge(self, i: int, rows: np.ndarray, scores: np.ndarray) -> None:
        """Keep the best ``depth`` of the running list and the chunk's: score first, then row order (ties)."""
        rows = np.concatenate([self.best_rows[i], rows])
        scores = np.concatenate([self.best_scores[i], scores])
        keep = np.lexsort((rows, -scores))[:self.depth]
        self.best_rows[i], self.best_scores[i] = rows[keep], scores[keep]

    def _note_malformed(self, columns: PolicyColumns, ids: Sequence[str], metadata: Sequence[Mapping[str, Any]],
                        active: ActiveRevisions) -> None:
        """Ask the oracle why, for the rows the columns could not judge or whose key the map lacks."""
        present = np.zeros(len(columns.keys.index) + 1, dtype=bool)  # the last slot answers key -1 (malformed)
        for key, code in columns.keys.index.items():
            present[code] = key in active
        for row in np.flatnonzero(~columns.wellformed | ~present[columns.key]).tolist():
            why = problem(metadata[row], active)
            if why:
                self.malformed[ids[row]] = why

    def case(self, i: int) -> tuple[Eligible, np.ndarray, np.ndarray, int, int]:
        """Case ``i`` once every chunk is in: (eligible, exact rows, exact scores, available, positive)."""
        if self.seen != self.n:
            raise ValueError(f"ground truth incomplete: {self.seen} of {self.n} rows seen")
        eligible = Eligible(self.bits[i], self.n, int(self.eligible[i]))
        return eligible, self.best_rows[i], self.best_scores[i], int(self.available[i]), int(self.positive[i])
