"""``AdapterConformanceTests``: subclass it, provide one fixture, learn whether your filters keep the policy.

    import pytest
    from filterproof.conformance import AdapterConformanceTests

    class TestMyStore(AdapterConformanceTests):
        @pytest.fixture()
        def adapter(self):
            store = MyStoreAdapter()      # a fresh, empty adapter (see filterproof.adapters.base)
            yield store
            store.close()

Tests an adapter cannot take skip with the reason, from its declared
``capabilities``: no native filter skips every pre_filter check; no lifecycle skips
delete and update checks; an approximate adapter is held to its
``recall_tolerance`` on recall, never on leaks. Each test's docstring says what to
look at when it fails.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from filterproof import congruence
from filterproof.adapters.base import Adapter
from filterproof.conformance import scenarios as sc
from filterproof.conformance.contract import ContractChecks
from filterproof.conformance.lifecycle import LifecycleChecks
from filterproof.conformance.placement import PlacementChecks
from filterproof.conformance.shipped import reference_runs, shipped
from filterproof.policy import PolicyFilter, Principal
from filterproof.runner import Settings, evaluate, index
from filterproof.scoring import by_strategy


class CoreChecks:
    """Fixtures the checks share, the seeds' fixtures, and the native filter clause by clause."""

    @pytest.fixture()
    def adapter(self) -> Iterator[Adapter]:
        """Return a fresh, empty adapter. Override this in your subclass."""
        raise NotImplementedError("override the `adapter` fixture to return a fresh adapter")

    @pytest.fixture()
    def native(self, adapter: Adapter) -> Adapter:
        if not adapter.capabilities.native_filter:
            pytest.skip(f"{adapter.name} declares native_filter=False: no pre_filter to check")
        return adapter

    @pytest.fixture()
    def mutable(self, native: Adapter) -> Adapter:
        if not native.capabilities.lifecycle:
            pytest.skip(f"{native.name} declares lifecycle=False: delete/update_metadata not supported")
        return native

    # -- the seeds' fixtures ------------------------------------------------

    def test_lab_cases_and_decisions(self, adapter: Adapter) -> None:
        """The freshness lab's five cases give the reference's selections and decisions.

        If this fails: the message lists (strategy/case: what, reference, yours). A wrong
        rank_only selection means the vectors or the cosine differ (return cosine
        similarity, not distance); a wrong pre_filter one means the native filter.
        """
        prepared = shipped("freshness-lab.json")
        index(adapter, prepared)
        diffs = congruence.differences(reference_runs(prepared, Settings()), evaluate(adapter, prepared, Settings()))
        assert not diffs, "\n".join(map(str, diffs))

    def test_authorized_recall_numbers(self, adapter: Adapter) -> None:
        """The authorized-recall corpus reproduces the reference's ARecall@K (exact: to 3 decimals).

        If this fails: an approximate index (HNSW) may miss neighbours: raise ef, or
        declare ``exact=False`` with a ``recall_tolerance``. Identical numbers for
        post_filter but not pre_filter point at the native filter.
        """
        prepared, settings = shipped("authorized-recall"), Settings(ks=(1, 3, 5, 10))
        index(adapter, prepared)
        tolerance = max(adapter.capabilities.recall_tolerance, 0.0005)
        mine = by_strategy(evaluate(adapter, prepared, settings), settings.ks)
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
            index(adapter, prepared)
            rows = evaluate(adapter, prepared, Settings(ks=(1, 5, 10)))
            leaked = {(r.strategy, r.case): r.leaks for r in rows if r.strategy != "rank_only" and r.leaks}
            assert not leaked, f"{name}: leaks (strategy, case): {leaked}"

    # -- the native filter, clause by clause ---------------------------------

    def test_every_malformed_document_fails_closed(self, native: Adapter) -> None:
        """No malformed document of the adversarial fixture is ever admitted by the native filter.

        If this fails: the message names the documents and their metadata. Typical
        causes: a groups string matched like a one-element list, an empty or
        unparseable date treated as open-ended, ``1.0``/``true``/``"1"`` equal to
        revision 1, a missing field treated as "no constraint".
        """
        prepared = shipped("adversarial.json")
        index(native, prepared)
        got, want = congruence.eligible_sets(native, prepared), congruence.policy_sets(prepared)
        docs = {d.id: d.metadata for d in prepared.fixture.documents}
        bad = {case: sc.mismatch(got[case], want[case], docs) for case in want if got[case] != want[case]}
        assert not bad, "\n".join(f"case {c}: {m}" for c, m in bad.items())

    def test_tenant_isolation(self, native: Adapter) -> None:
        """A principal never sees another tenant's documents, even when the names share a prefix.

        If this fails: the tenant clause is missing, or matches by prefix/substring
        (``acme`` must not match ``acme-corp``), or is case-folded.
        """
        docs = {"own": sc.meta(), "prefix": sc.meta(tenant="acme-corp"), "short": sc.meta(tenant="acm"),
                "upper": sc.meta(tenant="ACME"), "empty": sc.meta(tenant="")}
        s = sc.Scenario.build(native, docs)
        for tenant in ("acme", "acme-corp", "acm", "ACME", "", "ac"):
            where = PolicyFilter(sc.principal(tenant), sc.AS_OF, sc.active_for(docs))
            got, want = s.native_ids(where), s.policy_ids(where)
            assert got == want, f"tenant {tenant!r}: {sc.mismatch(got, want, s.docs)}"

    @pytest.mark.parametrize(("label", "field", "value", "as_of", "eligible"), [
        ("valid_from is inclusive", "valid_from", "2026-09-08", "2026-09-08", True),
        ("the day before valid_from", "valid_from", "2026-09-08", "2026-09-07", False),
        ("valid_until is exclusive", "valid_until", "2026-09-08", "2026-09-08", False),
        ("the day before valid_until", "valid_until", "2026-09-08", "2026-09-07", True),
        ("a leap day", "valid_until", "2028-02-29", "2028-02-28", True),
        ("a time-zone offset is not a date (malformed)", "valid_from", "2026-09-07T23:00:00-05:00",
         "2026-09-08", False),
        ("a UTC timestamp is not a date (malformed)", "valid_until", "2026-12-01T00:00:00Z", "2026-09-08", False),
        ("valid_until null is open-ended", "valid_until", None, "2031-01-01", True),
    ])
    def test_date_boundaries(self, native: Adapter, label: str, field: str, value: object, as_of: str,
                             eligible: bool) -> None:
        """valid_from <= as_of < valid_until, in whole calendar days; timestamps are malformed.

        If this fails: check inclusive/exclusive comparisons (``$gte``/``$lt``), how an
        absent valid_until is encoded (a sentinel, or "is empty"), and that strings
        with a time or an offset are not parsed into a date the policy would reject.
        """
        from datetime import date

        docs = {"dated": sc.meta(**{field: value}), "other": sc.meta(tenant="zeta")}
        s = sc.Scenario.build(native, docs)
        where = PolicyFilter(sc.principal(), date.fromisoformat(as_of), sc.active_for(docs))
        assert s.policy_ids(where) == ({"dated"} if eligible else set()), "scenario self-check"
        got, want = s.native_ids(where), s.policy_ids(where)
        assert got == want, f"{label}, as of {as_of}: {sc.mismatch(got, want, s.docs)}"

    def test_groups_are_exact_strings(self, native: Adapter) -> None:
        """Groups match exactly: any shared group admits; operator-like, unicode and long names work.

        If this fails: a group name was interpreted as an operator (``$or``), matched as
        a substring, or a principal without groups matched everything.
        """
        long_group = "g" * 1000
        docs = {"dollar": sc.meta(groups=["$or"]), "two": sc.meta(groups=["finance", "engineering"]),
                "unicode": sc.meta(groups=["工程", "ingeniería"]), "long": sc.meta(groups=[long_group]),
                "sub": sc.meta(groups=["engineering-leads"])}
        s = sc.Scenario.build(native, docs)
        for groups in (("$or",), ("finance",), ("工程",), (long_group,), ("engineering",), ("engine",), ()):
            where = PolicyFilter(Principal(sc.TENANT, groups), sc.AS_OF, sc.active_for(docs))
            got, want = s.native_ids(where), s.policy_ids(where)
            assert got == want, f"groups {groups!r}: {sc.mismatch(got, want, s.docs)}"


class AdapterConformanceTests(CoreChecks, ContractChecks, LifecycleChecks, PlacementChecks):
    """The policy-conformance suite for one adapter; subclass it and override the ``adapter`` fixture."""
