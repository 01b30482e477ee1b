"""What a backend spec declares, read from a fresh adapter (closed again)."""

from __future__ import annotations

from filterproof.adapters import open_backend


def declared(spec: str) -> tuple[bool, float, str | None]:
    """The adapter's ``(exact, recall_tolerance, search_path)`` for ``spec``."""
    adapter = open_backend(spec)
    try:
        caps = adapter.capabilities
        return caps.exact, caps.recall_tolerance, caps.search_path
    finally:
        adapter.close()
