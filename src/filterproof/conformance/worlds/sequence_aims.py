"""Steps aimed at what a run of generated sequences has not done yet, so that a top-up ends a weak run.

Uniform draws reach every kind of step in a few dozen sequences, but not always: at the
quick tier a part of 4 sequences topped up to 32 still missed a kind of step (``update
deleted``, taken by about one sequence in five) or met too few eligible documents about
once in a thousand parts, and failed a run whose store was right. A top-up sequence
therefore starts with steps aimed at what the run lacks: for each kind, the step itself
when the model allows it, else the step it needs first (a document stored, then deleted,
then updated); for eligibility, a document some principal may read. Each operation is
drawn against the model as the previous one left it, and checked like any other step;
the sequence's drawn steps follow.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from filterproof.conformance.checks.sequences import (
    FIELD_VALUES,
    IDS,
    LOGICAL_IDS,
    REVISIONS,
    TENANTS,
    Delete,
    Model,
    Operation,
    SetRevision,
    Step,
    Update,
    UpdateBatch,
    Upsert,
)
from filterproof.conformance.worlds import scenarios as sc
from filterproof.conformance.worlds.sequence_draws import metadata, update_value

ELIGIBLE = "eligible"
"""The aim of a run with too few checks that had an eligible document: a document every principal of its tenant
may read, current in the map, in effect."""
MOST_STEPS = 4
"""Every aim is reached within this many operations from any state of the model (``tests``: from every state a
drawn sequence passes through)."""


def aimed(rnd: random.Random, model: Model, aims: tuple[str, ...], into: list[Step]) -> Iterator[Step]:
    """Steps of one operation each (kept in ``into``), until the model has taken a step of every kind in ``aims``
    (``ELIGIBLE``: until a check had an eligible document), in order; each is checked before the next is drawn."""
    for aim in aims:
        before = model.nonempty
        for _ in range(MOST_STEPS):
            if model.nonempty > before if aim == ELIGIBLE else aim in model.kinds:
                break
            into.append((toward(rnd, model, aim),))
            yield into[-1]


def toward(rnd: random.Random, model: Model, aim: str) -> Operation:
    """The next operation toward a step of kind ``aim``: the step itself when the model allows it, else what it
    needs first."""
    stored = sorted(i for i in model.docs if i in IDS)
    gone = sorted(i for i in model.last_seen if i not in model.docs)
    fresh = [i for i in IDS if i not in model.last_seen]
    pairs = sorted(p for p in model.active if p[0] != "zeta")  # the background's pairs are never touched
    readable = [p for p in pairs if p[0] in TENANTS]  # a tenant some principal asks for (not 'acme/a')
    if aim == "insert":  # an id never stored: aims start a sequence, and insert comes first (REQUIRED_KINDS)
        return new(rnd, model, rnd.choice(fresh))
    if aim == "delete unknown":
        return Delete(("ghost",))
    if aim == "map add" or (aim in ("map move", "map remove") and not pairs) or (aim == ELIGIBLE and not readable):
        free = [(t, lid) for t in TENANTS for lid in LOGICAL_IDS if (t, lid) not in model.active]
        if not free:  # every pair is in the map: remove one first
            return SetRevision(*rnd.choice(pairs), None)
        return SetRevision(*rnd.choice(free), rnd.choice(REVISIONS))
    if aim in ("map move", "map remove"):
        tenant, logical_id = rnd.choice(pairs)
        own = model.active.get((tenant, logical_id))
        return SetRevision(tenant, logical_id, None if aim == "map remove" else
                           rnd.choice([r for r in REVISIONS if r != own]))
    if aim == ELIGIBLE:
        tenant, logical_id = rnd.choice(readable)
        return Upsert(rnd.choice(IDS), sc.meta(tenant=tenant, logical_id=logical_id, groups=["eng", "ops"],
                                               revision=model.active.get((tenant, logical_id))), rnd.randrange(8))
    if aim in ("re-upsert", "update deleted") and gone:
        return (Upsert(gone[0], metadata(rnd, model), rnd.randrange(8)) if aim == "re-upsert" else
                Update(gone[0], name := rnd.choice(sorted(FIELD_VALUES)), update_value(rnd, model, gone[0], name)))
    if not stored:
        return new(rnd, model, (fresh or gone)[0])
    doc_id = rnd.choice(stored)
    if aim in ("delete", "re-upsert", "update deleted"):
        return Delete((doc_id,))
    if aim == "replace":
        return Upsert(doc_id, metadata(rnd, model), rnd.randrange(8))
    if aim == "update batch":  # a stored document and one the store does not hold, in one call
        other = gone[0] if gone else "ghost"
        return UpdateBatch(tuple(Update(i, name := rnd.choice(sorted(FIELD_VALUES)), update_value(rnd, model, i, name))
                                 for i in (doc_id, other)))
    if aim.startswith("update "):
        name = aim.removeprefix("update ")
        return Update(doc_id, name, update_value(rnd, model, doc_id, name))
    raise ValueError(f"no step is aimed at {aim!r}")


def new(rnd: random.Random, model: Model, doc_id: str) -> Upsert:
    return Upsert(doc_id, metadata(rnd, model), rnd.randrange(8))
