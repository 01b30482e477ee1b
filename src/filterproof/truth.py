"""Prepare a fixture: shared vectors, and for every case what is true whatever the backend.

``prepare`` is the first step of every run (``compare``, ``sweep``, the conformance
suite): it embeds the fixture once (every backend indexes exactly these vectors),
evaluates the policy for every case as a boolean column over the documents
(``columns.PolicyColumns``, which the tests hold equal to the oracle in ``policy``),
and computes the exact filtered ranking from the same float32 vectors, with ties
broken by fixture order as ``strategies.ranked_search`` breaks them. Backends are
judged against these truths, never against each other.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from filterproof.adapters.reference import top_k
from filterproof.columns import PolicyColumns
from filterproof.embedding import Embedding, SvdSpace, TfidfSpace
from filterproof.fixtures import Case, Fixture
from filterproof.policy import PolicyFilter
from filterproof.strategies import TIE_DIGITS

EmbeddingKind = Literal["tfidf", "svd"]
DEFAULT_SVD_DIM = 128
LEVEL_GRID = (1e-4, 1e-3, 1e-2, 1e-1, 0.5)
"""Selectivity buckets for cases whose fixture does not say their level (measured share, nearest on a log scale)."""


def embed(fixture: Fixture, kind: EmbeddingKind = "tfidf", dim: int = DEFAULT_SVD_DIM, seed: int = 0) -> Embedding:
    """Exact TF-IDF (one dimension per term: exact seed scores) or TF-IDF + TruncatedSVD (dense, ``dim``)."""
    texts = [d.text for d in fixture.documents]
    return TfidfSpace(texts) if kind == "tfidf" else SvdSpace(texts, dim=dim, seed=seed)


@dataclass
class CaseTruth:
    """One case's eligibility and exact answers, as rows of the fixture's documents."""

    case: Case
    filter: PolicyFilter
    mask: np.ndarray
    """Eligible rows (the policy's answer for this principal and date)."""
    acceptable: list[str]
    """Ids a top-1 answer may be; empty: the case must abstain."""
    relevant: np.ndarray
    authorized: frozenset[int]
    """R_A: relevant rows the principal may use."""
    exact: np.ndarray
    """The exact filtered ranking (rows, best first), as deep as the largest K."""
    exact_scores: np.ndarray
    available: int
    """Eligible rows with a positive score: what a filtered strategy can return at most."""
    positive: int
    """Rows with a positive score, eligible or not: what rank_only can return at most."""
    level: float
    """The share of the corpus this principal may use: as generated, or measured and bucketed."""

    @property
    def eligible(self) -> int:
        return int(self.mask.sum())


@dataclass
class Prepared:
    """A fixture with its shared vectors and per-case truths: the input of every backend run."""

    fixture: Fixture
    embedding: Embedding
    doc_vectors: np.ndarray
    query_vectors: np.ndarray
    truths: list[CaseTruth]
    embedding_kind: EmbeddingKind = "tfidf"
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def dim(self) -> int:
        return int(self.doc_vectors.shape[1])

    @property
    def filters(self) -> list[PolicyFilter]:
        return [t.filter for t in self.truths]

    @property
    def levels(self) -> list[float]:
        return sorted({t.level for t in self.truths})

    def eligible_ids(self, i: int) -> set[str]:
        """The policy's eligible set of case ``i`` as ids (for messages and congruence)."""
        docs = self.fixture.documents
        return {docs[r].id for r in np.flatnonzero(self.truths[i].mask)}


def nearest_level(fraction: float, grid: Sequence[float] = LEVEL_GRID) -> float:
    """Bucket a measured selectivity onto a log grid."""
    return min(grid, key=lambda g: abs(np.log10(max(fraction, 1e-9)) - np.log10(g)))


def exact_ranking(scores: np.ndarray, mask: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """The exact filtered top ``depth``: positive scores only, ties (to TIE_DIGITS) by row order."""
    rows = np.flatnonzero(mask & (scores > 0))
    rounded = np.round(scores.astype(np.float64), TIE_DIGITS)
    best = top_k(rounded, rows, depth)
    return best, rounded[best]


def prepare(fixture: Fixture, depth: int = 10, embedding: EmbeddingKind | Embedding = "tfidf",
            dim: int = DEFAULT_SVD_DIM, levels: Sequence[float] | None = None,
            tick: Callable[[], None] | None = None) -> Prepared:
    """Embed the fixture, compile every case's eligibility, and compute the exact filtered rankings.

    ``depth`` is how deep the exact rankings go (the largest K); ``levels`` gives each
    case's requested selectivity (generated corpora), else it is measured.
    """
    timings: dict[str, float] = {}
    start = time.perf_counter()
    kind: EmbeddingKind = embedding if isinstance(embedding, str) else "tfidf"
    space = embed(fixture, embedding, dim) if isinstance(embedding, str) else embedding
    docs = space.documents()
    queries = space.queries([c.query for c in fixture.cases])
    timings["embed_s"] = time.perf_counter() - start
    start = time.perf_counter()
    columns = PolicyColumns([d.metadata for d in fixture.documents])
    n = len(fixture.documents)
    truths = []
    for i, case in enumerate(fixture.cases):
        flt = fixture.policy_filter(case)
        mask = columns.mask(flt)
        scores = docs @ queries[i]
        exact, exact_scores = exact_ranking(scores, mask, depth)
        relevant = np.array([fixture.order[r] for r in case.relevant or ()], dtype=np.int64)
        eligible = {fixture.documents[r].id for r in relevant[mask[relevant]]} if case.relevant else set()
        level = levels[i] if levels is not None else nearest_level(float(mask.sum()) / max(n, 1))
        truths.append(CaseTruth(
            case=case, filter=flt, mask=mask,
            acceptable=fixture.acceptable(case, eligible),
            relevant=relevant,
            authorized=frozenset(relevant[mask[relevant]].tolist()) if len(relevant) else frozenset(),
            exact=exact, exact_scores=exact_scores,
            available=int(np.count_nonzero(mask & (scores > 0))), positive=int(np.count_nonzero(scores > 0)),
            level=level,
        ))
        if tick is not None:
            tick()
    timings["truth_s"] = time.perf_counter() - start
    return Prepared(fixture, space, docs, queries, truths, kind, timings)


def recall_vs_exact(rows: Sequence[int], scores: np.ndarray, truth: CaseTruth, k: int) -> float | None:
    """Share of the exact filtered top K found, tie-aware: any eligible row scoring at least the
    K-th exact score counts (a different member of a tie is not a miss). None when nothing is eligible."""
    wanted = min(k, len(truth.exact))
    if wanted == 0:
        return None
    cut = truth.exact_scores[wanted - 1] - 10.0 ** -TIE_DIGITS
    found = sum(1 for r, s in zip(rows[:k], scores[:k], strict=True) if truth.mask[r] and s >= cut)
    return min(found, wanted) / wanted
