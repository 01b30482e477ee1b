"""Milvus: Milvus Lite in process, or a server by URI (``adapters.descriptor``)."""

from filterproof.adapters.descriptor import FuzzTarget, Store

TARGETS = "filterproof.fuzz.targets"

STORES = (
    Store("milvus", "filterproof.adapters.milvus:MilvusAdapter", "filterproof.adapters.milvus.options:MilvusOptions",
          "milvus", "Milvus Lite in process (a temporary directory, or `milvus:uri=FILE.db`); a Milvus server at "
          "`MILVUS_URI` (`MILVUS_TOKEN`), or `server=docker`", "backends/milvus.md", order=50, embedded=True,
          fuzz=(FuzzTarget("milvus", f"{TARGETS}.milvus:MilvusTarget", "milvus"),
                FuzzTarget("milvus-server", f"{TARGETS}.milvus_server:MilvusServerTarget", "milvus", "MILVUS_URI"))),
)
