"""The fixtures shipped with the suite, and the few runner calls the suite makes.

Kept apart from ``suite.py`` so that the check modules (``placement.py`` and the
others) can use them without importing the suite that combines them. Every use of
``filterproof.runner`` inside the conformance package goes through here.
"""

from __future__ import annotations

from pathlib import Path

from filterproof.adapters.base import Adapter
from filterproof.adapters.reference import ReferenceAdapter
from filterproof.fixtures import load_fixture
from filterproof.runner import Prepared, Settings, StrategyRun, evaluate, index, prepare

__all__ = ["FIXTURES", "Prepared", "Settings", "StrategyRun", "indexed_runs", "load", "reference_runs", "shipped"]

FIXTURES = Path(__file__).resolve().parent / "data"
_prepared: dict[str, Prepared] = {}


def shipped(name: str) -> Prepared:
    """A fixture shipped with the suite, prepared (vectors, policy answers) once per process."""
    if name not in _prepared:
        _prepared[name] = prepare(load_fixture(FIXTURES / name))
    return _prepared[name]


def load(adapter: Adapter, prepared: Prepared) -> None:
    """Reset ``adapter`` and index the fixture's documents with the shared vectors."""
    index(adapter, prepared)


def indexed_runs(adapter: Adapter, prepared: Prepared, settings: Settings) -> list[StrategyRun]:
    """Every case of an already indexed fixture, under every strategy the adapter supports."""
    return evaluate(adapter, prepared, settings)


def reference_runs(prepared: Prepared, settings: Settings) -> list[StrategyRun]:
    """The oracle's runs of a fixture: what every adapter is compared with."""
    store = ReferenceAdapter()
    index(store, prepared)
    return evaluate(store, prepared, settings)
