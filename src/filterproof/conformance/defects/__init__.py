"""Adapters with one deliberate defect each, to show what the suite catches and how it says so.

    pytest --pyargs filterproof.conformance --adapter filterproof.conformance.defects:IgnoresValidUntil
    pytest --pyargs filterproof.conformance --adapter filterproof.conformance.defects:WindowedNearest \\
        --backend-option window=100000

Each is the reference adapter with one mistake that real store adapters make; the
suite's own tests (``tests/conformance/test_conformance_suite.py``) show each failing, and with
which message. ``DEFECTS`` maps each name to its class: every class of a module of this
package whose ``name`` starts with ``defect-`` (a defect added to a module is listed,
exported and documented without another edit).
"""

from __future__ import annotations

import importlib
import pkgutil

from filterproof.adapters.base import Adapter
from filterproof.conformance.defects.clauses import RowPredicate
from filterproof.conformance.defects.lifecycle import StoredFlags


def seeded() -> dict[str, type[Adapter]]:
    """Every seeded defect of this package's modules, by class name, in module order then definition order."""
    found: dict[str, type[Adapter]] = {}
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        for value in vars(module).values():
            if (isinstance(value, type) and value.__module__ == module.__name__
                    and str(getattr(value, "name", "")).startswith("defect-")):
                found[value.__name__] = value
    return found


DEFECTS = seeded()
"""Every seeded defect by class name (``StoredFlags``, the correct stored-flag store they build on, is not one)."""
globals().update(DEFECTS)  # ``--adapter filterproof.conformance.defects:Name`` and ``from ... import Name``

__all__ = ["DEFECTS", "RowPredicate", "StoredFlags", *DEFECTS]  # the defects, and the two bases they build on

