"""The caller's objects: a store keeps its own copy of what a write gave it, never the caller's dict or array.

A store of Python objects (a vector index beside a dict of metadata, an in-memory collection) that keeps the
metadata dict, its ``groups`` list or the vector array it was given, rather than a copy, changes whenever the
caller changes them: an application that builds the next record by editing the last one's dict, fills one numpy
buffer per batch, or edits a document's metadata before deciding to write it, rewrites documents it never wrote
again. A revoke nobody made, a tenant moved by a loop variable, every vector turned into the last one read. No
other check sees it, because the suite never touches an object once it has passed it on. Here it does: after
each write, every dict, list and array the write was given is changed in place, and another write follows (a
store that builds its filter columns from its metadata on the next write reads them then); the answers must be
the ones the writes gave: the documents, and each score the cosine of the vector written.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from filterproof.adapters.base import Adapter, Record, sync_active, update_many
from filterproof.conformance.worlds import scenarios as sc
from filterproof.policy import ActiveRevisions, PolicyFilter, is_eligible

BETA, SALES = "beta", "sales"
PRINCIPALS = (sc.principal(), sc.principal(BETA, SALES))
ACTIVE = ActiveRevisions.of({(tenant, logical): 1 for tenant in (sc.TENANT, BETA) for logical in "abc"})
"""Each document authoritative in either tenant: a document moved between them is eligible on both sides."""
SCORE_TOLERANCE = 1e-3
"""A float32 store's cosine, or an index's, against the check's own: the vectors changed differ by far more."""
QUERY = np.array([1.0, 0.0, 0.0], dtype=np.float32)

LATER = Record("later", np.array([0.0, 0.0, 1.0], dtype=np.float32), sc.meta(tenant="gamma", logical_id="later"))
"""Written and deleted again after each change of the caller's: a store that builds its filter columns or its
index from what it holds on the next write reads the caller's objects then; the world is as it was."""

def written() -> list[Record]:
    """acme's a and b and beta's c, at distinct angles to the query (a nearest): fresh objects each call."""
    return [Record("a", np.array([1.0, 0.1, 0.0], np.float32), sc.meta(logical_id="a")),
            Record("b", np.array([1.0, 0.6, 0.0], np.float32), sc.meta(logical_id="b")),
            Record("c", np.array([1.0, 0.3, 0.0], np.float32), sc.meta(tenant=BETA, logical_id="c", groups=[SALES]))]


def on_the_other_side(tenant: str, **fields: Any) -> dict[str, Any]:
    """Metadata of acme's engineering, or of beta's sales (``tenant``)."""
    return sc.meta(tenant=tenant, groups=[sc.GROUP if tenant == sc.TENANT else SALES], **fields)


def scramble(metadata: dict[str, Any]) -> None:
    """Move a caller's metadata dict to the other tenant and group, in place, its ``groups`` list included."""
    groups = metadata.get("groups")
    if isinstance(groups, list):
        groups[:] = [SALES if g == sc.GROUP else sc.GROUP for g in groups]
    metadata["tenant"] = BETA if metadata.get("tenant") == sc.TENANT else sc.TENANT


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


class Truth:
    """What the writes gave the store, in the check's own copies: each document's metadata and vector."""

    def __init__(self, records: list[Record]) -> None:
        self.docs = {r.id: (copy.deepcopy(dict(r.metadata)), r.vector.copy()) for r in records}

    def update(self, updates: dict[str, dict[str, Any]]) -> None:
        for doc_id, metadata in updates.items():
            self.docs[doc_id] = (copy.deepcopy(metadata), self.docs[doc_id][1])

    def wrong(self, adapter: Adapter) -> list[str]:
        """Each principal's answer and the unfiltered one against the writes: the documents, and each score the
        cosine of the vector written (the order follows)."""
        found = []
        for where in [*(PolicyFilter(p, sc.AS_OF, ACTIVE) for p in PRINCIPALS), None]:
            hits = adapter.search(QUERY, 10, where)
            got = {h.id for h in hits}
            want = {i for i, (m, _) in self.docs.items() if where is None or is_eligible(m, where)}
            asked = "unfiltered" if where is None else sc.asked(where)
            if got != want:
                found.append(f"{asked}: {sc.mismatch(got, want, {i: m for i, (m, _) in self.docs.items()})}")
            for hit in hits:
                score = cosine(self.docs[hit.id][1], QUERY) if hit.id in self.docs else hit.score
                if abs(hit.score - score) > SCORE_TOLERANCE:
                    found.append(f"{asked}: {hit.id!r} scored {hit.score:.3f} where the vector written scores "
                                 f"{score:.3f}")
        return found


class CallerObjectChecks:
    """What a write was given is the store's to copy: the caller may change its objects afterwards.

    Troubleshooting: copy the metadata (``copy.deepcopy``: ``groups`` is a list) and the vector
    (``np.array(v, copy=True)``) before keeping them; a store that serializes them (SQL, a server) copies already.
    """

    def test_the_store_keeps_its_own_copy_of_what_it_was_given(self, mutable: Adapter) -> None:
        """Three documents written; then the caller reverses every vector array it passed to ``upsert``, then
        moves every metadata dict to the other tenant and group (the ``groups`` list in place), then does the same
        to the dict given to ``update_metadata`` and to the dicts of an ``update_many``; another document is
        written and deleted after each: the principals of both tenants and an unfiltered query must answer as the
        writes said, documents and scores (each the cosine of the vector written).

        If this fails: the store kept the caller's object and read it again later (at the next search, or when
        the next write rebuilt an index of the metadata); the message names the object changed.
        """
        mutable.reset(3)
        sync_active(mutable, ACTIVE)
        records = written()
        mutable.upsert(records)
        truth, changed = Truth(records), []

        def check(change: str) -> None:
            changed.append(change)
            mutable.upsert([LATER])  # and delete it: a store that rebuilds on a write reads what it kept then
            mutable.delete([LATER.id])
            wrong = truth.wrong(mutable)
            assert not wrong, (f"after the caller changed, in place, {'; then '.join(changed)} (and another document "
                               f"was written and deleted): " + " | ".join(wrong[:4]))

        for record in records:
            record.vector[:] = record.vector[::-1].copy()
        check("the vector arrays it gave upsert")
        for record in records:
            scramble(record.metadata)  # type: ignore[arg-type]
        check("the metadata dicts it gave upsert")
        moved = on_the_other_side(BETA, logical_id="b")
        mutable.update_metadata("b", moved)
        truth.update({"b": moved})
        scramble(moved)
        check("the dict it gave update_metadata")
        batch = {"a": on_the_other_side(BETA, logical_id="a"), "c": on_the_other_side(sc.TENANT, logical_id="c")}
        update_many(mutable, batch)
        truth.update(batch)
        for metadata in batch.values():
            scramble(metadata)
        check("the dicts it gave update_metadata_batch (or update_metadata, one by one)")
