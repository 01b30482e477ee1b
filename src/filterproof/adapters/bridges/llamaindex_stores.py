"""``llamaindex-chroma`` and ``llamaindex-qdrant``: the policy through LlamaIndex's vector-store integrations.

Writes are ``vector_store.add([TextNode(id_, text, metadata, embedding=our vector)])``;
deletes are ``delete_nodes(node_ids)``. Searches go through one application call per
``options.path`` (see ``options``) with the policy as ``MetadataFilters``
(``llamaindex_filters``). The retriever paths build a ``VectorStoreIndex`` over the
store with ``ShimEmbedding``, which maps query keys to our vectors (no model).

Scores are cosine similarity, recovered from each integration's similarity:
``ChromaVectorStore`` returns ``exp(-distance)`` with distance = 1 - cosine, so
cosine = 1 + ln(similarity); ``QdrantVectorStore`` returns Qdrant's score, the cosine.

Two integration facts the bridge works with, not around: ``QdrantVectorStore`` needs
point ids that are UUIDs (node id = UUIDv5 of our id, our id in ``fp_id``), and
``ChromaVectorStore.add`` of an existing id is ignored by Chroma, so a replacement
is a delete then an add (``core``).
"""

from __future__ import annotations

import contextlib
import math
import uuid
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import chromadb
import numpy as np
from chromadb.errors import NotFoundError
from llama_index.core import VectorStoreIndex
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.core.postprocessor import SimilarityPostprocessor
from llama_index.core.schema import NodeWithScore, TextNode
from llama_index.core.vector_stores.types import MetadataFilters, VectorStoreQuery, VectorStoreQueryMode
from llama_index.vector_stores.chroma import ChromaVectorStore
from llama_index.vector_stores.qdrant import QdrantVectorStore
from qdrant_client import QdrantClient

from filterproof.adapters.base import Capabilities, Record
from filterproof.adapters.bridges.core import DOC_PREFIX, BridgeAdapter, KeyedVectors, our_id
from filterproof.adapters.bridges.llamaindex_filters import Groups, compile_partitions, node_metadata
from filterproof.adapters.bridges.options import ChromaBridgeOptions, Path, PgBridgeOptions, QdrantBridgeOptions
from filterproof.adapters.bridges.pgvector import (
    OwnDatabase,
    close_pgvectorstore,
    id_refusal,
    sqlalchemy_url,
)
from filterproof.adapters.chroma.clients import client_settings
from filterproof.adapters.chroma.limits import refusal
from filterproof.adapters.chroma.store import RECALL_TOLERANCE, hnsw_configuration
from filterproof.adapters.qdrant.payload import ID, point_id
from filterproof.policy import PolicyFilter

NODE_KEYS = 6
"""Scalar rows ChromaVectorStore adds to a node's metadata: _node_content, _node_type, doc_id, document_id and
ref_doc_id, and the node's text, which Chroma keeps as one more (``chroma:document``). Measured: 5,448 groups
under the flag encoding are held, 5,449 break the collection."""


class ShimEmbedding(BaseEmbedding):
    """A LlamaIndex embedding model that answers with our vectors, never with a model."""

    _keys: KeyedVectors = PrivateAttr()

    def __init__(self, keys: KeyedVectors, **kwargs: Any) -> None:
        super().__init__(model_name="filterproof-shim", **kwargs)
        self._keys = keys

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._keys(query)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._keys(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._keys(text)


class _LlamaIndexBridge(BridgeAdapter):
    """The four paths over a LlamaIndex vector store; subclasses say how ids, groups and scores map."""

    groups: Groups
    store: Any

    def _node_id(self, doc_id: str) -> str:
        return doc_id

    def _doc_id(self, node: Any) -> str:
        """Our id, from a node a search returned (``fp_id``; llamaindex-milvus stores it escaped)."""
        return our_id(self.name, node.metadata, ID)

    def _cosine(self, similarity: float) -> float:
        raise NotImplementedError

    def _new_store(self, dim: int) -> Any:
        raise NotImplementedError

    def _create(self, dim: int) -> None:
        self.store = self._new_store(dim)
        self._index: VectorStoreIndex | None = None

    def _metadata(self, record: Record) -> dict[str, Any]:
        return node_metadata(record.id, record.metadata, self.groups)

    def _add(self, records: Sequence[Record]) -> None:
        self.store.add([TextNode(id_=self._node_id(r.id), text=DOC_PREFIX + r.id, metadata=self._metadata(r),
                                 embedding=np.asarray(r.vector, dtype=np.float32).tolist()) for r in records])

    def _remove(self, ids: Sequence[str]) -> None:
        self.store.delete_nodes(node_ids=[self._node_id(i) for i in ids])

    def _natives(self, where: PolicyFilter) -> list[Any]:
        return list(compile_partitions(where, self.groups))

    def _retrieve(self, vector: np.ndarray, k: int, native: MetadataFilters | None) -> list[NodeWithScore]:
        if self._index is None:
            self._index = VectorStoreIndex.from_vector_store(self.store, embed_model=ShimEmbedding(self.keys))
        with self.keys.query(vector) as query:
            return self._index.as_retriever(similarity_top_k=k, filters=native).retrieve(query)

    def _query(self, vector: np.ndarray, k: int, native: Any | None,
               path: Path | None = None) -> list[tuple[str, float | None]]:
        opts, path = self.options, path or self.options.path
        if path in ("retriever", "score_threshold"):
            nodes = self._retrieve(vector, k, native)
            if path == "score_threshold":
                nodes = SimilarityPostprocessor(similarity_cutoff=opts.score_threshold).postprocess_nodes(nodes)
            return [(self._doc_id(n.node), self._cosine(n.score)) for n in nodes if n.score is not None]
        mmr = path == "mmr"
        query = VectorStoreQuery(query_embedding=np.asarray(vector, dtype=np.float32).tolist(), similarity_top_k=k,
                                 filters=native, mode=VectorStoreQueryMode.MMR if mmr else VectorStoreQueryMode.DEFAULT,
                                 mmr_threshold=opts.lambda_mult if mmr else None)
        # ChromaVectorStore reads the MMR settings from keyword arguments, not from the query.
        extra = {"mmr_threshold": opts.lambda_mult, "mmr_prefetch_k": max(k, opts.fetch_k)} if mmr else {}
        result = self.store.query(query, **extra)
        # MMR's similarities are MMR scores in some stores (PGVectorStore), not cosines: computed from our vectors.
        scores = [None] * len(result.nodes) if mmr or not result.similarities else result.similarities
        return [(self._doc_id(node), None if s is None else self._cosine(s))
                for node, s in zip(result.nodes, scores, strict=True)]


class LlamaIndexChromaBridge(_LlamaIndexBridge):
    """``ChromaVectorStore`` over a collection of an in-process ``EphemeralClient`` (cosine HNSW)."""

    name = "llamaindex-chroma"
    Options = ChromaBridgeOptions
    options: ChromaBridgeOptions
    groups: Groups = "flags"
    engine_capabilities = Capabilities(native_filter=True, exact=False, persistent=False, lifecycle=True,
                                       recall_tolerance=RECALL_TOLERANCE)

    def __init__(self, options: ChromaBridgeOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self._client = chromadb.EphemeralClient(settings=client_settings())
        self._collection = f"filterproof-li-{uuid.uuid4().hex[:12]}"

    def _new_store(self, dim: int) -> ChromaVectorStore:
        with contextlib.suppress(NotFoundError, ValueError):
            self._client.delete_collection(self._collection)
        collection = self._client.create_collection(self._collection, embedding_function=None,
                                                    configuration=hnsw_configuration(self.options))
        return ChromaVectorStore(chroma_collection=collection)

    def _cosine(self, similarity: float) -> float:
        return 1.0 + math.log(similarity) if similarity > 0 else -1.0

    def _refusal(self, record: Record) -> str | None:
        return refusal(self._metadata(record), extra_keys=NODE_KEYS)

    def close(self) -> None:
        with contextlib.suppress(Exception):  # best effort: the collection is ours alone
            self._client.delete_collection(self._collection)


class LlamaIndexQdrantBridge(_LlamaIndexBridge):
    """LlamaIndex's ``QdrantVectorStore`` over qdrant-client's local mode (``:memory:``, exact)."""

    name = "llamaindex-qdrant"
    Options = QdrantBridgeOptions
    options: QdrantBridgeOptions
    groups: Groups = "list"
    engine_capabilities = Capabilities(native_filter=True, exact=True, persistent=False, lifecycle=True)
    COLLECTION = "filterproof"

    def __init__(self, options: QdrantBridgeOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self._client = QdrantClient(":memory:")

    def _new_store(self, dim: int) -> QdrantVectorStore:
        if self._client.collection_exists(self.COLLECTION):
            self._client.delete_collection(self.COLLECTION)
        return QdrantVectorStore(collection_name=self.COLLECTION, client=self._client)  # creates it on first add

    def _node_id(self, doc_id: str) -> str:
        return point_id(doc_id)  # Qdrant takes UUIDs and integers only; our id stays in fp_id

    def _add(self, records: Sequence[Record]) -> None:
        with warnings.catch_warnings():  # its first add creates a doc_id payload index, a no-op in local mode
            warnings.filterwarnings("ignore", message="Payload indexes have no effect")
            super()._add(records)

    def _cosine(self, similarity: float) -> float:
        return similarity

    def close(self) -> None:
        self._client.close()


class LlamaIndexPgvectorBridge(OwnDatabase, _LlamaIndexBridge):
    """LlamaIndex's ``PGVectorStore`` in a table of its own."""

    name = "llamaindex-pgvector"
    Options = PgBridgeOptions
    options: PgBridgeOptions
    groups: Groups = "any"
    engine_capabilities = Capabilities(native_filter=True, exact=True, persistent=False, lifecycle=True)

    def __init__(self, options: PgBridgeOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self._open_server()
        self.store: Any = None

    def _new_store(self, dim: int) -> Any:
        from llama_index.vector_stores.postgres import PGVectorStore

        self.close()
        database = self._new_database()
        return PGVectorStore.from_params(connection_string=sqlalchemy_url(database.dsn, "psycopg2"),
                                         async_connection_string=sqlalchemy_url(database.dsn, "asyncpg"),
                                         table_name="filterproof", embed_dim=dim)

    def _cosine(self, similarity: float) -> float:
        return similarity

    def _refusal(self, record: Record) -> str | None:
        return id_refusal(record.id)  # PGVectorStore's node_id: a VARCHAR, as given

    def close(self) -> None:
        if self.store is not None:
            close_pgvectorstore(self.store)
            self.store = None
        self._drop_database()
