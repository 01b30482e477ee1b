"""Chroma's two backends: in process and a server (``adapters.descriptor``)."""

from filterproof.adapters.descriptor import FuzzTarget, Store

STORES = (
    Store("chroma", "filterproof.adapters.chroma:ChromaAdapter", "filterproof.adapters.chroma.options:ChromaOptions",
          "chroma", "Chroma in process (`EphemeralClient`, or `PersistentClient` with `chroma:path=DIR`)",
          "backends/chroma.md#chroma", order=10, embedded=True, freshness=("chroma",), sweep=True,
          fuzz=(FuzzTarget("chroma", "filterproof.fuzz.targets.chroma:ChromaTarget", "chroma"),)),
    Store("chroma-server", "filterproof.adapters.chroma:ChromaServerAdapter",
          "filterproof.adapters.chroma.options:ChromaServerOptions", "chroma",
          "a real Chroma server over HTTP: `CHROMA_URL`, else a `chroma run` started and stopped by filterproof",
          "backends/chroma.md#chroma-server", order=11,
          fuzz=(FuzzTarget("chroma-server", "filterproof.fuzz.targets.chroma_server:ChromaServerTarget", "chroma"),)),
)
