"""Options of the bridge backends (no framework import: validated before LangChain or LlamaIndex load).

``path`` chooses the application call a search goes through; every path carries the
same compiled filter, so comparing paths finds the one that drops it.

============== ============================================= =============================================
path           LangChain                                     LlamaIndex
============== ============================================= =============================================
plain          ``similarity_search_by_vector_with_relevance_ ``vector_store.query(VectorStoreQuery(...,
               scores`` (Chroma) / ``similarity_search_with_ filters=MetadataFilters))``
               score_by_vector`` (Qdrant), ``filter=``
score_threshold ``similarity_search_with_relevance_scores(   a ``VectorIndexRetriever`` with ``filters``,
               query, score_threshold=..., filter=...)``     then ``SimilarityPostprocessor(similarity_cutoff)``
mmr            ``max_marginal_relevance_search_by_vector(    ``VectorStoreQuery(mode=MMR, filters=...)``
               ..., filter=...)``
retriever      ``as_retriever(search_kwargs={"k", "filter"}) ``index.as_retriever(similarity_top_k, filters)
               .invoke(query)``                              .retrieve(query)``
============== ============================================= =============================================
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from filterproof.adapters.chroma.options import EF_CONSTRUCTION, EF_SEARCH, MAX_NEIGHBORS
from filterproof.adapters.options import AdapterOptions

Path = Literal["plain", "score_threshold", "mmr", "retriever"]
PATHS: tuple[Path, ...] = ("plain", "score_threshold", "mmr", "retriever")
DSN_ENV = "PGVECTOR_DSN"
"""The pgvector backend's variable (issue 11): a libpq ``key=value`` connection string."""
FETCH_K = 20
"""LangChain's default ``fetch_k`` for MMR; the bridge asks for at least ``k``."""


class BridgeOptions(AdapterOptions):
    """What every bridge takes."""

    path: Path = Field("plain", description="the application call a search goes through")
    score_threshold: float = Field(
        -1.0, description="path=score_threshold: the cut, in the integration's own relevance units; the "
                          "default is below every relevance, so the code path runs and only the filter decides")
    fetch_k: int = Field(FETCH_K, ge=1, description="path=mmr: candidates fetched (at least k)")
    lambda_mult: float = Field(0.5, ge=0.0, le=1.0, description="path=mmr: 1 = similarity only, 0 = diversity only")


class ChromaBridgeOptions(BridgeOptions):
    """A bridge over Chroma in process: the HNSW settings of the ``chroma`` backend."""

    ef_search: int = Field(EF_SEARCH, ge=1, description="HNSW search beam")
    ef_construction: int = Field(EF_CONSTRUCTION, ge=1, description="HNSW build beam")
    max_neighbors: int = Field(MAX_NEIGHBORS, ge=1, description="HNSW graph degree")


class PgBridgeOptions(BridgeOptions):
    """A bridge over PostgreSQL with pgvector."""

    dsn: str | None = Field(None, description=f"libpq 'host=... port=... user=... dbname=...'; default ${DSN_ENV}, "
                                              "else the pgvector backend's throwaway server")


class QdrantBridgeOptions(BridgeOptions):
    """A bridge over qdrant-client's local mode (exact, pure Python)."""


MilvusBridgeIndex = Literal["flat", "hnsw", "autoindex"]


class MilvusBridgeOptions(BridgeOptions):
    """A bridge over Milvus Lite in a temporary directory (COSINE; FLAT, exact, unless ``index`` says otherwise)."""

    index: MilvusBridgeIndex = Field(
        "flat", description="vector index: flat (brute force, exact), hnsw (M=16, efConstruction=200), autoindex "
                            "(each integration's default type: HNSW on Milvus Lite); always COSINE")


class HaystackBridgeOptions(BridgeOptions):
    """A bridge through Haystack (haystack-ai): its document store's retriever, the policy in Haystack's filters.
    ``path``: plain (the retriever component), score_threshold (its ``score_threshold``), retriever (a ``Pipeline``
    holding it); Haystack has no MMR retriever for these stores."""


class HaystackChromaOptions(HaystackBridgeOptions):
    """Haystack's Chroma integration in process: the HNSW settings of the ``chroma`` backend. Its retriever has no
    ``score_threshold``: path takes plain or retriever."""

    ef_search: int = Field(EF_SEARCH, ge=1, description="HNSW search beam")
    ef_construction: int = Field(EF_CONSTRUCTION, ge=1, description="HNSW build beam")
    max_neighbors: int = Field(MAX_NEIGHBORS, ge=1, description="HNSW graph degree")


class HaystackPgOptions(HaystackBridgeOptions):
    """Haystack's pgvector integration (exact nearest neighbours): a table of its own on a database of its own.
    Its retriever has no ``score_threshold``: path takes plain or retriever."""

    dsn: str | None = Field(None, description=f"libpq 'host=... port=... user=... dbname=...'; default ${DSN_ENV}, "
                                              "else the pgvector backend's throwaway server")


class HaystackMilvusOptions(HaystackBridgeOptions):
    """Haystack's Milvus integration over Milvus Lite in a temporary directory. Its retriever has no
    ``score_threshold``: path takes plain or retriever."""

    index: MilvusBridgeIndex = Field(
        "flat", description="vector index: flat (brute force, exact), hnsw (M=16, efConstruction=200), autoindex; "
                            "always COSINE")
