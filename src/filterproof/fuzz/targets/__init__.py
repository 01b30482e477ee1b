"""The built-in fuzz targets by name (each imported on first use, so an engine not installed costs nothing)."""

from __future__ import annotations

import importlib

from filterproof.fuzz.target import Target

TARGETS = {
    "reference": "filterproof.fuzz.targets.reference:ReferenceTarget",
    "qdrant-local": "filterproof.fuzz.targets.qdrant:QdrantLocal",
    "qdrant-edge": "filterproof.fuzz.targets.qdrant:QdrantEdge",
    "qdrant-server": "filterproof.fuzz.targets.qdrant_server:QdrantServer",
    "chroma": "filterproof.fuzz.targets.chroma:ChromaTarget",
    "chroma-server": "filterproof.fuzz.targets.chroma_server:ChromaServerTarget",
    "lancedb": "filterproof.fuzz.targets.lancedb:LanceDBTarget",
    "milvus": "filterproof.fuzz.targets.milvus:MilvusTarget",
    "milvus-server": "filterproof.fuzz.targets.milvus_server:MilvusServerTarget",
    "pgvector-typed": "filterproof.fuzz.targets.pgvector:PgvectorTyped",
    "pgvector-jsonb": "filterproof.fuzz.targets.pgvector:PgvectorJsonb",
    "llamaindex-qdrant": "filterproof.fuzz.targets.llamaindex:LlamaIndexQdrant",
    "llamaindex-chroma": "filterproof.fuzz.targets.llamaindex_chroma:LlamaIndexChroma",
    "llamaindex-pgvector": "filterproof.fuzz.targets.llamaindex_pgvector:LlamaIndexPgvector",
    "llamaindex-milvus": "filterproof.fuzz.targets.llamaindex_milvus:LlamaIndexMilvus",
    "llamaindex-lancedb": "filterproof.fuzz.targets.llamaindex_lancedb:LlamaIndexLanceDB",
    "langchain-pgvector": "filterproof.fuzz.targets.langchain:LangChainPgvector",
    "selfquery-qdrant": "filterproof.fuzz.targets.selfquery_stores:SelfQueryQdrant",
    "selfquery-chroma": "filterproof.fuzz.targets.selfquery_stores:SelfQueryChroma",
    "selfquery-milvus": "filterproof.fuzz.targets.selfquery_stores:SelfQueryMilvus",
    "selfquery-pgvector": "filterproof.fuzz.targets.selfquery_stores:SelfQueryPgvector",
}
FAMILIES = {"qdrant-local": "qdrant", "qdrant-edge": "qdrant", "qdrant-server": "qdrant", "pgvector-typed": "pgvector",
            "pgvector-jsonb": "pgvector", "chroma": "chroma", "chroma-server": "chroma", "milvus": "milvus",
            "milvus-server": "milvus"}
"""Targets of one filter language, which the fuzzer pairs for the differential oracle."""


def installed() -> list[str]:
    """The built-in targets whose engine imports here."""
    found = []
    for name, where in TARGETS.items():
        try:
            importlib.import_module(where.partition(":")[0])
            open_target(name).namespace()
        except ImportError:
            continue
        found.append(name)
    return found


def open_target(name: str) -> Target:
    """A target by name, or ``module:Class`` (your own ``Target`` subclass, importable); ``reference:defect=NAME`` is
    the reference with one seeded defect (``reference.DEFECTS``)."""
    if name.startswith("reference:defect="):
        from filterproof.fuzz.targets.reference import DEFECTS

        defect = name.split("=", 1)[1]
        if defect not in DEFECTS:
            raise KeyError(f"unknown defect {defect!r}; the seeded ones: {', '.join(DEFECTS)}")
        return DEFECTS[defect]()
    if name not in TARGETS and ":" not in name:
        raise KeyError(f"unknown fuzz target {name!r}; the built-in ones: {', '.join(TARGETS)}, or module:Class")
    module, _, attribute = TARGETS.get(name, name).partition(":")  # module:Class: a target of your own
    target: Target = getattr(importlib.import_module(module), attribute)()
    return target
