"""The processes a test started, read from ``/proc``: every descendant of a run, and waiting for one to appear."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

UNUSED_PLUGINS = ["-p", "no:langsmith_plugin", "-p", "no:anyio"]
"""For a pytest in a child process outside the repository's configuration (which turns them off): the pytest
plugins langsmith and anyio install, which no test here uses, cost 1.4 s a process to load."""


def processes() -> Iterator[tuple[int, int, str]]:
    """(pid, parent pid, comm) of every process."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_bytes()
            except OSError:
                continue
            head, tail = stat.rsplit(b")", 1)
            yield int(entry), int(tail.split()[1]), head.split(b"(", 1)[1].decode(errors="replace")


def descendants(root: int) -> dict[int, str]:
    """Every process below ``root``, by pid: its command line."""
    table = list(processes())
    found, frontier = {}, {root}
    while frontier:
        frontier = {pid for pid, ppid, _ in table if ppid in frontier and pid not in found}
        for pid in frontier:
            try:
                found[pid] = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                found[pid] = ""
    return found


def default_sigint() -> None:
    """A run started from a background job inherits SIGINT ignored (and Python keeps it so): restore the default
    in the child, so that a Ctrl-C test tests a Ctrl-C however the tests were started."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_for(what: str, check: object, timeout: float = 240.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)
