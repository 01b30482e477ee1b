"""The worked example (examples/sqlite-store) passes the suite through its entry point."""

from __future__ import annotations

import os
from importlib.metadata import entry_points

import pytest
from typer.testing import CliRunner

# Imported once here, so that pytester's in-process runs (which unload what they import)
# share one hypothesis module with the plugin that pytest already loaded.
import filterproof.conformance.suite  # noqa: F401
from filterproof.cli import app
from support.paths import FIXTURES
from support.suite import suite_tests

pytest_plugins = ["pytester"]


@pytest.fixture(autouse=True)
def _installed() -> None:
    names = {ep.name for ep in entry_points(group="filterproof.adapters")}
    if "sqlite-example" not in names:
        message = "examples/sqlite-store is not installed: pip install -e examples/sqlite-store"
        if os.environ.get("CI"):
            pytest.fail(message)  # CI installs it; never let this check pass by skipping there
        pytest.skip(message)


# About 12 s: the whole suite through the entry point (tests/conformance/test_conformance_suite.py runs --pyargs).
@pytest.mark.slow
def test_the_suite_passes_through_the_entry_point(pytester: pytest.Pytester) -> None:
    suite = ("-p", "no:cacheprovider", "--pyargs", "filterproof.conformance", "--backend", "sqlite-example",
             "--conformance-examples", "60")
    result = pytester.runpytest(*suite)
    # Every test passes, its reader in another process too (which the reference has not).
    result.assert_outcomes(passed=suite_tests(pytester, *suite))


def test_the_backend_name_works_in_the_cli() -> None:
    result = CliRunner().invoke(app, ["compare", str(FIXTURES / "freshness-lab.json"),
                                      "--backend", "reference", "--backend", "sqlite-example"])
    assert result.exit_code == 0, result.output
    assert "sqlite-example: identical to reference" in result.output
    lines = result.output.splitlines()
    header = next(line for line in lines if ("sqlite-example" in line and "│" in line) or "┃" in line)
    pre = next(line for line in lines if line.startswith("│ pre_filter"))
    assert [c.strip() for c in header.split("┃")][3:5] == ["reference", "sqlite-example"]
    assert [c.strip() for c in pre.split("│")][3:5] == ["5/5", "5/5"]
