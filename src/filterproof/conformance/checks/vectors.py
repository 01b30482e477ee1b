"""Vectors: cosine for any length, and the degenerate vectors whose cosine a store may compute as NaN.

A zero vector (an empty text's embedding, a failed embedding call written as zeros) has
no direction: its cosine with anything is 0/0. The reference scores it 0 (no shared
direction), so it ranks with the orthogonal documents, below every document that shares
a direction with the query. A store that divides by the norm gets NaN, and NaN compares
false with everything: a sort may put it first (the document then heads every result,
eligible or not, in place of the best one), last, or anywhere. Stores may leave a
document scoring 0 or less out altogether (the strategies drop such hits), but never
rank it above a document that shares a direction with the query.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from filterproof.adapters.base import Adapter, Hit, Record, sync_active
from filterproof.conformance.checks.contract import vec
from filterproof.conformance.worlds import scenarios as sc
from filterproof.policy import PolicyFilter

QUERY = np.array([1, 1, 0, 0], dtype=np.float32)
DEGENERATE = {"same": (1, 1, 0, 0), "scaled down": (1e-3, 1e-3, 0, 0), "scaled up": (1e3, 1e3, 0, 0),
              "near": (1, 0.5, 0, 0), "half": (1, 0, 0, 0), "zero": (0, 0, 0, 0), "orthogonal": (0, 0, 1, 0),
              "opposite": (-1, -1, 0, 0)}
"""Eligible documents' vectors, by id: the query's own direction at three lengths (a three-way tie), two
partial matches, then those sharing no direction with it (cosine 0: the zero vector, an orthogonal one) and
the opposite (-1). Each has an ineligible twin of another tenant (``beta-`` + its id), with the same vector."""
K_ASKED = (1, 3, 5, len(DEGENERATE))


def cosine(vector: np.ndarray, query: np.ndarray) -> float:
    """The reference's cosine: 0 when either vector is zero."""
    norms = float(np.linalg.norm(vector.astype(np.float64)) * np.linalg.norm(query.astype(np.float64)))
    return float(vector.astype(np.float64) @ query.astype(np.float64)) / norms if norms else 0.0


def ranking_problems(hits: list[Hit], k: int, cosines: dict[str, float], eligible: set[str] | None,
                     exact: bool = True) -> list[str]:
    """What is wrong with ``hits`` (best first) for K = ``k``: a score that is not a finite number or not the
    cosine, an ineligible document; for an ``exact`` store, also a document sharing no direction with the query
    ahead of one that does, or a document sharing one left out for a worse one (an approximate store, and a
    path that trades relevance for diversity such as MMR, may order otherwise)."""
    problems = [f"{h.id} scored {h.score} (a cosine is a finite number in [-1, 1])" for h in hits
                if not math.isfinite(h.score)]
    problems += [f"{h.id} scored {h.score:.4f}, its cosine is {cosines[h.id]:.4f}" for h in hits
                 if math.isfinite(h.score) and h.id in cosines and abs(h.score - cosines[h.id]) > 1e-3]
    problems += [f"{h.id} is not eligible" for h in hits if eligible is not None and h.id not in eligible]
    if not exact:
        return problems
    shares = [cosines.get(h.id, 0.0) > 1e-6 for h in hits]
    if any(shares[n] and not shares[n - 1] for n in range(1, len(shares))):
        problems.append("a document sharing no direction with the query ranks above one that does")
    positive = sorted((c for i, c in cosines.items() if c > 1e-6 and (eligible is None or i in eligible)),
                      reverse=True)
    returned = [cosines[h.id] for h in hits if cosines.get(h.id, 0.0) > 1e-6]
    if len(returned) < min(k, len(positive)) or any(c < positive[min(k, len(positive)) - 1] - 1e-3
                                                    for c in returned):
        problems.append(f"the documents sharing a direction with the query are not the best {min(k, len(positive))}")
    return problems


class VectorChecks:
    """Scores are cosines of any vector, ranked best first; degenerate vectors neither lead nor leak."""

    def test_scores_are_cosine_for_vectors_of_any_length(self, adapter: Adapter) -> None:
        """Stored and query vectors that are not unit length are scored by cosine, and ranked by it.

        If this fails: the store ranks by dot product (or by L2) on vectors it did not
        normalise. Use the store's cosine space, or normalise vectors before storing them
        and the query before asking.
        """
        adapter.reset(3)
        long, short = vec(10, 0, 0), vec(0.5, 0.5, 0.05)
        adapter.upsert([Record("long", long, sc.meta(logical_id="l")), Record("short", short, sc.meta(logical_id="s"))])
        query = vec(2, 2, 0)
        hits = adapter.search(query, 2, None)
        cosines = {i: cosine(v, query) for i, v in (("long", long), ("short", short))}
        assert [h.id for h in hits] == ["short", "long"], f"ranked {hits}; cosines {cosines}"
        for hit in hits:
            assert hit.score == pytest.approx(cosines[hit.id], abs=1e-3), f"{hit.id}: score {hit.score}, {cosines}"

    def test_degenerate_vectors_neither_lead_nor_leak(self, adapter: Adapter) -> None:
        """A zero vector, an orthogonal and an opposite one, and the query's direction at lengths 0.001, 1 and
        1000, each eligible and beside an ineligible twin; asked for the best 1, 3, 5 and 8, filtered (when the
        store filters) and not, and with the zero vector as the query.

        If this fails: a zero vector's cosine was computed as 0/0 = NaN, and the sort put it
        first (or anywhere): score it 0 (no shared direction), or leave it out; a document
        sharing no direction with the query never ranks above one that does. A score that
        is not the cosine at length 0.001 or 1000: the store normalised with an epsilon, or
        ranks by dot product. An ineligible twin returned: the filter was skipped for the
        rows whose distance was not a number.
        """
        adapter.reset(4)
        docs = {i: sc.meta(logical_id=i.replace(" ", "-")) for i in DEGENERATE}
        docs |= {f"beta-{i}": sc.meta(tenant="beta", logical_id=i.replace(" ", "-")) for i in DEGENERATE}
        active = sc.active_for(docs)
        sync_active(adapter, active)
        adapter.upsert([Record(i, vec(*DEGENERATE[i.removeprefix("beta-")]), m) for i, m in docs.items()])
        where = PolicyFilter(sc.principal(), sc.AS_OF, active) if adapter.capabilities.native_filter else None
        cosines = {i: cosine(vec(*DEGENERATE[i.removeprefix("beta-")]), QUERY) for i in docs}
        failures = []
        asks = [(where, set(DEGENERATE), 1)] if where is not None else []
        for k in K_ASKED:
            for asked, eligible, times in [*asks, (None, None, 2)]:  # unfiltered: each document and its twin
                hits = adapter.search(QUERY, times * k, asked)
                label = f"K={times * k} {'unfiltered' if asked is None else 'filtered'}"
                failures += [f"{label}: {p}; ranked {[(h.id, h.score) for h in hits]}"
                             for p in ranking_problems(hits, times * k, cosines, eligible,
                                                       adapter.capabilities.exact)]
        zero = adapter.search(vec(0, 0, 0, 0), len(docs), where)
        failures += [f"the zero vector as the query: {h.id} scored {h.score}" for h in zero
                     if not math.isfinite(h.score) or abs(h.score) > 1e-3]
        failures += [f"the zero vector as the query: {h.id} is not eligible" for h in zero
                     if where is not None and h.id not in DEGENERATE]
        assert not failures, "degenerate vectors:\n" + "\n".join(dict.fromkeys(failures))
