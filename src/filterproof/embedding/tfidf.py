"""TF-IDF weights as the authorized-recall corpus's ``TfIdfIndex`` computes them, in numpy and scipy.sparse.

Tokens ``[a-z0-9]+`` after lowercasing, one column per term of the fitted texts in sorted order, sublinear tf
``1 + ln(c)``, smoothed idf ``ln((n + 1) / (df + 1)) + 1``, no norm: what scikit-learn's ``TfidfVectorizer`` gives
with those settings, value for value (``tests/embedding/test_tfidf.py`` diffs the two on every shipped fixture).
Why not scikit-learn itself: importing it pulls in scipy.stats and pandas, about a second in every process that
embeds (each ``filterproof`` command, each conformance run, each test worker), for a computation of a few lines.
scikit-learn stays for the ``svd`` embedding's TruncatedSVD, imported only there.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from scipy import sparse

TOKEN_PATTERN = r"[a-z0-9]+"
_TOKEN = re.compile(TOKEN_PATTERN)


def tokens(text: str) -> list[str]:
    """The words of a text as the index reads them: lowercased, then each run of ``[a-z0-9]``."""
    return _TOKEN.findall(text.lower())


def counts(tokenized: Iterable[Sequence[str]], vocabulary: Mapping[str, int]) -> sparse.csr_matrix:
    """Term counts (float64), one row per text's tokens; a word outside ``vocabulary`` is dropped, as a fitted index
    drops it."""
    indptr, indices, values = [0], [], []
    for words in tokenized:
        counted = Counter(vocabulary[t] for t in words if t in vocabulary)
        for column in sorted(counted):
            indices.append(column)
            values.append(counted[column])
        indptr.append(len(indices))
    return sparse.csr_matrix((np.asarray(values, dtype=np.float64), np.asarray(indices, dtype=np.int32),
                              np.asarray(indptr, dtype=np.int64)), shape=(len(indptr) - 1, len(vocabulary)))


class TfidfWeights:
    """A fitted vocabulary and its document frequencies (``fit``); weighs any texts."""

    def __init__(self, vocabulary: dict[str, int], idf: np.ndarray) -> None:
        self.vocabulary, self.idf = vocabulary, idf

    @classmethod
    def fit(cls, texts: Sequence[str]) -> tuple[TfidfWeights, sparse.csr_matrix]:
        """The weights fitted on ``texts``, and those texts' own weights (handed over, not kept: a large corpus's
        fitting sample is let go once its caller is done with it). Each text is tokenized once."""
        tokenized = [tokens(text) for text in texts]
        words = sorted({t for text in tokenized for t in text})
        vocabulary = {term: column for column, term in enumerate(words)}
        fitted = counts(tokenized, vocabulary)
        df = np.bincount(fitted.indices, minlength=len(words)).astype(np.float64)
        df += 1.0
        idf = np.full_like(df, float(len(texts) + 1))
        idf /= df
        np.log(idf, out=idf)
        idf += 1.0
        weights = cls(vocabulary, idf)
        return weights, weights._weigh(fitted)

    def _weigh(self, matrix: sparse.csr_matrix) -> sparse.csr_matrix:
        # The order of operations is scikit-learn's (log in place, + 1, times the column's idf): the same floats.
        np.log(matrix.data, out=matrix.data)
        matrix.data += 1.0
        matrix.data *= self.idf[matrix.indices]
        return matrix

    def transform(self, texts: Sequence[str]) -> sparse.csr_matrix:
        """The weights of other texts: their words unseen in the fit dropped."""
        return self._weigh(counts((tokens(text) for text in texts), self.vocabulary))
