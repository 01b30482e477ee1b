"""Defects at an engine's limits: big documents and long identities, mishandled the ways real engines do.

Chroma 1.5.9 breaks a collection for good on one record past 5,461 list values;
adapters that meet a limit drop the document without a word, or refuse far more
than they must; stores keep a prefix of a long identity (a fixed-width column, a
hash of the first kilobyte); a filter that carries the active map's keys keeps only
the first few thousand. ``test_sizes`` fails each (``tests/conformance/test_conformance_suite.py``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from filterproof.adapters.base import Hit, Record
from filterproof.adapters.pgvector.limits import refusal as btree_refusal
from filterproof.adapters.reference import ReferenceAdapter
from filterproof.adapters.refusals import Refusals
from filterproof.conformance.defects.clauses import RowPredicate
from filterproof.policy import ActiveRevisions, PolicyFilter, Principal, is_eligible

BIG = 5_000
"""Groups on one document past which these defects misbehave."""


def big(metadata: Mapping[str, Any]) -> bool:
    groups = metadata.get("groups")
    return isinstance(groups, list) and len(groups) > BIG


class BrokenByBigDocument(ReferenceAdapter):
    """Like Chroma 1.5.9 past 5,461 list values in one record: the write of a document in more than 5,000 groups
    fails, and every later call fails too, the store broken for everyone."""

    name = "defect-broken-by-big-document"

    def reset(self, dim: int) -> None:
        super().reset(dim)
        self._broken: str | None = None

    def _check(self) -> None:
        if self._broken:
            raise RuntimeError(f"Error in compaction: Failed to apply logs to the metadata segment ({self._broken})")

    def upsert(self, records: Sequence[Record]) -> None:
        self._check()
        if any(big(r.metadata) for r in records):
            self._broken = "since a document in more than 5,000 groups"
            self._check()
        super().upsert(records)

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        self._check()
        return super().search(vector, k, where)

    def search_batch(self, vectors: np.ndarray, k: int, wheres: Sequence[PolicyFilter | None]) -> list[list[Hit]]:
        self._check()
        return super().search_batch(vectors, k, wheres)


class DropsBigDocuments(ReferenceAdapter):
    """Skips a document in more than 5,000 groups, and says nothing: it is missing, not refused."""

    name = "defect-drops-big-documents"

    def upsert(self, records: Sequence[Record]) -> None:
        super().upsert([r for r in records if not big(r.metadata)])


class RefusesTooEagerly(ReferenceAdapter):
    """Refuses (and reports) every document in more than 100 groups or with an identity over 1,000 characters:
    honest, but it loses documents every store must hold."""

    name = "defect-refuses-too-eagerly"

    def reset(self, dim: int) -> None:
        super().reset(dim)
        self._refused: dict[str, str] = {}

    def upsert(self, records: Sequence[Record]) -> None:
        kept = []
        for r in records:
            values = [r.id, *(v for v in r.metadata.values() if isinstance(v, str)), *r.metadata.get("groups", [])]
            if len(r.metadata.get("groups", [])) > 100 or any(isinstance(v, str) and len(v) > 1000 for v in values):
                self._refused[r.id] = "over this store's cautious limits"
            else:
                kept.append(r)
        super().upsert(kept)

    def not_indexable(self) -> dict[str, str]:
        return dict(self._refused)


class RefusesLongMetadata(ReferenceAdapter):
    """Keeps each document's metadata as JSON in a column of one Milvus VARCHAR (65,535 characters) and refuses, with
    a reason, a document whose JSON is longer (its refusals follow the document, as ``adapters.refusals`` does):
    honest, but how much of its unread metadata a store keeps decides whether the document is held (the mutation
    run of ``milvus/expr.py`` found the Milvus adapter doing so for text that JSON escapes)."""

    name = "defect-refuses-long-metadata"
    COLUMN = 65_535

    def reset(self, dim: int) -> None:
        super().reset(dim)
        self._refused = Refusals()

    def upsert(self, records: Sequence[Record]) -> None:
        sizes = {r.id: len(json.dumps(dict(r.metadata), default=repr)) for r in records}
        long = [r for r in records if sizes[r.id] > self.COLUMN]
        for r in long:
            self._refused.refuse(r.id, r.vector, f"its metadata is {sizes[r.id]:,} characters as JSON")
        super().delete([r.id for r in long])
        kept = [r for r in records if sizes[r.id] <= self.COLUMN]
        self._refused.forget(r.id for r in kept)
        super().upsert(kept)

    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        vector = self._refused.vector(id) if id not in self._row else self._vectors[self._row[id]]
        if vector is not None:
            self.upsert([Record(id, vector, metadata)])

    def delete(self, ids: Sequence[str]) -> None:
        self._refused.forget(ids)
        super().delete(ids)

    def not_indexable(self) -> dict[str, str]:
        return dict(self._refused.reasons)


class RefusalOutlivesTheDocument(ReferenceAdapter):
    """Refuses a document in more than 5,461 groups as Chroma must (deleting an earlier version, keeping its
    vector), and writes it once an update or upsert brings it within that, but never forgets the refusal, not
    even on delete: a document both refused and returned, which the run stops expecting."""

    name = "defect-refusal-outlives-the-document"
    LIMIT = 5_461

    def reset(self, dim: int) -> None:
        super().reset(dim)
        self._refused: dict[str, str] = {}
        self._kept: dict[str, np.ndarray] = {}

    def _past(self, metadata: Mapping[str, Any]) -> bool:
        groups = metadata.get("groups")
        return isinstance(groups, list) and len(groups) > self.LIMIT

    def upsert(self, records: Sequence[Record]) -> None:
        past = [r for r in records if self._past(r.metadata)]
        for r in past:
            self._refused[r.id], self._kept[r.id] = "more list values than one record holds", r.vector
        super().delete([r.id for r in past])
        super().upsert([r for r in records if not self._past(r.metadata)])

    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        vector = self._kept.get(id) if id not in self._row else self._vectors[self._row[id]]
        if vector is not None:
            self.upsert([Record(id, vector, metadata)])

    def not_indexable(self) -> dict[str, str]:
        return dict(self._refused)


class BtreeRefusalOutlivesTheDocument(RefusalOutlivesTheDocument):
    """The same stale refusal, at pgvector's limit: refuses a document whose tenant is longer than a btree entry
    holds (2,692 bytes) and never forgets it. The lifecycle stepped only with a document past Chroma's limit
    (10,000 groups, which pgvector holds) never met it: a mutant of pgvector's ``delete`` that kept the record
    survived the suite (#44)."""

    name = "defect-btree-refusal-outlives-the-document"

    def _past(self, metadata: Mapping[str, Any]) -> bool:
        return btree_refusal({"tenant": metadata.get("tenant")}) is not None

class ComparesPrefixes(RowPredicate):
    """Compares identities by their first 1,024 characters (a fixed-width column, an index on a prefix): two long
    tenants or groups that differ later are one."""

    name = "defect-compares-prefixes"
    WIDTH = 1_024

    def _cut(self, value: Any) -> Any:
        return value[:self.WIDTH] if isinstance(value, str) else value

    def eligible(self, meta: Mapping[str, Any], where: PolicyFilter) -> bool:
        groups = meta.get("groups")
        kept = {**meta, "tenant": self._cut(meta.get("tenant")),
                "groups": [self._cut(g) for g in groups] if isinstance(groups, list) else groups}
        asked = Principal(self._cut(where.principal.tenant), tuple(self._cut(g) for g in where.principal.groups))
        return is_eligible(kept, PolicyFilter(asked, where.as_of, where.active))


class CapsActiveMap(RowPredicate):
    """Carries the first 4,096 of the tenant's entries in the active map into its filter (an ``IN`` list capped at
    4,096 values, as a Milvus ``in`` or a request body is): a document of a later entry is never eligible."""

    name = "defect-caps-active-map"
    CAP = 4_096

    def asked(self, where: PolicyFilter) -> PolicyFilter:
        tenant = where.principal.tenant
        kept = [(key, rev) for key, rev in where.active.items() if key[0] == tenant][: self.CAP]
        others = [(key, rev) for key, rev in where.active.items() if key[0] != tenant]
        return PolicyFilter(where.principal, where.as_of, ActiveRevisions.of(dict(kept + others)))


class LosesSecondKeySlice(RowPredicate):
    """Carries the tenant's active keys in slices of 20,000 (one filter each, as for Chroma's SQLite) but ends a
    slice at ``start | 20_000`` where ``start + 20_000`` belongs: the second slice is empty, its documents never
    eligible (a mutant the mutation run saw survive a map of 12,000 entries)."""

    name = "defect-loses-second-key-slice"
    SLICE = 20_000

    def asked(self, where: PolicyFilter) -> PolicyFilter:
        tenant = where.principal.tenant
        keys = [(key, rev) for key, rev in where.active.items() if key[0] == tenant]
        kept = [pair for start in range(0, len(keys), self.SLICE) for pair in keys[start:start | self.SLICE]]
        others = [(key, rev) for key, rev in where.active.items() if key[0] != tenant]
        return PolicyFilter(where.principal, where.as_of, ActiveRevisions.of(dict(kept + others)))


class RaisesOnAFullSlice(RowPredicate):
    """Guards a filter's keys with ``>=`` where ``>`` belongs: a slice holding exactly its limit of 20,000 keys
    raises instead of answering (a mutant the mutation run saw survive a map of 12,000 entries)."""

    name = "defect-raises-on-a-full-slice"
    SLICE = 20_000

    def asked(self, where: PolicyFilter) -> PolicyFilter:
        count = sum(1 for tenant, _ in where.active if tenant == where.principal.tenant)
        if min(count, self.SLICE) >= self.SLICE:
            raise ValueError(f"{self.SLICE} revision keys in one filter: at most {self.SLICE}")
        return where


class AnswersKPerSlice(ReferenceAdapter):
    """Cuts a principal of many groups into slices of 64 (a filter per slice), asks each for ``k`` and returns
    the slices' answers merged by score but not cut to ``k``: a principal in 2,000 groups gets up to 32 k hits."""

    name = "defect-answers-k-per-slice"

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        groups = () if where is None else where.principal.groups
        if where is None or len(groups) <= 64:
            return super().search(vector, k, where)
        merged: dict[str, Hit] = {}
        for start in range(0, len(groups), 64):
            sliced = PolicyFilter(Principal(where.principal.tenant, groups[start:start + 64]), where.as_of,
                                  where.active)
            merged.update((hit.id, hit) for hit in super().search(vector, k, sliced))
        return sorted(merged.values(), key=lambda hit: -hit.score)
