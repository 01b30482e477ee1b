"""What ``langchain-milvus`` and ``llamaindex-milvus`` share: a Milvus Lite directory, the stored row, ids, indexes.

Both bridges run their integration over Milvus Lite in a temporary directory of their
own (one ``milvus.db`` inside a ``tempfile.mkdtemp``), removed on close or at exit:
``MilvusClient.close()`` leaves milvus-lite's in-process gRPC server running and the
directory locked, so the directory is released first (``milvus.lite.LiteDirectory``).

The stored encoding is the ``milvus`` engine backend's (``milvus.expr.stored_fields``:
every string through ``expr.text``, so no control character, surrogate or lone
backslash is ever stored; a malformed document holds ``""``/``0``/``[]`` and its reason
in ``problem``), so a difference from the engine adapter is a finding about the framework
layer. Ids too are stored as ``expr.text(id)`` (a lone surrogate cannot cross gRPC) and
read back with ``textcodec.unescape``.

Ids reach a filter only through ``id_filter``, each one a literal escaped by
``expr.literal``: both integrations build ``id in [...]`` from Python's ``repr`` of the
list, which Milvus Lite cannot read for an id holding a character ``repr`` writes as
``\\xNN``/``\\uNNNN`` (``bench/repro/langchain_milvus_delete.py``).
"""

from __future__ import annotations

import contextlib
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from filterproof.adapters.base import AdapterError, Capabilities
from filterproof.adapters.bridges.core import DOC_PREFIX, KeyedVectors
from filterproof.adapters.bridges.options import MilvusBridgeOptions
from filterproof.adapters.milvus import expr as mx
from filterproof.adapters.milvus.limits import refusal
from filterproof.adapters.milvus.lite import LiteDirectory
from filterproof.adapters.milvus.store import RECALL_TOLERANCE
from filterproof.adapters.revisions import KeyCache

HNSW = {"M": 16, "efConstruction": 200}
INDEX_TYPES = {"flat": "FLAT", "hnsw": "HNSW", "autoindex": "AUTOINDEX"}
COLLECTION = "filterproof"


class LiteBridge:
    """What the Milvus bridges keep beside their integration's store: a Lite directory, the stored keys, a width, and
    (where the integration opens pymilvus's ORM ``Collection``) a client of ours whose connection name is registered
    as an ORM alias; ``close()`` releases them (``_release``, the bridge's own) and removes the directory."""

    options: MilvusBridgeOptions
    capabilities: Capabilities

    def _open_lite(self) -> None:
        if self.options.path != "mmr":  # MMR keeps core's: it promises no recall
            self.capabilities = capabilities(self.options)
        self._lite = LiteDirectory(prefix="filterproof-milvus-bridge-")
        self._keys_of = KeyCache(mx.text)
        self._width = 0
        self._alias: str | None = None
        self._client: Any = None

    def _connect(self) -> Any:
        """Our client on the Lite file, its connection name registered as the ORM alias the integration's
        ``Collection`` opens under (langchain-milvus #130: before the store opens it)."""
        from pymilvus import MilvusClient, connections

        client = self._client = MilvusClient(uri=self._lite.path)
        self._alias = client._using
        with orm_quietly():
            connections.connect(alias=self._alias, uri=self._lite.path)
        return client

    def _release_clients(self, *more: Any) -> None:
        """Disconnect the ORM alias and close our client and ``more`` (the store's), each once, errors ignored."""
        from pymilvus import connections

        if self._alias is not None:
            with contextlib.suppress(Exception), orm_quietly():
                connections.disconnect(self._alias)
            self._alias = None
        for client in (*more, self._client):
            if client is not None:
                with contextlib.suppress(Exception):
                    client.close()
        self._client = None

    def _release(self) -> None:
        self._release_clients()

    def close(self) -> None:
        self._release()
        self._lite.remove()


@contextlib.contextmanager
def orm_quietly() -> Iterator[None]:
    """pymilvus's ORM calls the workaround needs, without their deprecation warning (the integrations' own stay)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*ORM-style PyMilvus API", category=FutureWarning)
        yield


def capabilities(options: MilvusBridgeOptions) -> Capabilities:
    exact = options.index == "flat"
    return Capabilities(native_filter=True, exact=exact, persistent=False, lifecycle=True,
                        recall_tolerance=0.0 if exact else RECALL_TOLERANCE)


def index_params(options: MilvusBridgeOptions) -> dict[str, Any]:
    """The vector index as both integrations take it: a type, COSINE, and the HNSW build settings."""
    params = HNSW if options.index == "hnsw" else {}
    return {"index_type": INDEX_TYPES[options.index], "metric_type": "COSINE", "params": dict(params)}


def build_index(client: Any, collection: str, field: str, options: MilvusBridgeOptions, timeout: float = 60.0) -> None:
    """The vector index of a collection created without one, then loaded: ``create_index(sync=False)`` and a 20 ms
    poll, as the ``milvus`` backend does (pymilvus's own wait sleeps 0.5 s before its first look: 0.5 s a store)."""
    index = index_params(options)
    prepared = client.prepare_index_params()
    prepared.add_index(field, index_type=index["index_type"], metric_type=index["metric_type"], params=index["params"])
    client.create_index(collection, prepared, sync=False)
    deadline = time.monotonic() + timeout
    while client.describe_index(collection, field).get("state") != "Finished":
        if time.monotonic() > deadline:
            raise AdapterError(f"the index of {collection} was not built within {timeout:.0f} s")
        time.sleep(0.02)
    client.load_collection(collection)


def stored_id(doc_id: str) -> str:
    """Our id as the primary key holds it (``expr.text``: injective, no surrogate left)."""
    return mx.text(doc_id)


def id_filter(field: str, ids: Sequence[str]) -> str:
    """``field in [...]`` matching our ``ids`` as stored (``stored_id``), each literal escaped by ``expr.literal``
    (never the integrations' ``repr`` of the list)."""
    return f"{field} in [{', '.join(mx.literal(i) for i in ids)}]" if ids else mx.NOTHING


def row_refusal(id_field: str, doc_id: str, stored: Mapping[str, Any]) -> str | None:
    """Why Milvus cannot hold this row (``milvus.limits``: VARCHAR and ARRAY sizes), or None."""
    return refusal({id_field: stored_id(doc_id), **stored})


def text_keys(keys: KeyedVectors, vectors: Sequence[np.ndarray]) -> list[str]:
    """Shim keys for the text field: a digest of each vector, short whatever the id (the field is a VARCHAR;
    equal vectors share a key, which maps to the same vector)."""
    return [keys.key(v, DOC_PREFIX) for v in vectors]
