"""Options of the ``milvus`` backend (no pymilvus import: validated before the client loads).

Defaults are what a Milvus user gets out of the box where that is exact: a FLAT index
(brute force), COSINE, the collection's consistency level ``Strong`` (pymilvus's default
for a new collection) and a plain ``tenant`` field. ``index`` chooses an ANN index
Milvus Lite builds (faiss: HNSW, HNSW_SQ, IVF_FLAT, IVF_SQ8; AUTOINDEX is HNSW there),
``ef`` / ``nprobe`` its search beam. docs/backends/milvus.md says what each changes.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from filterproof.adapters.options import ReplaceOption, RevisionOption

URI_ENV, TOKEN_ENV = "MILVUS_URI", "MILVUS_TOKEN"
Index = Literal["flat", "hnsw", "hnsw_sq", "ivf_flat", "ivf_sq8", "autoindex"]
Consistency = Literal["Strong", "Bounded", "Session", "Eventually"]
TenantMode = Literal["field", "partition_key"]
BOUNDED_STALENESS_S = 5.0
"""Milvus's ``common.gracefulTime`` default (5,000 ms): how stale a Bounded read may be on a server."""


class MilvusOptions(RevisionOption, ReplaceOption):
    """``milvus``: Milvus Lite in a temporary directory, or a Milvus server (``uri`` / $MILVUS_URI)."""

    uri: str | None = Field(None, description="a server (http://host:19530) or a Milvus Lite file (*.db, kept); "
                                              "default $MILVUS_URI, else Milvus Lite in a temporary directory")
    server: Literal["lite", "docker"] = Field(
        "lite", description="without a uri: Milvus Lite in process, or a milvusdb/milvus standalone container")
    token: str | None = Field(None, description="the server's token (user:password); default $MILVUS_TOKEN")
    collection: str | None = Field(None, pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,200}$",
                                   description="collection name (kept after the run); default: a fresh one, dropped")
    index: Index = Field("flat", description="vector index: flat (brute force, exact), hnsw, hnsw_sq, ivf_flat, "
                                             "ivf_sq8, autoindex")
    m: int = Field(16, ge=2, le=2048, description="HNSW graph degree (M)")
    ef_construction: int = Field(200, ge=1, description="HNSW build beam (efConstruction)")
    ef: int | None = Field(None, ge=1, description="HNSW search beam; default: Milvus's (the larger of k and its own)")
    nlist: int = Field(128, ge=1, le=65536, description="IVF lists")
    nprobe: int | None = Field(None, ge=1, description="IVF lists searched; default: Milvus's (8)")
    consistency_level: Consistency = Field(
        "Strong", description="the collection's and every search's consistency level (Milvus Lite reads are always "
                              "current, whatever the level)")
    tenant_mode: TenantMode = Field(
        "field", description="field: tenant is a plain field; partition_key: Milvus's partition-key multi-tenancy "
                             "(tenant is the partition key; every filter names it)")
    num_partitions: int = Field(16, ge=1, le=1024, description="tenant_mode=partition_key: partitions of the key")
