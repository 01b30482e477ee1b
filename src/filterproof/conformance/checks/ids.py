"""Document ids: the twin catalogues again, as ids, each coming back exactly as written.

A store that escapes, normalises, truncates or hashes an id, or reads it back through a
different decoder than it wrote it with, returns another string for it (a reader then
fetches or cites the wrong document), merges two ids into one document (an upsert replaces
its twin), or deletes and updates the twin too. Ids are written and read on every path
(upsert, search, update, delete), so one world asks all four.
"""

from __future__ import annotations

import numpy as np

from filterproof.adapters.base import Adapter, Record, not_indexable, sync_active
from filterproof.conformance.worlds import scenarios as sc
from filterproof.conformance.worlds.twins import NAME_VALUES, identity_twins, shown
from filterproof.policy import PolicyFilter, is_text


def twin_ids() -> dict[str, str]:
    """Id -> what it is: the tenant catalogue's originals and twins (every family), and the names and quotes."""
    ids: dict[str, str] = {}
    for twin in identity_twins("tenant"):
        ids.setdefault(twin.value, f"the original id {shown(twin.value)}")
        ids.setdefault(twin.twin, f"an id {twin.family} twin ({twin.name}) of {shown(twin.value)}")
    for family, values in NAME_VALUES.items():
        for value in values:
            ids.setdefault(value, f"an id spelled like {family}: {shown(value)}")
    # Not the empty id (many stores refuse it, and rightly), nor one that is not text (a lone surrogate: no UTF-8
    # store can hold it, and the fixture loader refuses it with its record and field).
    return {i: what for i, what in ids.items() if i and is_text(i)}


def vector(n: int) -> np.ndarray:
    """Distinct positive vectors, every one scoring above zero against the all-ones query."""
    return np.array([1.0, 1.0 + (n % 7) / 7, 1.0 + (n // 7) / 50], dtype=np.float32)


class IdChecks:
    """Document ids come back exactly as written, and name one document each on every path."""

    def test_document_ids_are_exact_strings(self, mutable: Adapter) -> None:
        """Documents whose ids are the twin catalogues' values (case, accents, Unicode forms, whitespace,
        invisible and control characters, NUL, lone surrogates, an emoji and its narrow forms, quotes,
        query words, hash collisions): searched, each comes back with its own id, once; an update and a delete
        of one id touch that document only. A store may refuse an id it cannot hold (``not_indexable``).

        If this fails: the store or its client changed the id on the way in or out (escaped
        and not unescaped, normalised, trimmed, cut at NUL or at an emoji, decoded a
        surrogate pair), or keyed documents by something two ids share (a hash, a
        case-insensitive key): escape ids injectively, store the original beside any key
        derived from it, and return the original.
        """
        ids = twin_ids()
        docs = {i: sc.meta(logical_id=f"d{n}") for n, i in enumerate(ids)}
        mutable.reset(3)
        active = sc.active_for(docs)
        sync_active(mutable, active)
        mutable.upsert([Record(i, vector(n), docs[i]) for n, i in enumerate(ids)])
        held = set(ids) - set(not_indexable(mutable))
        where = PolicyFilter(sc.principal(), sc.AS_OF, active)
        probe = np.ones(3, dtype=np.float32)

        def found(asked: PolicyFilter | None) -> list[str]:
            return [h.id for h in mutable.search(probe, len(ids) + 5, asked)]

        def named(some: set[str]) -> str:
            return "; ".join(f"{shown(i)} ({ids.get(i, 'never written')})" for i in sorted(some)[:8])

        failures = []
        for label, got in (("unfiltered", found(None)), ("filtered", found(where))):
            if len(got) != len(set(got)) or set(got) != held:
                failures.append(f"{label}: returned ids never written: {named(set(got) - held)} | written ids not "
                                f"returned: {named(held - set(got))}" + (" | an id twice" if len(got) != len(set(got))
                                                                         else ""))
        changed, removed = ([i for i in ids if i in held] + [None, None])[:2]  # an original and its first twin
        if changed is not None and removed is not None:
            mutable.update_metadata(changed, sc.meta(logical_id=docs[changed]["logical_id"], groups=["nobody"]))
            mutable.delete([removed])
            got, want = set(found(where)), held - {changed, removed}
            if got != want:
                failures.append(f"after updating {shown(changed)} out of the principal's groups and deleting "
                                f"{shown(removed)}: returned but not expected: {named(got - want)} | expected but "
                                f"not returned: {named(want - got)}")
        assert not failures, f"{len(ids)} documents, one per id:\n" + "\n".join(failures)
