"""``qdrant-local`` and ``qdrant-server``: the same adapter over qdrant-client, in process or to a server.

``qdrant-local`` is qdrant-client's local mode (``:memory:``, or a directory with
``--qdrant-path``): a pure-Python evaluator of the filter language, always brute
force, so it is exact and judges our filters independently of the Rust engine.
Payload indexes and search parameters have no effect there (it warns), so the
adapter creates none and sends none.

``qdrant-server`` talks to a real server at ``--option qdrant_url=...`` or
``QDRANT_URL`` (API key: ``qdrant_api_key`` / ``QDRANT_API_KEY``; also ``timeout``, ``hnsw_ef``, ``exact``,
``check_compatibility``), for instance the
``qdrant`` service of the top-level ``docker-compose.yml`` or a testcontainers
container (``filterproof.servers.qdrant``). Its collection gets the payload
indexes of ``payload.INDEXES``; every write waits (``wait=True``) so that the
next query sees it. Unless ``qdrant_collection`` names one, each adapter works in
a collection of its own, ``filterproof_<random>``, dropped on close, so that runs
sharing a server never see each other's points.
"""

from __future__ import annotations

import os
import uuid
import warnings
from collections.abc import Mapping
from typing import Any

from qdrant_client import QdrantClient, models

from filterproof.adapters import BackendUnavailable
from filterproof.adapters.base import Capabilities
from filterproof.adapters.qdrant.common import Point, QdrantAdapter, option_bool, option_int
from filterproof.adapters.qdrant.payload import ID, INDEXES, IndexKind

COLLECTION = "filterproof"
SERVER_TIMEOUT = 60
RECALL_TOLERANCE = 0.01
SERVER_KEYS_PER_CALL = 250_000
"""About 4.5 MB of revision keys per batched request (measured ~18 bytes a key in the JSON body);
a server refuses bodies over ``service.max_request_size_mb``, 32 MB by default."""


class ModelsFamily:
    """``compiler.Family`` for qdrant_client.models."""

    def equals(self, key: str, value: str) -> models.Condition:
        return models.FieldCondition(key=key, match=models.MatchValue(value=value))

    def any_of(self, key: str, values: list[str]) -> models.Condition:
        return models.FieldCondition(key=key, match=models.MatchAny(any=values))

    def date_range(self, key: str, gt: str | None, lte: str | None) -> models.Condition:
        return models.FieldCondition(key=key, range=models.DatetimeRange(gt=gt, lte=lte))

    def missing(self, key: str) -> models.Condition:
        return models.IsEmptyCondition(is_empty=models.PayloadField(key=key))

    def must(self, conditions: list[Any]) -> models.Filter:
        return models.Filter(must=conditions)

    def should(self, conditions: list[Any]) -> models.Filter:
        return models.Filter(should=conditions)


def index_schema(kind: IndexKind) -> models.PayloadSchemaType | models.KeywordIndexParams:
    return {
        "keyword": models.PayloadSchemaType.KEYWORD,
        "tenant": models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True),
        "integer": models.PayloadSchemaType.INTEGER,
        "datetime": models.PayloadSchemaType.DATETIME,
    }[kind]


class _ClientAdapter(QdrantAdapter[Any]):
    """Everything but how the client is opened and whether indexes and search params apply."""

    def __init__(self, client: QdrantClient, collection: str, indexed: bool, params: models.SearchParams | None,
                 drop_on_close: bool) -> None:
        super().__init__(ModelsFamily())
        self._client, self._collection, self._indexed = client, collection, indexed
        self._params, self._drop_on_close = params, drop_on_close

    def _create(self, dim: int) -> None:
        if self._client.collection_exists(self._collection):
            self._client.delete_collection(self._collection)
        self._client.create_collection(
            self._collection, vectors_config=models.VectorParams(size=dim, distance=models.Distance.COSINE)
        )
        if self._indexed:
            for field, kind in INDEXES.items():
                self._client.create_payload_index(self._collection, field, index_schema(kind), wait=True)

    def _put(self, points: list[Point]) -> None:
        structs = [models.PointStruct(id=pid, vector=vector, payload=payload) for pid, vector, payload in points]
        self._client.upsert(self._collection, structs, wait=True)

    def _remove(self, point_ids: list[str]) -> None:
        self._client.delete(self._collection, models.PointIdsList(points=point_ids), wait=True)

    def _exists(self, pid: str) -> bool:
        return bool(self._client.retrieve(self._collection, [pid], with_payload=False, with_vectors=False))

    def _replace_payload(self, pid: str, payload: dict[str, Any]) -> None:
        self._client.overwrite_payload(self._collection, payload, [pid], wait=True)

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
            if self._drop_on_close and self._client.collection_exists(self._collection):
                self._client.delete_collection(self._collection)
        except Exception as error:  # any transport error: the collection is left, and we say so
            warnings.warn(f"{self.name}: could not drop collection {self._collection}: {error}", stacklevel=2)
        finally:
            self._client.close()


class QdrantLocalAdapter(_ClientAdapter):
    name = "qdrant-local"
    capabilities = Capabilities(native_filter=True, exact=True, persistent=False, lifecycle=True)

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        path = (options or {}).get("qdrant_path")
        client = QdrantClient(path=str(path)) if path else QdrantClient(":memory:")
        super().__init__(client, COLLECTION, indexed=False, params=None, drop_on_close=False)


class QdrantServerAdapter(_ClientAdapter):
    name = "qdrant-server"
    max_keys_per_call = SERVER_KEYS_PER_CALL

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        options = options or {}
        url = options.get("qdrant_url") or os.environ.get("QDRANT_URL")
        if not url:
            raise BackendUnavailable(
                "qdrant-server needs a server: set QDRANT_URL or pass --option qdrant_url=http://localhost:6333 "
                "(start one with `docker compose up -d qdrant`)"
            )
        exact = option_bool(options, "exact")
        self.capabilities = Capabilities(
            native_filter=True, exact=exact, persistent=False, lifecycle=True,
            recall_tolerance=0.0 if exact else RECALL_TOLERANCE,
        )
        client = QdrantClient(
            url=str(url), api_key=options.get("qdrant_api_key") or os.environ.get("QDRANT_API_KEY") or None,
            timeout=option_int(options, "timeout", SERVER_TIMEOUT),
            check_compatibility=option_bool(options, "check_compatibility", True),
        )
        named = options.get("qdrant_collection")
        collection = str(named) if named else f"{COLLECTION}_{uuid.uuid4().hex[:12]}"
        params = models.SearchParams(hnsw_ef=option_int(options, "hnsw_ef"), exact=exact)
        super().__init__(client, collection, indexed=True, params=params, drop_on_close=not named)
