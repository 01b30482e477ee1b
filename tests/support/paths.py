"""The repository's paths, from this file's place in it (``tests/support/``): one place to count the levels."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The repository root."""
TESTS = ROOT / "tests"
DATA = TESTS / "data"
"""Committed test data: golden outputs, and the fuzzers' minimal worlds (``fuzz/``)."""
FIXTURES = ROOT / "fixtures"
"""The shipped fixtures (a link to the package's data)."""
