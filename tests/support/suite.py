"""The conformance suite as a user runs it (``pytest --pyargs filterproof.conformance``), through ``pytester``."""

from __future__ import annotations

import pytest


def suite_tests(pytester: pytest.Pytester, *args: str) -> int:
    """How many tests a run of the suite with ``args`` runs: that run, collected only, counted (never typed, so a
    check added to the suite is counted at once)."""
    result = pytester.runpytest(*args, "--collect-only", "-q")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    return sum("::" in line for line in result.outlines)
