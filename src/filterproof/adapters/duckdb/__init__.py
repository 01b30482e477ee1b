"""DuckDB behind the adapter boundary, in process (``duckdb``), with the ``vss`` extension for HNSW.

``store`` holds the adapter (imports duckdb), ``sql`` the policy's columns and its
compiler (pure), ``language`` DuckDB's SQL through the shared renderer, ``options`` the
options (pure). The adapter loads on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from filterproof.adapters.duckdb.store import DuckDBAdapter

__all__ = ["DuckDBAdapter"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from filterproof.adapters.duckdb import store

        return getattr(store, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
