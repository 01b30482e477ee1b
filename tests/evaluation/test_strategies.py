"""Strategies give store-independent results: zero scores dropped, ties by fixture order."""

from __future__ import annotations

import numpy as np
import pytest

from filterproof.adapters.base import Hit, Record
from filterproof.adapters.reference import ReferenceAdapter
from filterproof.errors import AdapterError
from filterproof.evaluation.strategies import ranked_search
from filterproof.policy import PolicyFilter


class ReversedTies(ReferenceAdapter):
    """A store that orders equal scores the other way round, as an ANN index may."""

    calls: list[int]

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        self.calls.append(k)
        everything = super().search(vector, len(self._ids), where)
        everything.sort(key=lambda h: (-round(h.score, 6), -self._row[h.id]))
        return everything[:k]


def test_ties_at_the_cut_are_resolved_by_fixture_order_not_store_order() -> None:
    store = ReversedTies()
    store.calls = []
    store.reset(2)
    same = np.array([1.0, 0.0], dtype=np.float32)
    ids = [f"d{i:02d}" for i in range(30)]
    store.upsert([Record(i, same, {}) for i in ids] + [Record("zero", np.array([0, 1], np.float32), {})])
    order = {i: n for n, i in enumerate([*ids, "zero"])}
    [hits] = ranked_search(store, same[None, :], 3, [None], order)
    assert [h.id for h in hits] == ["d00", "d01", "d02"]
    assert len(store.calls) > 1, "the tie straddled the first fetch, so the search went deeper"


def test_zero_scores_are_not_retrievals() -> None:
    store = ReferenceAdapter()
    store.reset(2)
    store.upsert([Record("a", np.array([0, 1], np.float32), {}), Record("b", np.array([1, 0], np.float32), {})])
    [hits] = ranked_search(store, np.array([[1, 0]], np.float32), 5, [None], {"a": 0, "b": 1})
    assert [h.id for h in hits] == ["b"]


class Repeats(ReferenceAdapter):
    """Answers every hit twice (two slices' answers concatenated): more than k, each document twice."""

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        hits = super().search(vector, k, where)
        return hits + hits


def test_more_than_k_hits_or_an_id_twice_is_an_error_not_a_result() -> None:
    store = Repeats()
    store.reset(2)
    store.upsert([Record("a", np.array([1, 1], np.float32), {}), Record("b", np.array([1, 0], np.float32), {})])
    with pytest.raises(AdapterError, match=r"returned 4 hits for k=10, these ids more than once: \['a', 'b'\]: a "
                                           r"search returns at most k hits, each document once"):
        ranked_search(store, np.array([[1, 0]], np.float32), 2, [None], {"a": 0, "b": 1})
