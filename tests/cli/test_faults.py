"""Faults during a real run: SIGTERM, Ctrl-C twice, a store's server killed. Nothing may be left behind.

Each test runs ``filterproof compare`` as a child process with its own ``TMPDIR``,
interrupts it the way CI runners, ``timeout`` and impatient users do, and then checks
that no process and no temporary directory of the run survives.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

FILTERPROOF = [sys.executable, "-m", "filterproof.cli"]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated fixture big enough that ingesting it takes a few seconds."""
    path = tmp_path_factory.mktemp("corpus") / "corpus.json"
    subprocess.run([*FILTERPROOF, "generate", str(path), "-n", "6000", "--selectivity", "0.01,0.1",
                    "--cases-per-level", "3"], check=True, capture_output=True)
    return path


def processes_mentioning(text: str) -> list[int]:
    """Processes whose command line holds ``text``; ``*`` in it matches one path component (the worker's
    directory: each backend runs in a worker process whose temporary directories are inside its own)."""
    pattern = re.compile(re.escape(text).replace(re.escape("*"), "[^/ ]*"))
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if pattern.search(cmdline):
            found.append(int(entry.name))
    return found


def chroma_answers(tmp: Path) -> bool:
    """The run's ``chroma run`` is up and answering (its ``--port`` accepts connections)."""
    import socket

    for pid in processes_mentioning(f"{tmp}/filterproof-worker-*/filterproof-chroma"):
        args = (Path("/proc") / str(pid) / "cmdline").read_bytes().split(b"\0")
        if b"--port" in args:
            port = int(args[args.index(b"--port") + 1])
            with socket.socket() as probe:
                probe.settimeout(0.2)
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    return True
    return False


def wait_for(condition: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the run to reach the point to interrupt")
        time.sleep(0.05)


def _as_a_foreground_job() -> None:
    """SIGINT at its default, as a terminal gives it to the job in front. A shell's background job
    (`bash .ci/run &`, nohup) inherits SIGINT ignored, and filterproof rightly leaves an ignored
    SIGINT ignored: a Ctrl-C test would then see the run finish normally."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(tmp: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "TMPDIR": str(tmp), "CHROMA_URL": ""}
    return subprocess.Popen([*FILTERPROOF, "compare", *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_as_a_foreground_job)


def left_behind(tmp: Path) -> list[str]:
    return sorted(p.name for p in tmp.iterdir() if p.name.startswith("filterproof-"))


@pytest.mark.parametrize("signals", [[signal.SIGTERM], [signal.SIGINT, signal.SIGINT]], ids=["sigterm", "ctrl-c-twice"])
def test_interrupting_a_chroma_server_run_leaves_nothing(tmp_path: Path, corpus: Path, signals: list[int]) -> None:
    run = start(tmp_path, str(corpus), "-b", "chroma-server")
    wait_for(lambda: bool(processes_mentioning(str(tmp_path))) and bool(left_behind(tmp_path)))
    time.sleep(1.0)  # the server answers and the ingest is under way
    for sig in signals:
        run.send_signal(sig)
        time.sleep(0.05)
    _, err = run.communicate(timeout=60)
    assert run.returncode != 0
    assert processes_mentioning(str(tmp_path)) == [], "chroma run outlived the interrupted compare"
    assert left_behind(tmp_path) == [], err


def test_sigterm_during_a_qdrant_edge_run_removes_its_directory(tmp_path: Path, corpus: Path) -> None:
    run = start(tmp_path, str(corpus), "-b", "qdrant-edge")
    wait_for(lambda: bool(left_behind(tmp_path)))
    time.sleep(0.5)
    run.send_signal(signal.SIGTERM)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 128 + signal.SIGTERM, err
    assert left_behind(tmp_path) == [], err


def test_a_killed_chroma_server_is_one_line_and_the_other_results_are_kept(tmp_path: Path, corpus: Path) -> None:
    out = tmp_path / "out.json"
    run = start(tmp_path, str(corpus), "-b", "reference", "-b", "chroma-server", "--json", str(out))
    wait_for(lambda: chroma_answers(tmp_path))
    time.sleep(0.5)
    for pid in processes_mentioning(f"{tmp_path}/filterproof-worker-*/filterproof-chroma"):
        os.kill(pid, signal.SIGKILL)
    stdout, err = run.communicate(timeout=120)
    assert run.returncode == 1, stdout + err
    assert "Traceback" not in stdout + err
    assert "chroma-server failed on corpus" in err
    import json

    doc = json.loads(out.read_text())
    assert doc["complete"] is False
    statuses = {b["label"]: b["status"] for b in doc["backends"]}
    assert statuses == {"reference": "ok", "chroma-server": "failed"}
    assert any(r["backend"] == "reference" for r in doc["cases"])
    assert left_behind(tmp_path) == []
