"""``langchain-chroma`` and ``langchain-qdrant``: the policy through LangChain's vector-store integrations.

Writes go through ``add_texts(texts, metadatas, ids)``; the texts are keys that the
embeddings shim (``ShimEmbeddings``) maps to our vectors. Searches go through one
application call per ``options.path`` (see ``options``), with the compiled filter in
``filter=`` (``search_kwargs["filter"]`` for the retriever).

Scores are cosine similarity, recovered from what each call returns:

* langchain-chroma: ``similarity_search_by_vector_with_relevance_scores`` returns Chroma's
  *distance* despite its name (its docstring: "Lower score represents more similarity"),
  so cosine = 1 - distance; ``similarity_search_with_relevance_scores`` applies
  ``_cosine_relevance_score_fn`` (1 - distance) because the collection is created with
  ``collection_configuration={"hnsw": {"space": "cosine"}}``: cosine = relevance.
* langchain-qdrant: ``similarity_search_with_score_by_vector`` returns Qdrant's score, the
  cosine; its relevance function is (cosine + 1) / 2, so cosine = 2 x relevance - 1. The same
  ``score_threshold`` therefore means different cosines in the two integrations.
* MMR and the retriever return documents without scores: the cosine is computed from the
  vectors we supplied (``core``); the documents and their order are LangChain's.
"""

from __future__ import annotations

import contextlib
import uuid
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import chromadb
import numpy as np
from chromadb.errors import NotFoundError
from langchain_chroma import Chroma
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_qdrant import QdrantVectorStore
from qdrant_client import QdrantClient, models

from filterproof.adapters.base import Capabilities, Record
from filterproof.adapters.bridges.core import DOC_PREFIX, BridgeAdapter, KeyedVectors, our_id
from filterproof.adapters.bridges.flat import node_metadata
from filterproof.adapters.bridges.langchain_filters import chroma_filters, qdrant_compiler
from filterproof.adapters.bridges.options import ChromaBridgeOptions, Path, PgBridgeOptions, QdrantBridgeOptions
from filterproof.adapters.bridges.pgvector import (
    OwnDatabase,
    id_refusal,
    pgvector_filters,
    sqlalchemy_url,
)
from filterproof.adapters.chroma.clients import client_settings
from filterproof.adapters.chroma.limits import refusal as chroma_refusal
from filterproof.adapters.chroma.store import RECALL_TOLERANCE, hnsw_configuration
from filterproof.adapters.chroma.where import stored_metadata
from filterproof.adapters.qdrant.payload import ID, point_id, stored_payload
from filterproof.policy import PolicyFilter


class ShimEmbeddings(Embeddings):
    """LangChain ``Embeddings`` that answers with our vectors, never with a model."""

    def __init__(self, keys: KeyedVectors) -> None:
        self._keys = keys

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._keys(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._keys(text)


class _LangChainBridge(BridgeAdapter):
    """The four paths over a LangChain ``VectorStore``; subclasses say how ids, metadata and scores map."""

    store: Any
    filter_keyword = "filter"
    """The keyword the integration's search calls take the filter in (langchain-milvus: ``expr``)."""

    def _metadata(self, record: Record) -> dict[str, Any]:
        raise NotImplementedError

    def _store_ids(self, ids: Sequence[str]) -> list[str]:
        return list(ids)

    def _doc_id(self, doc: Document) -> str:
        raise NotImplementedError

    def _plain(self, vector: list[float], k: int, native: Any) -> list[tuple[Document, float]]:
        """(document, cosine) through the integration's by-vector call with scores."""
        raise NotImplementedError

    def _cosine_of_relevance(self, relevance: float) -> float:
        raise NotImplementedError

    def _texts(self, records: Sequence[Record]) -> list[str]:
        """The text each record is added as: the key by which the shim embedding finds its vector."""
        return [self.keys.key(r.vector, DOC_PREFIX, r.id) for r in records]

    def _add(self, records: Sequence[Record]) -> None:
        texts = self._texts(records)
        try:
            self.store.add_texts(texts, metadatas=[self._metadata(r) for r in records],
                                 ids=self._store_ids([r.id for r in records]))
        finally:
            self.keys.forget(texts)

    def _remove(self, ids: Sequence[str]) -> None:
        self.store.delete(ids=self._store_ids(ids))

    def _query(self, vector: np.ndarray, k: int, native: Any | None,
               path: Path | None = None) -> list[tuple[str, float | None]]:
        opts, row, path = self.options, vector.tolist(), path or self.options.path
        extra = {} if native is None else {self.filter_keyword: native}
        if path == "plain":
            return [(self._doc_id(d), s) for d, s in self._plain(row, k, native)]
        if path == "score_threshold":
            with self.keys.query(vector) as query, warnings.catch_warnings():
                # LangChain warns when a relevance is outside [0, 1]: a cosine relevance is negative for vectors
                # pointing away from the query, which the default threshold (below every relevance) keeps on purpose.
                warnings.filterwarnings("ignore", message="Relevance scores must be between 0 and 1")
                found = self.store.similarity_search_with_relevance_scores(
                    query, k=k, score_threshold=opts.score_threshold, **extra)
            return [(self._doc_id(d), self._cosine_of_relevance(r)) for d, r in found]
        if path == "mmr":
            fetch_k = min(max(k, opts.fetch_k), len(self._vectors))
            docs = self.store.max_marginal_relevance_search_by_vector(
                row, k=k, fetch_k=fetch_k, lambda_mult=opts.lambda_mult, **extra)
            return [(self._doc_id(d), None) for d in docs]
        retriever = self.store.as_retriever(search_kwargs={"k": k, **extra})
        with self.keys.query(vector) as query:
            docs = retriever.invoke(query)
        return [(self._doc_id(d), None) for d in docs]


class LangChainChromaBridge(_LangChainBridge):
    """``langchain_chroma.Chroma`` over an in-process ``EphemeralClient`` (cosine HNSW)."""

    name = "langchain-chroma"
    Options = ChromaBridgeOptions
    options: ChromaBridgeOptions
    engine_capabilities = Capabilities(native_filter=True, exact=False, persistent=False, lifecycle=True,
                                       recall_tolerance=RECALL_TOLERANCE)

    def __init__(self, options: ChromaBridgeOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        # Ephemeral clients of one process share one in-memory system: a fresh name per adapter.
        self._client = chromadb.EphemeralClient(settings=client_settings())
        self._collection = f"filterproof-lc-{uuid.uuid4().hex[:12]}"
        self.store: Chroma | None = None

    def _create(self, dim: int) -> None:
        with contextlib.suppress(NotFoundError, ValueError):
            self._client.delete_collection(self._collection)
        self.store = Chroma(collection_name=self._collection, embedding_function=ShimEmbeddings(self.keys),
                            client=self._client, collection_configuration=hnsw_configuration(self.options))

    def _metadata(self, record: Record) -> dict[str, Any]:
        return stored_metadata(record.metadata)

    def _refusal(self, record: Record) -> str | None:
        return chroma_refusal(self._metadata(record), extra_keys=1)  # the text, kept as ``chroma:document``

    def _doc_id(self, doc: Document) -> str:
        return str(doc.id)

    def _natives(self, where: PolicyFilter) -> list[Any]:
        return list(chroma_filters(where))

    def _plain(self, vector: list[float], k: int, native: Any) -> list[tuple[Document, float]]:
        found = self.store.similarity_search_by_vector_with_relevance_scores(vector, k=k, filter=native)
        return [(doc, 1.0 - distance) for doc, distance in found]

    def _cosine_of_relevance(self, relevance: float) -> float:
        return relevance

    def close(self) -> None:
        with contextlib.suppress(Exception):  # best effort: the collection is ours alone
            self._client.delete_collection(self._collection)
        self.store = None


class LangChainQdrantBridge(_LangChainBridge):
    """``langchain_qdrant.QdrantVectorStore`` over qdrant-client's local mode (``:memory:``, exact)."""

    name = "langchain-qdrant"
    Options = QdrantBridgeOptions
    options: QdrantBridgeOptions
    engine_capabilities = Capabilities(native_filter=True, exact=True, persistent=False, lifecycle=True)
    COLLECTION = "filterproof"

    def __init__(self, options: QdrantBridgeOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self._client = QdrantClient(":memory:")
        self._compiler = qdrant_compiler()
        self.store: QdrantVectorStore | None = None

    def _create(self, dim: int) -> None:
        if self._client.collection_exists(self.COLLECTION):
            self._client.delete_collection(self.COLLECTION)
        self._client.create_collection(
            self.COLLECTION, vectors_config=models.VectorParams(size=dim, distance=models.Distance.COSINE))
        # validate_collection_config=False: the check embeds "dummy_text" to learn the dimension,
        # and our shim embeds nothing it was not given.
        self.store = QdrantVectorStore(client=self._client, collection_name=self.COLLECTION,
                                       embedding=ShimEmbeddings(self.keys), validate_collection_config=False)

    def _metadata(self, record: Record) -> dict[str, Any]:
        return stored_payload(record.id, record.metadata)

    def _store_ids(self, ids: Sequence[str]) -> list[str]:
        return [point_id(i) for i in ids]  # Qdrant takes UUIDs and integers only; our id stays in fp_id

    def _doc_id(self, doc: Document) -> str:
        return our_id(self.name, doc.metadata, ID)

    def _natives(self, where: PolicyFilter) -> list[Any]:
        return [self._compiler.native(where)]

    def _plain(self, vector: list[float], k: int, native: Any) -> list[tuple[Document, float]]:
        return self.store.similarity_search_with_score_by_vector(vector, k=k, filter=native)

    def _cosine_of_relevance(self, relevance: float) -> float:
        return 2.0 * relevance - 1.0

    def close(self) -> None:
        self._client.close()
        self.store = None


class LangChainPgvectorBridge(OwnDatabase, _LangChainBridge):
    """``langchain_postgres.PGVector`` (cosine, JSONB metadata) in a collection of its own."""

    name = "langchain-pgvector"
    Options = PgBridgeOptions
    options: PgBridgeOptions
    engine_capabilities = Capabilities(native_filter=True, exact=True, persistent=False, lifecycle=True)

    def __init__(self, options: PgBridgeOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        self._open_server()
        self.store: Any = None

    def _create(self, dim: int) -> None:
        from langchain_postgres import PGVector

        # A fresh database per reset (the table's vector width is fixed), and no embedding_length: PGVector
        # caches its ORM classes per process with the first width it saw (another width then fails).
        self.close()
        database = self._new_database()
        self.store = PGVector(ShimEmbeddings(self.keys), connection=sqlalchemy_url(database.dsn, "psycopg"),
                              collection_name="filterproof", use_jsonb=True)

    def _metadata(self, record: Record) -> dict[str, Any]:
        return node_metadata(record.id, record.metadata, "hex")

    def _refusal(self, record: Record) -> str | None:
        return id_refusal(record.id)  # PGVector's table: id is the (btree) primary key

    def _doc_id(self, doc: Any) -> str:
        return our_id(self.name, doc.metadata, ID)

    def _natives(self, where: PolicyFilter) -> list[Any]:
        return pgvector_filters(where)

    def _plain(self, vector: list[float], k: int, native: Any) -> list[tuple[Any, float]]:
        found = self.store.similarity_search_with_score_by_vector(vector, k=k, filter=native)
        return [(doc, 1.0 - distance) for doc, distance in found]

    def _cosine_of_relevance(self, relevance: float) -> float:
        return relevance

    def close(self) -> None:
        if self.store is not None:
            self.store._engine.dispose()
            self.store = None
        self._drop_database()
