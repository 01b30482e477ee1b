"""The framework x store x filter-language combinations the matrix probes, and their probe stores.

A probe store is the bridge adapter of the same integration (``adapters.bridges``)
with one change: it writes the probe's metadata as given, instead of the policy's
encoding, because the matrix asks what the framework's filter language does with
plain metadata. Writes and the four search paths are the bridge's own code, so the
matrix and the conformance runs exercise the same application calls.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from filterproof import installed_versions
from filterproof.adapters.base import Record
from filterproof.adapters.bridges.options import PATHS
from filterproof.adapters.filterlang import Expr
from filterproof.matrix import languages


@dataclass(frozen=True)
class Target:
    backend: str
    """The bridge backend whose integration this is (``langchain-chroma``...)."""
    language: str
    """``native`` (the integration's documented filter), ``translator`` (LangChain's structured query),
    ``MetadataFilters`` (LlamaIndex)."""
    render: Callable[[Expr], Any]
    store: str
    """``module:class`` of the probe store (imports the framework)."""
    packages: tuple[str, ...]
    paths: tuple[str, ...] = PATHS
    """The search paths the integration has (Haystack has no MMR retriever)."""

    @property
    def name(self) -> str:
        return f"{self.backend}/{self.language}"

    def open(self) -> Any:
        module, _, attribute = self.store.partition(":")
        return getattr(importlib.import_module(module), attribute)()

    def versions(self) -> dict[str, str]:
        return installed_versions(self.packages)


_HERE = "filterproof.matrix.targets"
LANGCHAIN = ("langchain-core",)
LLAMAINDEX = ("llama-index-core",)
HAYSTACK = ("haystack-ai",)
TARGETS: tuple[Target, ...] = (
    Target("langchain-chroma", "native", languages.chroma_where, f"{_HERE}:LangChainChromaProbe",
           (*LANGCHAIN, "langchain-chroma", "chromadb")),
    Target("langchain-chroma", "translator", lambda e: languages.translated(e, "chroma"),
           f"{_HERE}:LangChainChromaProbe", (*LANGCHAIN, "langchain-community", "langchain-chroma", "chromadb")),
    Target("langchain-qdrant", "native", languages.qdrant_filter, f"{_HERE}:LangChainQdrantProbe",
           (*LANGCHAIN, "langchain-qdrant", "qdrant-client")),
    Target("langchain-qdrant", "translator", lambda e: languages.translated(e, "qdrant"),
           f"{_HERE}:LangChainQdrantProbe", (*LANGCHAIN, "langchain-community", "langchain-qdrant", "qdrant-client")),
    Target("llamaindex-chroma", "MetadataFilters", languages.metadata_filters, f"{_HERE}:LlamaIndexChromaProbe",
           (*LLAMAINDEX, "llama-index-vector-stores-chroma", "chromadb")),
    Target("llamaindex-qdrant", "MetadataFilters", languages.metadata_filters, f"{_HERE}:LlamaIndexQdrantProbe",
           (*LLAMAINDEX, "llama-index-vector-stores-qdrant", "qdrant-client")),
    Target("langchain-pgvector", "native", languages.pgvector_dict, f"{_HERE}:LangChainPgvectorProbe",
           (*LANGCHAIN, "langchain-postgres", "psycopg")),
    Target("langchain-pgvector", "translator", lambda e: languages.translated(e, "pgvector"),
           f"{_HERE}:LangChainPgvectorProbe", (*LANGCHAIN, "langchain-postgres", "psycopg")),
    Target("llamaindex-pgvector", "MetadataFilters", languages.metadata_filters, f"{_HERE}:LlamaIndexPgvectorProbe",
           (*LLAMAINDEX, "llama-index-vector-stores-postgres")),
    Target("llamaindex-lancedb", "MetadataFilters", languages.metadata_filters, f"{_HERE}:LlamaIndexLanceDBProbe",
           (*LLAMAINDEX, "llama-index-vector-stores-lancedb", "lancedb")),
    Target("langchain-milvus", "native", languages.milvus_expr, f"{_HERE}:LangChainMilvusProbe",
           (*LANGCHAIN, "langchain-milvus", "pymilvus", "milvus-lite")),
    Target("llamaindex-milvus", "MetadataFilters", languages.metadata_filters, f"{_HERE}:LlamaIndexMilvusProbe",
           (*LLAMAINDEX, "llama-index-vector-stores-milvus", "pymilvus", "milvus-lite")),
    Target("haystack-qdrant", "filters", languages.haystack_filters, f"{_HERE}:HaystackQdrantProbe",
           (*HAYSTACK, "qdrant-haystack", "qdrant-client"), ("plain", "score_threshold", "retriever")),
    Target("haystack-chroma", "filters", languages.haystack_filters, f"{_HERE}:HaystackChromaProbe",
           (*HAYSTACK, "chroma-haystack", "chromadb"), ("plain", "retriever")),
    Target("haystack-pgvector", "filters", languages.haystack_filters, f"{_HERE}:HaystackPgvectorProbe",
           (*HAYSTACK, "pgvector-haystack"), ("plain", "retriever")),
    Target("haystack-milvus", "filters", languages.haystack_filters, f"{_HERE}:HaystackMilvusProbe",
           (*HAYSTACK, "milvus-haystack", "pymilvus", "milvus-lite"), ("plain", "retriever")),
)
PROBE_ATTRIBUTES: dict[str, dict[str, Any]] = {"LangChainMilvusProbe": {"dynamic_field": True}}
"""Probe stores that differ from their bridge in more than the metadata: langchain-milvus types a field per key of
the first metadata (and drops later keys), so its probe keeps the metadata in the dynamic JSON field, as given."""


def _with_id(record: Record) -> dict[str, Any]:
    """The probe's metadata as given, plus our id (Qdrant point ids are UUIDs: the id is read back from it)."""
    return {**record.metadata, "fp_id": record.id}


def _with_hex_id(self: Any, record: Record) -> dict[str, Any]:
    from filterproof.adapters.bridges.haystack_filters import hex_text

    return {**record.metadata, "fp_id": hex_text(record.id)}


def __getattr__(name: str) -> Any:
    """The probe stores, built on first use (importing a framework only when its target runs)."""
    if name in ("LangChainChromaProbe", "LangChainQdrantProbe", "LangChainPgvectorProbe"):
        from filterproof.adapters.bridges import langchain_stores as module
    elif name in ("LlamaIndexChromaProbe", "LlamaIndexQdrantProbe", "LlamaIndexPgvectorProbe"):
        from filterproof.adapters.bridges import llamaindex_stores as module
    elif name == "LlamaIndexLanceDBProbe":
        from filterproof.adapters.bridges import llamaindex_lancedb as module
    elif name == "LangChainMilvusProbe":
        from filterproof.adapters.bridges import langchain_milvus as module
    elif name == "LlamaIndexMilvusProbe":
        from filterproof.adapters.bridges import llamaindex_milvus as module
    elif name in ("HaystackQdrantProbe", "HaystackChromaProbe"):
        from filterproof.adapters.bridges import haystack_stores as module
    elif name == "HaystackPgvectorProbe":
        from filterproof.adapters.bridges import haystack_pgvector as module
    elif name == "HaystackMilvusProbe":
        from filterproof.adapters.bridges import haystack_milvus as module
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    base = getattr(module, name.replace("Probe", "Bridge"))
    # langchain-chroma reads ids from Document.id, langchain-milvus from its primary key; the others from fp_id.
    raw = name in ("LangChainChromaProbe", "LangChainMilvusProbe")
    writer = (lambda self, r: dict(r.metadata)) if raw else (lambda self, r: _with_id(r))
    if name == "HaystackMilvusProbe":  # the bridge reads its ids back as hex (haystack_milvus): the rest as given
        writer = _with_hex_id
    probe = type(name, (base,), {"_metadata": writer, **PROBE_ATTRIBUTES.get(name, {}),
                                 "__doc__": f"{base.__name__} writing raw probe metadata."})
    globals()[name] = probe
    return probe
