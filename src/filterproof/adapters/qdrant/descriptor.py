"""Qdrant's three backends: its engine in process, qdrant-client's local mode, a server (``adapters.descriptor``)."""

from filterproof.adapters.descriptor import FuzzTarget, Store

OPTIONS = "filterproof.adapters.qdrant.options"
TARGETS = "filterproof.fuzz.targets"

STORES = (
    Store("qdrant-edge", "filterproof.adapters.qdrant:QdrantEdgeAdapter", f"{OPTIONS}:QdrantEdgeOptions", "qdrant",
          "the Qdrant engine in process (`qdrant-edge-py`): payload indexes, real HNSW",
          "backends/qdrant.md#qdrant-edge", order=20, embedded=True, sweep=True,
          fuzz=(FuzzTarget("qdrant-edge", f"{TARGETS}.qdrant:QdrantEdge", "qdrant"),)),
    Store("qdrant-local", "filterproof.adapters.qdrant:QdrantLocalAdapter", f"{OPTIONS}:QdrantLocalOptions", "qdrant",
          "qdrant-client's local mode (`:memory:`, or `qdrant-local:path=DIR`)", "backends/qdrant.md#qdrant-local",
          order=21, embedded=True, fuzz=(FuzzTarget("qdrant-local", f"{TARGETS}.qdrant:QdrantLocal", "qdrant"),),
          # Local mode checks every point against every condition in Python (MatchAny by a list scan), with no
          # index: no page, window or pool that 5,000 documents would find and 2,000 would not.
          scale=2_000),
    Store("qdrant-server", "filterproof.adapters.qdrant:QdrantServerAdapter", f"{OPTIONS}:QdrantServerOptions",
          "qdrant", "a real Qdrant server at `QDRANT_URL` (`QDRANT_API_KEY`)", "backends/qdrant.md#qdrant-server",
          order=22, fuzz=(FuzzTarget("qdrant-server", f"{TARGETS}.qdrant_server:QdrantServer", "qdrant",
                                     "QDRANT_URL"),)),
)
