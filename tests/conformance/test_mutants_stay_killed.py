"""A fixed sample of the mutants the conformance suite killed (``bench/mutation/sentinels.toml``) must stay killed.

The mutation run (``bench/mutation/run.py``) measures the suite's strength in hours; these few, a few seconds
each, fail the slow set when a change to a check or a world lets one of them through. Each is applied to a copy
of the package (the checkout is never changed) and judged by the one test that killed it in the run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from support.paths import ROOT
from support.processes import UNUSED_PLUGINS

EXAMPLE = ROOT / "examples" / "sqlite-store" / "src"
SENTINELS: list[dict[str, Any]] = tomllib.loads((ROOT / "bench" / "mutation" / "sentinels.toml").read_text())[
    "sentinel"]


PACKAGES = {"src/": ROOT / "src" / "filterproof", "examples/sqlite-store/src/": EXAMPLE / "filterproof_sqlite"}
"""Where each mutated module's package lives (the sentinel's module begins with the key)."""


def mutated_copy(sentinel: dict[str, Any], where: Path) -> Path:
    """A copy of filterproof and the example's package under ``where`` with the sentinel's line replaced; the
    copy's ``src``."""
    src = where / "src"
    # The compiled modules come along (copytree keeps each file's time, which a .pyc is checked against): the
    # child compiles only the mutated module, whose own .pyc files are removed, not the whole package (about 1 s).
    for package in PACKAGES.values():
        shutil.copytree(package, src / package.name)
    root = next(prefix for prefix in PACKAGES if sentinel["module"].startswith(prefix))
    path = src / sentinel["module"].removeprefix(root)
    for compiled in (path.parent / "__pycache__").glob(f"{path.stem}.*.pyc"):
        compiled.unlink()
    lines = path.read_text().splitlines(keepends=True)
    at = [n for n, line in enumerate(lines) if line.strip() == sentinel["before"]]
    assert len(at) == 1, (f"{sentinel['module']}: the line {sentinel['before']!r} is there {len(at)} times, not "
                          "once: the module changed; draw the sentinel again (bench/mutation/sentinels.toml)")
    line = lines[at[0]]
    lines[at[0]] = line[: len(line) - len(line.lstrip())] + sentinel["after"] + "\n"
    path.write_text("".join(lines))
    return src


def judged(sentinel: dict[str, Any], where: Path) -> subprocess.CompletedProcess[str]:
    """The sentinel's test, on its backend, run on a mutated copy of the package under ``where``."""
    src = mutated_copy(sentinel, where)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FILTERPROOF_", "PYTEST_"))}
    env["PYTHONPATH"] = str(src)
    return subprocess.run([sys.executable, "-m", "pytest", *UNUSED_PLUGINS, "--pyargs", "filterproof.conformance",
                           "--backend", sentinel["backend"], "-k", sentinel["test"], "-x", "-q", "-p",
                           "no:cacheprovider", *required(sentinel)],
                          cwd=where, env=env, capture_output=True, text=True, timeout=600)


def required(sentinel: dict[str, Any]) -> list[str]:
    """``--conformance-require`` as the mutation plan gave it to the sentinel's backend (``require``): a mutant
    that makes a store lose a capability fails only where the run requires it."""
    return ["--conformance-require", sentinel["require"]] if sentinel.get("require") else []


@pytest.mark.slow
@pytest.mark.parametrize("sentinel", SENTINELS, ids=[f"{s['module'].split('/')[-1]}:{s['after']}" for s in SENTINELS])
def test_a_killed_mutant_stays_killed(sentinel: dict[str, Any], tmp_path: Path) -> None:
    """The mutant fails the test that killed it, on its backend."""
    run = judged(sentinel, tmp_path)
    assert run.returncode == pytest.ExitCode.TESTS_FAILED, (
        f"{sentinel['module']}: {sentinel['before']!r} -> {sentinel['after']!r} survived {sentinel['test']} on "
        f"{sentinel['backend']} (exit {run.returncode}): a check that killed it was weakened\n"
        + "\n".join(run.stdout.splitlines()[-15:]))


@pytest.mark.slow
def test_an_equivalent_mutant_passes_where_the_sentinels_fail(tmp_path: Path) -> None:
    """The harness tells a survivor from a killed mutant: an equivalent mutant (bench/mutation/equivalent.toml,
    an open end above 9999-12-31) passes the date checks on LanceDB, which the date sentinel fails."""
    equivalent = {"module": "src/filterproof/adapters/datecodec.py", "before": "OPEN_UNTIL = 99_999_999",
                  "after": "OPEN_UNTIL = 100000000", "backend": "lancedb", "test": "test_date_boundaries"}
    run = judged(equivalent, tmp_path)
    assert run.returncode == pytest.ExitCode.OK, "\n".join(run.stdout.splitlines()[-15:])
