"""Defects of two clients of one store writing at once: each client right alone and beside its own threads, wrong
beside another client. ``TwoClientWritersChecks`` fails each; the two-threads check (one client) passes each.

The second client (``open_writer``) is ``OtherClient``: the store's memory, written through another object that
keeps what each defect keeps per client (a lock, a record of the documents it wrote).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from filterproof.adapters.base import Hit, Record
from filterproof.adapters.reference import ReferenceAdapter
from filterproof.conformance.defects.writers import rewrite
from filterproof.policy import ActiveRevisions, PolicyFilter


class Client:
    """What a defect keeps per client, and its writes made through it on ``store``: the client's lock held over
    each write (as ``adapters.locking.writing`` holds one client's), and the ids it wrote."""

    def __init__(self, store: ReferenceAdapter) -> None:
        self.store, self.lock, self.wrote = store, threading.RLock(), set[str]()
        self.count: int | None = None
        """How many documents the store held when this client last counted them; dropped by its own writes."""

    def upsert(self, records: Sequence[Record]) -> None:
        with self.lock:
            ReferenceAdapter.upsert(self.store, records)
            self.wrote |= {r.id for r in records}
            self.count = None

    def delete(self, ids: Sequence[str]) -> None:
        with self.lock:
            ReferenceAdapter.delete(self.store, ids)
            self.wrote -= set(ids)
            self.count = None

    def rewrite(self, id: str, metadata: Mapping[str, Any]) -> None:
        """Read the stored document, then write it back whole with ``metadata``, under this client's lock only."""
        with self.lock:
            rewrite(self.store, id, metadata)


class TwoClientDefect(ReferenceAdapter):
    """A reference whose writes go through its ``Client``; ``open_writer`` gives another over the same memory."""

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self.client = Client(self)

    def upsert(self, records: Sequence[Record]) -> None:
        self.client.upsert(records)

    def delete(self, ids: Sequence[str]) -> None:
        self.client.delete(ids)

    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        self.updated(self.client, id, metadata)

    def updated(self, client: Client, id: str, metadata: Mapping[str, Any]) -> None:
        ReferenceAdapter.update_metadata(self, id, metadata)

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        return self.searched(self.client, vector, k, where)

    def searched(self, client: Client, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        return ReferenceAdapter.search(self, vector, k, where)

    def open_writer(self) -> OtherClient:
        return OtherClient(self)


class OtherClient:
    """The defect's second client: the same memory, written through a ``Client`` of its own."""

    def __init__(self, store: TwoClientDefect) -> None:
        self.name, self.capabilities = f"{store.name}-other", store.capabilities
        self._store, self._client = store, Client(store)

    def upsert(self, records: Sequence[Record]) -> None:
        self._client.upsert(records)

    def delete(self, ids: Sequence[str]) -> None:
        self._client.delete(ids)

    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        self._store.updated(self._client, id, metadata)

    def set_active_revisions(self, active: ActiveRevisions) -> None:
        self._store.set_active_revisions(active)

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        return self._store.searched(self._client, vector, k, where)

    def close(self) -> None:
        """The store is the first client's."""


class LocksEachClientOnly(TwoClientDefect):
    """``update_metadata`` reads the document, then writes it back whole, under its client's lock (which holds the
    client's deletes too: two threads of one client are serialized). Another client's delete, under its own lock,
    lands between the two steps: the deleted document comes back."""

    name = "defect-locks-each-client-only"

    def updated(self, client: Client, id: str, metadata: Mapping[str, Any]) -> None:
        client.rewrite(id, metadata)


class UpdatesWhatItWrote(TwoClientDefect):
    """``update_metadata`` updates only a document its client wrote (a record of what it holds, kept by the client:
    the ids it upserted and did not delete), and ignores the others as unknown. A document another client wrote
    is never updated through this one: a revocation made through it is lost."""

    name = "defect-updates-what-it-wrote"

    def updated(self, client: Client, id: str, metadata: Mapping[str, Any]) -> None:
        with client.lock:
            if id in client.wrote:
                ReferenceAdapter.update_metadata(self, id, metadata)


class ClampsToCountItRead(TwoClientDefect):
    """``search`` asks for at most as many hits as the store held when its client last counted (a count cached to
    clamp ``n_results``, as Chroma's adapter did), counted again only after the client's own writes. Documents
    another client published meanwhile are cut from every answer past that count."""

    name = "defect-clamps-to-count-it-read"

    def searched(self, client: Client, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        with client.lock:
            if client.count is None:
                client.count = len(self._ids)
            held = client.count
        return ReferenceAdapter.search(self, vector, min(k, held), where)
