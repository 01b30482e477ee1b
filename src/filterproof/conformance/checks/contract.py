"""The adapter contract itself: result shapes, batches, reset, updates, bad vectors."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime, time, timedelta

import numpy as np
import pytest

from filterproof.adapters.base import Adapter, BatchSearch, Record, search_many, sync_active
from filterproof.conformance.requirements import lacks
from filterproof.conformance.worlds import scenarios as sc
from filterproof.policy import PolicyFilter

BATCH = 64
"""Queries in the interleaved batch: past the sizes at which stores switch to a batched plan (16, 32)."""


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
        """k beyond the count is clamped, k = 0 returns nothing, scores are cosines in order.

        If this fails: return cosine similarity (not a distance), best first; clamp k to
        the collection's size instead of raising; answer k = 0 with an empty list.
        """
        three(adapter)
        hits = adapter.search(vec(1, 0, 0), 100, None)
        assert [h.id for h in hits][:1] == ["a1"] and len(hits) == 3
        assert hits[0].score == pytest.approx(1.0, abs=1e-5)
        assert hits[1].score == pytest.approx(0.0, abs=1e-5), "a cosine similarity, not a distance"
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        assert adapter.search(vec(1, 0, 0), 0, None) == []

    def test_batched_search_answers_like_single_searches(self, adapter: Adapter) -> None:
        """``search_batch`` (when present) returns one list per query, in order, each honouring its filter.

        If this fails: the batch reordered its answers, or applied one filter to all.
        """
        policy = three(adapter)
        where = policy if adapter.capabilities.native_filter else None
        queries = np.stack([vec(1, 0, 0), vec(0, 1, 0), vec(0.1, 1, 1)])
        wheres = [where, None, where]
        batch = search_many(adapter, queries, 1, wheres)
        single = [adapter.search(q, 1, w) for q, w in zip(queries, wheres, strict=True)]
        assert [[h.id for h in hits] for hits in batch] == [[h.id for h in hits] for hits in single]
        if where is not None:
            assert [[h.id for h in hits] for hits in batch] == [["a1"], ["b1"], ["b1"]]

    def test_a_batch_of_unequal_lengths_is_refused(self, adapter: Adapter) -> None:
        """``search_batch`` (when present) given fewer filters than vectors, or more, raises ValueError.

        If this fails: the batch pairs queries and filters with ``zip``, which stops at the shorter: a
        query or a filter left over is never asked, and a caller who counts the answers is off by one
        (``zip(..., strict=True)``, or compare the lengths first).
        """
        if not isinstance(adapter, BatchSearch):
            pytest.skip(lacks("search_batch", f"{adapter.name} has no search_batch"))
        three(adapter)
        queries = np.stack([vec(1, 0, 0), vec(0, 1, 0)])
        for wheres in ([None], [None, None, None]):
            with pytest.raises(ValueError):
                adapter.search_batch(queries, 1, wheres)

    def test_reset_empties_the_index(self, adapter: Adapter) -> None:
        """After ``reset`` nothing from before is returned.

        If this fails: ``reset`` must drop (or empty) the collection, not only forget its handle.
        """
        three(adapter)
        adapter.reset(3)
        assert adapter.search(vec(1, 0, 0), 5, None) == []

    def test_reset_forgets_every_field_of_what_it_dropped(self, adapter: Adapter) -> None:
        """Documents written after ``reset`` carry their own metadata only: a group from before is not theirs.

        If this fails: the store kept part of the dropped documents' metadata and gave it to the new
        ones (chromadb 1.5.9's ``delete_collection`` leaves list values behind, keyed by a row id the
        next collection reuses: chroma-core/chroma#7594). Delete the records before dropping their
        collection, or empty the collection instead of dropping it.
        """
        if not adapter.capabilities.native_filter:
            pytest.skip(lacks("native_filter",
                              f"{adapter.name} filters nothing itself: no metadata of its own to carry over"))
        before = {f"old{n}": sc.meta(logical_id=f"old{n}", groups=["restricted"]) for n in range(3)}
        after = {f"new{n}": sc.meta(logical_id=f"new{n}", groups=groups)  # no group, then none at all: malformed
                 for n, groups in enumerate(([sc.GROUP], [], ...))}
        for docs in (before, after):
            adapter.reset(3)
            active = sc.active_for(docs)
            sync_active(adapter, active)
            adapter.upsert([Record(i, vec(1, 0.1 * n, 0), docs[i]) for n, i in enumerate(docs)])
        outsider = PolicyFilter(sc.principal(sc.TENANT, "restricted"), sc.AS_OF, active)
        got = {h.id for h in adapter.search(vec(1, 0, 0), 10, outsider)}
        assert not got, f"a principal of 'restricted' only, after reset: {sc.mismatch(got, set(), after)}"

    def test_a_vector_of_the_wrong_length_is_refused(self, adapter: Adapter) -> None:
        """Upserting a vector whose length is not the index's dimension, shorter or longer, raises ValueError.

        If this fails: check the shape before writing (equal, not at least or at most); a store
        that pads, truncates or raises its own error type hides the caller's mistake.
        """
        three(adapter)
        for bad in (vec(1, 0), vec(1, 0, 0, 0)):
            with pytest.raises(ValueError):
                adapter.upsert([Record("bad", bad, sc.meta(logical_id="bad"))])

    def test_a_query_vector_of_the_wrong_length_is_refused(self, adapter: Adapter) -> None:
        """A search whose vector is not the index's dimension, shorter or longer, raises ValueError: filtered or
        not, alone or in a batch.

        If this fails: check the query's shape before searching, as an upsert's; a store that pads or cuts the
        query answers a question embedded by another model as if it were of this one (and an engine's own error
        type is no ValueError: Chroma's InvalidArgumentError is not one).
        """
        where = three(adapter)
        for bad in (vec(1, 0), vec(1, 0, 0, 0)):
            for filtered in (None, where):
                with pytest.raises(ValueError):
                    adapter.search(bad, 10, filtered)
                with pytest.raises(ValueError):
                    search_many(adapter, np.stack([bad, bad]), 10, [filtered, filtered])

    def test_an_as_of_that_is_not_a_calendar_date_is_refused(self, adapter: Adapter) -> None:
        """A filter whose ``as_of`` is a datetime, ISO text or a number raises TypeError, as the policy does; it is
        never answered.

        If this fails: check ``isinstance(as_of, date) and not isinstance(as_of, datetime)`` before compiling the
        filter (``policy.calendar_day``). A datetime passes ``isinstance(x, date)`` but has a time of day, whose
        day depends on a time zone; text or a number is a day only to a lenient reader.
        """
        where = three(adapter)
        for as_of in (datetime.combine(where.as_of, time(12)), where.as_of.isoformat(), where.as_of.toordinal()):
            with pytest.raises(TypeError):
                adapter.search(vec(1, 1, 1), 10, replace(where, as_of=as_of))

    def test_updates_to_malformed_or_unknown_documents(self, mutable: Adapter) -> None:
        """An update that makes metadata malformed removes the document from every filter at once;
        an update of an unknown id is ignored (it creates nothing).

        If this fails: the message names the documents and the metadata they were given.
        A malformed document still admitted means the update was merged into the old
        metadata or its derived filter fields were kept; an unknown id returned means
        the update created a document.
        """
        where = three(mutable)
        docs = {"a1": sc.meta(logical_id="a"), "b1": {**sc.meta(logical_id="b"), "groups": sc.GROUP},
                "c1": sc.meta(logical_id="c", valid_until="2026-06-01")}
        mutable.update_metadata("b1", docs["b1"])
        got = set(found_ids(mutable, where))
        assert got == {"a1"}, f"after groups became a string: {sc.mismatch(got, {'a1'}, docs)}"
        docs["c1"] = sc.meta(logical_id="c")  # valid_until gone: open-ended now
        mutable.update_metadata("c1", docs["c1"])
        got = set(found_ids(mutable, where))
        assert got == {"a1", "c1"}, f"after c1 became open-ended: {sc.mismatch(got, {'a1', 'c1'}, docs)}"
        mutable.update_metadata("ghost", sc.meta(logical_id="ghost"))
        got = set(found_ids(mutable, None))
        assert got == {"a1", "b1", "c1"}, f"after updating the unknown id 'ghost', unfiltered: {sorted(got)}"

    def test_upsert_of_an_existing_id_replaces_it(self, native: Adapter) -> None:
        """Upserting an id again replaces its vector and metadata: the old metadata is no longer searchable,
        the id comes back once, and the count is unchanged.

        If this fails: the store appended a second row for the id (an insert, not an
        upsert), or merged the new metadata into the old, or kept the old vector.
        """
        where = three(native)
        moved = sc.meta(tenant="beta", logical_id="a")
        native.upsert([Record("a1", vec(0, 3, 4), moved)])
        docs = {"a1": moved, "b1": sc.meta(logical_id="b"), "c1": sc.meta(logical_id="c", valid_until="2026-06-01")}
        # acme/a stays in the map: a1's old metadata would still be eligible if it were still searchable.
        active = sc.active_for({**docs, "old": sc.meta(logical_id="a")})
        sync_active(native, active)  # beta/a joined the map: a revision=flag store rewrites its flags
        old = PolicyFilter(where.principal, where.as_of, active)
        got = set(found_ids(native, old))
        assert got == {"b1"}, f"tenant acme after a1 moved to beta: {sc.mismatch(got, {'b1'}, docs)}"
        new = PolicyFilter(sc.principal("beta"), where.as_of, active)
        got = set(found_ids(native, new))
        assert got == {"a1"}, f"tenant beta after a1 moved to it: {sc.mismatch(got, {'a1'}, docs)}"
        unfiltered = found_ids(native, None)
        assert sorted(unfiltered) == ["a1", "b1", "c1"], f"unfiltered after the re-upsert: {unfiltered}"
        [best] = native.search(vec(0, 3, 4), 1, None)
        assert best.id == "a1" and best.score == pytest.approx(1.0, abs=1e-3), f"a1 keeps its old vector: {best}"

    def test_an_id_twice_in_one_upsert_keeps_the_last(self, native: Adapter) -> None:
        """An upsert whose records repeat an id stores the last of them, as if upserted one after the other: one
        document, the last vector and metadata.

        If this fails: the store deduplicated the batch keeping the first record (``np.unique``
        with ``return_index``, ``INSERT OR IGNORE``, a dict built the other way), or stored both.
        """
        where = three(native)
        first, last = sc.meta(logical_id="a", groups=["nobody"]), sc.meta(logical_id="a")
        native.upsert([Record("a1", vec(0, 0, 1), first), Record("a1", vec(0, 3, 4), last)])
        got = set(found_ids(native, where))
        docs = {"a1": last, "b1": sc.meta(logical_id="b")}
        assert got == {"a1", "b1"}, f"after upserting a1 twice in one call: {sc.mismatch(got, {'a1', 'b1'}, docs)}"
        native.upsert([Record("b1", vec(0, 1, 0), sc.meta(logical_id="b")),
                       Record("b1", vec(0, 1, 0), sc.meta(logical_id="b", groups=["nobody"]))])
        got = set(found_ids(native, where))
        assert got == {"a1"}, f"after upserting b1 twice, the last without access: {sc.mismatch(got, {'a1'}, docs)}"
        unfiltered = found_ids(native, None)
        assert sorted(unfiltered) == ["a1", "b1", "c1"], f"unfiltered after the repeated ids: {unfiltered}"
        [best] = native.search(vec(0, 3, 4), 1, None)
        assert best.id == "a1" and best.score == pytest.approx(1.0, abs=1e-3), f"a1 keeps the first vector: {best}"

    def test_deleting_an_unknown_id_is_ignored(self, mutable: Adapter) -> None:
        """``delete`` of ids the store does not hold raises nothing and removes nothing else.

        If this fails: the store raised on an unknown id (the contract: ignore it), or a
        delete with one unknown id dropped the whole batch or more than asked.
        """
        three(mutable)
        mutable.delete(["ghost"])
        assert sorted(found_ids(mutable, None)) == ["a1", "b1", "c1"], "after deleting the unknown id 'ghost'"
        mutable.delete(["ghost", "b1", "phantom"])
        remaining = sorted(found_ids(mutable, None))
        assert remaining == ["a1", "c1"], f"after deleting ['ghost', 'b1', 'phantom']: {remaining}"

    def test_batched_queries_of_interleaved_principals(self, native: Adapter) -> None:
        """A batch of 64 queries mixing principals and days (the day before, of and after documents start and
        expire), in interleaved order, answers each under its own filter; among them queries whose answer is
        empty (a tenant with no documents, a day before every document) first, last and in a run, and one
        unfiltered; then batches of empty answers only.

        If this fails: the batch applied one query's filter (often the first) to all, grouped
        queries by filter and returned the groups' answers in the wrong order, or shared a
        filter between queries that differ in a field the grouping key left out (the day).
        Fewer answers than queries: the batch left out the queries that matched nothing (a
        result set grouped by query number has no row for them), and every later answer moved
        onto an earlier query, another principal's. Return one list per query, empty or not.
        """
        docs = {"acme-eng": sc.meta(logical_id="a"), "acme-fin": sc.meta(logical_id="b", groups=["finance"]),
                "beta-eng": sc.meta(tenant="beta", logical_id="a"), "zeta-ops": sc.meta(tenant="zeta", groups=["ops"]),
                "acme-ending": sc.meta(logical_id="e", valid_until=sc.AS_OF.isoformat()),
                "acme-starting": sc.meta(logical_id="s", valid_from=(sc.AS_OF + timedelta(days=1)).isoformat())}
        s = sc.Scenario.build(native, docs)
        active = sc.active_for(docs)
        principals = [sc.principal(), sc.principal("beta"), sc.principal("acme", "finance"),
                      sc.principal("zeta", "ops")]
        days = [sc.AS_OF - timedelta(days=1), sc.AS_OF, sc.AS_OF + timedelta(days=1)]
        order = [0, 1, 0, 2, 3, 1, 2, 0]
        wheres: list[PolicyFilter | None] = [PolicyFilter(principals[order[n % len(order)]], days[(n // 3) % 3], active)
                                             for n in range(BATCH)]
        nobody, before = PolicyFilter(sc.principal("nobody"), sc.AS_OF, active), PolicyFilter(
            principals[0], date.fromisoformat(sc.meta()["valid_from"]) - timedelta(days=1), active)
        wheres.insert(3, None)
        wheres[len(wheres) // 2:len(wheres) // 2] = [before, nobody, before]  # empty answers in a run, and last
        wheres.append(nobody)
        for batch in (wheres, [nobody, wheres[0], before], [nobody, before, nobody], [before]):  # and first
            answers = search_many(native, np.stack([s.query] * len(batch)), len(docs) + 1, batch)
            empty = [n for n, w in enumerate(batch) if w is not None and not s.policy_ids(w)]
            assert len(answers) == len(batch), (
                f"{len(answers)} answers to a batch of {len(batch)} queries, of which {len(empty)} match nothing "
                f"(at {empty}); the first answers: {[[h.id for h in hits] for hits in answers[:4]]}")
            for position, (where, hits) in enumerate(zip(batch, answers, strict=True)):
                got = {h.id for h in hits}
                want = set(docs) if where is None else s.policy_ids(where)
                label = "no filter" if where is None else sc.asked(where)
                assert got == want, f"query {position} of the batch ({label}): {sc.mismatch(got, want, docs)}"
