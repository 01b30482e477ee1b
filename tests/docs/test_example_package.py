"""The worked example (examples/sqlite-store) passes the suite through its entry point, and touches no table of a
company's own."""

from __future__ import annotations

import os
import sqlite3
from importlib.metadata import entry_points
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

# Imported once here, so that pytester's in-process runs (which unload what they import)
# share one hypothesis module with the plugin that pytest already loaded.
import filterproof.conformance.suite  # noqa: F401
from filterproof.adapters.base import Record
from filterproof.adapters.ownership import NotOurs
from filterproof.cli import app
from filterproof.errors import NoSecondClient
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
    result = pytester.runpytest(*suite, "-rs")
    # Every test passes, its reader in another process too (which the reference has not), but the one about a method
    # the example leaves out on purpose (it implements the required methods only).
    result.assert_outcomes(passed=suite_tests(pytester, *suite) - 1, skipped=1)
    result.stdout.fnmatch_lines(["SKIPPED *: sqlite-example has no search_batch [[]lacks search_batch]"])


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


# -- the example's own ownership (the conformance suite runs on stores it made, and cannot see these) -----------


def users_file(where: Path) -> Path:
    """A company's SQLite file holding its own ``docs`` table."""
    path = where / "company.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE docs (id TEXT PRIMARY KEY, body TEXT)")
    db.execute("INSERT INTO docs VALUES ('a', 'theirs')")
    db.commit()
    db.close()
    return path


def test_the_example_refuses_a_docs_table_it_did_not_create(tmp_path: Path) -> None:
    """Refused before anything is written, under every spelling but ``replace=true``; the file stays byte for byte
    what it was."""
    from filterproof_sqlite.adapter import SqliteAdapter

    path = users_file(tmp_path)
    before = path.read_bytes()
    for extra in ({}, {"replace": "false"}, {"replace": "yes"}, {"replace": "1"}, {"replace": "truer"}):
        with pytest.raises(NotOurs, match=r"table 'docs' in .*company\.db"):
            SqliteAdapter({"sqlite_path": str(path), **extra})
    assert path.read_bytes() == before


@pytest.mark.parametrize("spelling", ["true", "TRUE"])
def test_replace_true_takes_the_table_which_is_then_ours(tmp_path: Path, spelling: str) -> None:
    """``replace=true`` (any case) replaces the company's table in the file given; the table is then the
    adapter's, reset again without ``replace``; a reader is refused until ``reset`` gives the index a dimension."""
    from filterproof_sqlite.adapter import SqliteAdapter

    path = users_file(tmp_path)
    with pytest.raises(NoSecondClient):
        SqliteAdapter().reader_spec()
    store = SqliteAdapter({"sqlite_path": str(path), "replace": spelling})
    store.reset(2)
    store.upsert([Record("ours", np.array([1.0, 0.0], np.float32), {"tenant": "acme"})])
    store.close()
    assert sqlite3.connect(path).execute("SELECT id FROM docs").fetchall() == [("ours",)]  # in the file given
    again = SqliteAdapter({"sqlite_path": str(path)})  # its marker names the table: no replace needed
    again.reset(2)
    again.close()
