"""Congruence: run one operation on the reference and on another backend, and compare.

Two questions, asked of every backend on the same prepared fixture:

* ``eligible_sets``: for each case, exactly which documents the store's native
  filter admits (asked for everything, with a probe vector every document scores
  against), to be equal to the policy's eligible set;
* ``selections``: for each (strategy, case), the top-1 selection and decision,
  and the ranked lists at each K, to be equal to the reference's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from filterproof.adapters.base import Adapter
from filterproof.runner import Prepared, StrategyRun


def probe_vector(dim: int) -> np.ndarray:
    """A unit vector with every coordinate positive: any non-zero TF-IDF document scores > 0."""
    return np.full(dim, 1.0 / np.sqrt(dim), dtype=np.float32)


def eligible_sets(adapter: Adapter, prepared: Prepared) -> dict[str, set[str]]:
    """Case id -> ids the adapter's native filter returns when asked for every document."""
    probe = probe_vector(prepared.embedding.dim)
    everything = len(prepared.fixture.documents) + 1
    return {
        case.id: {hit.id for hit in adapter.search(probe, everything, where)}
        for case, where in zip(prepared.fixture.cases, prepared.filters, strict=True)
    }


def policy_sets(prepared: Prepared) -> dict[str, set[str]]:
    return {case.id: set(e) for case, e in zip(prepared.fixture.cases, prepared.eligible, strict=True)}


@dataclass(frozen=True)
class Difference:
    strategy: str
    case: str
    what: str
    reference: object
    other: object

    def __str__(self) -> str:
        return f"{self.strategy}/{self.case}: {self.what}: reference {self.reference!r}, other {self.other!r}"


def differences(reference: Sequence[StrategyRun], other: Sequence[StrategyRun]) -> list[Difference]:
    """Every (strategy, case) where the selection, decision or a ranked list differs."""
    found = []
    theirs = {run.strategy: run for run in other}
    for ref in reference:
        run = theirs.get(ref.strategy)
        if run is None:
            continue
        for a, b in zip(ref.outcomes, run.outcomes, strict=True):
            pairs = [("selected", a.selected.id if a.selected else None, b.selected.id if b.selected else None),
                     ("decision", a.decision, b.decision)]
            pairs += [(f"top-{k}", a.lists[k], b.lists[k]) for k in sorted(a.lists)]
            found += [Difference(ref.strategy, a.case.id, what, x, y) for what, x, y in pairs if x != y]
    return found
