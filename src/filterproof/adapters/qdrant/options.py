"""Options of the three Qdrant backends (no engine import: validated before the engine loads)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from filterproof.adapters.options import ReplaceOption, RevisionOption
from filterproof.adapters.paths import check_directory

DirectoryPath = Annotated[str | None, AfterValidator(check_directory)]

HNSW_M = 16
HNSW_EF_CONSTRUCT = 100
HNSW_EF = 128
FULL_SCAN_THRESHOLD_KB = 10_000
"""Qdrant's default: a filtered search whose candidates hold fewer KB of vectors scans them."""
SERVER_TIMEOUT = 60


class QdrantEdgeOptions(RevisionOption, ReplaceOption):
    """``qdrant-edge``: the Qdrant engine in process."""

    path: DirectoryPath = Field(None, description="store the shard in PATH/edge-shard; default: a temporary directory")
    exact: bool = Field(False, description="brute-force search instead of HNSW")
    hnsw_ef: int = Field(HNSW_EF, ge=1, description="HNSW search beam")
    acorn: bool = Field(False, description="ACORN filtered graph search")
    hnsw_m: int = Field(HNSW_M, ge=2, description="HNSW graph degree")
    hnsw_ef_construct: int = Field(HNSW_EF_CONSTRUCT, ge=1, description="HNSW build beam")
    full_scan_threshold_kb: int = Field(FULL_SCAN_THRESHOLD_KB, ge=0,
                                        description="below it, a filtered search scans instead of walking the graph")
    indexing_threshold_kb: int | None = Field(None, ge=0,
                                              description="segments above it get HNSW; 0: never; default: Qdrant's")
    segment_docs: int | None = Field(None, ge=1,
                                     description="build an HNSW segment every N documents written, and none "
                                                 "larger: several segments, each built with bounded memory; "
                                                 "default: one segment, built after the ingest")
    payload_links: Literal["all", "split", "tenant"] = Field(
        "all", description="which payload indexes get Qdrant's extra per-value HNSW links: all (Qdrant's "
                           "default), split (tenant, status, groups, flag) or tenant (edge.LINKED)")
    memory: Literal["ram", "cached", "cold"] = Field(
        "ram", description="where the shard's vectors, graph, payloads and indexes live: ram (pinned), "
                           "cached (memory-mapped files, paged in as read) or cold (mapped, not kept warm)")


class QdrantLocalOptions(RevisionOption, ReplaceOption):
    """``qdrant-local``: qdrant-client's local mode (exact, pure Python)."""

    path: DirectoryPath = Field(None, description="store here; default: in memory")


class QdrantServerOptions(RevisionOption, ReplaceOption):
    """``qdrant-server``: a Qdrant server by URL."""

    url: str | None = Field(None, description="server URL; default $QDRANT_URL")
    api_key: str | None = Field(None, description="API key; default $QDRANT_API_KEY")
    collection: str | None = Field(None, min_length=1,
                                   description="collection name (kept after the run); default: a fresh one, dropped")
    exact: bool = False
    hnsw_ef: int | None = Field(None, ge=1, description="HNSW search beam; default: the server's")
    timeout: int = Field(SERVER_TIMEOUT, ge=1, description="seconds per request")
    check_compatibility: bool = True
    wait: bool = Field(True, description="writes wait until applied (false: acknowledged on receipt, applied "
                                         "later: no staleness bound is declared)")
