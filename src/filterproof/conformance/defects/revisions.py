"""Defects in keeping revisions: encodings narrower than a signed 64-bit integer, and keys matched by prefix.

The policy's revision is any signed 64-bit integer, compared exactly with the active
map's. Each defect keeps every other clause and compares revisions the way a store
that holds them in another type does: both the document's and the map's go through
the same encoding, so that two distinct revisions can become one.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence
from typing import Any

from filterproof.adapters.base import Record
from filterproof.conformance.defects.clauses import RowPredicate
from filterproof.conformance.defects.lifecycle import StoredFlags, pair
from filterproof.policy import PolicyFilter, is_eligible, structural_problem


class EncodesRevisions(RowPredicate):
    """The revision clause compares ``same(document's revision, map's revision)``; every other clause is exact."""

    def same(self, stored: int, active: int) -> bool:
        return stored == active

    def eligible(self, meta: Mapping[str, Any], where: PolicyFilter) -> bool:
        key = (meta.get("tenant"), meta.get("logical_id"))
        if structural_problem(meta) or key not in where.active:
            return False
        active = where.active[key]  # type: ignore[index]
        return self.same(meta["revision"], active) and is_eligible({**meta, "revision": active}, where)


def int32(value: int) -> int:
    """``value`` in a signed 32-bit column that wraps (C casts, numpy ``astype(int32)``)."""
    return (value + 2**31) % 2**32 - 2**31


class Int32Revisions(EncodesRevisions):
    """Keeps revisions in a 32-bit integer column that wraps: ``2**32 + 1`` is ``1``."""

    name = "defect-int32-revisions"

    def same(self, stored: int, active: int) -> bool:
        return int32(stored) == int32(active)


class Float64Revisions(EncodesRevisions):
    """Passes revisions through JSON as doubles (JavaScript, many drivers): exact only up to 2**53, so
    ``2**53 + 1`` is ``2**53``."""

    name = "defect-float64-revisions"

    def same(self, stored: int, active: int) -> bool:
        return float(stored) == float(active)


class Float32Revisions(EncodesRevisions):
    """Keeps revisions in a float32 field (a vector store's numeric payload): exact only up to 2**24."""

    name = "defect-float32-revisions"

    def same(self, stored: int, active: int) -> bool:
        def f32(value: int) -> float:
            return float(struct.unpack("f", struct.pack("f", float(value)))[0])

        return f32(stored) == f32(active)


class RevisionKeyPrefix(EncodesRevisions):
    """Matches the stored key ``tenant/logical_id#revision`` by prefix (``LIKE key || '%'``, a ``startswith``
    on the key): revision 10 passes for revision 1."""

    name = "defect-revision-key-prefix"

    def same(self, stored: int, active: int) -> bool:
        return str(stored).startswith(str(active))


class PacksRevisionsLoosely(RowPredicate):
    """Checks a revision's range as ``-2**63 <= r <= 2**64`` (off by the unsigned top) and packs it into a signed
    64-bit field, which wraps: revision ``2**63`` is stored as ``-2**63`` and matches the map's ``-2**63``."""

    name = "defect-packs-revisions-loosely"

    def eligible(self, meta: Mapping[str, Any], where: PolicyFilter) -> bool:
        revision = meta.get("revision")
        if isinstance(revision, int) and not isinstance(revision, bool) and -(2**63) <= revision <= 2**64:
            meta = {**meta, "revision": (revision + 2**63) % 2**64 - 2**63}
        return is_eligible(meta, where)


class FlagsByIdentity(StoredFlags):
    """Writes a document's current-revision flag at upsert comparing the map's revision with ``is`` (a rewrite
    after a change of the map compares with ``==``): equal revisions beyond CPython's small integers are other
    objects, so a document of revision 2^53 written under the map that names it is never current."""

    name = "defect-flags-by-identity"

    def upsert(self, records: Sequence[Record]) -> None:
        super().upsert(records)
        for r in records:
            key = pair(r.metadata)
            self._flags[r.id] = key is not None and self.active.get(key) is r.metadata.get("revision")
