"""The adapter boundary (``base``), typed options (``options``), backend specs (``spec``) and the registry.

Everything a caller or a third-party adapter needs is importable from here. The names load
on first use, so that the stores' descriptions (``descriptor``), which the command line reads
to list the stores, cost no numpy or pydantic import.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from filterproof.adapters.base import (
        Adapter,
        AdapterBase,
        BatchSearch,
        BatchUpdate,
        Capabilities,
        Hit,
        Optimizable,
        Record,
        optimize,
        records_of,
        search_many,
        update_many,
    )
    from filterproof.adapters.options import AdapterOptions, NoOptions
    from filterproof.adapters.registry import backend_names, open_backend, options_of, resolve
    from filterproof.adapters.spec import BackendSpec, parse_specs
    from filterproof.errors import AdapterError, BackendUnavailable, OptionError, UsageError

_WHERE = {
    "filterproof.adapters.base": ("Adapter", "AdapterBase", "BatchSearch", "BatchUpdate", "Capabilities", "Hit",
                                  "Optimizable", "Record", "optimize", "records_of", "search_many", "update_many"),
    "filterproof.adapters.options": ("AdapterOptions", "NoOptions"),
    "filterproof.adapters.registry": ("backend_names", "open_backend", "options_of", "resolve"),
    "filterproof.adapters.spec": ("BackendSpec", "parse_specs"),
    "filterproof.errors": ("AdapterError", "BackendUnavailable", "OptionError", "UsageError"),
}
_MODULE_OF = {name: module for module, names in _WHERE.items() for name in names}

__all__ = [  # typed for static tools, which cannot read _WHERE; tests/test_architecture checks both agree
    "Adapter", "AdapterBase", "AdapterError", "AdapterOptions", "BackendSpec", "BackendUnavailable", "BatchSearch",
    "BatchUpdate", "Capabilities", "Hit", "NoOptions", "Optimizable", "OptionError", "Record", "UsageError",
    "backend_names", "open_backend", "optimize", "options_of", "parse_specs", "records_of", "resolve", "search_many",
    "update_many",
]


def __getattr__(name: str) -> Any:
    if name in _MODULE_OF:
        return getattr(importlib.import_module(_MODULE_OF[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
