"""Retrieval metrics, one small function each, over ranked lists of document ids.

Notation: ``L_K`` the first K ids a strategy returned, ``R`` the relevant ids of the
case, ``A`` the ids the principal may use (the policy's eligible set), and
``R_A = R ∩ A`` the authorized relevant set.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Collection, Sequence

CORRECT = "correct"
CORRECT_ABSTENTION = "correct_abstention"
WRONG_DOCUMENT = "wrong_document"
FALSE_ABSTENTION = "false_abstention"


def recall_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """Recall@K = |R ∩ L_K| / |R|; 1 when R is empty. Blind to authorization."""
    if not relevant:
        return 1.0
    return len(set(relevant) & set(ranked[:k])) / len(set(relevant))


def authorized_recall_at_k(
    ranked: Sequence[str], relevant: Collection[str], allowed: Collection[str], k: int
) -> float:
    """ARecall@K = |R_A ∩ L_K| / |R_A| with R_A = R ∩ A; 1 when R_A is empty.

    The system is not faulted for not returning what it must not return; because
    that convention lifts the mean, report ``restricted_mean`` beside it. Returned
    documents outside A are neither credited nor penalised here (see U@K).
    Equals Recall@K when everything is allowed.
    """
    authorized = set(relevant) & set(allowed)
    if not authorized:
        return 1.0
    return len(authorized & set(ranked[:k])) / len(authorized)


def has_authorized_relevant(relevant: Collection[str], allowed: Collection[str]) -> bool:
    """Whether the case counts in the restricted mean of ARecall (R_A non-empty)."""
    return not set(relevant).isdisjoint(allowed)


def unusable_at_k(ranked: Sequence[str], allowed: Collection[str], k: int) -> float:
    """U@K = |{d ∈ L_K : d ∉ A}| / K: the share of the K slots the principal cannot use."""
    allowed = set(allowed)
    return sum(1 for d in ranked[:k] if d not in allowed) / k if k else 0.0


def precision_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """P@K = |R ∩ L_K| / K (a short list still divides by K)."""
    return len(set(relevant) & set(ranked[:k])) / k if k else 0.0


def ndcg_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """nDCG@K with binary gains: DCG = Σ_{i ≤ K, d_i ∈ R} 1 / log2(i + 1), over the ideal DCG
    of min(|R|, K) relevant documents at the top; 0 when R is empty."""
    rel = set(relevant)
    dcg = sum(1.0 / math.log2(i + 1) for i, d in enumerate(ranked[:k], start=1) if d in rel)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(rel), k) + 1))
    return dcg / ideal if ideal else 0.0


def reciprocal_rank(ranked: Sequence[str], relevant: Collection[str]) -> float:
    """RR = 1 / rank of the first relevant document, 0 if none; MRR is its mean."""
    rel = set(relevant)
    return next((1.0 / i for i, d in enumerate(ranked, start=1) if d in rel), 0.0)


def leaks(returned: Sequence[str], allowed: Collection[str]) -> list[str]:
    """The returned documents the principal may not use, each once, in returned order."""
    allowed = set(allowed)
    return list(dict.fromkeys(d for d in returned if d not in allowed))


def decision(selected: str | None, acceptable: Collection[str]) -> str:
    """Classify a top-1 answer: ``acceptable`` empty means the case must abstain."""
    if selected is None:
        return FALSE_ABSTENTION if acceptable else CORRECT_ABSTENTION
    return CORRECT if selected in acceptable else WRONG_DOCUMENT


def mean(values: Sequence[float]) -> float | None:
    """Arithmetic mean, None for no values (a restricted mean over no pairs).

    ``statistics.mean`` sums exactly (as fractions), so that a mean of 0.8625
    prints as 0.863 and not as 0.862 because of the order of the additions.
    """
    return statistics.mean(values) if values else None
