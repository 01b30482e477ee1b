"""Prompt stops, and nothing left behind (issue 25): the real command line, stopped and killed mid-run.

``compare`` is started in a subprocess on a generated corpus large enough that its
phases take seconds; each test waits until a worker reports the phase it wants (the
worker's name in ``/proc/PID/comm``, ``fp build`` during an index build), then sends
the signal, and checks what a CI runner or a container stop would leave: how long the
command took to end, its exit status, the report it wrote, and every process and
directory the run had made.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from filterproof.servers.guardian import started
from support.processes import default_sigint, descendants, processes, wait_for

FP = [sys.executable, "-m", "filterproof.cli"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """5,000 generated documents: qdrant-edge's index build on them takes several seconds here."""
    out = tmp_path_factory.mktemp("corpus") / "corpus.json"
    subprocess.run([*FP, "generate", "-n", "5000", "--seed", "3", str(out)], check=True, capture_output=True)
    return out


@pytest.fixture(scope="module")
def many_queries(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """1,000 documents and 480 cases: a run reaches its queries in about 3 s and stays in them for a second or more
    (on the 5,000 documents of ``corpus`` it reached them after about 40 s of ingest and index build). A stop writes
    the report of what completed, the reference's cases included: at 3,600 cases that took 1.3 s of the stop's 2
    before the report's write was made faster (bench/report_write.py: 1.2 s for the whole stop under load)."""
    out = tmp_path_factory.mktemp("queries") / "corpus.json"
    subprocess.run([*FP, "generate", "-n", "1000", "--cases-per-level", "60", "--seed", "3", str(out)], check=True,
                   capture_output=True)
    return out


def in_phase(run: subprocess.Popen[str], phase: str) -> bool:
    assert run.poll() is None, f"the run ended before reaching {phase}: {run.communicate()}"
    return any(comm == f"fp {phase}"[:15] for pid, _, comm in processes() if pid in descendants(run.pid))


def start(corpus: Path, tmp_path: Path, backend: str, command: str = "compare") -> subprocess.Popen[str]:
    output = (["--no-cases", "--json", str(tmp_path / "out.json")] if command == "compare" else
              ["--out", str(tmp_path / "sweep"), "--latency-samples", "0", "--embedding", "tfidf"])
    return subprocess.Popen([*FP, command, str(corpus), "-b", "reference", "-b", backend, *output],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "TMPDIR": str(tmp_path)})


def gone(pids: dict[int, int | None], within: float = 5.0) -> list[int]:
    """The pids (with their start times) still running after ``within`` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        left = [pid for pid, when in pids.items() if when is not None and started(pid) == when]
        if not left:
            return []
        time.sleep(0.05)
    return left


def directories(cmdlines: dict[int, str]) -> list[Path]:
    """The data directories named on the servers' command lines (``chroma run --path``, ``postgres -D``)."""
    found = []
    for line in cmdlines.values():
        words = line.split()
        for flag in ("--path", "-D"):
            if flag in words:
                found.append(Path(words[words.index(flag) + 1]).parent)
    return found


@pytest.mark.slow  # about 15 s each: the ingest of 5,000 documents into qdrant-edge, then the stop
@pytest.mark.parametrize(("command", "phase"), [("compare", "ingest"), ("compare", "build"), ("compare", "queries"),
                                                ("sweep", "build")])
def test_sigterm_ends_the_run_within_two_seconds(request: pytest.FixtureRequest, tmp_path: Path, command: str,
                                                 phase: str) -> None:
    """In every phase of a qdrant-edge run, its native index build included (it holds the interpreter lock).

    Hint: stores run in a worker (``isolation``) that the main process kills after ``STOP_GRACE``."""
    corpus = request.getfixturevalue("many_queries" if phase == "queries" else "corpus")
    run = start(corpus, tmp_path, "qdrant-edge", command)
    wait_for(f"qdrant-edge's {phase}", lambda: in_phase(run, phase))
    below = {pid: started(pid) for pid in descendants(run.pid)}
    sent = time.monotonic()
    run.send_signal(signal.SIGTERM)
    _, err = run.communicate(timeout=30)
    took = time.monotonic() - sent
    assert took < 2.0, f"the run took {took:.2f} s to end after SIGTERM during {phase}"
    assert run.returncode == 143, (run.returncode, err)
    report = json.loads(report_of(tmp_path, command).read_text())
    assert report["stopped"] == 143 and report["complete"] is False
    assert [b["label"] for b in report["backends"]] == ["reference"]  # what completed
    assert gone(below) == [], "a worker outlived the stop"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("filterproof-")] == []
    assert "stopped (SIGTERM)" in err


def report_of(tmp_path: Path, command: str) -> Path:
    return tmp_path / ("out.json" if command == "compare" else "sweep/report.json")


@pytest.mark.slow  # about 30 s each: the server's start, then a run long enough to be killed in
@pytest.mark.parametrize(("backend", "server"), [("chroma-server", " run --path "), ("pgvector", "bin/postgres -D ")])
def test_sigkill_leaves_no_process_and_no_directory(corpus: Path, tmp_path: Path, backend: str, server: str) -> None:
    """Hint: the guardian (``filterproof.servers.guardian``) stops what a killed run leaves: servers, workers,
    directories."""
    if backend == "chroma-server" and os.environ.get("CHROMA_URL"):
        pytest.skip("CHROMA_URL names a server of the caller's: filterproof starts none")
    if backend == "pgvector" and os.environ.get("PGVECTOR_DSN"):
        pytest.skip("PGVECTOR_DSN names a server of the caller's: filterproof starts none")
    run = start(corpus, tmp_path, backend)
    wait_for(f"{backend}'s ingest", lambda: in_phase(run, "ingest") or in_phase(run, "queries"))
    below = descendants(run.pid)
    assert any(server in line for line in below.values()), below
    times = {pid: started(pid) for pid in below}
    dirs = directories({pid: line for pid, line in below.items() if server in line})
    run.kill()
    run.communicate(timeout=30)
    assert gone(times) == [], f"left running: {[below[p] for p in gone(times, 0)]}"
    deadline = time.monotonic() + 5
    while any(d.exists() for d in dirs) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [d for d in dirs if d.exists()] == [], "a server's directory outlived the kill"
    wait_for("the worker's directory to go", lambda: not [p for p in tmp_path.iterdir()
                                                          if p.name.startswith("filterproof-")], timeout=5)


@pytest.mark.slow  # about 15 s: the ingest of 5,000 documents into qdrant-edge, then Ctrl-C
def test_ctrl_c_ends_the_run_within_two_seconds(corpus: Path, tmp_path: Path) -> None:
    """A terminal's Ctrl-C reaches the whole process group: the worker ignores it and the main process decides."""
    run = subprocess.Popen([*FP, "compare", str(corpus), "-b", "reference", "-b", "qdrant-edge", "--no-cases",
                            "--json", str(tmp_path / "out.json")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, env={**os.environ, "TMPDIR": str(tmp_path)}, start_new_session=True,
                           preexec_fn=default_sigint)
    wait_for("qdrant-edge's build", lambda: in_phase(run, "build"))
    sent = time.monotonic()
    os.killpg(run.pid, signal.SIGINT)
    _, err = run.communicate(timeout=30)
    assert time.monotonic() - sent < 2.0
    assert run.returncode == 130, (run.returncode, err)
    assert json.loads((tmp_path / "out.json").read_text())["stopped"] == 130
    assert "Traceback" not in err and "stopped (Ctrl-C)" in err


@pytest.mark.slow  # about 10 s: the matrix's first targets, then the stop
def test_sigterm_stops_the_matrix_within_two_seconds(tmp_path: Path) -> None:
    """The matrix runs its small probes in process: the signal's handler runs between two store calls."""
    run = subprocess.Popen([*FP, "matrix", "--json", str(tmp_path / "matrix.json")], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, env={**os.environ, "TMPDIR": str(tmp_path)})
    time.sleep(4)
    assert run.poll() is None, "the matrix ended within 4 s: nothing to stop"
    sent = time.monotonic()
    run.send_signal(signal.SIGTERM)
    _, err = run.communicate(timeout=30)
    assert time.monotonic() - sent < 2.0
    assert run.returncode == 143, (run.returncode, err)
    assert json.loads((tmp_path / "matrix.json").read_text())["stopped"] == 143
