"""Our TF-IDF (``embedding/tfidf.py``) against scikit-learn's ``TfidfVectorizer`` at the same settings: equal floats.

Two implementations diffed, as qdrant-client's congruence tests diff its local mode against the server: the shipped
fixtures' texts and queries, and texts chosen where a tokenizer or an idf could go wrong. Equal means equal (not
close): the seed tables are reproduced exactly from these vectors.
"""

from __future__ import annotations

import numpy as np
import pytest

from filterproof.embedding.spaces import SvdSpace, TfidfSpace
from filterproof.embedding.tfidf import TOKEN_PATTERN, TfidfWeights
from filterproof.evaluation.truth import Prepared

ODD_TEXTS = ["Alpha ALPHA alpha beta", "beta_gamma beta-gamma", "ÉCOLE école naïve x2 2x", "", "   ", "a a a a a a a",
             "über straße ǅ ＡＢＣ", "tab\tnew\nline", "0 00 000 0"]
"""Case, repeats, separators, non-ASCII letters the pattern cuts at, empty and blank texts, digits."""


def sklearn_tfidf(texts: list[str]) -> tuple[object, np.ndarray]:
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(lowercase=True, token_pattern=TOKEN_PATTERN, sublinear_tf=True, smooth_idf=True,
                                 norm=None, dtype=np.float64)
    return vectorizer, vectorizer.fit_transform(texts).toarray()


def same_as_sklearn(texts: list[str], others: list[str]) -> None:
    ours, ours_fitted = TfidfWeights.fit(texts)
    theirs, fitted = sklearn_tfidf(texts)
    assert ours.vocabulary == theirs.vocabulary_  # type: ignore[attr-defined]
    assert np.array_equal(ours_fitted.toarray(), fitted)
    assert np.array_equal(ours.transform(others).toarray(), theirs.transform(others).toarray())  # type: ignore[attr-defined]


def test_the_shipped_fixtures_weigh_as_sklearn(shipped: Prepared) -> None:
    """Every document and every case's query of each shipped fixture: the same vocabulary, the same floats."""
    same_as_sklearn([d.text for d in shipped.fixture.documents], [c.query for c in shipped.fixture.cases])


def test_odd_texts_weigh_as_sklearn() -> None:
    same_as_sklearn(ODD_TEXTS, [*ODD_TEXTS, "zeta alpha unseen", "ALPHA", ""])


def test_no_word_anywhere_is_an_empty_vocabulary_not_an_error() -> None:
    """scikit-learn refuses to fit texts without a word; the space then has one dimension, the unseen words'."""
    space = TfidfSpace(["", "!!", "  "])
    assert space.dim == 1 and not space.documents().any()
    assert space.queries(["anything"]).tolist() == [[1.0]]


def test_the_svd_space_reduces_what_sklearn_would() -> None:
    """The svd embedding's input is our weights: its vectors are scikit-learn's pipeline's, to float32 rounding."""
    from sklearn.decomposition import TruncatedSVD

    texts = [f"topic{i % 7} word{i % 13} common w{i % 5}" for i in range(120)]
    ours = SvdSpace(texts, dim=8)
    _, fitted = sklearn_tfidf(texts)
    theirs = TruncatedSVD(n_components=8, random_state=0).fit_transform(fitted)
    theirs /= np.linalg.norm(theirs, axis=1, keepdims=True)
    assert ours.documents() == pytest.approx(theirs.astype(np.float32), abs=1e-5)


def test_the_svd_space_keeps_no_weights_of_its_fitting_sample() -> None:
    """After the fit, the sample's sparse TF-IDF matrix is let go (a sweep's sample is tens of thousands of texts):
    nothing the space holds, at any depth of its attributes, is a matrix with a row."""
    from scipy import sparse

    def held(value: object, seen: set[int]) -> list[tuple[int, int]]:
        if id(value) in seen:
            return []
        seen.add(id(value))
        if sparse.issparse(value):
            return [value.shape] if value.shape[0] else []  # type: ignore[attr-defined]
        inner = vars(value).values() if hasattr(value, "__dict__") and type(value).__module__.startswith(
            "filterproof") else ()
        return [shape for part in inner for shape in held(part, seen)]

    assert held(SvdSpace([f"topic{i % 7} word{i % 13} w{i}" for i in range(300)], dim=8), set()) == []
