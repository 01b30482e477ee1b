"""What every bridge shares: the adapter contract over three framework calls (create, add, remove) and a search.

A bridge keeps the vectors it was given (by our id), for two reasons: a framework
has no "replace this document's metadata" call, so ``update_metadata`` removes the
document and adds it again through the framework with the same vector (what an
application does: LangChain ``delete`` + ``add_texts``, LlamaIndex ``delete_nodes`` +
``add``); and a search path that returns no scores (LangChain's retriever and MMR)
gets its cosine computed from those vectors. The ranking, and which documents come
back, are always the framework's: the bridge never drops, adds or reorders a hit.

Text queries. Paths that take a query string (retrievers, the score-threshold call)
are given a key, ``fp-query:<digest of the vector>#<call>``, that the embeddings shim of
the framework (``KeyedVectors``) maps back to our vector: no model, and a string the
shim does not know raises instead of being embedded by anything else. Each call's key
is its own, so threads sharing one bridge never drop each other's.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import math
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from filterproof.adapters.base import AdapterBase, AdapterError, Capabilities, Hit, Record, checked_vector
from filterproof.adapters.bridges.departed import Departed
from filterproof.adapters.bridges.options import BridgeOptions, Path
from filterproof.adapters.locking import writing
from filterproof.adapters.refusals import Refusals
from filterproof.policy import PolicyFilter

MMR_TOLERANCE = 1.0
"""path=mmr trades relevance for diversity by design, so its top K is not the nearest K and it
promises no recall: held to leaks only. On the small shipped fixtures it stays close to the exact
lists, but on the conformance scale tier's clustered corpus (5,000 documents) its recall against
the exact filtered top 10 was 0.77-0.88, which is what MMR is for, not a defect."""
QUERY_PREFIX, DOC_PREFIX = "fp-query:", "fp-doc:"
MAX_QUERY_KEYS = 100_000


def digest(row: np.ndarray) -> str:
    return hashlib.sha1(row.tobytes()).hexdigest()


def our_id(bridge: str, metadata: Mapping[str, Any] | None, id_key: str) -> str:
    """Our id, from the metadata of a hit the framework returned (``id_key``: ``fp_id``).

    A hit without it is not one of our documents as written: chromadb 1.5 hydrates a query's hits after it found
    them, so a document deleted meanwhile comes back with no metadata (findings/integration.md#finding-17), and a
    framework hands on an empty node or document. Said, rather than a ``KeyError``."""
    if not metadata or id_key not in metadata:
        raise AdapterError(f"{bridge} returned a hit without our id ({id_key!r} not in its metadata {metadata!r}): "
                           "a document deleted while it was searched, which the store returned without its data")
    return str(metadata[id_key])


class KeyedVectors:
    """Strings to our vectors: what an embeddings shim answers, instead of a model. One shim serves every thread
    that shares the bridge: each call's query key is its own, and only the call that made it drops it."""

    def __init__(self) -> None:
        self._vectors: dict[str, list[float]] = {}
        self._live: set[str] = set()
        """The keys of queries in flight: never dropped by another call, nor by the clearing past the limit."""
        self._calls = itertools.count()
        self._lock = threading.Lock()

    def key(self, vector: np.ndarray, prefix: str = QUERY_PREFIX, name: str | None = None) -> str:
        row = np.asarray(vector, dtype=np.float32)
        key = prefix + (name if name is not None else digest(row))
        self._put(key, row)
        return key

    def _put(self, key: str, row: np.ndarray, live: bool = False) -> None:
        with self._lock:
            if len(self._vectors) >= MAX_QUERY_KEYS:  # keys nobody forgets (a store's text field), not the live ones
                for stale in [k for k in self._vectors if k not in self._live]:
                    del self._vectors[stale]
            if live:
                self._live.add(key)
            self._vectors[key] = row.tolist()

    @contextlib.contextmanager
    def query(self, vector: np.ndarray) -> Iterator[str]:
        """A query key valid for one call, and for that call only: two threads asking the same vector at once get
        two keys (a key shared by digest was dropped by the first call to end, under the other's feet)."""
        row = np.asarray(vector, dtype=np.float32)
        key = f"{QUERY_PREFIX}{digest(row)}#{next(self._calls)}"
        self._put(key, row, live=True)
        try:
            yield key
        finally:
            with self._lock:
                self._live.discard(key)
                self._vectors.pop(key, None)

    def forget(self, keys: Sequence[str]) -> None:
        """Drop keys once their call is done (document keys live only for the duration of one add)."""
        with self._lock:
            for key in keys:
                self._vectors.pop(key, None)

    def __call__(self, text: str) -> list[float]:
        try:
            return self._vectors[text]
        except KeyError:
            raise KeyError(f"the embeddings shim has no vector for {text[:60]!r}: filterproof never embeds text "
                           f"with a model; pass a key from KeyedVectors.key") from None


def unit(vector: np.ndarray) -> np.ndarray:
    row = np.asarray(vector, dtype=np.float64)
    norm = float(np.linalg.norm(row))
    return row / norm if norm > 0 else row


class BridgeAdapter(AdapterBase):
    """The adapter contract for a framework integration; subclasses supply ``_create``, ``_add``, ``_remove``
    and ``_search`` (one call path per ``options.path``)."""

    options: BridgeOptions
    engine_capabilities: Capabilities = Capabilities()
    """What the store underneath can do; ``path=mmr`` relaxes ``exact`` (see ``MMR_TOLERANCE``)."""

    def __init__(self, options: BridgeOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self.capabilities = self.engine_capabilities
        if self.options.path == "mmr":
            self.capabilities = Capabilities(
                native_filter=True, exact=False, persistent=False, lifecycle=True,
                recall_tolerance=max(MMR_TOLERANCE, self.engine_capabilities.recall_tolerance))
        self.keys = KeyedVectors()
        self._dim = 0
        self._vectors: dict[str, np.ndarray] = {}
        self._departed = Departed()
        self._refused = Refusals()

    # -- framework calls ------------------------------------------------------

    def _create(self, dim: int) -> None:
        raise NotImplementedError

    def _add(self, records: Sequence[Record]) -> None:
        """Add documents through the framework's add path (ids not present)."""
        raise NotImplementedError

    def _remove(self, ids: Sequence[str]) -> None:
        """Delete documents through the framework (ids present)."""
        raise NotImplementedError

    def _refusal(self, record: Record) -> str | None:
        """Why the store underneath cannot hold this document (its engine's limits), or None: it can."""
        return None

    def _natives(self, where: PolicyFilter) -> list[Any]:
        """The framework filter objects for ``where``: usually one; several admit disjoint sets (Chroma's limits)."""
        raise NotImplementedError

    def _query(self, vector: np.ndarray, k: int, native: Any | None,
               path: Path | None = None) -> list[tuple[str, float | None]]:
        """Search through ``path`` (default ``options.path``).

        Returns (our id, cosine, or None when the path gives no score), in the framework's order.
        """
        raise NotImplementedError

    # -- the adapter contract -------------------------------------------------

    def reset(self, dim: int) -> None:
        if dim < 1:
            raise ValueError(f"dimension must be positive, got {dim}")
        self._dim, self._vectors = dim, {}
        self._departed.clear()
        self._refused.clear()
        self._create(dim)

    def _checked(self, vector: np.ndarray, what: str) -> np.ndarray:
        return checked_vector(vector, self._dim, what)

    @writing
    def upsert(self, records: Sequence[Record]) -> None:
        """Add through the framework what the store can hold; refuse the rest, removing an earlier version.

        ``_vectors`` (what we hold, by id) is replaced, never changed in place, and knows a document before the
        framework holds it and until after it is gone (then ``_departed`` until the searches under way end): a
        search another thread runs meanwhile scores every id the framework returns (``_scored``)."""
        latest = {r.id: Record(r.id, self._checked(r.vector, r.id), r.metadata) for r in records}
        present = [i for i in latest if i in self._vectors]
        accepted = []
        for i, record in latest.items():
            why = self._refusal(record)
            if why:
                self._refused.refuse(i, record.vector, why)
            else:
                accepted.append(record)
        self._vectors = {**self._vectors, **{r.id: r.vector for r in accepted}}
        if present:  # replace, not merge: Chroma's add ignores an existing id, its upsert merges metadata
            self._remove(present)
        self._refused.forget(r.id for r in accepted)
        if accepted:
            self._add(accepted)
        refused = set(present) - {r.id for r in accepted}
        if refused:
            self._unhold(refused)

    def not_indexable(self) -> dict[str, str]:
        return dict(self._refused.reasons)

    @writing
    def delete(self, ids: Sequence[str]) -> None:
        present = [i for i in dict.fromkeys(ids) if i in self._vectors]
        if present:
            self._remove(present)
            self._unhold(set(present))
        self._refused.forget(ids)

    def _unhold(self, gone: set[str]) -> None:
        """Documents the framework no longer holds, out of our record: kept for the searches under way first, so
        that a search never finds a document in neither."""
        self._departed.removed({i: v for i, v in self._vectors.items() if i in gone})
        self._vectors = {i: v for i, v in self._vectors.items() if i not in gone}

    @writing
    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        self.update_metadata_batch({id: metadata})

    @writing
    def update_metadata_batch(self, updates: Mapping[str, Mapping[str, Any]]) -> None:
        """One remove and one add through the framework for every known document (a permissions job's bulk
        change), not one of each per document: a framework's Chroma add re-indexes a call's vectors at once."""
        records = []
        for id, metadata in updates.items():
            vector = self._vectors.get(id, self._refused.vector(id))
            if vector is not None:  # unknown ids are ignored, as by the reference
                records.append(Record(id, vector, dict(metadata)))
        if records:
            self.upsert(records)

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        query = self._checked(vector, "query")
        with self._departed.searching() as departed:
            held = self._vectors  # as the search begins: a document another thread deletes meanwhile is still scored
            if k <= 0 or not held:
                return []
            k = min(k, len(held))
            natives = [None] if where is None else self._natives(where)
            hits = [hit for native in natives
                    for hit in self._scored(query, self._query(query, k, native), held, departed)]
        if len(natives) > 1:  # partitions: the top k of their top-k lists (each id once) is the top k
            hits = sorted({hit.id: hit for hit in hits}.values(), key=lambda hit: -hit.score)[:k]
        return hits

    def _scored(self, query: np.ndarray, found: list[tuple[str, float | None]],
                held: Mapping[str, np.ndarray] | None = None,
                departed: Callable[[str], np.ndarray | None] | None = None) -> list[Hit]:
        """Each hit with its cosine: the framework's, or (a path that gives none) of the vector we hold, as the
        search began (``held``) or as now (a document published meanwhile), or as it was removed since the search
        began (``departed``: published and deleted again while the framework searched)."""
        q, now = unit(query), self._vectors
        began = now if held is None else held
        hits = []
        for doc_id, score in found:
            vector = began.get(doc_id)
            if vector is None:
                vector = now.get(doc_id)
            if vector is None and departed is not None:
                vector = departed(doc_id)
            if score is None:
                if vector is None:  # deleted, or never added: say so rather than guess a score
                    raise AdapterError(f"{self.name} returned {doc_id!r}, which is not in the index")
                score = float(unit(vector) @ q)
            elif math.isnan(score) and (not q.any() or (vector is not None and not vector.any())):
                score = 0.0  # pgvector's cosine of a zero vector is 0/0, passed on by both frameworks; ours is 0
            hits.append(Hit(doc_id, float(score)))
        return hits
