"""The pytest plugin (entry point ``pytest11``): options for running the suite from the command line.

Loaded by every pytest run wherever filterproof is installed, so it imports nothing
but pytest at module level.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("filterproof", "filterproof conformance suite")
    group.addoption("--adapter", dest="filterproof_adapter", metavar="MODULE:FACTORY",
                    help="factory(options) returning a fresh adapter, for --pyargs filterproof.conformance")
    try:
        group.addoption("--backend", "--filterproof-backend", dest="filterproof_backend", metavar="NAME",
                        help="a filterproof backend name (built in, or from the filterproof.adapters entry point)")
    except ValueError:  # another plugin owns --backend; keep ours reachable under its long name
        group.addoption("--filterproof-backend", dest="filterproof_backend", metavar="NAME",
                        help="a filterproof backend name")
    group.addoption("--backend-option", dest="filterproof_options", action="append", default=[],
                    metavar="KEY=VALUE", help="an option for the backend or adapter factory (repeatable)")
    group.addoption("--conformance-examples", dest="conformance_examples", type=int, default=None,
                    help="hypothesis examples for the generated congruence test (default 60)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "docker: needs a server from QDRANT_URL / CHROMA_URL or a Docker engine")


def options(config: pytest.Config) -> dict[str, str]:
    pairs = config.getoption("filterproof_options") or []
    parsed = dict(pair.split("=", 1) for pair in pairs if "=" in pair)
    if len(parsed) != len(pairs):
        raise pytest.UsageError(f"--backend-option takes KEY=VALUE, got {pairs}")
    return parsed


def configured_factory(config: pytest.Config) -> Callable[[], Any]:
    """The adapter factory named by --adapter or --backend; skips when neither was given."""
    target, backend = config.getoption("filterproof_adapter"), config.getoption("filterproof_backend")
    if target:
        module_name, _, attribute = target.partition(":")
        if not attribute:
            raise pytest.UsageError(f"--adapter {target!r}: expected package.module:factory")
        factory = getattr(importlib.import_module(module_name), attribute)
        return lambda: factory(options(config))
    if backend:
        from filterproof.adapters import open_backend

        return lambda: open_backend(backend, options(config))
    pytest.skip("no adapter selected: pass --backend NAME or --adapter package.module:factory")
