"""``qdrant-local`` and ``qdrant-server``: the same adapter over qdrant-client, in process or to a server.

``qdrant-local`` is qdrant-client's local mode (``:memory:``, or a directory with
``--qdrant-path``): a pure-Python evaluator of the filter language, always brute
force, so it is exact and judges our filters independently of the Rust engine.
Payload indexes and search parameters have no effect there (it warns), so the
adapter creates none and sends none.

``qdrant-server`` talks to a real server at ``qdrant-server:url=...`` or
``QDRANT_URL`` (API key: ``api_key`` / ``QDRANT_API_KEY``; see ``options.QdrantServerOptions``), for instance the
``qdrant`` service of the top-level ``docker-compose.yml`` or a testcontainers
container (``filterproof.servers.qdrant``). Its collection gets the payload
indexes of ``adapter.indexes``; every write waits (``wait=True``) so that the
next query sees it. Unless ``collection`` names one, each adapter works in
a collection of its own, ``filterproof_<random>``, dropped on close, so that runs
sharing a server never see each other's points.
"""

from __future__ import annotations

import os
import threading
import uuid
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
from qdrant_client import QdrantClient, models

from filterproof.adapters.base import Capabilities
from filterproof.adapters.ownership import NotOurs, claim
from filterproof.adapters.paths import PathLock
from filterproof.adapters.qdrant.common import Point, QdrantAdapter
from filterproof.adapters.qdrant.language import MODELS
from filterproof.adapters.qdrant.options import QdrantLocalOptions, QdrantServerOptions
from filterproof.adapters.qdrant.owned import collection_mark, marked, owned
from filterproof.adapters.qdrant.payload import ID, IndexKind
from filterproof.adapters.readers import OpensReaders, ReadOnly
from filterproof.adapters.searchpath import SearchPath
from filterproof.errors import BackendUnavailable, NoSecondClient, ReaderFailed
from filterproof.policy import PolicyFilter

COLLECTION = "filterproof"
RECALL_TOLERANCE = 0.01
SERVER_KEYS_PER_CALL = 250_000
"""Revision keys per batched request, keeping its JSON body far below what a server accepts
(``service.max_request_size_mb``, 32 MB by default; a key costs a few tens of bytes)."""


def index_schema(kind: IndexKind) -> models.PayloadSchemaType | models.KeywordIndexParams:
    return {
        "keyword": models.PayloadSchemaType.KEYWORD,
        "tenant": models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True),
        "datetime": models.PayloadSchemaType.DATETIME,
    }[kind]


class _ClientAdapter(QdrantAdapter[Any]):
    """Everything but how the client is opened and whether indexes and search params apply."""

    def _attach(self, client: QdrantClient, collection: str, indexed: bool, params: models.SearchParams | None,
                drop_on_close: bool, writer: bool = True) -> None:
        self._client, self._collection, self._indexed = client, collection, indexed
        self._params, self._drop_on_close = params, drop_on_close
        self._wait = bool(getattr(self.options, "wait", True))
        self._created = False
        if writer:
            self._claim()

    instead = "another collection=NAME"
    """How to go on when the collection is not filterproof's (``NotOurs``)."""
    where = ""
    owned_objects = staticmethod(owned)
    """For ``filterproof clean``: every collection of the server or directory that carries the marker."""

    def _claim(self) -> bool:
        """Refuse a collection of this name that filterproof did not create; whether one exists."""
        exists, mark = collection_mark(self._client, self._collection)
        claim(self.name, f"collection {self._collection!r}{self.where}", exists=exists and not self._created,
              mark=mark, replace=bool(getattr(self.options, "replace", False)), instead=self.instead)
        return exists

    def _create(self, dim: int) -> None:
        if self._claim():
            self._client.delete_collection(self._collection)
        self._client.create_collection(
            self._collection, vectors_config=models.VectorParams(size=dim, distance=models.Distance.COSINE),
            metadata=marked(temporary=self._drop_on_close),
        )
        self._created = True
        if self._indexed:
            for field, kind in self.indexes.items():
                self._client.create_payload_index(self._collection, field, index_schema(kind), wait=True)

    def _put(self, points: list[Point]) -> None:
        structs = [models.PointStruct(id=pid, vector=vector, payload=payload) for pid, vector, payload in points]
        self._client.upsert(self._collection, structs, wait=self._wait)

    def _remove(self, point_ids: list[str]) -> None:
        self._client.delete(self._collection, models.PointIdsList(points=point_ids), wait=self._wait)

    def _exists(self, pid: str) -> bool:
        return bool(self._client.retrieve(self._collection, [pid], with_payload=False, with_vectors=False))

    def _replace_payload(self, pid: str, payload: dict[str, Any]) -> None:
        self._client.overwrite_payload(self._collection, payload, [pid], wait=self._wait)

    def _set_payload_where(self, selector: models.Filter, payload: dict[str, Any]) -> None:
        self._client.set_payload(self._collection, payload, points=models.FilterSelector(filter=selector),
                                 wait=self._wait)

    def _query(self, vectors: list[list[float]], k: int, filters: list[Any]) -> list[list[tuple[Any, float]]]:
        requests = [
            models.QueryRequest(query=v, filter=f, limit=k, with_payload=[ID], params=self._params)
            for v, f in zip(vectors, filters, strict=True)
        ]
        responses = self._client.query_batch_points(self._collection, requests)
        return [[(p.payload, p.score) for p in response.points] for response in responses]

    def close(self) -> None:
        """Drop our own collection (best effort: a vanished server must not mask the caller's error)."""
        try:
            if self._drop_on_close and self._created and self._client.collection_exists(self._collection):
                self._client.delete_collection(self._collection)
        except Exception as error:  # any transport error: the collection is left, and we say so
            warnings.warn(f"{self.name}: could not drop collection {self._collection}: {error}", stacklevel=2)
        finally:
            self._client.close()


class QdrantLocalAdapter(_ClientAdapter):
    name = "qdrant-local"
    Options = QdrantLocalOptions
    options: QdrantLocalOptions
    capabilities = Capabilities(native_filter=True, exact=True, persistent=False, lifecycle=True,
                                search_path="exact scan")

    def explain(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> SearchPath:
        return SearchPath("exact scan", "qdrant-client's local mode scores every point the filter admits, in Python")

    def open_reader(self) -> Any:
        raise NoSecondClient("qdrant-local: local mode holds its storage for one client (a second QdrantClient "
                             "on the path is refused; in memory, each client has a store of its own)")

    reader_spec = open_reader

    def __init__(self, options: QdrantLocalOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options, MODELS)
        path = self.options.path
        self._serial = threading.RLock()
        self._lock = PathLock(path, self.name) if path else None
        client = QdrantClient(path=path) if path else QdrantClient(":memory:")
        self.instead, self.where = "another path", f" in {path}" if path else ""
        try:
            self._attach(client, COLLECTION, indexed=False, params=None, drop_on_close=False)
        except BaseException:
            client.close()
            if self._lock is not None:
                self._lock.release()
            raise

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self._lock is not None:
                self._lock.release()

    # Local mode evaluates a search point by point in this process, with no lock against the client's writes: a
    # search that runs while another thread makes the two writes of a flag rewrite reads one revision before the
    # first and the other after the second, both current at once (findings/engine.md, qdrant-client's local mode;
    # bench/repro/qdrant_local_torn_search.py). Every call on the client holds one lock: a search then sees the
    # collection between two writes.

    def _put(self, points: list[Point]) -> None:
        with self._serial:
            super()._put(points)

    def _remove(self, point_ids: list[str]) -> None:
        with self._serial:
            super()._remove(point_ids)

    def _replace_payload(self, pid: str, payload: dict[str, Any]) -> None:
        with self._serial:
            super()._replace_payload(pid, payload)

    def _set_payload_where(self, selector: models.Filter, payload: dict[str, Any]) -> None:
        with self._serial:
            super()._set_payload_where(selector, payload)

    def _query(self, vectors: list[list[float]], k: int, filters: list[Any]) -> list[list[tuple[Any, float]]]:
        with self._serial:
            return super()._query(vectors, k, filters)


class QdrantServerAdapter(OpensReaders, _ClientAdapter):
    name = "qdrant-server"
    Options = QdrantServerOptions
    options: QdrantServerOptions
    max_keys_per_call = SERVER_KEYS_PER_CALL

    def __init__(self, options: QdrantServerOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options, MODELS)
        opts = self.options
        url = opts.url or os.environ.get("QDRANT_URL")
        if not url:
            raise BackendUnavailable(
                "qdrant-server needs a server: set QDRANT_URL or use -b qdrant-server:url=http://localhost:6333 "
                "(start one with `docker compose up -d qdrant`)"
            )
        self.capabilities = Capabilities(
            native_filter=True, exact=opts.exact, persistent=False, lifecycle=True,
            recall_tolerance=0.0 if opts.exact else RECALL_TOLERANCE, staleness_bound_s=0.0 if opts.wait else None,
            search_path="exact scan" if opts.exact else None,
        )
        self.url = url
        client = QdrantClient(url=url, api_key=opts.api_key or os.environ.get("QDRANT_API_KEY") or None,
                              timeout=opts.timeout, check_compatibility=opts.check_compatibility)
        collection = opts.collection or f"{COLLECTION}_{uuid.uuid4().hex[:12]}"
        params = models.SearchParams(hnsw_ef=opts.hnsw_ef, exact=opts.exact)
        self.instead = "another collection=NAME (or none: a fresh collection, dropped after)"
        try:
            self._attach(client, collection, indexed=True, params=params, drop_on_close=not opts.collection,
                         writer=not isinstance(self, QdrantServerReader))
        except NotOurs:
            client.close()
            raise
        except Exception as error:  # refused, timed out, a bad key: this first request says the server is not usable
            client.close()
            raise BackendUnavailable(f"qdrant-server: cannot use the server at {url}: {error}") from None

    reader = f"{__name__}:QdrantServerReader"

    def _reader_location(self) -> dict[str, Any] | None:
        return {"url": self.url, "collection": self._collection} if self._dim else None

    def explain(self, vector: np.ndarray, k: int, where: PolicyFilter | None) -> SearchPath:
        if self.options.exact:
            return SearchPath("exact scan", "SearchParams(exact=True): every point the filter admits is scored")
        return SearchPath("unknown", "Qdrant chooses per query between its payload index and the filterable HNSW "
                                     "graph, by the filter's cardinality, and does not say which")


class QdrantServerReader(ReadOnly, QdrantServerAdapter):
    """Another client of the writer's server and collection: it searches, and never writes."""

    name = "qdrant-server-reader"

    def __init__(self, options: Mapping[str, Any]) -> None:
        try:
            super().__init__(options)
            info = self._client.get_collection(self._collection)
        except Exception as error:
            raise ReaderFailed(f"qdrant-server: cannot open a reader of {options.get('url')}: {error}") from error
        self._dim = int(info.config.params.vectors.size)  # type: ignore[union-attr]
