"""Shared test fixtures: the shipped fixtures, prepared once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from filterproof.fixtures import Fixture, load_fixture
from filterproof.runner import Prepared, prepare

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SHIPPED = ["freshness-lab.json", "authorized-recall", "adversarial.json"]


@pytest.fixture(scope="session")
def lab() -> Fixture:
    return load_fixture(FIXTURES / "freshness-lab.json")


@pytest.fixture(scope="session")
def lab_prepared(lab: Fixture) -> Prepared:
    return prepare(lab)


@pytest.fixture(scope="session")
def corpus_prepared() -> Prepared:
    return prepare(load_fixture(FIXTURES / "authorized-recall"))


@pytest.fixture(scope="session", params=SHIPPED)
def shipped(request: pytest.FixtureRequest) -> Prepared:
    """Each shipped fixture, prepared (vectors and policy answers) once."""
    return prepare(load_fixture(FIXTURES / request.param))
