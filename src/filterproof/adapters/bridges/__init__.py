"""Bridges: the policy tested through the framework layer an application calls.

A bridge is an adapter whose store is a LangChain or LlamaIndex vector-store
integration: documents go in through the framework's own add path (LangChain
``add_texts``, LlamaIndex ``add`` of nodes that carry our vectors) and searches go
through the calls applications make (``similarity_search_*``, ``as_retriever``,
``VectorStoreQuery`` with ``MetadataFilters``, a ``VectorIndexRetriever``). The
engine underneath is the one filterproof already tests directly (Chroma
ephemeral, Qdrant local mode), with the same stored encoding where the framework
allows it, so a difference from the engine adapter is a finding about the
framework layer.

==================== ================================================== ===========
backend              integration                                        extra
==================== ================================================== ===========
``langchain-chroma`` ``langchain_chroma.Chroma`` on an EphemeralClient  langchain
``langchain-qdrant`` ``langchain_qdrant.QdrantVectorStore``, ``:memory:`` langchain
``llamaindex-chroma`` ``ChromaVectorStore`` on an EphemeralClient       llamaindex
``llamaindex-qdrant`` ``QdrantVectorStore`` (llama-index), ``:memory:``  llamaindex
``langchain-pgvector`` ``langchain_postgres.PGVector``, PGVECTOR_DSN      langchain
``llamaindex-pgvector`` ``PGVectorStore`` (llama-index), PGVECTOR_DSN     llamaindex
``langchain-milvus``  ``langchain_milvus.Milvus``, Milvus Lite            langchain
``llamaindex-milvus`` ``MilvusVectorStore`` (llama-index), Milvus Lite    llamaindex
==================== ================================================== ===========

Modules: ``options`` (pure), ``core`` (what every bridge shares), ``flat`` (the flat
encoding), ``langchain_filters``, ``llamaindex_filters`` and ``pgvector`` (compilers, one
function per clause; PostgreSQL's database and URLs), ``langchain_stores`` and
``llamaindex_stores`` (the adapters; import the frameworks), ``milvus`` (what the Milvus Lite
bridges share), ``langchain_milvus`` and ``llamaindex_milvus`` (one module each, so that each
needs only its framework), ``llamaindex_lancedb`` (a probe store for ``filterproof matrix``,
not a backend).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from filterproof.adapters.bridges.langchain_stores import (
        LangChainChromaBridge,
        LangChainPgvectorBridge,
        LangChainQdrantBridge,
    )
    from filterproof.adapters.bridges.llamaindex_stores import (
        LlamaIndexChromaBridge,
        LlamaIndexPgvectorBridge,
        LlamaIndexQdrantBridge,
    )

__all__ = ["LangChainChromaBridge", "LangChainPgvectorBridge", "LangChainQdrantBridge", "LlamaIndexChromaBridge",
           "LlamaIndexPgvectorBridge", "LlamaIndexQdrantBridge"]


def __getattr__(name: str) -> Any:
    if name.startswith("LangChain") and name in __all__:
        from filterproof.adapters.bridges import langchain_stores

        return getattr(langchain_stores, name)
    if name.startswith("LlamaIndex") and name in __all__:
        from filterproof.adapters.bridges import llamaindex_stores

        return getattr(llamaindex_stores, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
