"""The adapter contract itself: result shapes, batches, reset, updates, bad vectors."""

from __future__ import annotations

import numpy as np
import pytest

from filterproof.adapters.base import Adapter, Record, search_many, sync_active
from filterproof.conformance import scenarios as sc
from filterproof.policy import PolicyFilter


def vec(*values: float) -> np.ndarray:
    return np.array(values, dtype=np.float32)


def found_ids(adapter: Adapter, where: PolicyFilter | None) -> list[str]:
    """Ids the adapter returns for an all-ones probe under ``where``, best first."""
    return [h.id for h in adapter.search(vec(1, 1, 1), 100, where)]


def three(adapter: Adapter) -> PolicyFilter:
    """a1, b1 eligible; c1 expired before AS_OF. Returns the principal's filter."""
    docs = {"a1": sc.meta(logical_id="a"), "b1": sc.meta(logical_id="b"),
            "c1": sc.meta(logical_id="c", valid_until="2026-06-01")}
    adapter.reset(3)
    active = sc.active_for(docs)
    sync_active(adapter, active)
    adapter.upsert([Record(i, v, docs[i]) for i, v in zip(docs, (vec(1, 0, 0), vec(0, 1, 0), vec(0, 0, 1)),
                                                          strict=True)])
    return PolicyFilter(sc.principal(), sc.AS_OF, active)


class ContractChecks:
    """What every adapter owes the harness, whatever its store.

    Troubleshooting: return cosine *similarity* (Chroma gives ``1 - cos``), best
    first; clamp ``k`` to the collection size instead of raising; treat ``k = 0`` as
    a request for nothing; make ``reset`` drop everything.
    """

    def test_search_results_are_cosine_best_first_and_clamped(self, adapter: Adapter) -> None:
        """k beyond the count is clamped, k = 0 returns nothing, scores are cosines in order."""
        three(adapter)
        hits = adapter.search(vec(1, 0, 0), 100, None)
        assert [h.id for h in hits][:1] == ["a1"] and len(hits) == 3
        assert hits[0].score == pytest.approx(1.0, abs=1e-5)
        assert hits[1].score == pytest.approx(0.0, abs=1e-5), "a cosine similarity, not a distance"
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        assert adapter.search(vec(1, 0, 0), 0, None) == []

    def test_batched_search_answers_like_single_searches(self, adapter: Adapter) -> None:
        """``search_batch`` (when present) returns one list per query, in order, each honouring its filter."""
        policy = three(adapter)
        where = policy if adapter.capabilities.native_filter else None
        queries = np.stack([vec(1, 0, 0), vec(0, 1, 0), vec(0.1, 1, 1)])
        wheres = [where, None, where]
        batch = search_many(adapter, queries, 1, wheres)
        single = [adapter.search(q, 1, w) for q, w in zip(queries, wheres, strict=True)]
        assert [[h.id for h in hits] for hits in batch] == [[h.id for h in hits] for hits in single]
        if where is not None:
            assert [[h.id for h in hits] for hits in batch] == [["a1"], ["b1"], ["b1"]]

    def test_reset_empties_the_index(self, adapter: Adapter) -> None:
        """After ``reset`` nothing from before is returned."""
        three(adapter)
        adapter.reset(3)
        assert adapter.search(vec(1, 0, 0), 5, None) == []

    def test_a_vector_of_the_wrong_length_is_refused(self, adapter: Adapter) -> None:
        """Upserting a vector whose length is not the index's dimension raises ValueError."""
        three(adapter)
        with pytest.raises(ValueError):
            adapter.upsert([Record("bad", vec(1, 0), sc.meta(logical_id="bad"))])

    def test_updates_to_malformed_or_unknown_documents(self, mutable: Adapter) -> None:
        """An update that makes metadata malformed removes the document from every filter at once;
        an update of an unknown id is ignored (it creates nothing)."""
        where = three(mutable)
        mutable.update_metadata("b1", {**sc.meta(logical_id="b"), "groups": sc.GROUP})
        assert {h.id for h in mutable.search(vec(1, 1, 1), 10, where)} == {"a1"}
        mutable.update_metadata("c1", sc.meta(logical_id="c"))  # valid_until gone: open-ended now
        assert {h.id for h in mutable.search(vec(1, 1, 1), 10, where)} == {"a1", "c1"}
        mutable.update_metadata("ghost", sc.meta(logical_id="ghost"))
        assert {h.id for h in mutable.search(vec(1, 1, 1), 10, None)} == {"a1", "b1", "c1"}
