"""Qdrant behind filterproof's adapter boundary, in its three forms.

* ``qdrant-edge`` (``QdrantEdgeAdapter``): the Rust engine in process, real HNSW and
  payload indexes (``edge.py``);
* ``qdrant-local`` (``QdrantLocalAdapter``): qdrant-client's local mode, exact (``client.py``);
* ``qdrant-server`` (``QdrantServerAdapter``): a server by URL (``client.py``).

All three store the same payload (``payload.py``) and search with the same
compiled policy (``compiler.py``, written by ``language.py`` in each form's model
family), so a disagreement between them is a finding about an engine, not about
our translation. Engines are imported per form:
``qdrant-edge`` needs only qdrant-edge-py, the others only qdrant-client.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from filterproof.adapters.qdrant.client import QdrantLocalAdapter, QdrantServerAdapter
    from filterproof.adapters.qdrant.edge import QdrantEdgeAdapter

__all__ = ["QdrantEdgeAdapter", "QdrantLocalAdapter", "QdrantServerAdapter"]


def __getattr__(name: str) -> Any:
    if name == "QdrantEdgeAdapter":
        from filterproof.adapters.qdrant.edge import QdrantEdgeAdapter

        return QdrantEdgeAdapter
    if name in ("QdrantLocalAdapter", "QdrantServerAdapter"):
        from filterproof.adapters.qdrant import client

        return getattr(client, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
