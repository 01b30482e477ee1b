"""The Haystack bridges: the policy through Haystack's document-store integrations, in Haystack's filters.

Writes are ``write_documents([Document(id, content, embedding, meta)], policy=OVERWRITE)``, the meta the flat
encoding (``haystack_filters``); a replaced document is deleted first (``BridgeAdapter.upsert``: chroma-haystack's
OVERWRITE merges the new metadata into the old, integration finding 11); deletes are ``delete_documents(ids)``.
Searches go through what an application calls, with the policy as Haystack filter dicts
(``haystack_filters.compile_partitions``: one, or one per slice where Chroma's limits cut it):

=============== ==================================================================================
path            call
=============== ==================================================================================
plain           the integration's embedding retriever: ``.run(query_embedding, filters, top_k)``
score_threshold the same, with ``score_threshold`` (Qdrant's retriever only: its own cut, in cosine)
retriever       a ``Pipeline`` holding the retriever, run with the query embedding and the filters
=============== ==================================================================================

Haystack has no maximal-marginal-relevance retriever for these stores: ``path=mmr`` is refused, as is a path an
integration's retriever does not have. Our id travels in ``fp_id`` (qdrant-haystack turns an id into a UUID).
``haystack-pgvector`` lives in ``haystack_pgvector`` (it needs a PostgreSQL server).
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from filterproof.adapters.base import Capabilities, Record
from filterproof.adapters.bridges.core import DOC_PREFIX, BridgeAdapter, our_id
from filterproof.adapters.bridges.flat import Groups, node_metadata
from filterproof.adapters.bridges.haystack_filters import compile_partitions
from filterproof.adapters.bridges.options import HaystackBridgeOptions, HaystackChromaOptions, Path
from filterproof.adapters.chroma.limits import refusal
from filterproof.adapters.chroma.store import RECALL_TOLERANCE
from filterproof.adapters.qdrant.payload import ID
from filterproof.errors import OptionError
from filterproof.policy import PolicyFilter

os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")  # no network here: Haystack's telemetry would try

from haystack import Document, Pipeline  # after the telemetry switch: read on import
from haystack.document_stores.types import DuplicatePolicy


class HaystackBridge(BridgeAdapter):
    """A Haystack document store searched by its embedding retriever; subclasses make the store and retriever."""

    Options = HaystackBridgeOptions
    options: HaystackBridgeOptions
    groups: Groups = "list"
    PATHS: ClassVar[tuple[Path, ...]] = ("plain", "retriever")
    """The paths this integration has (its retriever's arguments)."""

    def __init__(self, options: HaystackBridgeOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        if self.options.path not in self.PATHS:
            raise OptionError(self._no_path(self.options.path))
        self.store: Any = None

    def _no_path(self, path: str) -> str:
        what = ("Haystack has no maximal-marginal-relevance retriever for this store" if path == "mmr" else
                f"its retriever has no {path}")
        return f"{self.name}: {what}; path takes {', '.join(self.PATHS[:-1])} or {self.PATHS[-1]}"

    def _document_store(self, dim: int) -> Any:
        raise NotImplementedError

    def _new_retriever(self, store: Any) -> Any:
        raise NotImplementedError

    def _drop(self) -> None:
        """Let go of the store before a new one is made (by default all of it: ``close``)."""
        self.close()

    def _create(self, dim: int) -> None:
        self._drop()
        self.store = self._document_store(dim)
        self._retriever = self._new_retriever(self.store)
        self._pipeline = Pipeline()
        self._pipeline.add_component("retriever", self._retriever)

    def _metadata(self, record: Record) -> dict[str, Any]:
        return node_metadata(record.id, record.metadata, self.groups)

    def _add(self, records: Sequence[Record]) -> None:
        self.store.write_documents([
            Document(id=r.id, content=DOC_PREFIX + r.id, embedding=np.asarray(r.vector, dtype=np.float32).tolist(),
                     meta=self._metadata(r)) for r in records],
            policy=DuplicatePolicy.OVERWRITE)

    def _remove(self, ids: Sequence[str]) -> None:
        self.store.delete_documents(list(ids))

    def _natives(self, where: PolicyFilter) -> list[Any]:
        return compile_partitions(where, self.groups)

    def _run(self, embedding: list[float], native: Any | None, k: int, path: Path) -> list[Any]:
        if path == "retriever":
            out = self._pipeline.run({"retriever": {"query_embedding": embedding, "filters": native, "top_k": k}})
            return list(out["retriever"]["documents"])
        return list(self._retriever.run(query_embedding=embedding, filters=native, top_k=k)["documents"])

    def _cosine(self, score: float) -> float:
        """The store's score as a cosine."""
        return score

    def _query(self, vector: np.ndarray, k: int, native: Any | None,
               path: Path | None = None) -> list[tuple[str, float | None]]:
        path = path or self.options.path
        if path not in self.PATHS:
            raise OptionError(self._no_path(path))
        documents = self._run(np.asarray(vector, dtype=np.float32).tolist(), native, k, path)
        return [(our_id(self.name, d.meta, ID), None if d.score is None else self._cosine(float(d.score)))
                for d in documents]


class HaystackQdrantBridge(HaystackBridge):
    """Haystack's ``QdrantDocumentStore`` over qdrant-client's local mode in memory (exact, a Python loop over every
    point), searched by ``QdrantEmbeddingRetriever``; scores are Qdrant's cosine (``scale_score=False``)."""

    name = "haystack-qdrant"
    PATHS = ("plain", "score_threshold", "retriever")
    engine_capabilities = Capabilities(native_filter=True, exact=True, persistent=False, lifecycle=True)

    def _document_store(self, dim: int) -> Any:
        from haystack_integrations.document_stores.qdrant import QdrantDocumentStore

        return QdrantDocumentStore(location=":memory:", index=f"filterproof_{uuid.uuid4().hex[:12]}",
                                   embedding_dim=dim, similarity="cosine", recreate_index=True, progress_bar=False)

    def _new_retriever(self, store: Any) -> Any:
        from haystack_integrations.components.retrievers.qdrant import QdrantEmbeddingRetriever

        return QdrantEmbeddingRetriever(document_store=store)

    def _run(self, embedding: list[float], native: Any | None, k: int, path: Path) -> list[Any]:
        if path != "score_threshold":
            return super()._run(embedding, native, k, path)
        return list(self._retriever.run(query_embedding=embedding, filters=native, top_k=k,
                                        score_threshold=self.options.score_threshold)["documents"])

    def close(self) -> None:
        if self.store is not None:
            client = getattr(self.store, "_client", None)
            if client is not None:
                client.close()
            self.store = None


class HaystackChromaBridge(HaystackBridge):
    """Haystack's ``ChromaDocumentStore`` in memory (a collection of our own, cosine HNSW with the ``chroma``
    backend's settings), searched by ``ChromaEmbeddingRetriever``. Groups are one key per group named by the hex of
    its name (chroma-haystack keeps only a filter key's last dotted segment, integration finding 12); a document
    past Chroma's per-record limits is refused (``chroma.limits``). Scores are Chroma's cosine distance."""

    name = "haystack-chroma"
    Options = HaystackChromaOptions
    options: HaystackChromaOptions
    groups: Groups = "hex"
    engine_capabilities = Capabilities(native_filter=True, exact=False, persistent=False, lifecycle=True,
                                       recall_tolerance=RECALL_TOLERANCE)

    def _document_store(self, dim: int) -> Any:
        from haystack_integrations.document_stores.chroma import ChromaDocumentStore

        # chroma-haystack passes `metadata` to create_collection: Chroma's HNSW settings in their metadata form
        hnsw = {"hnsw:space": "cosine", "hnsw:search_ef": self.options.ef_search,
                "hnsw:construction_ef": self.options.ef_construction, "hnsw:M": self.options.max_neighbors}
        return ChromaDocumentStore(collection_name=f"filterproof-hs-{uuid.uuid4().hex[:12]}",
                                   distance_function="cosine", metadata=hnsw,
                                   client_settings={"anonymized_telemetry": False})

    def _new_retriever(self, store: Any) -> Any:
        from haystack_integrations.components.retrievers.chroma import ChromaEmbeddingRetriever

        return ChromaEmbeddingRetriever(document_store=store)

    def _refusal(self, record: Record) -> str | None:
        return refusal(self._metadata(record), extra_keys=1)  # the document text: one more key in Chroma

    def _cosine(self, score: float) -> float:
        return 1.0 - score  # chroma-haystack's score is the distance

    def close(self) -> None:
        if self.store is not None:
            store, self.store = self.store, None
            with contextlib.suppress(Exception):  # best effort: the collection is ours alone
                store._client.delete_collection(store._collection_name)
