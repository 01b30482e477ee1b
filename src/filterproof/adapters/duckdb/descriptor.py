"""DuckDB in process, with the vss extension (``adapters.descriptor``)."""

from filterproof.adapters.descriptor import FuzzTarget, Store

STORES = (
    Store("duckdb", "filterproof.adapters.duckdb:DuckDBAdapter",
          "filterproof.adapters.duckdb.options:DuckDBOptions", "duckdb",
          "DuckDB in process, in memory (or `-b duckdb:path=FILE`); `index=hnsw`: the vss extension's HNSW "
          "index, loaded from the `duckdb-extension-vss` wheel", "backends/duckdb.md",
          order=45, embedded=True,
          fuzz=(FuzzTarget("duckdb-typed", "filterproof.fuzz.targets.duckdb:DuckDBTyped"),)),
)
