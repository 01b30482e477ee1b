"""Hypothesis strategies for policy metadata: mostly well formed, every malformed class mixed in."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from hypothesis import strategies as st

from filterproof.policy import ActiveRevisions, PolicyFilter, Principal

TENANTS = ["acme", "acme-corp", "beta", "", "ácme"]
GROUPS = ["eng", "sec", "$or", "fin", "e", "工程"]
LOGICAL = ["a", "b", "c"]
DATES: list[Any] = ["2026-01-01", "2026-09-08", "2026-09-09", "2027-01-01", "2026-02-29", "yesterday", "",
                    "2026-09-08T00:00:00Z", 20260101, None]
ACTIVE = ActiveRevisions.of({(t, logical): r for t in TENANTS for logical, r in (("a", 1), ("b", 2))})


def metadata() -> st.SearchStrategy[dict[str, Any]]:
    """Metadata dicts with any subset of the policy's fields, each well formed or not."""
    fields = {
        "tenant": st.sampled_from([*TENANTS, None, 3, "acme/x"]),
        "logical_id": st.sampled_from([*LOGICAL, None, 7]),
        "revision": st.sampled_from([1, 2, 3, "1", 1.0, True, None, -1]),
        "status": st.sampled_from(["active", "active", "superseded", "draft", "Active", None]),
        "groups": st.one_of(st.lists(st.sampled_from(GROUPS), max_size=3),
                            st.sampled_from(["eng", [1], ["eng", None], None, [["eng"]]])),
        "valid_from": st.sampled_from(["2026-01-01", "2026-09-08", "2026-09-09", *DATES[5:]]),
        "valid_until": st.sampled_from(DATES),
    }
    return st.fixed_dictionaries({}, optional=fields)


def policy_filters() -> st.SearchStrategy[PolicyFilter]:
    """Principals and as-of dates around the generated dates' boundaries."""
    return st.builds(
        lambda tenant, groups, day: PolicyFilter(Principal(tenant, tuple(groups)),
                                                 date(2026, 1, 1) + timedelta(days=day), ACTIVE),
        st.sampled_from(TENANTS), st.lists(st.sampled_from(GROUPS), max_size=3), st.integers(-3, 400),
    )
