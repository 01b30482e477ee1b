"""Milvus behind the adapter boundary: Milvus Lite in process, or a Milvus server by URI (``milvus``).

``store`` holds the adapter (imports pymilvus), ``expr`` the policy's field encoding and
its compiler into one Milvus boolean expression (pure), ``limits`` what a row can hold,
``options`` the options (pure). The adapter loads on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from filterproof.adapters.milvus.store import MilvusAdapter

__all__ = ["MilvusAdapter"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from filterproof.adapters.milvus import store

        return getattr(store, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
