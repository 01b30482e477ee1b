"""The guardian (``filterproof.servers.guardian``): what a killed run registered is removed, and nothing else is
touched."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from filterproof.servers.guardian import clean, started

PARENT = """
import os, signal, subprocess, sys
from filterproof.servers import guardian
guardian.watch()
quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
sleeper = subprocess.Popen(["sleep", "60"], start_new_session=True, **quiet)
guardian.guard(path=sys.argv[1])
guardian.guard(process=sleeper.pid)
print(sleeper.pid, flush=True)
if sys.argv[2] == "killed":
    os.kill(os.getpid(), signal.SIGKILL)
"""


def run_parent(tmp_path: Path, how: str) -> tuple[Path, int]:
    made = tmp_path / "left-by-the-run"
    made.mkdir()
    (made / "data").write_text("x")
    done = subprocess.run([sys.executable, "-c", PARENT, str(made), how], capture_output=True, text=True,
                          timeout=60, check=False)
    return made, int(done.stdout.split()[0])


def ended(pid: int, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while started(pid) is not None:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_killed_run_leaves_nothing_it_registered(tmp_path: Path) -> None:
    """SIGKILL runs no handler: the guardian sees its parent gone and removes the directory, kills the process."""
    made, sleeper = run_parent(tmp_path, "killed")
    assert ended(sleeper), "the registered process outlived the killed run"
    deadline = time.monotonic() + 5
    while made.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not made.exists()


def test_a_run_that_ends_normally_is_left_to_clean_up_itself(tmp_path: Path) -> None:
    """The run says ``done`` at exit: the guardian touches nothing (here the run left both on purpose)."""
    made, sleeper = run_parent(tmp_path, "normally")
    time.sleep(0.5)
    try:
        assert made.exists() and started(sleeper) is not None
    finally:
        subprocess.run(["kill", str(sleeper)], check=False)


def test_a_pid_given_to_another_process_is_never_signalled() -> None:
    """A process is signalled only if its start time is the one recorded: never a stranger that reused the pid."""
    stranger = subprocess.Popen(["sleep", "60"])
    try:
        clean([{"process": stranger.pid, "started": (started(stranger.pid) or 0) + 1}])
        time.sleep(0.2)
        assert stranger.poll() is None
        clean([{"process": stranger.pid, "started": started(stranger.pid)}])
        assert stranger.wait(5) == -9
    finally:
        stranger.kill()
