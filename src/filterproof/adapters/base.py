"""The adapter boundary: the one interface between filterproof and a vector store.

An adapter is a thin wrapper around one store. filterproof gives it plain data and
asks plain questions; everything about strategies, ties, thresholds and metrics
stays on our side of the line. The whole contract:

* ``reset(dim)`` creates the index, or empties it, for vectors of ``dim`` floats.
* ``upsert(records)`` inserts or replaces documents: an id, a float32 vector of
  ``dim`` floats (another length raises ``ValueError``; cosine space) and the
  document's metadata *exactly as the fixture gave it*, malformed values included.
  Storing metadata in a form the store can filter on is the adapter's job; so is
  making sure malformed metadata never matches.
* ``delete(ids)`` removes documents; unknown ids are ignored. An empty list in any call
  selects no document (``delete([])`` deletes nothing; an empty active map admits nothing).
  Every write selects exactly the ids it names: no pattern, prefix, trimmed or folded match.
  What a write is given (a metadata dict, its lists, a vector array) stays the caller's: a
  store that keeps it keeps a copy.
* ``update_metadata(id, metadata)`` replaces a document's metadata as a whole
  (revoke a group, supersede a revision); its vector is unchanged.
* ``search(vector, k, where)`` (``vector`` of ``dim`` floats; another length raises
  ``ValueError``) returns at most ``k`` hits, best first, as
  ``Hit(id, score)`` with ``score`` the cosine similarity (higher is better).
  ``k`` is clamped: when the filter admits fewer than ``k`` documents (or the
  collection holds fewer), all of them come back, never an error and never padding;
  ``k = 0`` returns ``[]``. ``where`` is None (no filter) or a ``PolicyFilter``: the
  adapter compiles it into the store's native filter, so that only documents
  ``policy.is_eligible`` admits come back. Every change made through this interface
  must be visible to the next search. Returning fewer than ``k`` hits while more
  eligible ones exist is a short result: allowed, and reported.
* ``close()`` releases the store; the adapter is not used afterwards.
* ``capabilities`` says what the adapter can do, so that tests it cannot take skip.
* One client may be searched from several threads at once (a web application's request
  threads share it): each call answers under its own filter and query, kept in the call,
  never on the client (``adapters.locking.locked`` serializes a connection that keeps its
  last result). Threads may also write through it, one while others search and two at
  once: the store ends as one order of the writes leaves it (``adapters.locking.writing``
  holds a write lock over a write that reads before it writes). A client that must not be
  shared declares ``thread_safe=False``.

A second client (``SecondClient``, optional), for readers other than the writer: in
production a permissions job writes and API replicas read, through other clients and
usually other processes. ``open_reader()`` returns another client of the same store (a
new connection or client object; for an embedded store, over the same path) that answers
``search`` (and ``search_batch``) and ``close``, and never writes. ``reader_spec()``
returns a ``ReaderSpec``: a factory (``"module:callable"``) and picklable options that
open the same reader in another process (spawned, never forked). A store that cannot
have a second client, or not in another process, raises ``NoSecondClient`` with why.
``open_writer()`` (``SecondWriter``, optional) returns another client that writes: the
publishing service beside the permissions job, each with a client of its own. It opens
the store the writer made (never ``reset``; ``close`` leaves the store), and the two
writing at once leave the store as one order of their writes, as two threads of one
client do: a client's own lock serializes nothing of another's. The application tells
each client of a map change (``set_active_revisions`` on each). ``writer_spec()``
(``SecondWriterSpec``, optional) opens such a writer in another process, as
``reader_spec()`` opens a reader: a lock of one process serializes nothing of another's.
``capabilities.staleness_bound_s`` says what a reader may miss: 0, every change is seen
by any reader's next query once the writer's call has returned; a number, seen by
queries that start that many seconds after it; None, not declared, which
filterproof holds to 0 (``filterproof freshness`` and the suite's across-clients tier
measure it).

Four methods are optional (``BatchSearch``, ``BatchUpdate``, ``Optimizable``, ``RevisionSync``):

* ``search_batch(vectors, k, wheres)`` answers many queries in one call, one list
  per query in order, each under its own filter; ``search_many`` uses it when present.
* ``update_metadata_batch(updates)`` replaces many documents' metadata in one call
  (``{id: metadata}``), exactly as ``update_metadata`` would one by one; ``update_many``
  uses it when present (a permissions job's bulk revoke; a store that commits per call,
  such as LanceDB, otherwise leaves a fragment per document for every later search).
* ``optimize()`` builds what the writes since the last call need (an HNSW graph);
  the harness calls it after ingesting and before timing queries.
* ``set_active_revisions(active)`` tells the adapter the authoritative map: the
  harness calls it before the first upsert and whenever the map changes, and only
  then asks queries whose ``PolicyFilter.active`` is that map. An adapter that keeps
  a per-document "current revision" flag (``revision=flag``) writes the flags of
  later upserts from it, and rewrites the flags the change affects **before it
  returns**: the very next query must see the new map. An adapter that compiles the
  map into every query (``revision=query``) has nothing to do.

The factory: a backend is built by calling it with its options,
``MyStore(options: MyOptions | Mapping[str, Any] | None = None)``. Through the
``filterproof.adapters`` entry point or ``--backend NAME:key=value`` it receives the
validated ``Options`` model when the class declares ``Options`` (a pydantic model,
``adapters.options.AdapterOptions``; the registry validates a spec's options against it
before the adapter is built), otherwise a dict of strings; ``pytest --adapter M:F``
passes a dict of the ``--backend-option`` strings; from code (``MyStore({})``, the
conformance suite subclassed) it gets a mapping or nothing. ``AdapterBase.__init__``
accepts all of these and sets ``self.options``.

Where the policy is evaluated: compiling ``where`` into the store's own filter is the
point, and what the conformance suite proves. The rules a native filter must reproduce
are functions of ``filterproof.policy`` (``structural_problem`` and ``problem`` for
malformed metadata, ``matchable`` for a principal's names that match nothing): the
SQLite example (``examples/sqlite-store``) reproduces them in one SQL ``WHERE``, and the
skeleton ``filterproof new-adapter`` writes points at them in each method. A store
whose filter *is* a Python predicate (called for each document it considers, over the
whole collection, before ranking) may call ``policy.is_eligible`` inside that
predicate; the suite then still tests its storage (metadata kept exactly as given), its
lifecycle, the store contract and scale. Calling it on hits the store already cut to
``k`` is post-filtering: results come back short, and the suite fails it.

``AdapterBase`` gives the optional parts honest defaults (options, ``search_batch`` as
a loop, ``optimize`` as a no-op, ``close`` and the context manager); the built-in
adapters use it, third-party adapters need not. Adapters need not sort ties, drop zero
scores or know fixture order: the strategies do that, identically for all stores.
"""

from __future__ import annotations

import math
import threading
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, Self, runtime_checkable

import numpy as np

from filterproof.adapters.options import AdapterOptions, NoOptions
from filterproof.errors import AdapterError, NoSecondClient
from filterproof.policy import ActiveRevisions, PolicyFilter

__all__ = ["Adapter", "AdapterBase", "AdapterError", "BatchSearch", "Capabilities", "Hit", "NoSecondClient",
           "Optimizable", "Reader", "ReaderSpec", "Record", "RevisionSync", "SecondClient", "SecondWriter",
           "SecondWriterSpec", "check_batch", "optimize", "records_of", "search_many", "staleness_bound",
           "sync_active"]


@dataclass(frozen=True)
class Record:
    """A document as the adapter receives it."""

    id: str
    vector: np.ndarray
    metadata: Mapping[str, Any]


@dataclass(frozen=True)
class Hit:
    """One search result: a document id and its cosine similarity to the query."""

    id: str
    score: float


@dataclass(frozen=True)
class Capabilities:
    """What an adapter declares about itself; tests it cannot take are skipped with the reason."""

    native_filter: bool = True
    """``search`` honours ``where`` natively (False: only rank_only and post_filter apply)."""
    exact: bool = True
    """Search is exhaustive; False for approximate (HNSW) search, judged within ``recall_tolerance``."""
    persistent: bool = False
    """The index survives ``close()`` and a reopen on the same path."""
    lifecycle: bool = True
    """``delete`` and ``update_metadata`` are supported."""
    recall_tolerance: float = 0.0
    """For approximate adapters: how far a mean metric may fall below the exact reference."""
    staleness_bound_s: float | None = None
    """How long after the writer's call returns another client may still answer as before (0: never; None: not
    declared, held to 0). Only meaningful with a second client (``SecondClient``)."""
    thread_safe: bool = True
    """One client may be searched from several threads at once, each call under its own filter (False: the
    application gives each thread a client of its own; the suite's check of one client shared skips)."""
    search_path: str | None = None
    """The path filtered searches are meant to take (``searchpath``: "index", "post-filter", "exact scan"); None: not
    declared. The suite warns, and ``compare`` says, when ``explain`` reports another."""

    def __post_init__(self) -> None:
        """A declaration no store can be held to raises where it is made, naming the field: a negative or infinite
        staleness bound, a tolerance outside [0, 1], a flag that is not a bool (``"no"`` would read as true)."""
        for name in ("native_filter", "exact", "persistent", "lifecycle", "thread_safe"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"Capabilities.{name} is True or False, got {getattr(self, name)!r}")
        _declared_number("recall_tolerance", self.recall_tolerance, 1.0, "a share from 0 to 1")
        if self.staleness_bound_s is not None:
            _declared_number("staleness_bound_s", self.staleness_bound_s, math.inf, "seconds, at least 0")


def _declared_number(field: str, value: object, upper: float, what: str) -> None:
    """``Capabilities.<field>`` is a finite number from 0 to ``upper`` (a bool is no number here)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"Capabilities.{field} is a number, got {value!r}")
    if not (math.isfinite(value) and 0.0 <= value <= upper):
        raise ValueError(f"Capabilities.{field} is finite, {what}: got {value!r}")


@runtime_checkable
class Adapter(Protocol):
    """A vector store behind filterproof's boundary (see the module docstring)."""

    name: str
    capabilities: Capabilities

    def reset(self, dim: int) -> None: ...

    def upsert(self, records: Sequence[Record]) -> None: ...

    def delete(self, ids: Sequence[str]) -> None: ...

    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None: ...

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]: ...

    def close(self) -> None: ...


@runtime_checkable
class BatchSearch(Protocol):
    """Optional: many queries in one call, one list of hits per query, each under its own filter."""

    def search_batch(self, vectors: np.ndarray, k: int, wheres: Sequence[PolicyFilter | None]) -> list[list[Hit]]: ...


@runtime_checkable
class BatchUpdate(Protocol):
    """Optional: many documents' metadata replaced in one call, as ``update_metadata`` would one by one."""

    def update_metadata_batch(self, updates: Mapping[str, Mapping[str, Any]]) -> None: ...


@runtime_checkable
class Optimizable(Protocol):
    """Optional: build the index now (after an ingest), rather than on the first search."""

    def optimize(self) -> None: ...


@runtime_checkable
class Refusing(Protocol):
    """Optional: documents the store cannot hold (an engine's limit), refused before the write.

    A refused document is never written (an earlier version of it is deleted) and so never
    returned; the run counts it and compares the store with the reference without it.
    ``not_indexable()`` maps each id refused since ``reset`` (and not written since) to why.
    """

    def not_indexable(self) -> Mapping[str, str]: ...


@dataclass(frozen=True)
class ReaderSpec:
    """How to open another client of a store, in this process or in another: ``factory`` is
    ``"module:callable"``, called with ``options`` (picklable); it returns the reader."""

    backend: str
    factory: str
    options: Mapping[str, Any]

    def open(self) -> Reader:
        from importlib import import_module

        module, _, name = self.factory.partition(":")
        target: Any = import_module(module)
        for part in name.split("."):
            target = getattr(target, part)
        return target(dict(self.options))  # type: ignore[no-any-return]


@runtime_checkable
class Reader(Protocol):
    """Another client of a store: it answers searches and never writes."""

    name: str

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]: ...

    def close(self) -> None: ...


@runtime_checkable
class SecondClient(Protocol):
    """Optional: another client of the same store (see the module docstring); ``NoSecondClient`` if none."""

    def open_reader(self) -> Reader: ...

    def reader_spec(self) -> ReaderSpec: ...


@runtime_checkable
class SecondWriter(Protocol):
    """Optional: another client of the same store that writes (see the module docstring); ``NoSecondClient`` if
    none."""

    def open_writer(self) -> Adapter: ...


@runtime_checkable
class SecondWriterSpec(Protocol):
    """Optional: what another process opens to write to the same store (see the module docstring);
    ``NoSecondClient`` if it cannot."""

    def writer_spec(self) -> ReaderSpec: ...


@runtime_checkable
class RevisionSync(Protocol):
    """Optional: receive the authoritative active-revision map (see the module docstring)."""

    def set_active_revisions(self, active: ActiveRevisions) -> None: ...


class AdapterBase(ABC):
    """An optional base class: the six methods to write, and honest defaults for the rest.

        class MyStore(AdapterBase):
            name = "mystore"
            Options = MyOptions                  # optional: a pydantic model of the options
            capabilities = Capabilities(exact=True)

            def reset(self, dim): ...            # and upsert, delete, update_metadata, search

    ``self.options`` holds the validated options; ``with MyStore() as store:`` closes it.
    """

    name: ClassVar[str] = "adapter"
    Options: ClassVar[type[AdapterOptions]] = NoOptions
    capabilities: Capabilities = Capabilities()
    native: ClassVar[bool] = True
    """The store may run native code and threads in this process (False: pure Python, as the reference)."""

    def __init__(self, options: AdapterOptions | Mapping[str, Any] | None = None) -> None:
        global _native_opened
        self.options = self.Options.coerce(options, self.name)
        self.active = ActiveRevisions()
        self._writes = threading.RLock()  # held by ``@writing`` methods (adapters.locking): one write at a time
        _native_opened = _native_opened or type(self).native

    @abstractmethod
    def reset(self, dim: int) -> None: ...

    @abstractmethod
    def upsert(self, records: Sequence[Record]) -> None: ...

    @abstractmethod
    def delete(self, ids: Sequence[str]) -> None: ...

    @abstractmethod
    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None: ...

    @abstractmethod
    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]: ...

    def search_batch(self, vectors: np.ndarray, k: int, wheres: Sequence[PolicyFilter | None]) -> list[list[Hit]]:
        """One ``search`` per query; stores with a batch API override this."""
        check_batch(vectors, wheres)
        return [self.search(vector, k, where) for vector, where in zip(vectors, wheres, strict=True)]

    def update_metadata_batch(self, updates: Mapping[str, Mapping[str, Any]]) -> None:
        """One ``update_metadata`` per document; stores that commit per call override this."""
        for id, metadata in updates.items():
            self.update_metadata(id, metadata)

    def optimize(self) -> None:  # noqa: B027 - an optional hook with a default, not an abstract method
        """Nothing to build: the index is ready after every write."""

    def set_active_revisions(self, active: ActiveRevisions) -> None:
        """Remember the map (``self.active``); an adapter with stored flags also rewrites them here."""
        self.active = active

    @property
    def revision_flags(self) -> bool:
        """Whether this adapter keeps a current-revision flag (its options say ``revision=flag``)."""
        return getattr(self.options, "revision", "query") == "flag"

    @property
    def flag_map(self) -> ActiveRevisions | None:
        """The map to write flags from at upsert under ``revision=flag``; None under ``revision=query``."""
        return self.active if self.revision_flags else None

    def close(self) -> None:  # noqa: B027
        """Nothing to release."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def check_batch(vectors: Sequence[Any] | np.ndarray, wheres: Sequence[PolicyFilter | None]) -> None:
    """A batch takes one filter per vector: unequal lengths raise ValueError (``zip`` would drop a query or a
    filter left over, and every later answer would be counted against the wrong query)."""
    if len(vectors) != len(wheres):
        raise ValueError(f"{len(vectors)} vectors but {len(wheres)} filters")


def search_many(
    adapter: Adapter, vectors: np.ndarray, k: int, wheres: Sequence[PolicyFilter | None]
) -> list[list[Hit]]:
    """One search per row of ``vectors``; a single call when the adapter batches."""
    if isinstance(adapter, BatchSearch):
        return adapter.search_batch(vectors, k, wheres)
    return [adapter.search(vector, k, where) for vector, where in zip(vectors, wheres, strict=True)]


def update_many(adapter: Adapter, updates: Mapping[str, Mapping[str, Any]]) -> None:
    """Replace the metadata of every document in ``updates``; a single call when the adapter batches."""
    if isinstance(adapter, BatchUpdate):
        adapter.update_metadata_batch(updates)
    else:
        for id, metadata in updates.items():
            adapter.update_metadata(id, metadata)


def by_filter(wheres: Sequence[PolicyFilter | None]) -> list[tuple[PolicyFilter | None, list[int]]]:
    """The rows of a batch grouped by filter, in first-seen order: one native query per group, with many vectors.
    Rows share a filter when they share the principal, the date and the active map itself (by identity: a map
    is compared by what it is, never by its possibly large contents)."""
    groups: dict[object, tuple[PolicyFilter | None, list[int]]] = {}
    for row, where in enumerate(wheres):
        key = None if where is None else (where.principal, where.as_of, id(where.active))
        groups.setdefault(key, (where, []))[1].append(row)
    return list(groups.values())


def optimize(adapter: Adapter) -> None:
    """Let an adapter that builds its index lazily build it now."""
    if isinstance(adapter, Optimizable):
        adapter.optimize()


_native_opened = False


def native_store_opened() -> bool:
    """Whether a store that may run native threads was opened in this process (``AdapterBase.native``).

    A process that forks while such a store's threads run (Chroma's tokio runtime, an
    allocator's background thread) can hand the child a lock that no thread will ever
    release: the child hangs at its first allocation (seen in a test process). The
    isolation layer forks workers only from a process that never opened one.
    """
    return _native_opened


def not_indexable(adapter: Adapter) -> dict[str, str]:
    """The documents an adapter refused as beyond its engine's limits (id: why); none for most."""
    return dict(adapter.not_indexable()) if isinstance(adapter, Refusing) else {}


def staleness_bound(capabilities: Capabilities) -> float:
    """The bound a store is held to: its declared ``staleness_bound_s``, 0 when it declares none."""
    bound = capabilities.staleness_bound_s
    return 0.0 if bound is None else float(bound)


def sync_active(adapter: Adapter, active: ActiveRevisions) -> None:
    """Give an adapter that takes it the authoritative map (before upserts, and after every change)."""
    if isinstance(adapter, RevisionSync):
        adapter.set_active_revisions(active)


def records_of(ids: Sequence[str], vectors: np.ndarray, metadata: Sequence[Mapping[str, Any]]) -> list[Record]:
    return [Record(i, v, m) for i, v, m in zip(ids, vectors, metadata, strict=True)]


def checked_vector(vector: Any, dim: int | None, what: str) -> np.ndarray:
    """``vector`` as a float32 row, or the contract's ``ValueError`` (naming ``what``: a record's id, or ``query``)
    when its shape is not the index's ``(dim,)``: every store refuses a vector of another length, in a write or a
    query, rather than padding, cutting or passing it to an engine whose error is no ``ValueError``. Always a copy:
    a store that keeps it (a bridge scores and rewrites with the vectors it was given) must not keep the caller's
    array, which the caller may fill again (``CallerObjectChecks``)."""
    row = np.array(vector, dtype=np.float32)
    if row.shape != (dim,):
        raise ValueError(f"{what}: vector has shape {row.shape}, index takes ({dim},)")
    return row
