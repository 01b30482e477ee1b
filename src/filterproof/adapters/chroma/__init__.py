"""Chroma behind the adapter boundary: ``chroma`` (in process) and ``chroma-server`` (HTTP).

``store`` holds the adapters (imports chromadb), ``where`` the policy's encoding and
its compiler (pure), ``options`` the options (pure). The adapters load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from filterproof.adapters.chroma.store import ChromaAdapter, ChromaServerAdapter

__all__ = ["ChromaAdapter", "ChromaServerAdapter"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from filterproof.adapters.chroma import store

        return getattr(store, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
