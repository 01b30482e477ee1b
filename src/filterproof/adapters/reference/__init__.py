"""The reference backend, the oracle: exact cosine search in memory (``store``), its options, and its description.

The adapter loads on first use, so that reading the stores' descriptions (``adapters.descriptor``)
loads no numpy work.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from filterproof.adapters.reference.store import ReferenceAdapter, ReferenceOptions, ReferenceReader, top_k

__all__ = ["ReferenceAdapter", "ReferenceOptions", "ReferenceReader", "top_k"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from filterproof.adapters.reference import store

        return getattr(store, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
