"""Chroma behind filterproof's adapter boundary: in process (``chroma``) and over HTTP (``chroma-server``).

Both backends store our shared vectors only (``embedding_function=None``: Chroma's
default embedding function would download a model) in a cosine HNSW collection,
and hand the policy to Chroma as a native ``where`` (``where``), so that
pre-filtering is Chroma's own. Scores are ``1 - distance``.

Writes. Chroma's ``upsert`` and ``update`` merge metadata, and None deletes a key;
``stored_metadata`` gives every stored field, None where the new metadata has none,
so an upsert or ``update_metadata`` replaces a document's metadata as a whole in one
round trip, without the vector (``update`` leaves it untouched). Upserts and batched
queries are cut to the client's ``get_max_batch_size()``.

The active-revision map. It arrives with every query (``PolicyFilter.active``) and
is compiled into the filter as an ``$in`` over the "tenant/logical_id#revision" keys
of the principal's tenant (cached per map object and tenant). Nothing stored depends
on the map, so a changed map is exact on the very next query and costs no write.
SQLite caps a statement at 32766 variables, so more than ``KEYS_PER_FILTER`` keys
become several filters over disjoint slices, one query each, top-k merged by score.
The revision clause is the filter's most expensive part at scale (its cost grows
with the tenant's share of the map; bench/README.md has the measurements). The
alternative, a per-document "active" flag kept in sync, makes every map change a
write to the affected revisions, and a stale flag (a reopened store, a missed
write) would fail *open*.

``n_results`` is k, whatever the collection holds (Chroma returns fewer when the filter
admits fewer, or the collection holds fewer). Queries with the same filter go to Chroma as one call.

Other clients (``open_reader``, ``reader_spec``): ``chroma`` in memory has a second client
in this process only (its ephemeral clients share one system); with ``path``, a
``PersistentClient`` of the same directory, in another process too (our path lock is
the writer's: a reader takes none), which declares no staleness bound: measured on
chromadb 1.5.9, a PersistentClient in another process filters on fresh metadata but
searches the vector index it loaded (a deleted document still returned unfiltered,
every query failing with "Error finding id" once the writer adds one;
``bench/repro/chroma_second_process.py``); ``chroma-server``, another HTTP client of the
server; ``open_writer``, a client of the same kind that writes. No client keeps a count of
the collection: one cached to clamp ``n_results`` to cut every later answer to it once
another client published.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import uuid
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import chromadb
import numpy as np
from chromadb.errors import NotFoundError

from filterproof.adapters.base import (
    AdapterBase,
    Capabilities,
    Hit,
    ReaderSpec,
    Record,
    by_filter,
    check_batch,
    checked_vector,
)
from filterproof.adapters.chroma.clients import client_settings, http_client
from filterproof.adapters.chroma.language import Where
from filterproof.adapters.chroma.limits import KEYS_PER_FILTER, refusal
from filterproof.adapters.chroma.options import ChromaOptions, ChromaServerOptions
from filterproof.adapters.chroma.owned import mark_of, marked, owned
from filterproof.adapters.chroma.where import CURRENT, KEY, LID, compile_partitions, stored_metadata
from filterproof.adapters.encoding import slices
from filterproof.adapters.locking import writing
from filterproof.adapters.ownership import claim
from filterproof.adapters.paths import PathLock
from filterproof.adapters.readers import ReadOnly
from filterproof.adapters.refusals import Refusals
from filterproof.adapters.revisions import KeyCache, flags_to_rewrite, logical_key, revision_key
from filterproof.errors import BackendUnavailable, NoSecondClient, ReaderFailed
from filterproof.policy import ActiveRevisions, PolicyFilter
from filterproof.servers.chroma import ChromaServer
from filterproof.servers.chroma_container import ChromaService

RECALL_TOLERANCE = 0.01
DEFAULT_COLLECTION = "filterproof"

T = TypeVar("T")


def batched(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def hnsw_configuration(options: ChromaOptions | ChromaServerOptions) -> dict[str, Any]:
    return {"hnsw": {"space": "cosine", "ef_search": options.ef_search, "ef_construction": options.ef_construction,
                     "max_neighbors": options.max_neighbors}}


def collection_name(named: str | None, fixed: bool) -> str:
    """The ``collection`` option; else a fixed name (to reopen) or a fresh one (no collisions)."""
    return named or (DEFAULT_COLLECTION if fixed else f"filterproof-{uuid.uuid4().hex[:12]}")


def segment_directories(path: Path, collection_id: object) -> list[Path]:
    """The directories a persistent Chroma keeps one collection's segments in (``PATH/<segment uuid>/``).

    ``delete_collection`` removes the collection's rows of the sysdb (``chroma.sqlite3``, table
    ``segments``) but not those directories, so every rerun on one path would add one: the
    adapter reads them before it drops its own collection, and removes them after. Nothing of
    another collection is ever read for removal.
    """
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path / 'chroma.sqlite3'}?mode=ro", uri=True)) as db:
            rows = db.execute("SELECT id FROM segments WHERE collection = ?", (str(collection_id),)).fetchall()
    except sqlite3.Error:  # not the layout we know: touch nothing
        return []
    return [path / row[0] for row in rows if _is_uuid(row[0])]


def _is_uuid(name: str) -> bool:
    try:
        return str(uuid.UUID(name)) == name
    except ValueError:
        return False


def latest(records: Sequence[Record]) -> list[Record]:
    """One record per id, the last one given (Chroma refuses duplicate ids in one call)."""
    return list({record.id: record for record in records}.values())


class _ChromaStore(AdapterBase):
    """What both backends share: one collection of a client, and the adapter contract over it."""

    name = "chroma"
    capabilities = Capabilities(native_filter=True, exact=False, persistent=False, lifecycle=True,
                                recall_tolerance=RECALL_TOLERANCE, staleness_bound_s=0.0)
    options: ChromaOptions | ChromaServerOptions

    def _reader_options(self, **where: str | None) -> dict[str, Any]:
        """What a reader opens: where the store is, this collection, and the writer's options (revision=...)."""
        if self._collection is None:
            raise NoSecondClient(f"{self.name}: call reset(dim) before opening a reader")
        keep = {"revision", "ef_search"}
        return {**{k: v for k, v in self.options.model_dump().items() if k in keep}, **where,
                "collection": self._name}

    def _attach(self, client: Any, collection: str, drop_on_close: bool, writer: bool = True) -> None:
        self._client, self._name, self._drop_on_close = client, collection, drop_on_close
        self._created = False
        self._configuration = hnsw_configuration(self.options)
        self._batch = int(client.get_max_batch_size())
        self._dim: int | None = None
        self._keys = KeyCache()
        self._collection: Any = None
        self._refused = Refusals()
        with contextlib.suppress(NotFoundError):
            self._collection = client.get_collection(collection, embedding_function=None)
        if writer:
            self._claim(self._collection)

    instead = "another collection=NAME"
    """How to go on when the collection named is not filterproof's (``NotOurs``)."""
    owned_objects = staticmethod(owned)
    """For ``filterproof clean``: every collection of the client that carries the marker."""

    def _claim(self, found: Any) -> None:
        """Refuse a collection of this name that filterproof did not create (``adapters.ownership``)."""
        claim(self.name, f"collection {self._name!r}{self._where}", exists=found is not None and not self._created,
              mark=mark_of(found), replace=self.options.replace, instead=self.instead)

    @property
    def _where(self) -> str:
        return ""

    # -- writes ---------------------------------------------------------------------

    def reset(self, dim: int) -> None:
        found = None
        with contextlib.suppress(NotFoundError):
            found = self._client.get_collection(self._name, embedding_function=None)
        self._claim(found)
        if found is not None:
            self._drop(found)
        self._collection = self._client.create_collection(
            self._name, embedding_function=None, configuration=self._configuration,
            metadata=marked(temporary=self._drop_on_close))
        self._created = True
        self._dim = dim
        self._refused.clear()

    def _drop(self, collection: Any) -> None:
        """Drop a collection that ``_claim`` let through."""
        self._client.delete_collection(collection.name)

    def _vector(self, record: Record) -> np.ndarray:
        if self._dim is None:
            return np.asarray(record.vector, dtype=np.float32)
        return checked_vector(record.vector, self._dim, record.id)

    @writing
    def upsert(self, records: Sequence[Record]) -> None:
        """Write what Chroma can hold; refuse the rest (``limits``), deleting an earlier version of it."""
        accepted: list[tuple[Record, dict[str, Any]]] = []
        refused = []
        for record in latest(records):
            stored = stored_metadata(record.metadata, self.flag_map)
            why = refusal(stored)
            if why:
                self._refused.refuse(record.id, self._vector(record), why)
                refused.append(record.id)
            else:
                accepted.append((record, stored))
        self._refused.forget(r.id for r, _ in accepted)
        if refused:
            self._open().delete(ids=refused)
        for chunk in batched(accepted, self._batch):
            self._open().upsert(ids=[r.id for r, _ in chunk], embeddings=np.stack([self._vector(r) for r, _ in chunk]),
                                metadatas=[stored for _, stored in chunk])

    def not_indexable(self) -> dict[str, str]:
        return dict(self._refused.reasons)

    @writing
    def delete(self, ids: Sequence[str]) -> None:
        for chunk in batched(list(dict.fromkeys(ids)), self._batch):
            self._open().delete(ids=list(chunk))
        self._refused.forget(ids)

    @writing
    def update_metadata(self, id: str, metadata: Mapping[str, Any]) -> None:
        """Replace the metadata as a whole (absent fields sent as None, i.e. deleted); unknown ids are ignored.

        Metadata Chroma cannot hold makes the document refused (its vector kept); a refused
        document is written again, with its vector, by an update that fits.
        """
        held = self._refused.vector(id)
        if held is not None:
            self.upsert([Record(id, held, metadata)])
            return
        stored = stored_metadata(metadata, self.flag_map)
        why = refusal(stored)
        if why:
            found = self._open().get(ids=[id], include=["embeddings"])
            if found["ids"]:
                self._refused.refuse(id, np.asarray(found["embeddings"][0], dtype=np.float32), why)
                self._open().delete(ids=[id])
            return
        self._open().update(ids=[id], metadatas=[stored])

    @writing
    def update_metadata_batch(self, updates: Mapping[str, Mapping[str, Any]]) -> None:
        """Many documents' metadata in one Chroma ``update`` per batch (Chroma ignores unknown ids, as one call each
        does): a bulk revoke of 2,500 documents took 26 s in calls of one and 0.2 s batched. A refused document, or
        metadata Chroma cannot hold, goes through ``update_metadata`` on its own."""
        plain: dict[str, dict[str, Any]] = {}
        for id, metadata in updates.items():
            stored = stored_metadata(metadata, self.flag_map)
            if self._refused.vector(id) is not None or refusal(stored):
                self.update_metadata(id, metadata)
            else:
                plain[id] = stored
        for chunk in batched(list(plain), self._batch):
            self._open().update(ids=list(chunk), metadatas=[plain[i] for i in chunk])

    @writing
    def set_active_revisions(self, active: ActiveRevisions) -> None:
        """Under ``revision=flag``: rewrite the flags of every tenant/logical_id whose revision changed.

        Chroma's update merges metadata, so only the flag is sent. Every revision of a
        changed document loses its flag first, then the new active one gets it: an
        interruption between the two leaves documents excluded, never admitted.
        """
        if self.revision_flags and self._collection is not None:
            changed = flags_to_rewrite(self.active, active)
            for part in slices(changed, KEYS_PER_FILTER):
                self._write_flag_where({LID: {"$in": [logical_key(*p) for p in part]}}, "no")
                keys = [revision_key(t, lid, active[(t, lid)]) for t, lid in part if (t, lid) in active]
                if keys:
                    self._write_flag_where({KEY: {"$in": keys}}, "yes")
        self.active = active

    def _write_flag_where(self, where: Where, value: str) -> None:
        ids = self._open().get(where=where, include=[])["ids"]
        for chunk in batched(ids, self._batch):
            self._open().update(ids=list(chunk), metadatas=[{CURRENT: value}] * len(chunk))

    # -- reads ----------------------------------------------------------------------

    def _open(self) -> Any:
        if self._collection is None:
            raise RuntimeError(f"{self.name}: call reset(dim) before using the index")
        return self._collection

    def compile(self, where: PolicyFilter) -> list[Where]:
        """The native filters (usually one), with the active keys cached per map object and tenant."""
        if self.revision_flags:
            return compile_partitions(where, flag=True)
        return compile_partitions(where, self._keys(where.active, where.principal.tenant))

    def filter_ids(self, where: PolicyFilter) -> set[str]:
        """The ids the native filter admits, without a vector search (no HNSW recall in the way)."""
        return {i for native in self.compile(where) for i in self._open().get(where=native, include=[])["ids"]}

    def search(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> list[Hit]:
        return self.search_batch(np.asarray(vector, dtype=np.float32)[None, :], k, [where])[0]

    def search_batch(self, vectors: np.ndarray, k: int, wheres: Sequence[PolicyFilter | None]) -> list[list[Hit]]:
        """One Chroma query per distinct filter (and per batch-size chunk), each with many embeddings."""
        matrix = np.asarray(vectors, dtype=np.float32)
        check_batch(matrix, wheres)
        if self._dim is not None and matrix.shape[1:] != (self._dim,):  # Chroma's own error is no ValueError
            raise ValueError(f"query: vectors have shape {matrix.shape[1:]}, index takes ({self._dim},)")
        results: list[list[Hit]] = [[] for _ in wheres]
        # k as asked: Chroma (1.5) returns what it holds when that is fewer. A count cached to clamp k to was cut
        # short by another client's writes (the documents it published missing from every answer: the two-clients
        # check), and counting on every query cost 7 to 14% of a search (bench/results/chroma_count_cost.txt).
        if k <= 0:
            return results
        for where, rows in by_filter(wheres):
            natives = [None] if where is None else self.compile(where)
            for native in natives:
                for chunk in batched(rows, self._batch):
                    answer = self._open().query(query_embeddings=matrix[list(chunk)], n_results=k,
                                                where=native, include=["distances"])
                    for row, ids, distances in zip(chunk, answer["ids"], answer["distances"], strict=True):
                        results[row] += [Hit(i, 1.0 - float(d)) for i, d in zip(ids, distances, strict=True)]
            if len(natives) > 1:  # partitions: the top k of their top-k lists (each id once) is the top k
                for row in rows:
                    once = {hit.id: hit for hit in results[row]}.values()
                    results[row] = sorted(once, key=lambda hit: -hit.score)[:k]
        return results

    def close(self) -> None:
        if self._drop_on_close and self._created and self._collection is not None:
            # Best effort: the collection is ours alone, and a failed drop must not mask the caller's error.
            with contextlib.suppress(Exception):
                self._client.delete_collection(self._name)
        self._collection = None


class ChromaAdapter(_ChromaStore):
    """In process: ``EphemeralClient``, or ``PersistentClient`` at option ``path``."""

    name = "chroma"
    Options = ChromaOptions
    options: ChromaOptions

    def __init__(self, options: ChromaOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        path = self.options.path
        self._lock = PathLock(path, self.name) if path else None
        if path:
            client = chromadb.PersistentClient(path=path, settings=client_settings())
            # No bound: a reader in another process searches the vector index it loaded (bench/repro).
            self.capabilities = Capabilities(native_filter=True, exact=False, persistent=True, lifecycle=True,
                                             recall_tolerance=RECALL_TOLERANCE, staleness_bound_s=None)
        else:
            client = chromadb.EphemeralClient(settings=client_settings())
        if path and not self.options.collection:
            self.instead = "another collection=NAME or another path"
        # Ephemeral clients of one process share one in-memory system: a fresh name per adapter.
        try:
            self._attach(client, collection_name(self.options.collection, fixed=bool(path)), drop_on_close=not path)
        except BaseException:  # a collection that is not ours (NotOurs): the path is free again at once
            if self._lock is not None:
                self._lock.release()
            raise

    @property
    def _where(self) -> str:
        return f" in {self.options.path}" if self.options.path else ""

    def _drop(self, collection: Any) -> None:
        """Drop it, and on disk the segment directories Chroma leaves behind (``segment_directories``)."""
        left = segment_directories(Path(self.options.path), collection.id) if self.options.path else []
        super()._drop(collection)
        for directory in left:
            shutil.rmtree(directory, ignore_errors=True)

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self._lock is not None:
                self._lock.release()

    def reader_spec(self) -> ReaderSpec:
        if not self.options.path:
            raise NoSecondClient("chroma without path keeps the store in this process's memory: a reader in "
                                 "another process needs path=DIR")
        return ReaderSpec(self.name, f"{__name__}:ChromaReader", self._reader_options(path=self.options.path))

    def open_reader(self) -> ChromaReader:
        return ChromaReader(self._reader_options(path=self.options.path))

    def open_writer(self) -> ChromaWriter:
        return ChromaWriter({**self._reader_options(path=self.options.path), "dim": self._dim or 0})

    def writer_spec(self) -> ReaderSpec:
        if not self.options.path:
            raise NoSecondClient("chroma without path keeps the store in this process's memory: no writer in "
                                 "another process")
        raise NoSecondClient("chroma: a second process's PersistentClient of one path searches the vector index it "
                             "loaded, not the other's writes (bench/repro/chroma_second_process.py): no writer in "
                             "another process; use chroma-server")


class ChromaServerAdapter(_ChromaStore):
    """Over HTTP: option ``url`` or ``$CHROMA_URL``; else a ``chroma run`` of our own.

    Option ``server=docker`` starts a container instead of a process (needs a Docker engine).
    The server we start is stopped by ``close()``, and in any case at interpreter exit.
    """

    name = "chroma-server"
    Options = ChromaServerOptions
    options: ChromaServerOptions

    def __init__(self, options: ChromaServerOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self._stack = contextlib.ExitStack()
        self.server: ChromaServer | None = None
        try:
            url = self.options.url or os.environ.get("CHROMA_URL")
            if not url:
                url = self._start(self.options.server)
            self.url = str(url)
            # A collection named by the user outlives the run; our own fresh one is dropped.
            self.instead = "another collection=NAME (or none: a fresh collection, dropped after)"
            try:
                client = http_client(self.url)
            except ValueError as error:  # chromadb: "Could not connect to a Chroma server"
                raise BackendUnavailable(f"chroma-server: cannot use the server at {self.url}: {error}") from None
            self._attach(client, collection_name(self.options.collection, fixed=False),
                         drop_on_close=not self.options.collection)
        except BaseException:
            self._stack.close()
            raise

    def _start(self, kind: str) -> str:
        if kind == "docker":
            return self._stack.enter_context(ChromaService().provide()).url
        self.server = self._stack.enter_context(ChromaServer.start())
        return self.server.url

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._stack.close()

    def reader_spec(self) -> ReaderSpec:
        return ReaderSpec(self.name, f"{__name__}:ChromaReader", self._reader_options(url=self.url))

    def open_reader(self) -> ChromaReader:
        return ChromaReader(self.reader_spec().options)

    def open_writer(self) -> ChromaWriter:
        return ChromaWriter(self.writer_spec().options)

    def writer_spec(self) -> ReaderSpec:
        return ReaderSpec(self.name, f"{__name__}:ChromaWriter", {**self.reader_spec().options, "dim": self._dim or 0})


class OtherChromaClient(_ChromaStore):
    """Another client of the writer's collection: ``PersistentClient(path)``, ``EphemeralClient`` (this process
    only) or ``HttpClient(url)``, attached to the collection, which must be there; ``role`` names it in errors."""

    Options = ChromaOptions
    role: ClassVar[str]

    def __init__(self, options: Mapping[str, Any]) -> None:
        opts = dict(options)
        path, url, collection = opts.pop("path", None), opts.pop("url", None), opts.pop("collection")
        super().__init__(opts)
        try:
            if url:
                client = http_client(url)
            elif path:
                client = chromadb.PersistentClient(path=path, settings=client_settings())
            else:
                client = chromadb.EphemeralClient(settings=client_settings())
            self._attach(client, collection, drop_on_close=False, writer=False)
        except Exception as error:
            raise ReaderFailed(f"chroma: cannot open a {self.role} of {url or path or 'memory'}: {error}") from error
        if self._collection is None:
            raise ReaderFailed(f"chroma: no collection {collection!r} at {url or path or 'memory'} to "
                               f"{'read' if self.role == 'reader' else 'write'}")


class ChromaReader(ReadOnly, OtherChromaClient):
    """Another client of the writer's collection that searches, and never writes."""

    name = "chroma-reader"
    role = "reader"


class ChromaWriter(OtherChromaClient):
    """Another client of the writer's collection that writes: in this process (``open_writer``), or over a server
    in another (``writer_spec``). It never resets the collection, and closing it leaves it; with a path, the first
    writer's path lock covers it (one process)."""

    name = "chroma-writer"
    role = "writer"

    def __init__(self, options: Mapping[str, Any]) -> None:
        """``options``: a reader's, and the collection's dimension (``dim``), in this process or another."""
        opts = dict(options)
        dim = opts.pop("dim")
        super().__init__(opts)
        self._dim = dim

    def reset(self, dim: int) -> None:
        raise NoSecondClient(f"{self.name}: a second writer does not reset the collection; the first one does")
