"""The policy-conformance suite, shipped inside the package.

Two ways to use it:

1. Subclass ``AdapterConformanceTests`` and override its ``adapter`` fixture (see
   ``filterproof.conformance.suite``).
2. ``pytest --pyargs filterproof.conformance --backend NAME`` for a built-in or
   installed backend, or ``--adapter package.module:factory`` for any factory that
   takes an options mapping and returns a fresh adapter.

This module stays light: the pytest plugin (``filterproof.conformance.plugin``)
is imported by every pytest run wherever filterproof is installed.
"""

from __future__ import annotations

from typing import Any

__all__ = ["AdapterConformanceTests"]


def __getattr__(name: str) -> Any:
    if name == "AdapterConformanceTests":
        from filterproof.conformance.suite import AdapterConformanceTests

        return AdapterConformanceTests
    raise AttributeError(name)
