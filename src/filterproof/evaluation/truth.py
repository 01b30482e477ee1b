"""Prepare a fixture: shared vectors, and for every case what is true whatever the backend.

``prepare`` is the first step of every run (``compare``, ``sweep``, the conformance
suite): it takes the vectors ``embedders.choose`` picks (the fixture's own, a user's
embedding function, or filterproof's TF-IDF or SVD fitted on every document or on a
seeded sample of a large corpus), embeds every document once (every backend indexes
exactly these vectors),
and computes every case's eligibility and exact filtered ranking in one pass over
the documents in chunks (``groundtruth``), with ties broken by fixture order as
``strategies.ranked_search`` breaks them. Backends are judged against these truths,
never against each other.

One path serves a loaded fixture (its chunks are slices of its list) and a generated
corpus (its chunks are built from columns and dropped, ``scale.corpus``). What
``Prepared`` holds for N documents and C cases: the float32 vectors (N x dim x 4
bytes), one bit per document and case, and per case its top-K; never the texts, the
metadata dicts or a TF-IDF matrix of the whole corpus.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np

from filterproof.embedding.embedders import Request, VectorRequest, choose
from filterproof.embedding.embedders import embed as embed  # re-exported: where they lived before embedders
from filterproof.embedding.embedders import fit_rows as fit_rows
from filterproof.embedding.embedders import sampled as sampled
from filterproof.embedding.spaces import Embedding
from filterproof.evaluation.groundtruth import Eligible, GroundTruth, exact_scores
from filterproof.evaluation.strategies import TIE_DIGITS
from filterproof.evaluation.vector_file import VectorFile
from filterproof.fixtures import Case, Fixture
from filterproof.fixtures.chunks import chunks
from filterproof.policy import PolicyFilter

EmbeddingKind = Literal["tfidf", "svd"]
"""filterproof's own embeddings; ``Prepared.embedding_kind`` also says ``fixture`` or ``embedding:module:callable``."""
DEFAULT_SVD_DIM = 128
DEFAULT_FIT_SAMPLE = 100_000
"""Documents the embedding is fitted on (a seeded sample of larger corpora; 0: all of them).

At 100k the fit holds ~0.7 GB at its peak (the randomized SVD's float64 working
matrices, N x 138 each); at 1M it held ~5 GB. Fitted on a sample, every document is
then embedded with the fitted vocabulary, idf and components (``transform``)."""
CHUNK_BYTES = 32 << 20
"""Size of one chunk's float64 vectors in the ground-truth pass: 32,768 rows of 128-d."""
LEVEL_GRID = (1e-4, 1e-3, 1e-2, 1e-1, 0.5)
"""Selectivity buckets for cases whose fixture does not say their level (measured share, nearest on a log scale)."""

Progress = Callable[[str, int, int], None]
"""(phase, units done since the last call, units in the phase): ``embedding fit`` (one unit), then
``embedding + ground truth`` (documents)."""


def _no_progress(phase: str, done: int, total: int) -> None:
    """No progress display."""


def chunk_rows(dim: int) -> int:
    """Rows per chunk for vectors of ``dim``: CHUNK_BYTES of float64, a multiple of 8 (the eligible bits' bytes)."""
    return max(8, CHUNK_BYTES // (8 * max(dim, 1)) // 8 * 8)


@dataclass
class CaseTruth:
    """One case's eligibility and exact answers, as rows of the fixture's documents."""

    case: Case
    filter: PolicyFilter
    mask: Eligible
    """Eligible rows (the policy's answer for this principal and date): ``mask[row]``, packed bits."""
    acceptable: list[str]
    """Ids a top-1 answer may be; empty: the case must abstain."""
    relevant: np.ndarray
    authorized: frozenset[int]
    """R_A: relevant rows the principal may use."""
    authorized_ids: frozenset[str]
    """R_A as ids."""
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
        return self.mask.count


@dataclass
class Prepared:
    """A fixture with its shared vectors and per-case truths: the input of every backend run."""

    fixture: Fixture
    embedding: Embedding
    doc_vectors: np.ndarray
    """Float32 rows, in memory or a ``vectors.VectorFile`` (read by slices and rows like an array)."""
    query_vectors: np.ndarray
    truths: list[CaseTruth]
    embedding_kind: str = "tfidf"
    """Which vectors: ``tfidf``, ``svd``, ``fixture`` (its own) or ``embedding:<module>:<callable>``."""
    timings: dict[str, float] = field(default_factory=dict)
    malformed: dict[str, str] = field(default_factory=dict)
    """Document id -> why it can never be eligible (``Fixture.malformed``), found by the same pass."""
    fit_sample: int | None = None
    """How many documents the embedding was fitted on, when a sample (None: all of them)."""

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
        return {docs[int(r)].id for r in self.truths[i].mask.rows()}


def nearest_level(fraction: float, grid: Sequence[float] = LEVEL_GRID) -> float:
    """Bucket a measured selectivity onto a log grid."""
    return min(grid, key=lambda g: abs(np.log10(max(fraction, 1e-9)) - np.log10(g)))


def prepare(fixture: Fixture, depth: int = 10, embedding: Request | VectorRequest = None,
            dim: int = DEFAULT_SVD_DIM, levels: Sequence[float] | None = None,
            progress: Progress = _no_progress, fit_sample: int = DEFAULT_FIT_SAMPLE,
            vectors_on_disk: bool = False, vectors_dir: str | Path | None = None) -> Prepared:
    """Embed the fixture, compile every case's eligibility, and compute the exact filtered rankings.

    ``depth`` is how deep the exact rankings go (the largest K); ``levels`` gives each
    case's requested selectivity (generated corpora), else it is measured.
    ``embedding`` says which vectors (``embedders``; None: the fixture's own, else
    TF-IDF). TF-IDF and SVD are fitted on every document, or on a seeded sample of
    ``fit_sample`` documents when there are more (0: always every document); a given
    ``Embedding`` is used as it is. ``vectors_on_disk``: the documents' vectors go to a
    temporary file (``vectors.VectorFile``, in ``vectors_dir``) instead of memory.
    """
    timings: dict[str, float] = {}
    n = len(fixture.documents)
    start = time.perf_counter()
    choice = choose(fixture, embedding, dim, fit_sample)
    space = choice.space
    queries = space.queries([c.query for c in fixture.cases])  # first: a user's function tells its dimension
    # The fit's own vectors are the documents' (as always), or the fixture's; else embed chunk by chunk.
    fitted = None if choice.streamed else space.documents()
    doc_vectors: np.ndarray | VectorFile
    if vectors_on_disk:
        doc_vectors = VectorFile(n, space.dim, vectors_dir)
    else:
        doc_vectors = fitted if fitted is not None else np.empty((n, space.dim), dtype=np.float32)
    timings["fit_s"] = time.perf_counter() - start
    progress("embedding fit", 1, 1)
    truth = GroundTruth(n, [fixture.policy_filter(c) for c in fixture.cases], queries, depth)
    spent = {"read_s": 0.0, "embed_s": timings["fit_s"], "truth_s": 0.0}
    clock = time.perf_counter()
    for chunk in chunks(fixture, chunk_rows(space.dim), texts=fitted is None):
        spent["read_s"] += time.perf_counter() - clock
        clock = time.perf_counter()
        if fitted is None:
            assert chunk.texts is not None
            vectors = space.transform(chunk.texts)
            spent["embed_s"] += time.perf_counter() - clock
            clock = time.perf_counter()
        else:
            vectors = fitted[chunk.start:chunk.stop]
        if isinstance(doc_vectors, VectorFile):
            doc_vectors.append(chunk.start, vectors)
        elif fitted is None:
            doc_vectors[chunk.start:chunk.stop] = vectors
        truth.add(chunk.start, chunk.ids, vectors, chunk.metadata, fixture.active)
        spent["truth_s"] += time.perf_counter() - clock
        progress("embedding + ground truth", len(chunk), n)
        clock = time.perf_counter()
    timings.update(spent)
    truths = [case_truth(fixture, i, case, truth, levels) for i, case in enumerate(fixture.cases)]
    return Prepared(fixture, space, doc_vectors, queries, truths, choice.label, timings, truth.malformed,
                    choice.fit_sample)


def case_truth(fixture: Fixture, i: int, case: Case, truth: GroundTruth, levels: Sequence[float] | None) -> CaseTruth:
    """Case ``i``'s truth, once the pass is complete: eligibility, answers, relevant and authorized rows."""
    mask, exact, scores, available, positive = truth.case(i)
    relevant = np.array([fixture.order[r] for r in case.relevant or ()], dtype=np.int64)
    usable = mask[relevant] if len(relevant) else np.zeros(0, dtype=bool)
    eligible = {doc_id for doc_id, ok in zip(case.relevant or (), usable.tolist(), strict=True) if ok}
    n = len(fixture.documents)
    return CaseTruth(
        case=case, filter=truth.filters[i], mask=mask, acceptable=fixture.acceptable(case, eligible),
        relevant=relevant, authorized=frozenset(relevant[usable].tolist()), authorized_ids=frozenset(eligible),
        exact=exact, exact_scores=scores,
        available=available, positive=positive,
        level=levels[i] if levels is not None else nearest_level(mask.count / max(n, 1)),
    )


def rescore(prepared: Prepared, query: int, rows: Sequence[int]) -> np.ndarray:
    """The exact scores of ``rows`` for case ``query``, computed as the ground truth computes them."""
    if not len(rows):
        return np.zeros(0)
    vectors = prepared.doc_vectors[np.asarray(rows, dtype=np.int64)]
    return exact_scores(vectors, prepared.query_vectors[query][None, :])[0]


def recall_vs_exact(rows: Sequence[int], scores: np.ndarray, truth: CaseTruth, k: int) -> float | None:
    """Share of the exact filtered top K found, tie-aware: any eligible row scoring at least the
    K-th exact score counts (a different member of a tie is not a miss). None when nothing is eligible."""
    wanted = min(k, len(truth.exact))
    if wanted == 0:
        return None
    cut = truth.exact_scores[wanted - 1] - 10.0 ** -TIE_DIGITS
    found = sum(1 for r, s in zip(rows[:k], scores[:k], strict=True) if truth.mask[r] and s >= cut)
    return min(found, wanted) / wanted
