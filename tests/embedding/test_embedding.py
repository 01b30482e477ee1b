"""The shared TF-IDF vectors give the authorized-recall index's cosine, to float32 precision."""

from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np
import pytest

from filterproof.embedding.spaces import SvdSpace, TfidfSpace
from filterproof.evaluation.truth import Prepared

TOKEN = re.compile(r"[a-z0-9]+")


def plain_tfidf_cosine(texts: list[str], query: str) -> list[float]:
    """The formula written out term by term: sublinear tf, smoothed idf (1 for unseen), L2."""
    counts = [Counter(TOKEN.findall(t.lower())) for t in texts]
    n = len(texts)
    df = Counter(term for c in counts for term in c)
    idf = {t: math.log((n + 1) / (d + 1)) + 1 for t, d in df.items()}

    def vector(c: Counter) -> dict[str, float]:
        v = {t: (1 + math.log(x)) * idf.get(t, 1.0) for t, x in c.items()}
        norm = math.sqrt(sum(w * w for w in v.values())) or 1.0
        return {t: w / norm for t, w in v.items()}

    q = vector(Counter(TOKEN.findall(query.lower())))
    return [sum(w * vector(c).get(t, 0.0) for t, w in q.items()) for c in counts]


def test_cosines_equal_the_written_out_formula(shipped: Prepared) -> None:
    texts = [d.text for d in shipped.fixture.documents]
    for case, qvec in list(zip(shipped.fixture.cases, shipped.query_vectors, strict=True))[:12]:
        ours = shipped.doc_vectors @ qvec
        assert ours == pytest.approx(plain_tfidf_cosine(texts, case.query), abs=1e-6)


def test_unseen_query_terms_lower_the_score_as_in_the_seed() -> None:
    space = TfidfSpace(["alpha beta", "gamma"])
    [with_unseen] = space.queries(["alpha beta zeta"]) @ space.documents()[:1].T
    assert with_unseen[0] == pytest.approx(plain_tfidf_cosine(["alpha beta", "gamma"], "alpha beta zeta")[0])
    assert with_unseen[0] < 0.99


def test_vectors_are_unit_length_float32(shipped: Prepared) -> None:
    assert shipped.doc_vectors.dtype == np.float32
    norms = np.linalg.norm(shipped.doc_vectors, axis=1)
    assert np.allclose(norms[norms > 0], 1.0, atol=1e-5)


def test_dense_variant_has_fixed_dimension_and_ranks_like_tfidf() -> None:
    texts = [f"topic{i % 7} word{i % 13} common" for i in range(200)]
    space = SvdSpace(texts, dim=16)
    docs, [query] = space.documents(), space.queries(["topic3 word5"])
    assert docs.shape == (200, 16) and space.dim == 16
    best = int(np.argmax(docs @ query))
    assert "topic3" in texts[best] or "word5" in texts[best]
