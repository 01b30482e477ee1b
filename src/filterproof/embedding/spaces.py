"""Shared vectors: fitted once per fixture, indexed unchanged by every backend.

Because every backend receives exactly these vectors, any difference between
backends comes from filtering and search, never from the embedding.

``TfidfSpace`` reproduces the authorized-recall corpus's ``TfIdfIndex`` cosine:
tokens ``[a-z0-9]+`` after lowercasing, sublinear tf ``1 + ln(c)``, smoothed idf
``ln((n + 1) / (df + 1)) + 1``, L2 norm. One detail needs care: that index weighs
a query token unseen in the corpus with idf 1, which lengthens the query vector
and so lowers every cosine of that query. We keep that weight in one extra
dimension that no document uses, so a plain cosine in any backend equals the
corpus's score exactly, and a query of unseen words scores 0 everywhere instead
of being a zero vector (which some engines reject).

``SvdSpace`` (TF-IDF then TruncatedSVD to a fixed dimension) is the dense variant
for corpora too large for one dimension per term; its cosines approximate.

Both are *fitted* on a list of texts and then *applied* to any texts
(``transform``). ``documents()`` gives the fitted texts' own vectors, as the fit
produced them; a large corpus is fitted on a seeded sample and every document is
then embedded chunk by chunk with ``transform`` (``truth.prepare``), so that the
sparse TF-IDF matrix and the SVD's working matrices exist for the sample only.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from filterproof.embedding.tfidf import TfidfWeights, tokens
from filterproof.errors import UsageError


class Embedding(Protocol):
    """Vectors for one fixture: the fitted texts once, any other texts on demand; rows are float32."""

    dim: int

    def documents(self) -> np.ndarray:
        """The vectors of the texts the space was fitted on, in order."""
        ...

    def transform(self, texts: Sequence[str]) -> np.ndarray:
        """Document vectors of other texts (a chunk of a corpus fitted on a sample)."""
        ...

    def queries(self, texts: Sequence[str]) -> np.ndarray: ...


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1; all-zero rows stay zero (they match nothing)."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)


class TfidfSpace:
    """Exact TF-IDF vectors, one dimension per corpus term plus one for unseen query terms."""

    def __init__(self, texts: Sequence[str]) -> None:
        # With no word in any text, the vocabulary is empty: every document is the zero vector, every query scores 0.
        self._weights, self._docs = TfidfWeights.fit(texts)
        self.dim = len(self._weights.vocabulary) + 1

    def _with_unseen(self, weights: np.ndarray, unseen: np.ndarray) -> np.ndarray:
        return unit_rows(np.hstack([weights, unseen[:, None]])).astype(np.float32)

    def documents(self) -> np.ndarray:
        return self._with_unseen(self._docs.toarray(), np.zeros(self._docs.shape[0]))

    def transform(self, texts: Sequence[str]) -> np.ndarray:
        """Documents outside the fitted texts: their words unseen in the fit are dropped (as the fit would)."""
        weights = self._weights.transform(texts).toarray()
        return self._with_unseen(weights, np.zeros(len(weights)))

    def unseen_weight(self, text: str) -> float:
        """Length of the part of the query the corpus has never seen (idf taken as 1)."""
        counts = Counter(t for t in tokens(text) if t not in self._weights.vocabulary)
        return math.sqrt(sum((1.0 + math.log(c)) ** 2 for c in counts.values()))

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        seen = self._weights.transform(texts).toarray()
        unseen = np.array([self.unseen_weight(t) for t in texts], dtype=np.float64)
        return self._with_unseen(seen, unseen)


class SvdSpace:
    """TF-IDF reduced by TruncatedSVD to ``dim`` dense dimensions (seeded, deterministic)."""

    def __init__(self, texts: Sequence[str], dim: int = 256, seed: int = 0) -> None:
        from sklearn.decomposition import TruncatedSVD

        self._tfidf = TfidfSpace(texts)
        weights = self._tfidf._docs
        n_components = min(dim, weights.shape[1] - 1, weights.shape[0] - 1)
        if n_components < 1:
            raise UsageError(f"{weights.shape[0]} documents and {weights.shape[1]} distinct words are too few for "
                             "the svd embedding: use --embedding tfidf")
        self._svd = TruncatedSVD(n_components=n_components, random_state=seed)
        # Kept as float32 unit rows (what documents() returns), not the float64 U x Sigma: half the memory.
        self._documents = unit_rows(self._svd.fit_transform(weights)).astype(np.float32)
        self._tfidf._docs = weights[:0]  # the sample's sparse matrix is not needed after the fit
        self.dim = n_components

    def documents(self) -> np.ndarray:
        return self._documents

    def transform(self, texts: Sequence[str]) -> np.ndarray:
        """X V^T: a fitted text's vector from ``transform`` differs slightly from its fit's U x Sigma."""
        seen = self._tfidf._weights.transform(texts)
        return unit_rows(self._svd.transform(seen)).astype(np.float32)

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.transform(texts)  # a query is reduced as any text outside the fit


def real_numbers(array: np.ndarray) -> bool:
    """Whether an array holds real numbers (floats or integers; not booleans, complex numbers, text or objects)."""
    return array.dtype.kind in "fiu"


def first_bad_row(matrix: np.ndarray) -> tuple[int, str] | None:
    """The first row that is no usable direction, and why: a value that is not finite, or every value zero."""
    finite = np.isfinite(matrix).all(axis=1)
    if not finite.all():
        return int(np.argmin(finite)), "holds a value that is not finite (NaN or infinity)"
    zero = ~np.asarray(matrix).any(axis=1)
    if zero.any():
        return int(np.argmax(zero)), "is all zeros (a vector with no direction has no cosine with anything)"
    return None


def unit_float32(matrix: np.ndarray) -> np.ndarray:
    """Rows given from outside (finite, none all zeros: ``first_bad_row``) as float32 unit rows.

    Each row is divided by its largest magnitude first, so that no square overflows;
    cosine ignores a row's length, so every backend ranks these as it would the rows given.
    """
    rows = np.asarray(matrix, dtype=np.float64)
    rows = rows / np.abs(rows).max(axis=1, keepdims=True)
    return unit_rows(rows).astype(np.float32)
