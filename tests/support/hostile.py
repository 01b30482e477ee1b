"""Values a SQL store must bind, never paste: each one as a tenant, a logical id and a group matches only itself."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from filterproof.adapters.base import Adapter, Record
from filterproof.conformance.checks.contract import vec
from filterproof.conformance.worlds import scenarios as sc
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal, structural_problem

HOSTILE = ["' OR 1=1 --", "$or", "a\x00b", "\\0", "\ud800", "工程", "g" * 1000, "x'); DROP TABLE t; --", "%s"]
AS_OF = date(2026, 9, 8)


def each_matches_itself(store: Adapter, values: Sequence[str]) -> None:
    """One document per value (its tenant, logical id and group): the principal of that value finds exactly it
    (nothing where the policy calls the value malformed), and every id comes back as written."""
    store.reset(2)
    docs = {f"d{i}-{v[:20]}": sc.meta(tenant=v, logical_id=v, groups=[v]) for i, v in enumerate(values)}
    store.upsert([Record(i, vec(1, 0.5), m) for i, m in docs.items()])
    active = ActiveRevisions.of({(v, v): 1 for v in values})
    for (doc_id, meta), value in zip(docs.items(), values, strict=True):
        hits = store.search(vec(1, 0.5), 100, PolicyFilter(Principal(value, (value,)), AS_OF, active))
        assert [h.id for h in hits] == ([] if structural_problem(meta) else [doc_id]), repr(value)
    assert {h.id for h in store.search(vec(1, 0.5), 100, None)} == set(docs)
