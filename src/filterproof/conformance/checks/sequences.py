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
it still fails) and printed as a numbered script of adapter calls. ``sequence_draws``
draws the steps.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from filterproof.adapters.base import Adapter, Record, optimize, sync_active, update_many
from filterproof.conformance.worlds import diagnosis
from filterproof.conformance.worlds import scenarios as sc
from filterproof.conformance.worlds.twins import shown
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal, eligible_ids

DIM = 8
IDS = ("d0", "d1", "d2", "d3")
TENANTS = ("acme", "Acme")
LOGICAL_IDS = ("a", "b", "A")
REVISIONS = (1, 2, 2**32 + 1)
PRINCIPALS = (Principal("acme", ("eng",)), Principal("acme", ("ops",)), Principal("Acme", ("eng", "ops")),
              Principal("acme", ("eng", "ops")))
FIELD_VALUES: dict[str, tuple[Any, ...]] = {
    "tenant": (*TENANTS, "acme/a", 3),
    "logical_id": (*LOGICAL_IDS, None),
    "revision": (*REVISIONS, "1"),
    "status": ("active", "active", "superseded", "Active"),
    "groups": (["eng"], ["ops"], ["eng", "ops"], "eng", [], ...),
    "valid_from": ("2026-01-01", "2020-01-01", "2027-01-01", "2026-02-30"),
    "valid_until": (..., None, "2026-06-01", "2026-09-09", "2026-09-08"),
}
"""The values ``update_metadata`` may give one field (``...`` removes it): well-formed ones first, then a
malformed one, so that a document also leaves and re-enters the eligible set by a change of its own."""
FROMS = ("2026-01-01", "2026-01-01", "2026-01-01", "2027-01-01")
"""A new document's valid_from: one in four not yet in effect (an update may bring it in)."""
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

    recent: list[tuple[str, str]] = field(default_factory=list)
    """The (tenant, logical_id) pairs of the documents the last writes touched, newest last."""

    def store(self, doc_id: str, meta: dict[str, Any], vector_seed: int) -> None:
        self.docs[doc_id], self.vectors[doc_id], self.last_seen[doc_id] = dict(meta), vector_seed, dict(meta)
        self.touch(meta)

    def update(self, doc_id: str, meta: dict[str, Any]) -> None:
        """A stored document's metadata replaced; an id not stored is ignored (the contract's update)."""
        if doc_id in self.docs:
            self.touch(self.docs[doc_id])
            self.docs[doc_id] = self.last_seen[doc_id] = meta
            self.touch(meta)

    def touch(self, meta: dict[str, Any]) -> None:
        tenant, logical_id = meta.get("tenant"), meta.get("logical_id")
        if isinstance(tenant, str) and isinstance(logical_id, str):
            self.recent = [*self.recent[-2:], (tenant, logical_id)]


# Each operation applies itself to the adapter and to the model, and returns its line of the script.


@dataclass(frozen=True)
class Upsert:
    id: str
    meta: dict[str, Any]
    vector: int

    def apply(self, model: Model, adapter: Adapter) -> str:
        model.kinds.add("replace" if self.id in model.docs else "re-upsert" if self.id in model.last_seen
                        else "insert")
        adapter.upsert([Record(self.id, vector(self.vector), dict(self.meta))])
        model.store(self.id, self.meta, self.vector)
        return f"upsert([Record({self.id!r}, vector({self.vector}), {shown(self.meta)})])"


@dataclass(frozen=True)
class Background:
    """Documents no principal asks for (tenant ``zeta``), never touched again: the sequence then runs on a store
    that holds others, so that deletes are a small share of it (compaction, segment and page thresholds)."""

    count: int

    def apply(self, model: Model, adapter: Adapter) -> str:
        records = [Record(f"z{n}", vector(100 + n), sc.meta(tenant="zeta", logical_id=f"z{n}", groups=["eng"]))
                   for n in range(self.count)]
        model.active = ActiveRevisions.of({**model.active, **{("zeta", f"z{n}"): 1 for n in range(self.count)}})
        sync_active(adapter, model.active)
        adapter.upsert(records)
        for n, record in enumerate(records):
            model.docs[record.id], model.vectors[record.id] = dict(record.metadata), 100 + n
        return (f"set_active_revisions(...), upsert([...])  # {self.count} documents of tenant 'zeta', ids z0 to "
                f"z{self.count - 1}, each current")


@dataclass(frozen=True)
class Delete:
    ids: tuple[str, ...]

    def apply(self, model: Model, adapter: Adapter) -> str:
        model.kinds.add("delete" if any(i in model.docs for i in self.ids) else "delete unknown")
        adapter.delete(list(self.ids))
        for i in self.ids:
            model.docs.pop(i, None)
        return f"delete({list(self.ids)!r})"


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

    def apply(self, model: Model, adapter: Adapter) -> str:
        meta, known = self.metadata(model), self.id in model.docs
        model.kinds.add(f"update {self.field}" if known else "update deleted" if self.id in model.last_seen
                        else "update unknown")
        adapter.update_metadata(self.id, meta)
        model.update(self.id, meta)
        return f"update_metadata({self.id!r}, {shown(meta)})  # {self.field} changed"


@dataclass(frozen=True)
class UpdateBatch:
    """Several one-field updates of distinct ids in one ``update_metadata_batch`` call (``update_many``: one by
    one where the adapter has no batch): a permissions job's bulk change, unknown and deleted ids among them."""

    updates: tuple[Update, ...]

    def apply(self, model: Model, adapter: Adapter) -> str:
        metas = {u.id: u.metadata(model) for u in self.updates}
        update_many(adapter, metas)
        model.kinds.add("update batch")
        for doc_id, meta in metas.items():
            model.update(doc_id, meta)
        return f"update_metadata_batch({shown(metas)})  # " + ", ".join(f"{u.id}: {u.field}" for u in self.updates)


@dataclass(frozen=True)
class SetRevision:
    tenant: str
    logical_id: str
    revision: int | None
    """None removes the pair from the map."""

    def apply(self, model: Model, adapter: Adapter) -> str:
        pairs = dict(model.active)
        before = pairs.pop((self.tenant, self.logical_id), None)
        if self.revision is not None:
            pairs[(self.tenant, self.logical_id)] = self.revision
        model.kinds.add("map remove" if self.revision is None else "map add" if before is None else "map move")
        model.active = ActiveRevisions.of(pairs)
        sync_active(adapter, model.active)
        return f"set_active_revisions({shown(model.active.to_json())})"


@dataclass(frozen=True)
class Optimize:
    """The build step the harness calls after an ingest (stores flush, compact or build an index there)."""

    def apply(self, model: Model, adapter: Adapter) -> str:
        model.kinds.add("optimize")
        optimize(adapter)
        return "optimize()"


Operation = Upsert | Delete | Update | UpdateBatch | SetRevision | Background | Optimize


def check(model: Model, adapter: Adapter, tolerance: float = 0.0) -> str | None:
    """What the adapter answers wrong now (one principal's mismatch, or the unfiltered ids), or None; an
    approximate adapter may miss up to ``tolerance`` of a set, never admit."""
    depth = len(model.docs) + 2
    unfiltered = {h.id for h in adapter.search(QUERY, depth, None)}
    if unfiltered != set(model.docs):
        return (f"unfiltered search returned {sorted(unfiltered)}, the store holds {sorted(model.docs)}"
                + diagnosis.lines({cause: [", ".join(sorted(ids))] for cause, ids in
                                   (("lost", set(model.docs) - unfiltered), ("phantom", unfiltered - set(model.docs)))
                                   if ids}))
    model.checks += 1
    wheres = [PolicyFilter(principal, sc.AS_OF, model.active) for principal in PRINCIPALS]
    model.nonempty += any(eligible_ids(model.docs.items(), where) for where in wheres)
    for where in wheres:
        got = {h.id for h in adapter.search(QUERY, depth, where)}
        want = eligible_ids(model.docs.items(), where)
        if not (got <= want and len(got) >= len(want) * (1 - tolerance)):
            return f"{sc.asked(where)}: {sc.mismatch(got, want, model.docs)}" + diagnosis.by_policy(
                model.docs, where, got, want)
    return None


# -- running, shrinking, printing ---------------------------------------------------------
# A sequence is a list of steps; a step is one or more operations applied with no search
# between them (a writer's burst), then checked.

Step = tuple[Operation, ...]


@dataclass(frozen=True)
class Failure:
    step: int
    """Index of the step after which the check failed."""
    message: str
    lines: tuple[tuple[str, ...], ...]
    """Each step's script lines, one per operation."""


def play(adapter: Adapter, model: Model, steps: Iterable[Step]) -> Failure | None:
    """Reset the adapter, give it the model's map, apply ``steps`` one by one (they may be drawn lazily, against
    the model as it goes), check after each; the first failure, or None."""
    tolerance = adapter.capabilities.recall_tolerance
    adapter.reset(DIM)
    sync_active(adapter, model.active)
    lines = []
    for n, step in enumerate(steps):
        lines.append(tuple(op.apply(model, adapter) for op in step))
        problem = check(model, adapter, tolerance)
        if problem:
            return Failure(n, problem, tuple(lines))
    return None


def run(adapter: Adapter, steps: list[Step]) -> Failure | None:
    return play(adapter, Model(), steps)


def smaller(steps: list[Step]) -> Iterator[list[Step]]:
    """Every sequence with one step, or one operation of a burst, left out; last first."""
    for n in reversed(range(len(steps))):
        yield steps[:n] + steps[n + 1:]
        for m in reversed(range(len(steps[n]) if len(steps[n]) > 1 else 0)):
            yield [*steps[:n], steps[n][:m] + steps[n][m + 1:], *steps[n + 1:]]


def shrink(adapter: Adapter, steps: list[Step], failure: Failure) -> tuple[Failure, str]:
    """A 1-minimal failing sequence (steps after the failure cut, then each step or operation dropped while it
    still fails), and a note; when the steps pass on replay after ``reset()``, the original failure and a note
    saying so."""
    if run(adapter, steps) is None:
        return failure, ("the same steps passed when replayed after reset(): state survives reset() "
                         "(a cache, a pending write or flag kept across reset)")
    steps = steps[: failure.step + 1]
    shrunk = True
    while shrunk:
        shrunk = False
        for candidate in smaller(steps):
            found = run(adapter, candidate) if candidate else None
            if found is not None:
                steps, failure, shrunk = candidate[: found.step + 1], found, True
                break
    return failure, ""


def script(failure: Failure, original: int, note: str = "") -> str:
    """The failing sequence as numbered steps of adapter calls (a burst's calls under one number)."""
    steps = "\n".join(f"  {n + 1}. " + "\n     ".join(f"adapter.{line}" for line in step)
                      for n, step in enumerate(failure.lines))
    how = note or f"shrunk from {original}"
    return (f"a sequence of {len(failure.lines)} steps ({how}) fails; after each step the native filter is "
            f"checked for {len(PRINCIPALS)} principals and unfiltered:\n  adapter.reset({DIM})\n"
            f"  adapter.set_active_revisions({shown(FIRST_MAP.to_json())})\n{steps}\nthen: {failure.message}")
