"""Where the filter sits: containment, short results, and the generated congruence property."""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from filterproof.adapters.base import Adapter
from filterproof.conformance import generated
from filterproof.conformance import scenarios as sc
from filterproof.conformance.shipped import shipped
from filterproof.policy import PolicyFilter, Principal
from filterproof.runner import Settings, evaluate, index

EXAMPLES_ENV = "FILTERPROOF_CONFORMANCE_EXAMPLES"
DEFAULT_EXAMPLES = 60


def example_count(config: pytest.Config) -> int:
    """``--conformance-examples`` (the plugin's option), else the environment, else the default."""
    try:
        option = config.getoption("conformance_examples")
    except ValueError:
        option = None
    return int(option or os.environ.get(EXAMPLES_ENV) or DEFAULT_EXAMPLES)


class PlacementChecks:
    """pre_filter contains post_filter, short results are visible, and the filter equals the policy."""

    def test_pre_filter_contains_post_filter(self, native: Adapter) -> None:
        """For every case and K, what post_filter returns is also in what pre_filter returns.

        If this fails: pre_filter missed an allowed document that ranks inside the
        unfiltered top K: the native filtered search is not exhaustive (HNSW with a
        restrictive filter: raise ef or use exact search under selective filters).
        """
        prepared = shipped("authorized-recall")
        index(native, prepared)
        rows = evaluate(native, prepared, Settings(ks=(1, 3, 5, 10)))
        posts = [r for r in rows if r.strategy == "post_filter"]
        pres = [r for r in rows if r.strategy == "pre_filter"]
        broken = [
            (post.case, k, sorted(set(post.k[k].ids) - set(pre.k[k].ids)))
            for post, pre in zip(posts, pres, strict=True)
            for k in (1, 3, 5, 10) if not set(post.k[k].ids) <= set(pre.k[k].ids)
        ]
        allowed = int(native.capabilities.recall_tolerance * len(prepared.fixture.cases) * 4)
        assert len(broken) <= allowed, f"(case, K, missing from pre_filter): {broken[:10]}"

    @pytest.mark.parametrize("k", [2, 5, 10])
    def test_selective_filter_is_not_short(self, native: Adapter, k: int) -> None:
        """Under a selective filter, pre_filter returns min(K, eligible) documents, not fewer.

        The eligible documents score below forty ineligible ones. A store that searches
        the unfiltered top K (or a fixed candidate pool) and filters afterwards comes
        back short. If this fails: filter inside the search, or widen the candidate
        pool until K eligible documents are found; never return a short list silently.
        """
        docs = {f"noise-{i:02d}": sc.meta(logical_id=f"n{i}", groups=["other"]) for i in range(40)}
        docs |= {f"wanted-{i}": sc.meta(logical_id=f"w{i}") for i in range(4)}
        texts = {i: f"{sc.QUERY} {sc.QUERY} {i}" if i.startswith("noise") else f"{sc.QUERY} {i} extra words"
                 for i in docs}
        s = sc.Scenario.build(native, docs, texts)
        where = PolicyFilter(sc.principal(), sc.AS_OF, sc.active_for(docs))
        want = min(k, len(s.policy_ids(where)))
        got = s.native(where, k)
        slack = int(native.capabilities.recall_tolerance * want)
        assert len(got) >= want - slack, f"short result: {len(got)} returned for K={k} with {want} eligible"
        assert {h.id for h in got} <= s.policy_ids(where), "returned a document the filter must exclude"

    def test_native_filter_equals_policy_on_generated_metadata(self, native: Adapter, request: Any) -> None:
        """Generated documents, principals and dates: the native filter returns the policy's set.

        Runs ``--conformance-examples`` examples (default 60; env
        FILTERPROOF_CONFORMANCE_EXAMPLES). If this fails: hypothesis prints the
        smallest metadata that breaks; the message names the documents wrongly
        admitted (a leak) or wrongly excluded. Approximate adapters may miss up to
        their ``recall_tolerance``, never admit.
        """
        tolerance = native.capabilities.recall_tolerance

        @settings(max_examples=example_count(request.config), deadline=None, database=None,
                  suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
        @given(docs=generated.st.lists(generated.metadata(), min_size=1, max_size=20),
               wheres=generated.st.lists(generated.policy_filters(), min_size=1, max_size=3))
        def check(docs: list[dict[str, Any]], wheres: list[PolicyFilter]) -> None:
            s = sc.Scenario.build(native, {f"d{i}": m for i, m in enumerate(docs)})
            for where in wheres:
                got, want = s.native_ids(where), s.policy_ids(where)
                assert got <= want, f"{where.principal} at {where.as_of}: {sc.mismatch(got, want, s.docs)}"
                assert len(got) >= len(want) * (1 - tolerance), sc.mismatch(got, want, s.docs)

        check()

    def test_no_groups_matches_nothing(self, native: Adapter) -> None:
        """A principal with no groups is allowed nothing (there is no implicit public access).

        If this fails: an empty group list was dropped from the filter (meaning "no
        constraint") instead of being compiled to a filter that matches nothing.
        """
        docs = {"doc": sc.meta()}
        s = sc.Scenario.build(native, docs)
        assert s.native_ids(PolicyFilter(Principal(sc.TENANT, ()), sc.AS_OF, sc.active_for(docs))) == set()
