"""Checks on the fixtures shipped with the suite: the adversarial metadata, the lab, the authorized-recall corpus."""

from __future__ import annotations

from filterproof.adapters.base import Adapter
from filterproof.conformance.worlds import scenarios as sc
from filterproof.conformance.worlds.shipped import Settings, by_strategy, indexed_runs, load, reference_runs, shipped
from filterproof.evaluation import congruence


class FixtureChecks:
    """The native filter on every fail-closed class, then the seeds' fixtures against the reference."""

    def test_every_malformed_document_fails_closed(self, native: Adapter) -> None:
        """No malformed document of the adversarial fixture is ever admitted by the native filter, and its
        well-formed documents are (each case's answer is exactly the policy's set).

        If this fails: the message names the case, the documents and their metadata, and
        which way. A leak ("returned but NOT eligible"): a groups string matched like a
        one-element list, an empty or unparseable date treated as open-ended,
        ``1.0``/``true``/``"1"`` equal to revision 1, a missing field treated as "no
        constraint". Missing ("eligible but NOT returned"): the store's encoding rejects
        or loses a well-formed value beside the malformed ones (an odd but valid
        identity, a date at an edge); the twin tests name the value.
        """
        prepared = shipped("adversarial.json")
        load(native, prepared)
        got, want = congruence.eligible_sets(native, prepared), congruence.policy_sets(prepared)
        docs = {d.id: d.metadata for d in prepared.fixture.documents}
        bad = {case: sc.mismatch(got[case], want[case], docs) for case in want if got[case] != want[case]}
        assert not bad, "\n".join(f"case {c}: {m}" for c, m in bad.items())

    def test_lab_cases_and_decisions(self, adapter: Adapter) -> None:
        """The freshness lab's five cases give the reference's selections and decisions.

        If this fails: the message lists (strategy/case: what, reference, yours). A wrong
        rank_only selection means the vectors or the cosine differ (return cosine
        similarity, not distance); a wrong pre_filter one means the native filter.
        """
        prepared = shipped("freshness-lab.json")
        load(adapter, prepared)
        mine = indexed_runs(adapter, prepared, Settings())
        diffs = congruence.differences(reference_runs(prepared, Settings()), mine)
        assert not diffs, "\n".join(map(str, diffs))

    def test_authorized_recall_numbers(self, adapter: Adapter) -> None:
        """The authorized-recall corpus reproduces the reference's ARecall@K (exact: to 3 decimals).

        If this fails: an approximate index (HNSW) may miss neighbours: raise ef, or
        declare ``exact=False`` with a ``recall_tolerance``. Identical numbers for
        post_filter but not pre_filter point at the native filter.
        """
        prepared, settings = shipped("authorized-recall"), Settings(ks=(1, 3, 5, 10))
        load(adapter, prepared)
        tolerance = max(adapter.capabilities.recall_tolerance, 0.0005)
        mine = by_strategy(indexed_runs(adapter, prepared, settings), settings.ks)
        for strategy, ref in by_strategy(reference_runs(prepared, settings), settings.ks).items():
            if strategy not in mine:
                continue
            for k in settings.ks:
                want, got = ref[k]["arecall"], mine[strategy][k]["arecall"]
                assert want is not None and got is not None and got >= want - tolerance, (
                    f"{strategy} ARecall@{k}: reference {want:.3f}, {adapter.name} {got}")

    def test_no_leaks_on_shipped_fixtures(self, adapter: Adapter) -> None:
        """post_filter and pre_filter never return a document the principal may not use.

        If this fails: the message names the case and the leaked documents; compare
        their metadata with the policy in ``filterproof.policy`` (tenant, status,
        active revision, groups, date window; malformed values must never match).
        """
        for name in ("freshness-lab.json", "authorized-recall", "adversarial.json"):
            prepared = shipped(name)
            load(adapter, prepared)
            rows = indexed_runs(adapter, prepared, Settings(ks=(1, 5, 10)))
            leaked = {(r.strategy, r.case): r.leaks for r in rows if r.strategy != "rank_only" and r.leaks}
            assert not leaked, f"{name}: leaks, as (strategy, case): documents: {leaked}"
