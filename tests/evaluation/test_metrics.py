"""Metric formulas on hand-checked examples, and the pre/post-filter containment property."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from filterproof.adapters.base import Hit
from filterproof.evaluation import metrics
from filterproof.evaluation.strategies import CandidateDepth, Strategy


def test_hand_checked_values() -> None:
    ranked, relevant, allowed = ["a", "x", "b", "y"], {"a", "b", "c"}, {"a", "c", "x"}
    assert metrics.recall_at_k(ranked, relevant, 3) == pytest.approx(2 / 3)
    assert metrics.authorized_recall_at_k(ranked, relevant, allowed, 3) == pytest.approx(1 / 2)
    assert metrics.authorized_recall_at_k(ranked, relevant, set(), 3) == 1.0
    assert not metrics.has_authorized_relevant(relevant, {"x"})
    assert metrics.unusable_at_k(ranked, allowed, 4) == pytest.approx(2 / 4)
    assert metrics.unusable_at_k(["a"], allowed, 5) == 0.0
    assert metrics.precision_at_k(ranked, relevant, 4) == pytest.approx(2 / 4)
    assert metrics.ndcg_at_k(ranked, relevant, 3) == pytest.approx((1 + 1 / 2) / (1 + 1 / math.log2(3) + 1 / 2))
    assert metrics.reciprocal_rank(["x", "b"], relevant) == 0.5
    assert metrics.leaks(["a", "y", "y", "b"], allowed) == ["y", "b"]


def test_decisions() -> None:
    assert metrics.decision("a", ["a"]) == metrics.CORRECT
    assert metrics.decision("b", ["a"]) == metrics.WRONG_DOCUMENT
    assert metrics.decision(None, ["a"]) == metrics.FALSE_ABSTENTION
    assert metrics.decision(None, []) == metrics.CORRECT_ABSTENTION
    assert metrics.decision("a", []) == metrics.WRONG_DOCUMENT


def test_arecall_equals_recall_when_everything_is_allowed() -> None:
    ranked, relevant = ["a", "b", "c"], {"b", "d"}
    assert metrics.authorized_recall_at_k(ranked, relevant, {"a", "b", "c", "d"}, 2) == metrics.recall_at_k(
        ranked, relevant, 2)


def test_candidate_depth() -> None:
    assert CandidateDepth.parse("1").at(5) == 5
    assert CandidateDepth.parse("50").at(5) == 50
    assert CandidateDepth.parse("10K").at(5) == 50
    assert str(CandidateDepth.parse("2x")) == "2K"
    for bad in ("0", "-1", "k", "1.5", ""):
        with pytest.raises(ValueError, match="candidate depth"):
            CandidateDepth.parse(bad)


ids = st.lists(st.sampled_from("abcdefghijkl"), unique=True, max_size=12)


@settings(max_examples=500)
@given(ranking=ids, allowed=st.sets(st.sampled_from("abcdefghijkl")),
       relevant=st.sets(st.sampled_from("abcdefghijkl")), k=st.integers(1, 12))
def test_pre_filter_contains_post_filter_and_the_gap_is_never_negative(
    ranking: list[str], allowed: set[str], relevant: set[str], k: int
) -> None:
    hits = [Hit(d, 1.0 - i / 100) for i, d in enumerate(ranking)]
    filtered = [h for h in hits if h.id in allowed]  # what an exact native filter returns
    post = [h.id for h in Strategy("post_filter", CandidateDepth()).lists(hits, None, allowed.__contains__, [k])[k]]
    pre = [h.id for h in Strategy("pre_filter").lists(hits, filtered, allowed.__contains__, [k])[k]]
    assert post == [d for d in ranking[:k] if d in allowed]
    assert set(post) <= set(pre)
    gap = (metrics.authorized_recall_at_k(pre, relevant, allowed, k)
           - metrics.authorized_recall_at_k(post, relevant, allowed, k))
    assert gap >= 0
