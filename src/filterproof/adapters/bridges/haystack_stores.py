"""``haystack-qdrant``: the policy through Haystack's Qdrant integration (qdrant-haystack), in Haystack's filters.

Writes are ``QdrantDocumentStore.write_documents([Document(id, content, embedding, meta)],
policy=OVERWRITE)``, the meta the flat encoding (``haystack_filters``); deletes are
``delete_documents(ids)``. The store is qdrant-client's local mode in memory (``:memory:``:
exact, a Python loop over every point). Searches go through what an application calls, with
the policy as one Haystack filter dict (``haystack_filters.compile_filter``):

============== ==================================================================================
path           call
============== ==================================================================================
plain          ``QdrantEmbeddingRetriever(store).run(query_embedding, filters, top_k)``
score_threshold the same, with ``score_threshold`` (Qdrant's own cut, in cosine)
retriever      a ``Pipeline`` holding the retriever, run with the query embedding and the filters
============== ==================================================================================

Haystack has no maximal-marginal-relevance retriever for Qdrant: ``path=mmr`` is refused. Scores
are Qdrant's cosine (``scale_score=False``, the retriever's default). Our id travels in
``fp_id``; qdrant-haystack turns a document id into a UUID of its own.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from filterproof.adapters.base import Capabilities, Record
from filterproof.adapters.bridges.core import DOC_PREFIX, BridgeAdapter
from filterproof.adapters.bridges.flat import Groups, node_metadata
from filterproof.adapters.bridges.haystack_filters import compile_filter
from filterproof.adapters.bridges.options import HaystackBridgeOptions, Path
from filterproof.adapters.qdrant.payload import ID
from filterproof.errors import OptionError
from filterproof.policy import PolicyFilter

os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")  # no network here: Haystack's telemetry would try

from haystack import Document, Pipeline  # after the telemetry switch: read on import
from haystack.document_stores.types import DuplicatePolicy
from haystack_integrations.components.retrievers.qdrant import QdrantEmbeddingRetriever
from haystack_integrations.document_stores.qdrant import QdrantDocumentStore


class HaystackQdrantBridge(BridgeAdapter):
    """Haystack's ``QdrantDocumentStore`` over qdrant-client's local mode, searched by ``QdrantEmbeddingRetriever``."""

    name = "haystack-qdrant"
    Options = HaystackBridgeOptions
    options: HaystackBridgeOptions
    groups: Groups = "list"
    engine_capabilities = Capabilities(native_filter=True, exact=True, persistent=False, lifecycle=True)

    def __init__(self, options: HaystackBridgeOptions | Mapping[str, Any] | None = None) -> None:
        super().__init__(options)
        if self.options.path == "mmr":
            raise OptionError("haystack-qdrant: Haystack has no maximal-marginal-relevance retriever for Qdrant; "
                              "path takes plain, score_threshold or retriever")
        self.store: QdrantDocumentStore | None = None

    def _create(self, dim: int) -> None:
        self.close()
        self.store = QdrantDocumentStore(location=":memory:", index=f"filterproof_{uuid.uuid4().hex[:12]}",
                                         embedding_dim=dim, similarity="cosine", recreate_index=True,
                                         progress_bar=False)
        self._retriever = QdrantEmbeddingRetriever(document_store=self.store)
        self._pipeline = Pipeline()
        self._pipeline.add_component("retriever", self._retriever)

    def _metadata(self, record: Record) -> dict[str, Any]:
        return node_metadata(record.id, record.metadata, self.groups)

    def _add(self, records: Sequence[Record]) -> None:
        assert self.store is not None
        self.store.write_documents([
            Document(id=r.id, content=DOC_PREFIX + r.id, embedding=np.asarray(r.vector, dtype=np.float32).tolist(),
                     meta=self._metadata(r)) for r in records],
            policy=DuplicatePolicy.OVERWRITE)

    def _remove(self, ids: Sequence[str]) -> None:
        assert self.store is not None
        self.store.delete_documents(list(ids))

    def _natives(self, where: PolicyFilter) -> list[Any]:
        return [compile_filter(where, self.groups)]

    def _query(self, vector: np.ndarray, k: int, native: Any | None,
               path: Path | None = None) -> list[tuple[str, float | None]]:
        path = path or self.options.path
        if path == "mmr":
            raise OptionError("haystack-qdrant: Haystack has no maximal-marginal-relevance retriever for Qdrant")
        embedding = np.asarray(vector, dtype=np.float32).tolist()
        if path == "retriever":
            out = self._pipeline.run({"retriever": {"query_embedding": embedding, "filters": native, "top_k": k}})
            documents = out["retriever"]["documents"]
        else:
            threshold = self.options.score_threshold if path == "score_threshold" else None
            documents = self._retriever.run(query_embedding=embedding, filters=native, top_k=k,
                                            score_threshold=threshold)["documents"]
        return [(str(d.meta[ID]), d.score) for d in documents]

    def close(self) -> None:
        if self.store is not None:
            client = getattr(self.store, "_client", None)
            if client is not None:
                client.close()
            self.store = None
