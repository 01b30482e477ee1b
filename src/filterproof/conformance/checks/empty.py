"""Nothing is not everything: an empty list in a call means no documents, never all of them.

``IN ()`` is not SQL, and most filter languages refuse an empty list, so an adapter that builds a clause from a
list tends to leave the clause out when the list is empty, and the call then reaches every row: a delete of no
ids deletes the collection (Chroma 0.3 and 0.4 did exactly that: chroma-core/chroma#583, #948; 1.5 raises), a flag
rewrite for no changed pair clears every flag, and a query whose active map holds no entry, or none of this
tenant's, asks no revision clause and admits every revision, superseded ones included. Here each such call is made on a
small world of two tenants, and every principal must then get what the policy admits: the calls that write
nothing leave every answer as it was, and a map with nothing authoritative in it admits nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from filterproof.adapters.base import Adapter, sync_active, update_many
from filterproof.conformance.worlds import scenarios as sc
from filterproof.policy import ActiveRevisions, PolicyFilter

BETA, SALES = "beta", "sales"
DOCS = {"p1": sc.meta(logical_id="p", revision=1), "p2": sc.meta(logical_id="p", revision=2),
        "k": sc.meta(logical_id="k"), "q": sc.meta(tenant=BETA, logical_id="q", groups=[SALES])}
"""acme/p in two revisions (2 active), acme/k, and beta/q: each principal below has something to lose."""
PRINCIPALS = (sc.principal(), sc.principal(BETA, SALES))
FULL = ActiveRevisions.of({(sc.TENANT, "p"): 2, (sc.TENANT, "k"): 1, (BETA, "q"): 1})
MAPS = {
    "an empty active map": ActiveRevisions.of({}),
    "a map of beta's documents only": ActiveRevisions.of({(BETA, "q"): 1}),
    "a map of acme's documents only": ActiveRevisions.of({(sc.TENANT, "p"): 2, (sc.TENANT, "k"): 1}),
    "the whole map again": FULL,
}
"""Asked in this order; each leaves out what the one before it held, and the last puts everything back."""


def wrong_answers(s: sc.Scenario, after: str, active: ActiveRevisions) -> list[str]:
    """Every principal's answer under ``active`` that is not the policy's, each naming ``after``."""
    found = []
    for principal in PRINCIPALS:
        where = PolicyFilter(principal, sc.AS_OF, active)
        got, want = s.native_ids(where), s.policy_ids(where)
        if got != want:
            found.append(f"after {after}, {sc.asked(where)}: {sc.mismatch(got, want, s.docs)}")
    return found


def empty_writes(adapter: Adapter) -> dict[str, Callable[[], None]]:
    """Each call that writes nothing, by what it is; delete and update only where the store takes them."""
    writes: dict[str, Callable[[], None]] = {"upsert([])": lambda: adapter.upsert([])}
    if adapter.capabilities.lifecycle:
        writes["delete([])"] = lambda: adapter.delete([])
        writes["update_metadata of no document (one batch, or none)"] = lambda: update_many(adapter, {})
    # An equal map as another object: no pair changed, so a flag rewrite has no pair to write.
    writes["set_active_revisions with the map it holds"] = lambda: sync_active(adapter, ActiveRevisions.of(dict(FULL)))
    return writes


class EmptyInputChecks:
    """An empty list in a call selects no document: a write of nothing changes nothing, a map of nothing admits
    nothing.

    Troubleshooting: a clause built from a list (``id IN (...)``, ``key IN (...)``, a ``$in``) left out of the
    statement when the list is empty; write a clause that matches nothing instead, or skip the call.
    """

    def test_a_write_of_nothing_changes_nothing(self, native: Adapter) -> None:
        """``upsert([])``, ``delete([])``, an update of no document and ``set_active_revisions`` with the map the
        store holds, each on a world of two tenants: after each, every principal gets what the policy admits of
        the unchanged documents.

        If this fails: the call with an empty list reached every row (a delete without its ``WHERE``, a flag
        cleared on every revision, an upsert in an overwrite mode), or the store refused it and the adapter passed
        it on (Chroma 1.5 raises on ``delete(ids=[])``): skip the call; the message names it.
        """
        s = sc.Scenario.build(native, DOCS)
        s.sync(FULL)
        found = wrong_answers(s, "the world was written", FULL)
        for label, write in empty_writes(native).items():
            if found:  # the first call at fault is named, not every one after it that shows the same damage
                break
            try:
                write()
            except Exception as error:  # a store that refuses an empty list: the adapter must not pass it on
                found = [f"{label} raised {type(error).__name__}: {error}"]
            else:
                found = wrong_answers(s, label, FULL)
        assert not found, " | ".join(found)

    def test_an_active_map_with_nothing_authoritative_admits_nothing(self, native: Adapter) -> None:
        """Each principal asks under an empty active map, under a map of the other tenant's documents only, and
        again under the whole map (``set_active_revisions`` before each where the store takes it): a tenant with
        no authoritative revision gets nothing, and everything comes back with the whole map.

        If this fails: an empty list of revision keys (or of this tenant's) left the revision clause out, and
        every revision, superseded ones included, was admitted; or a flag store cleared nothing.
        """
        s = sc.Scenario.build(native, DOCS)
        found = [line for label, active in MAPS.items() for line in wrong_answers(s, f"asking with {label}", active)]
        assert not found, " | ".join(found)
