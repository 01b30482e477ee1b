"""The adapter boundary (``base``), typed options (``options``), backend specs (``spec``) and the registry.

Everything a caller or a third-party adapter needs is importable from here.
"""

from __future__ import annotations

from filterproof.adapters.base import (
    Adapter,
    AdapterBase,
    BatchSearch,
    Capabilities,
    Hit,
    Optimizable,
    Record,
    optimize,
    records_of,
    search_many,
)
from filterproof.adapters.options import AdapterOptions, NoOptions
from filterproof.adapters.registry import backend_names, open_backend, options_of, resolve
from filterproof.adapters.spec import BackendSpec, parse_specs
from filterproof.errors import AdapterError, BackendUnavailable, OptionError, UsageError

__all__ = [
    "Adapter", "AdapterBase", "AdapterError", "AdapterOptions", "BackendSpec", "BackendUnavailable", "BatchSearch",
    "Capabilities", "Hit", "NoOptions", "Optimizable", "OptionError", "Record", "UsageError", "backend_names",
    "open_backend", "optimize", "options_of", "parse_specs", "records_of", "resolve", "search_many",
]
