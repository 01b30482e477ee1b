"""The sweep's shared inputs: one set of dense vectors, and the exact answers every backend is judged by.

At scale the policy oracle cannot be a per-document Python loop, and the exact
filtered top-K cannot come from any backend under test. Both come from here:
``PolicyColumns.mask`` gives each case's eligible set as a boolean column, and a
matrix-vector product over the *same* float32 vectors every backend indexed gives
the exact filtered ranking, with ties broken by fixture order exactly as
``strategies.ranked_search`` breaks them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from filterproof.adapters.reference import top_k
from filterproof.columns import PolicyColumns
from filterproof.embedding import SvdSpace
from filterproof.fixtures import Fixture
from filterproof.policy import PolicyFilter
from filterproof.scale.generator import case_level
from filterproof.strategies import TIE_DIGITS

DEFAULT_DIM = 128


@dataclass
class CaseTruth:
    """What is true of one case, whatever the backend: its eligible set and its exact filtered top-K."""

    level: float
    mask: np.ndarray
    eligible: int
    relevant: np.ndarray
    authorized: frozenset[int]
    """R_A: relevant rows the principal may use."""
    expected: int | None
    exact: np.ndarray
    """The exact filtered ranking (rows, best first), as deep as the largest K."""
    exact_scores: np.ndarray
    available: int
    """Eligible rows with a positive score: a filtered strategy can return at most this many."""
    positive: int
    """Rows with a positive score, eligible or not (rank_only's ceiling)."""


@dataclass
class ScaleData:
    """A fixture, its shared vectors and per-case truths: the input of every backend run."""

    fixture: Fixture
    doc_vectors: np.ndarray
    query_vectors: np.ndarray
    filters: list[PolicyFilter]
    truths: list[CaseTruth]
    dim: int
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def levels(self) -> list[float]:
        return sorted({t.level for t in self.truths})


def nearest_level(fraction: float, grid: Sequence[float]) -> float:
    """For fixtures that were not generated: bucket a measured selectivity onto a log grid."""
    return min(grid, key=lambda g: abs(np.log10(max(fraction, 1e-9)) - np.log10(g)))


def exact_ranking(scores: np.ndarray, mask: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """The exact filtered top ``depth``: positive scores only, ties (to TIE_DIGITS) by row order."""
    rows = np.flatnonzero(mask & (scores > 0))
    rounded = np.round(scores.astype(np.float64), TIE_DIGITS)
    best = top_k(rounded, rows, depth)
    return best, rounded[best]


def prepare_scale(fixture: Fixture, depth: int, dim: int = DEFAULT_DIM, seed: int = 0,
                  levels: Sequence[float] | None = None,
                  tick: Callable[[str], None] | None = None) -> ScaleData:
    """Fit the dense space, compile every case's eligibility, and compute the exact filtered rankings."""
    tick = tick or (lambda _: None)
    timings: dict[str, float] = {}
    start = time.perf_counter()
    space = SvdSpace([d.text for d in fixture.documents], dim=dim, seed=seed)
    docs = space.documents()
    queries = space.queries([c.query for c in fixture.cases])
    timings["embed_s"] = time.perf_counter() - start
    tick("embedded")
    start = time.perf_counter()
    columns = PolicyColumns([d.metadata for d in fixture.documents])
    filters = [fixture.policy_filter(c) for c in fixture.cases]
    n = len(fixture.documents)
    grid = list(levels) if levels else [1e-4, 1e-3, 1e-2, 1e-1, 0.5]
    truths = []
    for i, case in enumerate(fixture.cases):
        mask = columns.mask(filters[i])
        scores = docs @ queries[i]
        exact, exact_scores = exact_ranking(scores, mask, depth)
        relevant = np.array([fixture.order[r] for r in case.relevant or ()], dtype=np.int64)
        eligible = int(mask.sum())
        level = case_level(case.id)
        truths.append(CaseTruth(
            level=level if level is not None else nearest_level(eligible / n, grid),
            mask=mask, eligible=eligible, relevant=relevant,
            authorized=frozenset(relevant[mask[relevant]].tolist()) if len(relevant) else frozenset(),
            expected=fixture.order[case.expected] if case.expected is not None else None,
            exact=exact, exact_scores=exact_scores,
            available=int(np.count_nonzero(mask & (scores > 0))), positive=int(np.count_nonzero(scores > 0)),
        ))
        tick("truth")
    timings["truth_s"] = time.perf_counter() - start
    return ScaleData(fixture, docs, queries, filters, truths, docs.shape[1], timings)


def recall_vs_exact(rows: Sequence[int], scores: np.ndarray, truth: CaseTruth, k: int) -> float | None:
    """Share of the exact filtered top K found, tie-aware: any eligible row scoring at least the
    K-th exact score counts (a different member of a tie is not a miss). None when nothing is eligible."""
    wanted = min(k, len(truth.exact))
    if wanted == 0:
        return None
    cut = truth.exact_scores[wanted - 1] - 10.0 ** -TIE_DIGITS
    found = sum(1 for r, s in zip(rows[:k], scores[:k], strict=True) if truth.mask[r] and s >= cut)
    return min(found, wanted) / wanted


def level_counts(data: ScaleData) -> dict[float, dict[str, float]]:
    """Per level: cases, and the measured eligible fraction (mean over cases)."""
    n = len(data.fixture.documents)
    out = {}
    for level in data.levels:
        eligible = [t.eligible for t in data.truths if t.level == level]
        out[level] = {"cases": len(eligible), "measured": float(np.mean(eligible)) / n}
    return out
