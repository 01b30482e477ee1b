"""The world a freshness run writes and reads: documents by principal, and a schedule of changes.

Every document belongs to one tenant and one group, so each principal (a tenant and
one group) is eligible for a partition of the corpus, and a reader's filtered search
``k`` deep returns the whole partition: whether a changed document is in an answer
does not depend on its vector. Vectors are ours (seeded, unit length); nothing is
downloaded. Changes, drawn once before the run so that readers know what to watch:

* ``revoke``: the document's groups become ``["revoked"]`` (must vanish);
* ``supersede``: revision 2 is published, revision 1 marked ``superseded`` and the
  active map moved to 2 (revision 1 must vanish; readers keep the map they started
  with, as a replica that has not reloaded it, so revision 2 is not judged);
* ``delete``: the document is deleted (must vanish);
* ``publish``: a new document of the principal's group (must appear; its active-map
  entry is there from the start).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import numpy as np

from filterproof.adapters.base import Adapter, Record, sync_active
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal

AS_OF = date(2026, 9, 8)
KINDS = ("revoke", "supersede", "delete", "publish")
VANISH = {"revoke", "supersede", "delete"}


def meta(tenant: str, group: str, logical_id: str, revision: int = 1, status: str = "active",
         groups: list[str] | None = None) -> dict[str, Any]:
    return {"tenant": tenant, "logical_id": logical_id, "revision": revision, "status": status,
            "groups": groups or [group], "valid_from": "2026-01-01"}


@dataclass(frozen=True)
class Change:
    """One scheduled change: its kind, the principal it concerns, the document that must vanish or appear."""

    kind: str
    principal: int
    target: str
    logical_id: str

    @property
    def vanishes(self) -> bool:
        return self.kind in VANISH


@dataclass
class World:
    """Documents (``docs``, ``vectors``) by principal, the principals' filters and query vectors, the changes."""

    principals: list[Principal]
    docs: dict[str, dict[str, Any]]
    vectors: dict[str, np.ndarray]
    owner: dict[str, int]
    changes: list[Change]
    active: ActiveRevisions
    queries: np.ndarray
    later: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Documents the changes publish (``publish``, and ``supersede``'s revision 2), written when scheduled."""

    @property
    def dim(self) -> int:
        return int(self.queries.shape[1])

    def wheres(self) -> list[PolicyFilter]:
        return [PolicyFilter(p, AS_OF, self.active) for p in self.principals]

    def depth(self) -> int:
        """A search this deep returns every document a principal may see, at any point of the run."""
        sizes = [sum(1 for o in self.owner.values() if o == p) for p in range(len(self.principals))]
        return max(sizes) + 1

    def watch(self) -> list[frozenset[str]]:
        return [frozenset(c.target for c in self.changes if c.principal == p) for p in range(len(self.principals))]


def _unit(rng: np.random.Generator, dim: int) -> np.ndarray:
    v = rng.standard_normal(dim).astype(np.float32)
    return v / np.linalg.norm(v)


def build(documents: int, principals: int, changes: int, dim: int = 32, seed: int = 0) -> World:
    """``documents`` spread over ``principals`` (two tenants), and ``changes`` of the four kinds in turn."""
    rng, rnd = np.random.default_rng(seed), random.Random(seed)
    people = [Principal(f"t{p % 2}", (f"g{p}",)) for p in range(principals)]
    docs, vectors, owner = {}, {}, {}
    for n in range(documents):
        p = n % principals
        doc = f"d{n:06d}"
        docs[doc], vectors[doc], owner[doc] = meta(people[p].tenant, people[p].groups[0], doc), _unit(rng, dim), p
    pool = list(docs)
    rnd.shuffle(pool)
    scheduled, later = [], {}
    for n in range(changes):
        kind = KINDS[n % len(KINDS)]
        if kind == "publish":
            p = rnd.randrange(principals)
            doc = f"new{n:05d}"
            later[doc], owner[doc] = meta(people[p].tenant, people[p].groups[0], doc), p
            vectors[doc] = _unit(rng, dim)
            scheduled.append(Change(kind, p, doc, doc))
        else:
            doc = pool.pop()
            if kind == "supersede":  # its revision 2: counted in the principal's depth (a flag store admits it)
                owner[f"{doc}-r2"] = owner[doc]
            scheduled.append(Change(kind, owner[doc], doc, doc))
    entries = {(m["tenant"], m["logical_id"]): 1 for m in [*docs.values(), *later.values()]}
    return World(people, docs, vectors, owner, scheduled, ActiveRevisions.of(entries),
                 np.stack([_unit(rng, dim) for _ in people]), later)


def writer(store: Adapter, world: World) -> Callable[[Change], None]:
    """Index the world in ``store`` and return the function that makes one change through it."""
    store.reset(world.dim)
    active = world.active
    sync_active(store, active)
    ids = list(world.docs)
    for start in range(0, len(ids), 500):
        store.upsert([Record(i, world.vectors[i], world.docs[i]) for i in ids[start:start + 500]])

    def make(change: Change) -> None:
        nonlocal active
        person, doc = world.principals[change.principal], change.target
        tenant, group = person.tenant, person.groups[0]
        if change.kind == "revoke":
            store.update_metadata(doc, meta(tenant, group, doc, groups=["revoked"]))
        elif change.kind == "delete":
            store.delete([doc])
        elif change.kind == "publish":
            store.upsert([Record(doc, world.vectors[doc], world.later[doc])])
        else:  # supersede: the new revision in, the old one out, the map moved
            store.upsert([Record(f"{doc}-r2", world.vectors[doc], meta(tenant, group, doc, revision=2))])
            store.update_metadata(doc, meta(tenant, group, doc, status="superseded"))
            active = active.replace(tenant, doc, 2)
            sync_active(store, active)

    return make
