"""Options of the ``duckdb`` backend (no duckdb import: validated before the engine loads).

``index=exact`` (the default) searches every row the filter admits: DuckDB pushes the
``WHERE`` into its scan and keeps the top K. ``index=hnsw`` builds the ``vss``
extension's HNSW index, whose scan DuckDB runs *before* the ``WHERE`` (the filter sees
only the index's top rows; duckdb-vss #35); the adapter widens that window until K rows
pass or the window holds the whole table, where it scans exactly (``store``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from filterproof.adapters.options import ReplaceOption, RevisionOption

HNSW_M = 16
EF_CONSTRUCTION = 128
EF_SEARCH = 64
"""The vss extension's defaults (``M``, ``ef_construction``, ``ef_search``)."""
WINDOW = 10
"""The first window of an HNSW search: this many times K rows, before the filter."""


class DuckDBOptions(RevisionOption, ReplaceOption):
    """``duckdb``: DuckDB in process, with the ``vss`` extension for ``index=hnsw``."""

    path: str | None = Field(None, description="database file (kept, with the user's tables in it untouched); "
                                              "default: an in-memory database")
    table: str | None = Field(None, pattern=r"^[a-z_][a-z0-9_]{0,50}$",
                              description="table name (kept after the run; one filterproof did not create is refused, "
                                          "unless replace=true); default: a fresh one, dropped")
    index: Literal["exact", "hnsw"] = Field("exact", description="exact: every admitted row scored; hnsw: the vss "
                                                                 "extension's index, its window widened until K pass")
    m: int = Field(HNSW_M, ge=2, le=100, description="HNSW graph degree")
    ef_construction: int = Field(EF_CONSTRUCTION, ge=4, le=1000, description="HNSW build beam")
    ef_search: int = Field(EF_SEARCH, ge=1, le=10_000, description="HNSW search beam (hnsw_ef_search)")
    window: int = Field(WINDOW, ge=1, le=10_000, description="the first HNSW window, in multiples of K; it "
                                                             "grows fourfold until K rows pass the filter")
