"""Drawing lifecycle sequences against the model, so that short sequences already do what matters.

Steps are drawn against the model's state: mostly on stored ids, on pairs the map or the
documents (stored or deleted) hold, and at their revisions, so that a short sequence
already replaces, re-upserts, restores, moves and removes what it holds, and most checks
have something eligible. Plain ``random.Random`` (seeded), not hypothesis: the sequences
are shrunk by replay (``sequences.shrink``), and uniform draws reach every kind of step
in a few dozen sequences.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from filterproof.conformance.checks.sequences import (
    FIELD_VALUES,
    FROMS,
    IDS,
    LOGICAL_IDS,
    REVISIONS,
    TENANTS,
    UNTILS,
    Background,
    Delete,
    Model,
    Operation,
    Optimize,
    SetRevision,
    Step,
    Update,
    UpdateBatch,
    Upsert,
)
from filterproof.conformance.worlds import scenarios as sc
from filterproof.policy import parse_date

UPDATED_FIELDS = (*sorted(FIELD_VALUES), "revision", "tenant", "logical_id")
"""The field one update changes: the key fields twice as often, since what a store derives from a document
(a current-revision flag, an index entry by key) depends on them."""


def metadata(rnd: random.Random, model: Model) -> dict[str, Any]:
    """A document from the pools, usually keyed by a pair of the map at its revision; one time in four with
    one field off the eligible path."""
    keys = sorted((pair, r) for pair, r in model.active.items() if pair[0] != "zeta")  # not the background's
    if keys and rnd.random() < 0.75:
        (tenant, logical_id), revision = rnd.choice(keys)
    else:
        tenant, logical_id, revision = rnd.choice(TENANTS), rnd.choice(LOGICAL_IDS), rnd.choice(REVISIONS)
    meta = sc.meta(tenant=tenant, logical_id=logical_id, revision=revision,
                   groups=rnd.choice([["eng"], ["ops"], ["eng", "ops"]]), valid_until=rnd.choice(UNTILS),
                   valid_from=rnd.choice(FROMS))
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
    gone), moved across the map: a current document's pair removed or moved away, another's moved to its
    revision (it becomes current); else any pair to any revision, or removed."""
    held = sorted({p for i, m in (*model.docs.items(), *model.last_seen.items()) if i in IDS and (p := pair_of(m))},
                  key=repr)
    recent = [p for p in held if p[0] == model.recent[-1]] if model.recent else []
    if recent and rnd.random() < 0.5:  # the pair the last write touched: the key an update moved a document to
        held = recent
    if held and rnd.random() < 0.75:
        (tenant, logical_id), own = rnd.choice(held)
        if model.active.get((tenant, logical_id)) == own:
            others = [r for r in REVISIONS if r != own]
            return SetRevision(tenant, logical_id, None if rnd.random() < 0.5 else rnd.choice(others))
        if isinstance(own, int) and not isinstance(own, bool) and rnd.random() < 0.75:
            return SetRevision(tenant, logical_id, own)
    else:
        tenant, logical_id = rnd.choice(sorted(p for p in model.active if p[0] != "zeta") or [("acme", "a")])
    return SetRevision(tenant, logical_id, None if rnd.random() < 0.3 else rnd.choice(REVISIONS))


def expired(meta: Mapping[str, Any]) -> bool:
    end = parse_date(meta.get("valid_until"))
    return end is not None and end <= sc.AS_OF


def current(meta: Mapping[str, Any], active: Mapping[tuple[str, str], int]) -> bool:
    found = pair_of(meta)
    return found is not None and active.get(found[0]) == found[1]


def update_value(rnd: random.Random, model: Model, doc_id: str, name: str) -> Any:
    """A new value for one field; for a key or date field of a stored document, half the time one that moves it
    across the map or the window (``ACROSS``)."""
    values = FIELD_VALUES[name]
    meta = model.docs.get(doc_id)
    if meta is not None and name in ACROSS and rnd.random() < 0.5:
        now = ACROSS[name](meta, model.active)
        across = [v for v in values if ACROSS[name](changed(meta, name, v), model.active) != now]
        if across:
            return rnd.choice(across)
    return rnd.choice(values)


def changed(meta: Mapping[str, Any], name: str, value: Any) -> dict[str, Any]:
    return {k: v for k, v in meta.items() if k != name} | ({} if value is ... else {name: value})


def in_window(meta: Mapping[str, Any], _: Any) -> bool:
    start, end = parse_date(meta.get("valid_from")), parse_date(meta.get("valid_until"))
    return start is not None and start <= sc.AS_OF and (meta.get("valid_until") is None or
                                                         (end is not None and end > sc.AS_OF))


ACROSS: dict[str, Callable[[Mapping[str, Any], Any], bool]] = {
    "tenant": current, "logical_id": current, "revision": current, "valid_from": in_window, "valid_until": in_window}
"""For these fields an update is half the time drawn across a line: the map's (a current document stops being
current, or the reverse) or the window's (a document enters or leaves it): what a store derived from the old value
(a flag, a zone map, an index entry) goes wrong exactly then."""


def operations(rnd: random.Random, model: Model) -> tuple[Operation, ...]:
    """The next step (or two), drawn against what the model holds now."""
    stored = [i for i in model.docs if i in IDS]  # background documents are never touched
    gone = [i for i in model.last_seen if i not in model.docs]
    kind = rnd.choice(("upsert", "upsert", "update", "update", "update", "delete", "recycle", "recycle", "map", "map",
                       "optimize", "optimize"))
    if kind == "upsert":
        doc_id = rnd.choice(gone) if gone and rnd.random() < 0.5 else rnd.choice(IDS)
        # Half the time a deleted id comes back as it was (a restore): what a store derived from it (a flag)
        # must be derived again, not skipped as "unchanged".
        same = doc_id in gone and rnd.random() < 0.5
        meta = dict(model.last_seen[doc_id]) if same else metadata(rnd, model)
        return (Upsert(doc_id, meta, model.vectors.get(doc_id, 0) if same else rnd.randrange(8)),)
    if kind == "update":
        updates = {}
        for _ in range(1 if rnd.random() < 0.8 else rnd.randint(2, 4)):  # else one batch of several ids
            name = rnd.choice(UPDATED_FIELDS)
            target = rnd.choice(gone) if gone and rnd.random() < 0.3 else some_id(rnd, stored, (*IDS, "ghost"))
            updates.setdefault(target, Update(target, name, update_value(rnd, model, target, name)))
        drawn_updates = tuple(updates.values())
        return drawn_updates if len(drawn_updates) == 1 else (UpdateBatch(drawn_updates),)
    if kind == "delete":
        return (Delete(tuple(dict.fromkeys(some_id(rnd, stored, (*IDS, "ghost")) for _ in range(rnd.randint(1, 2))))),)
    if kind == "recycle" and stored:
        # Mostly a document that has expired, republished without an end date: what a store revives shows.
        ended = [i for i in stored if expired(model.docs[i])]
        return recycle(rnd, model, some_id(rnd, ended, tuple(sorted(stored))))
    if kind == "optimize":
        return (Optimize(),)
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
    else:  # anew: the same document re-ingested, or another, either way without valid_until
        base = before if rnd.random() < 0.5 else metadata(rnd, model)
        steps.append(Upsert(doc_id, {k: v for k, v in base.items() if k != "valid_until"}, rnd.randrange(8)))
    return tuple(steps)


def drawn(rnd: random.Random, model: Model, steps: int, into: list[Step]) -> Iterator[Step]:
    """About ``steps`` steps, each drawn against the model as the previous ones left it (kept in ``into``): half
    the sequences start on a store that holds background documents; a step is one operation, or a burst of
    several with no search between them (one time in four, and a recycle half the time)."""
    if rnd.random() < 0.5:
        into.append((Background(rnd.choice((6, 12, 24))),))
        yield into[-1]
    for _ in range(steps):
        ops = operations(rnd, model)
        if len(ops) > 1 and rnd.random() < 0.5:  # a recycle checked after each of its operations
            for op in ops:
                into.append((op,))
                yield into[-1]
            continue
        if rnd.random() < 0.25:  # a burst: this step and the next drawn together, checked once
            ops += operations(rnd, model)
        into.append(ops)
        yield into[-1]
