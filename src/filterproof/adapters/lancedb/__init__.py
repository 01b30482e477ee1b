"""LanceDB behind the adapter boundary: embedded, in a temporary directory or at a path (``lancedb``).

``store`` holds the adapter (imports lancedb and pyarrow), ``where`` the policy's column
encoding and its compiler into LanceDB's SQL filter (pure), ``options`` the options
(pure). The adapter loads on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from filterproof.adapters.lancedb.store import LanceDBAdapter

__all__ = ["LanceDBAdapter"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from filterproof.adapters.lancedb import store

        return getattr(store, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
