"""The fixtures shipped with the suite, and the few runner calls the suite makes.

Kept apart from ``suite.py`` so that the check modules (``checks/placement.py`` and the
others) can use them without importing the suite that combines them. Every use of
``filterproof.evaluation.runner`` inside the conformance package goes through here.
"""

from __future__ import annotations

from filterproof import fixtures
from filterproof.adapters.base import Adapter
from filterproof.adapters.reference import ReferenceAdapter
from filterproof.evaluation.runner import Settings, evaluate, index
from filterproof.evaluation.scoring import CaseRow, by_strategy
from filterproof.evaluation.truth import Prepared, prepare
from filterproof.fixtures import load_fixture

__all__ = ["CaseRow", "Prepared", "Settings", "by_strategy", "indexed_runs", "load", "reference_runs", "shipped"]

_prepared: dict[str, Prepared] = {}


def shipped(name: str) -> Prepared:
    """A fixture shipped with filterproof, prepared (vectors, policy answers) once per process."""
    if name not in _prepared:
        _prepared[name] = prepare(load_fixture(fixtures.shipped(name)))
    return _prepared[name]


def load(adapter: Adapter, prepared: Prepared) -> None:
    """Reset ``adapter``, give it the fixture's active map, and index the documents with the shared vectors."""
    index(adapter, prepared)


def indexed_runs(adapter: Adapter, prepared: Prepared, settings: Settings) -> list[CaseRow]:
    """Every case of an already indexed fixture, under every strategy the adapter supports, scored."""
    return evaluate(adapter, prepared, settings)


def reference_runs(prepared: Prepared, settings: Settings) -> list[CaseRow]:
    """The oracle's case rows of a fixture: what every adapter is compared with."""
    store = ReferenceAdapter()
    index(store, prepared)
    return evaluate(store, prepared, settings)
