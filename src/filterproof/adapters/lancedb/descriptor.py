"""LanceDB embedded (``adapters.descriptor``)."""

from filterproof.adapters.descriptor import FuzzTarget, Store

TARGETS = "filterproof.fuzz.targets"

STORES = (
    Store("lancedb", "filterproof.adapters.lancedb:LanceDBAdapter",
          "filterproof.adapters.lancedb.options:LanceDBOptions", "lancedb",
          "LanceDB embedded, in a temporary directory (or `-b lancedb:path=DIR`)", "backends/lancedb.md",
          order=40, embedded=True, freshness=("lancedb", "lancedb:read_consistency_s=0"),
          # LlamaIndex's LanceDBVectorStore is fuzzed, not a backend: its MetadataFilters cannot carry the policy.
          fuzz=(FuzzTarget("lancedb", f"{TARGETS}.lancedb:LanceDBTarget"),
                FuzzTarget("llamaindex-lancedb", f"{TARGETS}.llamaindex_lancedb:LlamaIndexLanceDB"))),
)
