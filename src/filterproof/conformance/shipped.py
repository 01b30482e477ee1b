"""The shipped fixtures as the suite uses them: prepared once per process, and the reference's answers."""

from __future__ import annotations

from filterproof import fixtures
from filterproof.adapters.reference import ReferenceAdapter
from filterproof.fixtures import load_fixture
from filterproof.runner import Settings, evaluate, index
from filterproof.scoring import CaseRow
from filterproof.truth import Prepared, prepare

_prepared: dict[str, Prepared] = {}


def shipped(name: str) -> Prepared:
    """A fixture shipped with the suite, prepared once per process."""
    if name not in _prepared:
        _prepared[name] = prepare(load_fixture(fixtures.shipped(name)))
    return _prepared[name]


def reference_runs(prepared: Prepared, settings: Settings) -> list[CaseRow]:
    store = ReferenceAdapter()
    index(store, prepared)
    return evaluate(store, prepared, settings)
