"""pgvector behind the adapter boundary: PostgreSQL with the pgvector extension (``pgvector``).

``store`` holds the adapter (imports psycopg), ``sql`` the policy's column encoding and
its compiler (pure), ``options`` the options (pure). The adapter loads on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from filterproof.adapters.pgvector.store import PgvectorAdapter

__all__ = ["PgvectorAdapter"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from filterproof.adapters.pgvector import store

        return getattr(store, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
