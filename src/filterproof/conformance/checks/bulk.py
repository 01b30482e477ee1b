"""Bulk calls: one upsert, one ``update_many`` and one ``delete`` of more than a thousand documents each, past the
batches a store cuts a call into.

A store sends a large call in slices (Milvus deletes 1,000 ids an expression, LanceDB reads back 1,000 rows at a
time to rewrite them, Chroma takes 5,461 items a call), and a slice lost or cut short at a boundary loses the
changes past it: a bulk revoke leaves the rest of the documents readable, a bulk delete keeps them. A world of
ten documents never reaches a second slice. Here ``DOCS`` documents sit in groups of ``BUCKET`` (``g0``,
``g1``, ...), so that one batch of queries, a principal for every ``SPAN`` groups asking as deep as they hold,
sees every document once:

1. one upsert of all of them;
2. one ``update_many`` moving four in five to a twin group (``g7`` to ``h7``): a change lost leaves a document in
   its old group (a leak for that group's principal);
3. one ``delete`` of four in five, moved and not: a delete lost leaves a document readable.

After each call the batch is asked and every answer compared with the exact one: a returned document not
eligible is a leak, for every store; one missing is a loss, for an exact store (an approximate one is held to its
``recall_tolerance`` over the batch). (Found by mutation: Milvus's delete and LanceDB's read-back, each with
its second slice emptied, passed every other check.)
"""

from __future__ import annotations

import numpy as np
import pytest

from filterproof.adapters.base import Adapter, Record, search_many, sync_active, update_many
from filterproof.conformance.worlds import scenarios as sc
from filterproof.policy import ActiveRevisions, PolicyFilter

DOCS = 1_300
"""Four in five of them (1,040) changed in one call: past a slice of 1,000 (an id list, rows read back, an ``IN``
of SQL) and of 1,024. A larger world costs Milvus Lite seconds a thousand rows rewritten."""
BUCKET = 50
"""Documents a group."""
SPAN = 10
"""Groups a principal holds: it asks at K = SPAN * BUCKET, so every document of its groups fits one answer."""
DIM = 8
SHOWN = 5


def bulk_id(i: int) -> str:
    return f"bulk-{i:04d}"


def bulk_meta(i: int, group: str) -> dict[str, object]:
    """A group's documents are chunks of one logical document (one revision): the active map stays small, so that
    the queries' cost is the calls', not a map of thousands of keys."""
    return sc.meta(logical_id=f"bulk-{i // BUCKET}", groups=[group])


def principals() -> list[tuple[str, ...]]:
    """Who asks: each principal holds ``SPAN`` groups of one side (``g0`` .. ``g9``, then ``h0`` .. ``h9``), so
    that a document left in its old group is a leak for the principal of that side."""
    groups = -(-DOCS // BUCKET)
    return [tuple(f"{side}{j}" for j in range(start, min(start + SPAN, groups)))
            for side in "gh" for start in range(0, groups, SPAN)]


def where(held: dict[int, str], doc: str) -> str:
    """Where a document is now: ``in group 'h3'``, ``deleted``."""
    row = int(doc.removeprefix("bulk-"))
    return f"in group {held[row]!r}" if row in held else "deleted"


def judged(adapter: Adapter, held: dict[int, str], active: ActiveRevisions, step: str) -> list[str]:
    """Ask every principal at K = all its groups' documents; what the answers got wrong against ``held`` (row ->
    its group)."""
    asking = principals()
    wheres = [PolicyFilter(sc.principal(sc.TENANT, *groups), sc.AS_OF, active) for groups in asking]
    queries = np.random.default_rng(7).standard_normal((len(asking), DIM)).astype(np.float32)
    answers = search_many(adapter, queries, SPAN * BUCKET, wheres)
    problems, wanted, found = [], 0, 0
    for groups, answer in zip(asking, answers, strict=True):
        want = {bulk_id(i) for i, g in held.items() if g in groups}
        got = [h.id for h in answer]
        leaked, missing = sorted(set(got) - want), sorted(want - set(got))
        wanted, found = wanted + len(want), found + len(want) - len(missing)
        who = f"the principal of groups {groups[0]!r} .. {groups[-1]!r}"
        if len(got) != len(set(got)):
            problems.append(f"after {step}: {who} got an id twice in one answer")
        if leaked:
            named = ", ".join(f"{i} ({where(held, i)})" for i in leaked[:SHOWN])
            problems.append(f"after {step}: {who} read {len(leaked)} documents it must not (a leak): {named}"
                            f"{' ...' if len(leaked) > SHOWN else ''}")
        elif missing and adapter.capabilities.exact:
            problems.append(f"after {step}: {who} lost {len(missing)} of its {len(want)} documents: "
                            f"{', '.join(missing[:SHOWN])}{' ...' if len(missing) > SHOWN else ''}")
    if not adapter.capabilities.exact and found < (1 - adapter.capabilities.recall_tolerance) * wanted:
        problems.append(f"after {step}: {found} of {wanted} documents came back (recall_tolerance "
                        f"{adapter.capabilities.recall_tolerance})")
    return problems


def bulk_failures(adapter: Adapter) -> list[str]:
    """The three bulk calls, each judged; the first call whose answers are wrong ends the world."""
    docs = {bulk_id(i): bulk_meta(i, f"g{i // BUCKET}") for i in range(DOCS)}
    active = sc.active_for(docs)
    vectors = np.random.default_rng(44).standard_normal((DOCS, DIM)).astype(np.float32)
    adapter.reset(DIM)
    sync_active(adapter, active)
    held = {i: f"g{i // BUCKET}" for i in range(DOCS)}
    adapter.upsert([Record(bulk_id(i), vectors[i], docs[bulk_id(i)]) for i in range(DOCS)])
    problems = judged(adapter, held, active, f"one upsert of {DOCS:,} documents")
    if problems:
        return problems
    moved = [i for i in range(DOCS) if i % 5]
    update_many(adapter, {bulk_id(i): bulk_meta(i, f"h{i // BUCKET}") for i in moved})
    held.update({i: f"h{i // BUCKET}" for i in moved})
    problems = judged(adapter, held, active, f"one update_many moving {len(moved):,} documents to another group")
    if problems:
        return problems
    gone = [i for i in range(DOCS) if i % 5 != 1]
    adapter.delete([bulk_id(i) for i in gone])
    for i in gone:
        del held[i]
    return judged(adapter, held, active, f"one delete of {len(gone):,} documents")


class BulkChecks:
    """One call of more than a thousand changes, past the batches a store cuts a call into."""

    def test_one_call_past_a_thousand_changes(self, mutable: Adapter) -> None:
        """One upsert of 1,300 documents, one ``update_many`` moving 1,040 of them to another group, one ``delete``
        of 1,040: after each, every principal reads exactly its groups' documents.

        If this fails: look at how the store cuts a large call (a slice of ids for a delete, of rows read back
        for an update, a request's size): the first document past a boundary that a failing call names is the
        slice that was lost or cut short.
        """
        problems = bulk_failures(mutable)
        if problems:
            pytest.fail("\n".join(problems[:SHOWN]) + (f"\n... {len(problems) - SHOWN} more" if len(problems) > SHOWN
                                                      else ""))
