"""Lifecycle by sequence: generated operations on the adapter, the policy as the model, checked after every step.

A sequence is plain data: upserts (of new ids, of ids already stored, of ids deleted
before), deletes (of stored and unknown ids), ``update_metadata`` changing one field of
a document (its revision, tenant or logical id included; of unknown and deleted ids
too), and changes of the active map (a pair added, moved forward, rolled back,
removed), given to ``set_active_revisions`` as an application would. Identities come
from small pools holding case twins (``acme``/``Acme``, ``a``/``A``) and revisions
from a pool holding a 32-bit twin, so that collisions happen.

After every step, several principals ask: the native answer must be exactly the
policy's set over the documents the model holds, and an unfiltered search must return
exactly the stored ids. A failing sequence is shrunk (steps dropped one at a time while
it still fails) and printed as a numbered script of adapter calls.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from filterproof.adapters.base import Adapter, Record, sync_active
from filterproof.conformance import scenarios as sc
from filterproof.conformance.twins import shown
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal, eligible_ids

DIM = 8
IDS = ("d0", "d1", "d2", "d3")
TENANTS = ("acme", "Acme")
LOGICAL_IDS = ("a", "b", "A")
REVISIONS = (1, 2, 2**32 + 1)
GROUPS = ("eng", "ops")
PRINCIPALS = (Principal("acme", ("eng",)), Principal("acme", ("ops",)), Principal("Acme", ("eng",)),
              Principal("acme", ("eng", "ops")))
FIELD_VALUES: dict[str, tuple[Any, ...]] = {
    "tenant": (*TENANTS, "acme/a", 3),
    "logical_id": (*LOGICAL_IDS, None),
    "revision": (*REVISIONS, "1"),
    "status": ("active", "active", "superseded", "Active"),
    "groups": (["eng"], ["ops"], ["eng", "ops"], "eng", [], ...),
    "valid_from": ("2026-01-01", "2027-01-01", "2026-02-30"),
    "valid_until": (..., None, "2026-06-01", "2026-09-09", "2026-09-08"),
}
"""The values ``update_metadata`` may give one field (``...`` removes it): well-formed ones first, then a
malformed one, so that a document also leaves and re-enters the eligible set by a change of its own."""
UNTILS = (..., ..., None, "2027-01-01", "2026-06-01")
"""A new document's valid_until: mostly open or ahead, sometimes past, so that documents differ in the keys
they hold (a store that merges a new document into an old one shows)."""


def vector(n: int) -> np.ndarray:
    """A positive vector (every document scores above zero against the all-ones query), distinct per ``n``."""
    rng = np.random.default_rng(n)
    return (rng.random(DIM) + 0.1).astype(np.float32)


QUERY = np.ones(DIM, dtype=np.float32)
FIRST_MAP = ActiveRevisions.of({("acme", "a"): 1, ("acme", "b"): 1, ("Acme", "a"): 1})
"""The map a sequence starts from (given before the first upsert, as the harness does)."""


@dataclass(frozen=True)
class Upsert:
    id: str
    meta: dict[str, Any]
    vector: int

    def script(self) -> str:
        return f"upsert([Record({self.id!r}, vector({self.vector}), {shown(self.meta)})])"


@dataclass(frozen=True)
class Delete:
    ids: tuple[str, ...]

    def script(self) -> str:
        return f"delete({list(self.ids)!r})"


@dataclass(frozen=True)
class Background:
    """Documents no principal asks for (tenant ``zeta``), never touched again: the sequence then runs on a store
    that holds others, so that deletes are a small share of it (compaction, segment and page thresholds)."""

    count: int

    def records(self) -> list[Record]:
        return [Record(f"z{n}", vector(100 + n), sc.meta(tenant="zeta", logical_id=f"z{n}", groups=["eng"]))
                for n in range(self.count)]

    def script(self) -> str:
        return f"upsert([...])  # {self.count} documents of tenant 'zeta', ids z0 to z{self.count - 1}"


@dataclass(frozen=True)
class Update:
    id: str
    field: str
    value: Any

    def metadata(self, model: Model) -> dict[str, Any]:
        """The document's metadata (or, for an id not stored, its last or a template) with the one change."""
        base = model.docs.get(self.id) or model.last_seen.get(self.id) or sc.meta(tenant="acme", logical_id="a")
        changed = {k: v for k, v in base.items() if k != self.field}
        if self.value is not ...:
            changed[self.field] = self.value
        return changed



@dataclass(frozen=True)
class SetRevision:
    tenant: str
    logical_id: str
    revision: int | None
    """None removes the pair from the map."""


Operation = Upsert | Delete | Update | SetRevision | Background


@dataclass
class Model:
    """What the store must hold: the documents, the map, and each id's last metadata (for ops on deleted ids)."""

    docs: dict[str, dict[str, Any]] = field(default_factory=dict)
    vectors: dict[str, int] = field(default_factory=dict)
    active: ActiveRevisions = FIRST_MAP
    last_seen: dict[str, dict[str, Any]] = field(default_factory=dict)
    kinds: set[str] = field(default_factory=set)
    """What the sequence exercised, by kind of step (``insert``, ``re-upsert``, ``update revision``, ...)."""
    checks: int = 0
    nonempty: int = 0
    """Checks (after a step) where some principal was eligible for something."""

    def apply(self, op: Operation, adapter: Adapter) -> str:
        """Apply ``op`` to the adapter and to the model; return the script line (with the metadata it sent)."""
        if isinstance(op, Upsert):
            self.kinds.add("replace" if op.id in self.docs else "re-upsert" if op.id in self.last_seen else "insert")
            adapter.upsert([Record(op.id, vector(op.vector), dict(op.meta))])
            self.docs[op.id], self.vectors[op.id], self.last_seen[op.id] = dict(op.meta), op.vector, dict(op.meta)
        elif isinstance(op, Background):
            adapter.upsert(op.records())
            for n, record in enumerate(op.records()):
                self.docs[record.id], self.vectors[record.id] = dict(record.metadata), 100 + n
        elif isinstance(op, Delete):
            self.kinds.add("delete" if any(i in self.docs for i in op.ids) else "delete unknown")
            adapter.delete(list(op.ids))
            for i in op.ids:
                self.docs.pop(i, None)
        elif isinstance(op, Update):
            meta = op.metadata(self)
            known = op.id in self.docs
            self.kinds.add(f"update {op.field}" if known else "update deleted" if op.id in self.last_seen
                           else "update unknown")
            adapter.update_metadata(op.id, meta)
            if known:
                self.docs[op.id] = self.last_seen[op.id] = meta
            return f"update_metadata({op.id!r}, {shown(meta)})  # {op.field} changed"
        else:
            pairs = dict(self.active)
            before = pairs.get((op.tenant, op.logical_id))
            if op.revision is None:
                pairs.pop((op.tenant, op.logical_id), None)
            else:
                pairs[(op.tenant, op.logical_id)] = op.revision
            self.kinds.add("map remove" if op.revision is None else "map add" if before is None else "map move")
            self.active = ActiveRevisions.of(pairs)
            sync_active(adapter, self.active)
            return f"set_active_revisions({shown(self.active.to_json())})"
        return op.script()

    def check(self, adapter: Adapter, tolerance: float = 0.0) -> str | None:
        """What the adapter answers wrong now (one principal's mismatch, or the unfiltered ids), or None;
        an approximate adapter may miss up to ``tolerance`` of a set, never admit."""
        depth = len(self.docs) + 2
        unfiltered = {h.id for h in adapter.search(QUERY, depth, None)}
        if unfiltered != set(self.docs):
            return f"unfiltered search returned {sorted(unfiltered)}, the store holds {sorted(self.docs)}"
        self.checks += 1
        wheres = [PolicyFilter(principal, sc.AS_OF, self.active) for principal in PRINCIPALS]
        self.nonempty += any(eligible_ids(self.docs.items(), where) for where in wheres)
        for where in wheres:
            got = {h.id for h in adapter.search(QUERY, depth, where)}
            want = eligible_ids(self.docs.items(), where)
            if not (got <= want and len(got) >= len(want) * (1 - tolerance)):
                return f"{sc.asked(where)}: {sc.mismatch(got, want, self.docs, hint=True)}"
        return None


# -- generation -------------------------------------------------------------------------
# Steps are drawn against the model's state (mostly on stored ids, on pairs the map or the
# stored documents hold, and at their revisions), so that a short sequence already replaces,
# re-upserts, moves and removes what it holds, and most checks have something eligible.


def metadata(rnd: random.Random, model: Model) -> dict[str, Any]:
    """A document from the pools, usually keyed by a pair of the map at its revision; one time in four with
    one field off the eligible path."""
    if model.active and rnd.random() < 0.75:
        (tenant, logical_id), revision = rnd.choice(sorted(model.active.items()))
    else:
        tenant, logical_id, revision = rnd.choice(TENANTS), rnd.choice(LOGICAL_IDS), rnd.choice(REVISIONS)
    meta = sc.meta(tenant=tenant, logical_id=logical_id, revision=revision,
                   groups=rnd.choice([["eng"], ["ops"], ["eng", "ops"]]), valid_until=rnd.choice(UNTILS))
    if rnd.random() < 0.25:
        name = rnd.choice(sorted(FIELD_VALUES))
        value = rnd.choice(FIELD_VALUES[name])
        meta = {k: v for k, v in meta.items() if k != name} | ({} if value is ... else {name: value})
    return meta


def some_id(rnd: random.Random, preferred: list[str], rest: tuple[str, ...]) -> str:
    """One of ``preferred`` three times in four (when there are any), else any of ``rest``."""
    return rnd.choice(sorted(preferred)) if preferred and rnd.random() < 0.75 else rnd.choice(rest)


def pair_of(meta: Mapping[str, Any]) -> tuple[tuple[str, str], Any] | None:
    tenant, logical_id = meta.get("tenant"), meta.get("logical_id")
    if isinstance(tenant, str) and isinstance(logical_id, str):
        return (tenant, logical_id), meta.get("revision")
    return None


def map_change(rnd: random.Random, model: Model) -> SetRevision:
    """Mostly the pair of a document stored now or before (a deleted one's too: its pair may move while it is
    gone), moved to its revision (it becomes current) or to another, or removed."""
    held = sorted({p for m in (*model.docs.values(), *model.last_seen.values()) if (p := pair_of(m))}, key=repr)
    if held and rnd.random() < 0.75:
        (tenant, logical_id), own = rnd.choice(held)
    else:
        (tenant, logical_id), own = rnd.choice(sorted(model.active) or [("acme", "a")]), None
    if rnd.random() < 0.3:
        return SetRevision(tenant, logical_id, None)
    choices = [own] * 3 + list(REVISIONS) if isinstance(own, int) and not isinstance(own, bool) else REVISIONS
    return SetRevision(tenant, logical_id, rnd.choice(choices))


def operations(rnd: random.Random, model: Model) -> tuple[Operation, ...]:
    """The next step (or two), drawn against what the model holds now."""
    stored = [i for i in model.docs if i in IDS]  # background documents are never touched
    gone = [i for i in model.last_seen if i not in model.docs]
    kind = rnd.choice(("upsert", "upsert", "update", "update", "update", "delete", "recycle", "recycle", "map", "map"))
    if kind == "upsert":
        doc_id = rnd.choice(gone) if gone and rnd.random() < 0.5 else rnd.choice(IDS)
        # Half the time a deleted id comes back as it was (a restore): what a store derived from it (a flag)
        # must be derived again, not skipped as "unchanged".
        same = doc_id in gone and rnd.random() < 0.5
        meta = dict(model.last_seen[doc_id]) if same else metadata(rnd, model)
        return (Upsert(doc_id, meta, model.vectors.get(doc_id, 0) if same else rnd.randrange(8)),)
    if kind == "update":
        name = rnd.choice(sorted(FIELD_VALUES))
        target = rnd.choice(gone) if gone and rnd.random() < 0.3 else some_id(rnd, stored, (*IDS, "ghost"))
        return (Update(target, name, rnd.choice(FIELD_VALUES[name])),)
    if kind == "delete":
        return (Delete(tuple(dict.fromkeys(some_id(rnd, stored, (*IDS, "ghost")) for _ in range(rnd.randint(1, 2))))),)
    if kind == "recycle" and stored:
        return recycle(rnd, model, rnd.choice(sorted(stored)))
    return (map_change(rnd, model),)


def recycle(rnd: random.Random, model: Model, doc_id: str) -> tuple[Operation, ...]:
    """Delete a document, maybe move its pair in the map while it is gone, and upsert it again: as it was (a
    restore), or anew without valid_until. A store that revives what it deleted (a tombstone's metadata merged
    in, a flag the map change skipped and the restore did not recompute) shows."""
    before = model.docs[doc_id]
    steps: list[Operation] = [Delete((doc_id,))]
    if (found := pair_of(before)) and rnd.random() < 0.5:
        (tenant, logical_id), own = found
        steps.append(SetRevision(tenant, logical_id, rnd.choice([r for r in (*REVISIONS, None) if r != own])))
    if rnd.random() < 0.5:
        steps.append(Upsert(doc_id, dict(before), model.vectors[doc_id]))
    else:
        fresh = {k: v for k, v in metadata(rnd, model).items() if k != "valid_until"}
        steps.append(Upsert(doc_id, fresh, rnd.randrange(8)))
    return tuple(steps)


def drawn(rnd: random.Random, model: Model, steps: int, into: list[Operation]) -> Iterator[Operation]:
    """About ``steps`` operations, each drawn against the model as the previous ones left it (kept in ``into``);
    half the sequences start on a store that holds background documents."""
    if rnd.random() < 0.5:
        into.append(Background(rnd.choice((6, 12, 24))))
        yield into[-1]
    for _ in range(steps):
        for op in operations(rnd, model):
            into.append(op)
            yield op

# -- running, shrinking, printing ---------------------------------------------------------


@dataclass(frozen=True)
class Failure:
    step: int
    """Index of the step after which the check failed (-1: before any step)."""
    message: str
    lines: tuple[str, ...]


def play(adapter: Adapter, model: Model, ops: Iterable[Operation]) -> Failure | None:
    """Reset the adapter, give it the model's map, apply ``ops`` one by one (``ops`` may be drawn lazily,
    against the model as it goes), check after each; the first failure, or None."""
    tolerance = adapter.capabilities.recall_tolerance
    adapter.reset(DIM)
    sync_active(adapter, model.active)
    lines = []
    for n, op in enumerate(ops):
        lines.append(model.apply(op, adapter))
        problem = model.check(adapter, tolerance)
        if problem:
            return Failure(n, problem, tuple(lines))
    return None


def run(adapter: Adapter, ops: list[Operation]) -> Failure | None:
    return play(adapter, Model(), ops)


def shrink(adapter: Adapter, ops: list[Operation], failure: Failure) -> tuple[Failure, str]:
    """A 1-minimal failing sequence (steps after the failure cut, then each step dropped while it still fails),
    and a note; when the steps pass on replay after ``reset()``, the original failure and a note saying so."""
    if run(adapter, ops) is None:
        return failure, ("the same steps passed when replayed after reset(): state survives reset() "
                         "(a cache, a pending write or flag kept across reset)")
    ops = ops[: failure.step + 1]
    n = len(ops) - 1
    while n >= 0:
        smaller = ops[:n] + ops[n + 1:]
        found = run(adapter, smaller) if smaller else None
        if found is not None:
            ops, failure = smaller[: found.step + 1], found
        n = min(n - 1, len(ops) - 1)
    return failure, ""


def script(failure: Failure, original: int, note: str = "") -> str:
    steps = "\n".join(f"  {n + 1}. adapter.{line}" for n, line in enumerate(failure.lines))
    how = note or f"shrunk from {original}"
    return (f"a sequence of {len(failure.lines)} steps ({how}) fails; after each step the "
            f"native filter is checked for {len(PRINCIPALS)} principals and unfiltered:\n  adapter.reset({DIM})\n"
            f"  adapter.set_active_revisions({shown(FIRST_MAP.to_json())})\n{steps}\nthen: {failure.message}")
