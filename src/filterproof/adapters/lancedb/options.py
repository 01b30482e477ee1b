"""Options of the ``lancedb`` backend (no lancedb import: validated before the engine loads).

Search settings default to LanceDB's own (``nprobes``, ``refine_factor`` and ``ef``
unset: the engine chooses), and ``prefilter=true``, LanceDB's default, so that the
backend measures what a LanceDB user gets out of the box; docs/backends/lancedb.md says what to set.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from filterproof.adapters.options import ReplaceOption, RevisionOption

INDEX_MIN_ROWS = 4096
"""Fewer rows than this are searched flat even with a vector index asked for: IVF training needs data
(LanceDB refuses PQ training below 256 rows), and a flat scan of a few thousand rows is exact and fast."""

VectorIndex = Literal["flat", "ivf_flat", "ivf_pq", "ivf_hnsw_sq"]


class LanceDBOptions(RevisionOption, ReplaceOption):
    """``lancedb``: LanceDB embedded (in process), cosine distance."""

    path: str | None = Field(None, description="database directory (kept); default: a temporary one, removed")
    table: str | None = Field(None, pattern=r"^[A-Za-z_][A-Za-z0-9_-]{0,100}$",
                              description="table name; default: filterproof")
    prefilter: bool = Field(True, description="filter before the vector search (false: LanceDB's post-filter "
                                              "of the nearest rows)")
    index: VectorIndex = Field("flat", description="vector index: flat (brute force), ivf_flat, ivf_pq, ivf_hnsw_sq")
    index_scalar: bool = Field(False, description="scalar indexes on the policy columns (BTree, Bitmap, LabelList)")
    index_min_rows: int = Field(INDEX_MIN_ROWS, ge=256, description="below this many rows no vector index is built")
    num_partitions: int | None = Field(None, ge=1, description="IVF partitions; default: LanceDB's")
    nprobes: int | None = Field(None, ge=1, description="IVF partitions searched; default: LanceDB's")
    refine_factor: int | None = Field(None, ge=1, description="re-rank refine_factor x k rows exactly")
    ef: int | None = Field(None, ge=1, description="HNSW search beam (ivf_hnsw_sq); default: LanceDB's")
    read_consistency_s: float | None = Field(
        None, ge=0, le=86_400, description="read_consistency_interval of every connection, in seconds: 0 checks for "
                                           "other clients' writes on every read; default: LanceDB's (never)")
