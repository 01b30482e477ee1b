"""Small hand-built scenarios for the conformance suite: documents, a principal, an index.

Each scenario is tiny and explicit, so that a failure names one document and one
field. Texts share the word ``policy`` so that every document scores above zero
against the query and only the filter decides what comes back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import numpy as np

from filterproof.adapters.base import Adapter, Hit, Record, sync_active
from filterproof.conformance.worlds import diagnosis
from filterproof.conformance.worlds.twins import shown
from filterproof.embedding.spaces import TfidfSpace
from filterproof.evaluation.strategies import ranked_search
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal, eligible_ids

AS_OF = date(2026, 9, 8)
TENANT = "acme"
GROUP = "engineering"
QUERY = "policy handbook"


def meta(**overrides: Any) -> dict[str, Any]:
    """Well-formed metadata eligible for ``principal()`` at ``AS_OF``; overrides change fields.

    An override of ``...`` (Ellipsis) removes the field.
    """
    base: dict[str, Any] = {"tenant": TENANT, "logical_id": "doc", "revision": 1, "status": "active",
                            "groups": [GROUP], "valid_from": "2026-01-01"}
    base.update(overrides)
    return {k: v for k, v in base.items() if v is not ...}


FIELD_FLIPS: dict[str, tuple[Any, Any]] = {
    "tenant": ("acme", "beta"), "logical_id": ("doc", "unmapped"), "revision": (1, 2), "status": ("active", "draft"),
    "groups": (["engineering"], ["nobody"]), "valid_from": ("2020-01-01", "2027-01-01"),
    "valid_until": ("2027-01-01", "2026-06-01"),
}
"""For each field, a value that keeps ``scenarios.meta()`` eligible and one that makes it ineligible (with the map
of ``meta()``: ``acme/doc`` at revision 1)."""

def principal(tenant: str = TENANT, *groups: str) -> Principal:
    return Principal(tenant, groups or (GROUP,))


def active_for(docs: Mapping[str, Mapping[str, Any]], **revisions: int) -> ActiveRevisions:
    """An active map holding every well-keyed document's own revision (or ``revisions[logical_id]``), each an
    equal integer but another object than the document's, as when the map is read from another source than the
    metadata (a comparison by identity, ``is``, then holds for small integers only)."""
    entries = {}
    for m in docs.values():
        tenant, logical, rev = m.get("tenant"), m.get("logical_id"), m.get("revision")
        if isinstance(tenant, str) and isinstance(logical, str) and isinstance(rev, int):
            given = revisions.get(logical, rev)
            entries[(tenant, logical)] = int(str(given)) if type(given) is int else given
    return ActiveRevisions.of(entries)


@dataclass
class Scenario:
    """Documents indexed in one adapter, with helpers to ask and to check."""

    adapter: Adapter
    docs: dict[str, dict[str, Any]]
    vectors: dict[str, np.ndarray]
    query: np.ndarray
    space: TfidfSpace
    known: dict[str, int] = field(default_factory=dict)
    """Every id ever upserted, in order: tie order, and a deleted id returned is named, not unknown."""
    synced: ActiveRevisions | None = None
    """The map last given to the adapter's ``set_active_revisions``."""
    changed: bool = False
    """Whether the store was written to (or given another map) since it was built: a diagnosis then suspects
    that history when a fresh store answers right."""

    def sync(self, active: ActiveRevisions) -> None:
        """Tell the adapter the authoritative map, as an application would after changing it."""
        if active is not self.synced:
            self.changed = self.changed or self.synced is not None
            sync_active(self.adapter, active)
            self.synced = active

    @classmethod
    def build(cls, adapter: Adapter, docs: Mapping[str, Mapping[str, Any]],
              texts: Mapping[str, str] | None = None, batches: Sequence[Sequence[str]] | None = None,
              after: Callable[[Scenario, Sequence[str]], None] | None = None) -> Scenario:
        """Index ``docs`` in one upsert, or in ``batches`` of ids, in that order (a store that sizes a column or
        builds a dictionary from its first write shows); ``after`` is called after each."""
        texts = dict(texts or {})
        ids = list(docs)
        bodies = [texts.get(i, f"{QUERY} {i.replace('-', ' ')}") for i in ids]
        space = TfidfSpace(bodies)
        vectors = dict(zip(ids, space.documents(), strict=True))
        scenario = cls(adapter, {i: dict(m) for i, m in docs.items()}, vectors, space.queries([QUERY])[0], space,
                       {i: n for n, i in enumerate(ids)})
        adapter.reset(space.dim)
        scenario.sync(active_for(scenario.docs))
        for batch in batches or [ids]:
            adapter.upsert([Record(i, vectors[i], scenario.docs[i]) for i in batch])
            if after is not None:
                after(scenario, batch)
        return scenario

    def publish(self, doc_id: str, metadata: Mapping[str, Any], text: str | None = None) -> None:
        vector = self.space.queries([text or f"{QUERY} {doc_id.replace('-', ' ')}"])[0]
        self.docs[doc_id], self.vectors[doc_id] = dict(metadata), vector
        self.known.setdefault(doc_id, len(self.known))
        self.changed = True
        self.adapter.upsert([Record(doc_id, vector, dict(metadata))])

    def update(self, doc_id: str, metadata: Mapping[str, Any]) -> None:
        self.docs[doc_id] = dict(metadata)
        self.changed = True
        self.adapter.update_metadata(doc_id, dict(metadata))

    def delete(self, doc_id: str) -> None:
        del self.docs[doc_id], self.vectors[doc_id]
        self.changed = True
        self.adapter.delete([doc_id])

    def native(self, where: PolicyFilter | None, k: int | None = None) -> list[Hit]:
        """What the store returns for the query under ``where`` (everything when k is None)."""
        if where is not None:
            self.sync(where.active)  # a changed map reaches the store before the query that uses it
        depth = k if k is not None else len(self.vectors) + 1
        [hits] = ranked_search(self.adapter, self.query[None, :], depth, [where], self.known)
        return hits

    def native_ids(self, where: PolicyFilter | None, k: int | None = None) -> set[str]:
        return {h.id for h in self.native(where, k)}

    def policy_ids(self, where: PolicyFilter) -> set[str]:
        return eligible_ids(self.docs.items(), where)

    def diagnose(self, where: PolicyFilter, got: set[str], want: set[str]) -> str:
        """The cause of a wrong answer, clause by clause (``diagnosis``); the store is reset on the way, so this
        is the last thing a failing check does with the scenario."""
        return diagnosis.diagnose(self.adapter, self.docs, self.vectors, self.query, where, got, want, self.changed)


def describe(ids: Iterable[str], docs: Mapping[str, Mapping[str, Any]]) -> str:
    """Each document's id and metadata, strings escaped so that two different identities never print alike."""
    return "; ".join(f"{i}: {shown(dict(docs[i]))}" for i in sorted(ids) if i in docs) or "none"


LEAK = "returned but NOT eligible (a leak)"
MISSING = "eligible but NOT returned (missing)"
def mismatch(got: set[str], want: set[str], docs: Mapping[str, Mapping[str, Any]]) -> str:
    """An assertion message naming the documents a native filter got wrong, with their metadata, and which way
    (a leak, or missing); ``Scenario.diagnose`` says why."""
    parts = [f"{way}: {describe(ids, docs)}" for way, ids in ((LEAK, got - want), (MISSING, want - got)) if ids]
    return " | ".join(parts)


def ids_of(hits: Sequence[Hit]) -> list[str]:
    return [h.id for h in hits]


def asked(where: PolicyFilter) -> str:
    """The principal and date of a filter, for a message: ``tenant 'acme' groups ('eng',) as of 2026-09-08``."""
    groups = where.principal.groups
    listed = shown(groups) if len(groups) <= SHOWN_GROUPS else (
        f"({len(groups)} groups: {', '.join(shown(g) for g in groups[:3])}, ..., {shown(groups[-1])})")
    return f"tenant {shown(where.principal.tenant)} groups {listed} as of {where.as_of}"


SHOWN_GROUPS = 8
"""A principal in more groups is printed as their count, the first three and the last."""


def expect_policy(s: Scenario, where: PolicyFilter, label: str) -> None:
    """The native filter returns exactly the policy's eligible set; else a message naming the documents."""
    got, want = s.native_ids(where), s.policy_ids(where)
    assert got == want, f"{label} ({asked(where)}): {mismatch(got, want, s.docs)}{s.diagnose(where, got, want)}"
