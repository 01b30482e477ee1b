"""Milvus: Milvus Lite in process, or a server by URI (``adapters.descriptor``)."""

from filterproof.adapters.descriptor import FuzzTarget, Store

TARGETS = "filterproof.fuzz.targets"

STORES = (
    Store("milvus", "filterproof.adapters.milvus:MilvusAdapter", "filterproof.adapters.milvus.options:MilvusOptions",
          "milvus", "Milvus Lite in process (a temporary directory, or `milvus:uri=FILE.db`); a Milvus server at "
          "`MILVUS_URI` (`MILVUS_TOKEN`), or `server=docker`", "backends/milvus.md", order=50, embedded=True,
          fuzz=(FuzzTarget("milvus", f"{TARGETS}.milvus:MilvusTarget", "milvus"),
                FuzzTarget("milvus-server", f"{TARGETS}.milvus_server:MilvusServerTarget", "milvus", "MILVUS_URI")),
          # Milvus Lite searches FLAT and evaluates the groups clause (ARRAY_CONTAINS_ANY) in Python row by row:
          # no page, window or pool that 5,000 documents would find and 2,000 would not. A server has an index.
          scale=2_000, scale_unless=("MILVUS_URI", "uri=http", "server=docker")),
)
