"""Backends by stable name: the built-in ones, and any installed through an entry point.

A package adds a backend by declaring, in its ``pyproject.toml``::

    [project.entry-points."filterproof.adapters"]
    mystore = "mypackage.adapter:make_adapter"

where ``make_adapter(options: Mapping[str, Any]) -> Adapter``. Built-in backends
that need an optional dependency are imported only when asked for, and say which
extra to install when it is missing.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from importlib.metadata import entry_points
from typing import Any

from filterproof.adapters.base import Adapter, AdapterError, Capabilities, Hit, Record, search_many

__all__ = [
    "Adapter", "AdapterError", "BackendUnavailable", "Capabilities", "Hit", "Record",
    "backend_names", "open_backend", "search_many",
]

ENTRY_POINT_GROUP = "filterproof.adapters"

# name -> (factory "module:attribute", extra that provides its dependencies)
BUILTIN: dict[str, tuple[str, str | None]] = {
    "reference": ("filterproof.adapters.reference:ReferenceAdapter", None),
    "chroma": ("filterproof.adapters.chroma:ChromaAdapter", "chroma"),
    "chroma-server": ("filterproof.adapters.chroma:ChromaServerAdapter", "chroma"),
    "qdrant-edge": ("filterproof.adapters.qdrant:QdrantEdgeAdapter", "qdrant"),
    "qdrant-local": ("filterproof.adapters.qdrant:QdrantLocalAdapter", "qdrant"),
    "qdrant-server": ("filterproof.adapters.qdrant:QdrantServerAdapter", "qdrant"),
}


class BackendUnavailable(RuntimeError):
    """A backend name that is unknown, or whose dependencies are not installed."""


def _installed() -> dict[str, str]:
    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


def backend_names() -> list[str]:
    return list(BUILTIN) + sorted(set(_installed()) - set(BUILTIN))


def _load(target: str, name: str, extra: str | None) -> Callable[[Mapping[str, Any]], Adapter]:
    module_name, _, attribute = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        hint = f"pip install 'filterproof[{extra}]'" if extra else f"install the package providing {module_name}"
        raise BackendUnavailable(f"backend {name!r} needs {error.name or module_name}: {hint}") from error
    return getattr(module, attribute)


def open_backend(name: str, options: Mapping[str, Any] | None = None) -> Adapter:
    """A new adapter for backend ``name``; the caller resets and closes it."""
    if name in BUILTIN:
        target, extra = BUILTIN[name]
    elif name in (installed := _installed()):
        target, extra = installed[name], None
    else:
        raise BackendUnavailable(f"unknown backend {name!r}; known: {', '.join(backend_names())}")
    return _load(target, name, extra)(options or {})
